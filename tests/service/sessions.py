"""Whole sessions played over HTTP by four clients, everything they receive recorded."""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from typing import Any

import httpx
import msgspec

from domain.cards import DECK, Card
from domain.commands import Declaration, Declare
from domain.deal import Phase
from domain.dealing import deal_from_seed
from domain.observations import Observation
from domain.players import STRONG_TRUMPS
from domain.replay import TABLE, replay
from domain.seats import SEATS, Seat
from domain.table_view import TableView
from domain.variants.armut import poor, trumps_of
from service.tools.client import (
    DokoClient,
    EventStream,
    Received,
    SeatClient,
    SseMessage,
    TableClient,
)
from service.tools.play import (
    Player,
    play_session,
)

NAMES = ("north", "east", "south", "west")
STREAM_TIMEOUT = 60.0


class Recorded(msgspec.Struct):
    """A finished session: its table, its last public view, and all that was received."""

    table_id: str
    commitments: tuple[str, ...]
    final: TableView
    transcript: list[Received]


def quiet_soloist(player: Player) -> Player:
    """A player who, holding both QC, always says `healthy`: a silent solo (R4.5)."""

    def play(observation: Observation) -> Any:
        if (
            observation.phase is Phase.RESERVATIONS
            and observation.options.declarations
            and observation.hand.count(Card.QC) == 2
        ):
            assert observation.viewer is not None
            return Declare(observation.viewer, Declaration.HEALTHY)
        return player(observation)

    return play


def presets_with_both_qc(label: str) -> list[list[list[str]]]:
    """12 preset deals, seat ``k % 4`` of deal ``k`` holding both QC."""
    deals = []
    for k in range(12):
        seed = hashlib.sha256(f"{label}:{k}".encode()).digest()
        hands = [list(h) for h in deal_from_seed(seed, Seat(0))]
        holder = hands[k % 4]
        for other in hands:
            if other is holder:
                continue
            while Card.QC in other:
                give = next(c for c in holder if c is not Card.QC)
                other[other.index(Card.QC)] = give
                holder[holder.index(give)] = Card.QC
        assert holder.count(Card.QC) == 2
        deals.append([[c.value for c in h] for h in hands])
    return deals


def replays_exactly(events: Sequence[Any]) -> None:
    """The table's log replays by its rules, every event valid (`domain.replay`)."""
    result = replay(events, TABLE)
    assert result.ok, result.error
    assert result.valid == len(events)


async def verified_by_the_service(http: httpx.AsyncClient, table_id: str, deals: int = 12) -> None:
    """The service's own verification of each of the table's ``deals`` scored deals agrees."""
    for deal_no in range(1, deals + 1):
        response = await http.get(f"/tables/{table_id}/deals/{deal_no}/verification")
        assert response.status_code == 200, response.text
        assert response.json()["ok"] is True, response.json()


async def _read_until(
    stream: EventStream, done: Callable[[SseMessage], bool], ready: asyncio.Event
) -> None:
    async with stream as messages:
        ready.set()
        async for message in messages:
            if done(message):
                return


def _session_finished(message: SseMessage) -> bool:
    return message.event == "session_finished"


async def record_session(
    base_url: str,
    players: Sequence[Player],
    *,
    first_dealer: int | None = None,
    presets: list[list[list[str]]] | None = None,
    seeds: list[str] | None = None,
    rules: Mapping[str, str | bool | int] | None = None,
) -> Recorded:
    """Create a table (with the host's ``seeds`` or ``presets``, else server seeds), seat
    four clients (each its own HTTP client and token), stream every seat's events, the
    public events and the feed while the session is played."""
    transcript: list[Received] = []
    async with AsyncExitStack() as stack:

        async def client() -> DokoClient:
            http = httpx.AsyncClient(base_url=base_url, timeout=10.0)
            await stack.enter_async_context(http)
            return DokoClient(http, transcript)

        readers: list[asyncio.Task[None]] = []

        async def start(stream: EventStream, done: Callable[[SseMessage], bool]) -> None:
            ready = asyncio.Event()
            readers.append(asyncio.create_task(_read_until(stream, done, ready)))
            await asyncio.wait_for(ready.wait(), 10)

        host = await client()
        feed_table: dict[str, str] = {}
        await start(host.feed(), lambda m: _feed_done(m, feed_table))
        table = await host.create_table(  # public: the feed shows it too
            "recorded",
            first_dealer=first_dealer,
            seeds=seeds,
            presets=presets,
            visibility="public",
            rules=rules,
        )
        feed_table["id"] = table.table_id
        spectator: TableClient = (await client()).table(table.table_id)
        await start(spectator.events(), _session_finished)
        seats = []
        for seat in SEATS:
            seat_api = await client()
            fixed = presets or seeds  # R2.2: no entropy where the deals are fixed
            entropy = b"" if fixed else random.Random(seat).randbytes(16)
            taken = await seat_api.table(table.table_id).take_seat(
                NAMES[seat], seat=seat, entropy=entropy
            )
            seats.append(taken)
            await start(taken.events(), _session_finished)
        watcher = asyncio.create_task(_watch(spectator))
        readers.append(watcher)
        try:
            await play_session(seats, players)
            final = await spectator.view()
            async with asyncio.timeout(STREAM_TIMEOUT):
                await asyncio.gather(*readers)
        finally:
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
    return Recorded(table.table_id, table.commitments, final, transcript)


