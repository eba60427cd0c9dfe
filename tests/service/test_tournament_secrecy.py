"""Shared deals must not leak (E5.3), proven with the suite's oracle.

A tournament of eight players at two tables plays round 1; the test drives every seat with a
random player (the seats' own views only), so it decides when each table acts: table B
(table 2) scores deal 1 while table A (table 1) is still in it. Everything the tournament's
routes and its stream delivered to A's players then is held against the independent
reading of the logs (`tests.service.truth.RoundAuditor`, `tests.service.knowledge`), and
A's own answers against the table's oracle (`Auditor`). A planted leak (the deal compared
once the first table has scored it) must be caught by the same oracle.

And the side channel of the tournament's stream: two such tournaments with the same deals and
seating, where table B plays deal 1 once with an announcement more and once without, send
A's players exactly the same until A has scored deal 1 too; then each tells B's version.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from domain.commands import Announce, DealCommand, Declaration, Declare, PlayCard
from domain.observations import Observation
from domain.seats import Seat
from domain.tournament import TournamentState
from infra.event_store import EventStore
from infra.tournaments import Tournaments
from service.tools.client import (
    DokoClient,
    ProblemError,
    Received,
    SeatClient,
    SseMessage,
    TournamentPlayer,
)
from service.tools.play import (
    Stuck,
    play_session,
    random_players,
)
from tests.service.sessions import presets_with_both_qc
from tests.service.truth import TOURNAMENT_SOURCES, Auditor, RoundAuditor, Truth

NAMES = ("Anna", "Ben", "Carla", "Dieter", "Eva", "Fritz", "Gerd", "Hanna")
WAIT = 60.0
"""The bound of every wait for a message (never reached unless something is broken)."""


class Player(msgspec.Struct):
    """A player of table A with its own recording client: what it was delivered."""

    me: TournamentPlayer
    seat: SeatClient
    transcript: list[Received]
    heard: list[SseMessage]


async def _listen(player: Player, ready: asyncio.Event) -> None:
    async with player.me.tournament.events(token=player.me.token) as messages:
        ready.set()
        async for message in messages:
            player.heard.append(message)


async def caught_up(player: Player) -> list[SseMessage]:
    """Everything the tournament's stream has for the player now: a new connection from its
    start, whose catch-up ends with the standings (nothing is committed meanwhile)."""
    read: list[SseMessage] = []
    async with asyncio.timeout(WAIT), player.me.tournament.events(token=player.me.token) as got:
        async for message in got:
            read.append(message)
            if message.event == "standings":
                break
    player.heard += read
    return read


class Round(msgspec.Struct):
    """A tournament's round 1 with table B one deal ahead of table A."""

    tournament_id: str
    director: DokoClient
    host_token: str
    a: list[Player]
    b: list[SeatClient]


async def b_ahead_of_a(api: DokoClient, http: httpx.AsyncClient) -> Round:
    """Round 1 of a new tournament: table A has acted a few times in deal 1, table B has scored
    deal 1 (and dealt deal 2); nobody acts any more. A's players listen to the tournament's
    stream from the start, and read it anew once B has scored (`caught_up`)."""
    tournament = await api.create_tournament("Secrets", rounds=1)
    registered = [await tournament.register(name) for name in NAMES]
    await tournament.start_round(1)
    a: list[Player] = []
    b: list[SeatClient] = []
    for player in registered:
        where = await player.table()
        if where.table_no == 1:
            transcript: list[Received] = []
            client = DokoClient(http, transcript).tournament(tournament.tournament_id)
            me = TournamentPlayer(client, player.player, player.name, player.token)
            a.append(Player(me, await me.seat(), transcript, []))
        else:
            b.append(await player.seat())
    ready = [asyncio.Event() for _ in a]
    listeners = [asyncio.create_task(_listen(p, r)) for p, r in zip(a, ready, strict=True)]
    try:
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in ready)), WAIT)
        with pytest.raises(Stuck):
            await play_session([p.seat for p in a], random_players(1), max_actions=6)
        await play_session(b, random_players(2), deals=1)
        for player in a:
            heard = await caught_up(player)
            assert not any(_scored(m, 2, 1) for m in heard), "E5.3"
            assert any(m.event == "table_progress" for m in heard), "B's progress is public"
    finally:
        for listener in listeners:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
    assert tournament.host_token is not None
    return Round(tournament.tournament_id, api, tournament.host_token, a, b)


def _progressed(message: SseMessage, table_no: int, deals: int) -> bool:
    if message.event != "table_progress":
        return False
    data = msgspec.json.decode(message.data)
    return bool(data["table_no"] == table_no and data["deals"] == deals)


def _scored(message: SseMessage, table_no: int, deal_no: int) -> bool:
    if message.event != "table_scored":
        return False
    data = msgspec.json.decode(message.data)
    return bool(data["table_no"] == table_no and data["deal_no"] == deal_no)


