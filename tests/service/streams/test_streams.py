"""Server-Sent Events: disconnect mid-deal, reconnect with Last-Event-ID, miss nothing.

A seat stream, the public stream and the integration feed each read part of a
deal, disconnect, the game goes on (a contract is named: shown to its namer, the
others are told that the seat named one, R4.3), and each reconnects with the last id it
saw: it receives exactly the events it missed, each once, in order, as its viewer may see
them, with no gap in the ids.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg
import httpx
import msgspec
import pytest

from domain.commands import Declaration, Declare, NameContract, PlayCard
from domain.game_types import GameType
from domain.seats import Seat
from infra.event_store import EventStore
from service.streams.hub import ALL, FAREWELL, RECONNECT_MS, Hub, sse_messages
from service.tools.client import (
    DokoClient,
    SseMessage,
)
from tests.service.knowledge import (
    differences,
    feed_item,
    message,
    with_server_time,
    without_prompt,
)
from tests.service.sessions import Game, new_game, presets_with_both_qc
from tests.service.truth import Truth

WAIT = 10.0


async def read(stream: object, until: Callable[[list[SseMessage]], bool]) -> list[SseMessage]:
    """Messages with ids from a stream (heartbeats skipped) until ``until`` holds, then close."""
    received: list[SseMessage] = []
    async with asyncio.timeout(WAIT), stream as messages:  # type: ignore[attr-defined]
        async for message in messages:
            if message.id is not None:
                received.append(message)
            if until(received):
                break
    return received


def ids(messages: list[SseMessage]) -> list[int]:
    return [int(m.id) for m in messages if m.id is not None]


async def truth_of(pool: asyncpg.Pool, table_id: str) -> Truth:
    return Truth(table_id, await EventStore(pool).read_stream(table_id))


def assert_as_seen_by(truth: Truth, viewer: Seat | None, messages: list[SseMessage]) -> None:
    """Each message is its logged event as the viewer may see it (`knowledge.message`), and
    says whose turn it is then (the domain's fold of the log)."""
    for received in messages:
        assert received.id is not None
        version = int(received.id)
        logged = truth.log.events[version]
        told = received.json()
        assert told["turn"] == truth.states[version].turn
        assert (told["options"] is None) == (viewer is None)
        told = without_prompt(told)
        expected = with_server_time(message(logged, viewer, truth.chain_head(version)), told)
        assert expected is not None, f"a withheld {logged['type']} delivered to {viewer}"
        assert received.event == logged["type"]
        assert not differences(told, expected), differences(told, expected)


async def go_on(game: Game, plays: int) -> None:
    """Seat 1 names a jack solo (hidden from the others), then ``plays`` cards are played."""
    seats = game.seats
    for s in (3, 0):
        await seats[s].send(Declare(Seat(s), Declaration.HEALTHY))
    await seats[1].send(NameContract(Seat(1), GameType.JACK_SOLO))
    for _ in range(plays):
        turn = (await seats[0].view()).deal.turn  # type: ignore[union-attr]
        assert turn is not None
        deal = (await seats[turn].view()).deal
        assert deal is not None
        await seats[turn].send(PlayCard(Seat(turn), deal.options.cards[0]))


async def test_reconnecting_streams_get_exactly_the_missed_events(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    game = await new_game(api)
    seats = game.seats
    await seats[1].send(Declare(Seat(1), Declaration.RESERVATION))
    await seats[2].send(Declare(Seat(2), Declaration.HEALTHY))
    table = game.table
    store = EventStore(pool)
    head = (await store.read_stream(table.table_id))[-1]
    assert head.version == 9  # created, 4 seats, session started, dealt, 2 declarations
    cut = 8  # disconnect mid-deal, one event before the head

    def upto(n: int) -> Callable[[list[SseMessage]], bool]:
        return lambda got: bool(got) and int(got[-1].id or 0) >= n

    first = {
        Seat(2): await read(seats[2].events(), upto(cut)),
        Seat(1): await read(seats[1].events(), upto(cut)),
        None: await read(table.events(), upto(cut)),
    }
    start = (await store.read_all(0))[0].position
    table_positions = [e.position for e in await store.read_all(0) if e.stream_id == table.table_id]
    feed_cut = table_positions[cut - 1]
    feed_first = await read(api.feed(), upto(feed_cut))

    await go_on(game, plays=6)
    truth = await truth_of(pool, table.table_id)
    assert truth.version == 9 + 2 + 2 + 6 + 1  # and the first trick was won
    streams = {
        Seat(2): seats[2].events,
        Seat(1): seats[1].events,
        None: table.events,
    }
    for viewer, before in first.items():
        assert ids(before) == list(range(1, cut + 1))
        last = before[-1].id
        assert last == str(cut)
        again = await read(streams[viewer](last_event_id=last), upto(truth.version))
        expected = [v for v in truth.visible_versions(viewer) if v > cut]
        assert ids(again) == expected, viewer
        assert_as_seen_by(truth, viewer, before + again)
        (named,) = [m for m in before + again if m.event == "contract_named"]
        contract = "jack_solo" if viewer == Seat(1) else None
        assert named.json()["contract"] == contract, "R4.3"
        # no gap in the ids
        assert ids(again) == list(range(cut + 1, truth.version + 1))

    # the feed: global positions, this table's public events (and any other table's)
    assert ids(feed_first)[0] == start
    assert ids(feed_first)[-1] == feed_cut
    everything = await store.read_all(0, limit=10_000)
    logged = {e.position: msgspec.json.decode(e.payload) for e in everything}
    created = {e.stream_id: logged[e.position] for e in everything if e.version == 1}
    items = {  # what the feed must say of each event (None: nothing, T1.1, R4.3)
        e.position: feed_item(
            created[e.stream_id], e.stream_id, e.version, logged[e.position], e.hash.hex()
        )
        for e in everything
    }
    public = [e.position for e in everything if items[e.position] is not None]
    feed_again = await read(api.feed(last_event_id=str(feed_cut)), upto(public[-1]))
    assert ids(feed_first) == [p for p in public if p <= feed_cut]
    assert ids(feed_again) == [p for p in public if p > feed_cut]
    for received in feed_first + feed_again:
        item = with_server_time(items[int(received.id or 0)], received.json())
        assert not differences(received.json(), item), differences(received.json(), item)


async def test_after_and_a_ticket_resume_too(api: DokoClient) -> None:
    """EventSource cannot send headers: ``after`` does what Last-Event-ID does, and a stream
    ticket obtained with the seat token opens the seat's stream."""
    game = await new_game(api)
    seat = game.seats[2]
    path = f"/tables/{game.table.table_id}/events"
    ticket = await game.table.stream_ticket(seat.token)
    async with (
        asyncio.timeout(WAIT),
        api.http.stream("GET", path, params={"after": "5", "ticket": ticket}) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        got: list[str] = []
        async for line in response.aiter_lines():
            if line.startswith("id:"):
                got.append(line.removeprefix("id:").strip())
            if line.startswith("data:") and got and got[-1] == "7":
                assert '"hands":[[],[],[' in line.replace(" ", "")  # seat 2's own hand only
                break
        assert got == ["6", "7"]
    response = await api.http.get(path, params={"ticket": "nobody"})
    assert (response.status_code, response.json()["code"]) == (401, "ticket_invalid")


async def test_a_connected_stream_gets_new_events_as_they_happen(api: DokoClient) -> None:
    game = await new_game(api)
    seats = game.seats
    await game.table.view()
    latest = game.table.version
    async with asyncio.timeout(WAIT), seats[3].events(last_event_id=str(latest)) as messages:
        await seats[1].send(Declare(Seat(1), Declaration.HEALTHY))
        message = await anext(aiter(messages))
        assert (message.id, message.event) == (str(latest + 1), "declared")
        told = message.json()
        nothing: dict[str, list[object]] = {
            "declarations": [],
            "contracts": [],
            "cards": [],
            "announcements": [],
        }
        assert told == {"type": "declared", "seat": 1, "declaration": "healthy"} | {
            "turn": 2,  # seat 2 declares next (R4.1); seat 3 may do nothing yet
            "clock": None,
            "options": nothing,
            "server_time": told.get("server_time", "missing"),
        }


async def test_heartbeats_are_comments_without_data(pool: asyncpg.Pool) -> None:
    """An EventSource dispatches a message with an empty ``data:`` line; a comment it skips."""

    async def nothing(after: int) -> tuple[list[object], int]:
        return [], after

    messages = sse_messages(Hub(EventStore(pool), heartbeat=0.01), "t", 0, nothing)  # type: ignore[arg-type]
    heartbeat = await anext(messages)
    await messages.aclose()  # type: ignore[attr-defined]
    assert heartbeat.encode() == b": heartbeat\r\n\r\n"


async def test_a_closed_hub_ends_every_stream_with_the_farewell(pool: asyncpg.Pool) -> None:
    """The service stops (`Hub.close`): a waiting stream ends with a comment and a retry
    time, no data, no id (an EventSource keeps its last event id and reconnects); one opened
    afterwards gets only that."""

    async def nothing(after: int) -> tuple[list[object], int]:
        return [], after

    hub = Hub(EventStore(pool))
    waiting = sse_messages(hub, "t", 0, nothing)  # type: ignore[arg-type]
    last = asyncio.create_task(anext(waiting))
    await asyncio.sleep(0.05)  # the stream waits for news (a heartbeat would take 15 s)
    assert not last.done()
    hub.close()
    farewell = await asyncio.wait_for(last, WAIT)
    assert [m async for m in waiting] == []
    later = [m async for m in sse_messages(hub, ALL, 0, nothing)]  # type: ignore[arg-type]
    for last_message in (farewell, *later):
        encoded = last_message.encode().decode()
        comment, retry, end = encoded.split("\r\n", 2)
        assert comment == f": {FAREWELL}"
        assert RECONNECT_MS[0] <= int(retry.removeprefix("retry: ")) <= RECONNECT_MS[1]
        assert end == "\r\n"
    assert len(later) == 1


async def test_streams_of_unknown_tables_are_404(http: httpx.AsyncClient) -> None:
    response = await http.get("/tables/none/events")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize("named", [GameType.MARRIAGE, GameType.QUEEN_SOLO])
async def test_a_seat_learns_its_turn_from_its_stream_after_a_hidden_contract(
    api: DokoClient, pool: asyncpg.Pool, named: GameType
) -> None:
    """R4.1-R4.3: seat 1 (both QC) and seat 0 say reservation; seat 1 names a marriage or a
    solo, hidden from the others. Seat 0's stream, read alone, has every version (12: seat 1
    named a contract, without it) and tells seat 0 that it is its turn to name one, and
    which; seat 0 names one of those, and seat 1's stream tells it in turn that seat 0 named
    one (which stays hidden), which game is played and who leads (R3.5). The spectator's
    stream has every version too, no contract in it."""
    presets = presets_with_both_qc("turns")
    presets[0] = presets[1]  # deal 1: seat 1 holds both QC; the first dealer 0: seat 1 first
    table = await api.create_table("turns", first_dealer=0, presets=presets, visibility="public")
    seats = [await table.take_seat(f"p{s}", seat=s) for s in Seat]
    for seat, said in ((1, "reservation"), (2, "healthy"), (3, "healthy"), (0, "reservation")):
        await seats[seat].send(Declare(Seat(seat), Declaration(said)))
    await seats[1].send(NameContract(Seat(1), named))
    assert (await seats[0].view()).deal.turn == 0  # type: ignore[union-attr]
    assert seats[0].version == 12

    def upto(n: int) -> Callable[[list[SseMessage]], bool]:
        return lambda got: bool(got) and int(got[-1].id or 0) >= n

    mine = await read(seats[0].events(), upto(12))
    assert ids(mine) == list(range(1, 13)), "no gap"
    told = mine[-1].json()
    assert (mine[-1].event, told["seat"], told["contract"]) == ("contract_named", 1, None)
    assert told["turn"] == 0, "seat 0's turn, from its stream alone"
    contracts = told["options"]["contracts"]
    assert contracts and GameType.MARRIAGE.value not in contracts  # seat 0 holds no QC pair
    await seats[0].send(NameContract(Seat(0), GameType(contracts[0])))

    truth = await truth_of(pool, table.table_id)
    assert truth.version == 14  # seat 0's contract, the game type fixed
    theirs = await read(seats[1].events(last_event_id="11"), upto(14))
    assert ids(theirs) == [12, 13, 14]
    fixed = theirs[-1].json()
    winner = (Seat(1), named) if named is not GameType.MARRIAGE else (Seat(0), contracts[0])
    assert (fixed["declarer"], fixed["game_type"]) == (winner[0], winner[1])
    assert theirs[1].json()["contract"] is None, "R4.3: seat 0's contract stays hidden"
    assert (fixed["turn"], bool(fixed["options"]["cards"])) == (1, True), "seat 1 leads (R3.5)"
    public = await read(table.events(), upto(14))
    assert ids(public) == list(range(1, 15))
    for viewer, messages in ((Seat(0), mine), (Seat(1), theirs), (None, public)):
        assert_as_seen_by(truth, viewer, messages)
    assert all(m.json()["contract"] is None for m in public if m.event == "contract_named")