async def _watch(spectator: TableClient) -> None:
    """A spectator polling the public view (conditional GETs) until the session is over."""
    while (await spectator.view()).winners is None:
        await asyncio.sleep(0.005)


def _feed_done(message: SseMessage, table: dict[str, str]) -> bool:
    return message.event == "session_finished" and message.json().get("table_id") == table.get("id")


def preset_deal(lead: tuple[Card, ...] = ()) -> list[list[str]]:
    """Deal 1 with the first dealer 0: seat 1 leads and holds QC and AS (and ``lead``), seat
    3 the other QC (a normal game: Re is seats 1 and 3), seat 2 holds KS among other suits."""
    fixed = {1: [Card.QC, Card.AS, *lead], 2: [Card.KS], 3: [Card.QC]}
    rest = list(DECK)
    for cards in fixed.values():
        for card in cards:
            rest.remove(card)
    hands: list[list[Card]] = [list(fixed.get(s, [])) for s in SEATS]
    for card in rest:
        hands[min(SEATS, key=lambda s: len(hands[s]))].append(card)
    return [[c.value for c in hand] for hand in hands]


POOR = "AD 10D 9D AC AC 10C KC AS AS 10S KS AH"
"""Three trumps, a fox among them (V4.1)."""
RICH = "10H 10H QC QS QS QH QH QD JC JS JH JD"
"""Twelve trumps: the greedy player accepts an Armut holding at least eight (V4.3)."""


def armut_deal() -> list[list[str]]:
    """Deal 1 with the first dealer 0: seat 1 (to declare first) holds three trumps, seat 2
    (asked first) twelve, seat 3 the other QC and seat 0 the rest."""
    poor_hand, rich = [Card.parse(c) for c in POOR.split()], [Card.parse(c) for c in RICH.split()]
    rest = _rest_of(list(DECK), [*poor_hand, *rich])
    third = [Card.QC, *[c for c in rest if c is not Card.QC][:11]]
    return [[c.value for c in h] for h in (_rest_of(rest, third), poor_hand, rich, third)]


def poor_seed(first_dealer: Seat, refusing: bool = False) -> str:
    """A host seed (hex) whose deal 1, dealt by ``first_dealer`` without entropy, gives some
    hand three trumps or fewer (V4.1); with ``refusing`` the hand of the first to declare
    (the dealer's left), and the dealer's (asked last, V4.3) fewer trumps than the greedy
    player takes an Armut with (`domain.players.STRONG_TRUMPS`; not all three asked can:
    they hold 23 trumps or more). Searched, not written by hand."""
    first = first_dealer.left()
    for i in range(100_000):
        seed = i.to_bytes(32, "big")
        hands = deal_from_seed(seed, first_dealer)
        if not refusing and any(map(poor, hands)):
            return seed.hex()
        weak = len(trumps_of(hands[first_dealer])) < STRONG_TRUMPS
        if refusing and poor(hands[first]) and weak:
            return seed.hex()
    raise AssertionError("no seed found")


def _rest_of(cards: list[Card], taken: list[Card]) -> list[Card]:
    """``cards`` without ``taken`` (each copy once)."""
    rest = list(cards)
    for card in taken:
        rest.remove(card)
    return rest


class Game(msgspec.Struct):
    table: TableClient
    seats: list[SeatClient]


async def new_game(api: DokoClient) -> Game:
    """A public table whose deal 1 is `preset_deal`, first dealer 0, four players seated."""
    presets = presets_with_both_qc("errors")
    presets[0] = preset_deal()
    table = await api.create_table("errors", first_dealer=0, presets=presets, visibility="public")
    seats = [await table.take_seat(f"p{s}", seat=s) for s in SEATS]
    return Game(table, seats)


async def all_bot_tables(api: DokoClient, count: int) -> list[str]:
    """``count`` tables of four server-side bots each (they play by themselves)."""
    tables = []
    for n in range(count):
        table = await api.create_table(f"bots {n}", visibility="public")
        for kind in ("random", "greedy", "random", "greedy"):
            await table.seat_bot(kind)
        tables.append(table.table_id)
    return tables


async def human_with_bots(api: DokoClient, first_dealer: int | None = None) -> SeatClient:
    """A table of one human client (seat 0) and three server-side bots: the human's seat."""
    table = await api.create_table("human", first_dealer=first_dealer, visibility="public")
    human = await table.take_seat("human", seat=0)
    for kind in ("greedy", "random", "greedy"):
        await table.seat_bot(kind)
    return human