async def probe(player: Player) -> None:
    """What a curious player of table A asks the tournament for (every answer recorded)."""
    me = player.me
    await me.tournament.view(token=me.token)
    await me.tournament.standings(token=me.token)
    await me.table()
    await player.seat.view()


async def truths(pool: asyncpg.Pool, tournament_id: str) -> tuple[list, list[Truth]]:  # type: ignore[type-arg]
    store = EventStore(pool)
    tables = [
        Truth(f"{tournament_id}-r1t{n}", await store.read_stream(f"{tournament_id}-r1t{n}"))
        for n in (1, 2)
    ]
    return await store.read_stream(tournament_id), tables


async def audit(pool: asyncpg.Pool, round_: Round) -> list[RoundAuditor]:
    """Each A player's deliveries against the oracle; the table's own ones too."""
    tournament_log, tables = await truths(pool, round_.tournament_id)
    auditors = []
    for player in round_.a:
        seat = int(player.seat.seat)
        auditor = RoundAuditor(tournament_log, tables, 0, seat)
        auditor.audit(player.transcript)
        auditors.append(auditor)
        table = Auditor(tables[0])
        table.audit([r for r in player.transcript if r.source not in TOURNAMENT_SOURCES])
        assert not table.failures, table.failures
    return auditors


async def refused(call: Callable[[], object]) -> tuple[int, str | None, str | None]:
    with pytest.raises(ProblemError) as error:
        await call()  # type: ignore[misc]
    return error.value.status, error.value.code, error.value.rule


async def test_no_message_to_a_player_of_table_a_carries_deal_1_before_a_scored_it(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    round_ = await b_ahead_of_a(api, http)
    b_table = f"{round_.tournament_id}-r1t2"
    director = {"authorization": f"Bearer {round_.host_token}"}
    for player in round_.a:
        await probe(player)
        me = player.me
        assert await refused(lambda me=me: me.tournament.compare(1, 1, token=me.token)) == (
            409,
            "deal_not_public",
            "E5.3",
        )
        as_player = {"authorization": f"Bearer {me.token}"}
        other = await http.get(f"/tables/{b_table}/deals/1", headers=as_player)
        assert (other.status_code, other.json()["code"]) == (404, "table_not_found")
    for suffix in ("", "/replay", "/verification", "/review"):
        hidden = await http.get(f"/tables/{b_table}/deals/1{suffix}", headers=director)
        assert (hidden.status_code, hidden.json()["code"], hidden.json()["rule"]) == (
            409,
            "deal_not_public",
            "E5.3",
        )
    feed_tables = await http.get("/tables", params={"limit": 100})
    assert b_table not in {t["table_id"] for t in feed_tables.json()["tables"]}

    auditors = await audit(pool, round_)
    for auditor in auditors:
        assert not auditor.failures, auditor.failures
        assert auditor.checked >= 3 and auditor.cards_checked >= 3  # not vacuous
        assert auditor.public == 0 and auditor.known is not None

    # Table A scores deal 1: now it is public, and the deal is compared across the tables.
    await play_session([p.seat for p in round_.a], random_players(3), deals=1)
    me = round_.a[0].me
    compared = await me.tournament.compare(1, 1, token=me.token)
    records = [t.record for t in compared.tables]
    assert all(r is not None for r in records)
    assert records[0].hands == records[1].hands, "the same cards in the same seats (E5.1)"  # type: ignore[union-attr]
    shown = await http.get(f"/tables/{b_table}/deals/1", headers=director)
    assert shown.status_code == 200


async def test_the_oracle_catches_a_deal_compared_when_the_first_table_scored_it(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A planted leak: a deal is taken for public as soon as the first table of the round
    has scored it. The oracle names the seed of deal 1 and the comparison of a deal that
    is not public."""

    async def first_table_scored(
        self: Tournaments, tournament_id: str, state: TournamentState, round_no: int
    ) -> int:
        tables = await self.round_tables(tournament_id, state, round_no)
        return max(len(t.session.sheet) for t in tables if t is not None)

    monkeypatch.setattr(Tournaments, "public_deals", first_table_scored)
    round_ = await b_ahead_of_a(api, http)
    me = round_.a[0].me
    await me.tournament.compare(1, 1, token=me.token)
    auditors = await audit(pool, round_)
    failures = auditors[0].failures
    assert any("compared before it is public" in f for f in failures), failures
    _, tables = await truths(pool, round_.tournament_id)
    seed = tables[0].log.events[1]["server_seeds"][0]
    assert any("secret strings" in f and seed in f for f in failures), failures


def plain(observation: Observation) -> DealCommand | None:
    """A player that never varies: healthy, the first card it may play, no word."""
    seat, may = observation.viewer, observation.options
    assert seat is not None
    if may.declarations:
        return Declare(seat, Declaration.HEALTHY)
    if may.cards:
        return PlayCard(seat, may.cards[0])
    return None


HEX = re.compile(r"^[0-9a-f]{64}$")


def same_for_both(message: SseMessage, tournament_id: str) -> tuple[str | None, str | None, Any]:
    """A message of the tournament's stream, its id, type and data, without what differs
    between any two tournaments: their ids (and so their tables'), their hash chains and
    commitments (64 hex digits)."""

    def plain_json(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain_json(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain_json(v) for v in value]
        if isinstance(value, str):
            return "<hex>" if HEX.match(value) else value.replace(tournament_id, "<tournament>")
        return value

    return message.id, message.event, plain_json(msgspec.json.decode(message.data))


async def a_round_where_b_plays_deal_1(
    api: DokoClient, http: httpx.AsyncClient, *, word: bool
) -> tuple[list[Any], list[Any]]:
    """A one-round tournament of eight with fixed deals and seating: table B plays deal 1 (a
    seat of it announcing once, with ``word``), then table A does. What A's players received
    of the tournament's stream until then, once B's progress has reached each of them (the
    stream delivers it when it does: collected earlier, the lists would differ by what had
    arrived), and what a new connection reads then; and what they received once A scored
    deal 1 too; each as `same_for_both`."""
    tournament = await api.create_tournament(
        "Side channel", rounds=1, presets=[presets_with_both_qc("side channel")]
    )
    registered = [await tournament.register(name) for name in NAMES]
    await tournament.start_round(1, [[0, 1, 2, 3], [4, 5, 6, 7]])
    a: list[Player] = []
    for player in registered[:4]:
        client = DokoClient(http, []).tournament(tournament.tournament_id)
        me = TournamentPlayer(client, player.player, player.name, player.token)
        a.append(Player(me, await me.seat(), [], []))
    b = sorted([await player.seat() for player in registered[4:]], key=lambda s: s.seat)
    ready = [asyncio.Event() for _ in a]
    listeners = [asyncio.create_task(_listen(p, r)) for p, r in zip(a, ready, strict=True)]
    try:
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in ready)), WAIT)
        for seat in (1, 2, 3, 0):  # deal 1: seat 0 deals, seat 1 declares first (R4.1)
            await b[seat].send(Declare(Seat(seat), Declaration.HEALTHY))
        if word:  # seat 1's first word (R6.1: at any moment of play)
            allowed = (await b[1].view()).deal.options.announcements  # type: ignore[union-attr]
            await b[1].send(Announce(Seat(1), allowed[0].word))
        await play_session(b, [plain] * 4, deals=1)
        async with asyncio.timeout(WAIT):  # what B's deal makes, heard live by all of A
            while not all(any(_progressed(m, 2, 1) for m in p.heard) for p in a):
                await asyncio.sleep(0.02)
        before = [m for p in a for m in p.heard] + [m for p in a for m in await caught_up(p)]
        heard = len(a[0].heard)
        await play_session([p.seat for p in a], [plain] * 4, deals=1)
        async with asyncio.timeout(WAIT):
            while not any(_scored(m, 1, 1) for m in a[0].heard[heard:]):  # A's own head
                await asyncio.sleep(0.02)
    finally:
        for listener in listeners:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
    tid = tournament.tournament_id
    return (
        [same_for_both(m, tid) for m in before],
        [same_for_both(m, tid) for m in a[0].heard[heard:]],
    )


async def test_a_slower_table_learns_nothing_of_how_a_faster_one_played_a_deal(
    api: DokoClient, http: httpx.AsyncClient
) -> None:
    """E5.3: the players of table A receive the same from the tournament's stream whether
    table B said a word more in deal 1 or not, until A has scored deal 1 too: no message of
    B's deal, no version of B (which would count B's events), no other numbering, no other
    standings. Then the deal is public, and both tables' heads come, B's version one more
    with the word."""
    quiet, after_quiet = await a_round_where_b_plays_deal_1(api, http, word=False)
    said, after_said = await a_round_where_b_plays_deal_1(api, http, word=True)
    assert said == quiet
    assert {kind for _, kind, _ in quiet} == {
        "event_created",
        "player_registered",
        "round_seated",
        "round_started",
        "table_opened",
        "table_progress",  # B has scored deal 1: public (the tournament's view says so too)
        "standings",
    }

    def versions(heard: list[Any]) -> dict[int, int]:
        return {d["table_no"]: d["version"] for _, kind, d in heard if kind == "table_scored"}

    assert versions(after_said)[2] == versions(after_quiet)[2] + 1
    assert versions(after_said)[1] == versions(after_quiet)[1]
