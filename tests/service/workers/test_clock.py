"""The turn clock (T3) through the live service, with a fake time source for the clock.

The clock's ``now`` is injected (`service.app.create_app`), and deadlines derive from the
times the database recorded, so each test decides when a deadline has passed: either a
fixed reading set by the test (`FakeNow`), or a reading a day ahead of the real time, which
makes every turn expire at once. No test waits for a real clock to run out; every wait is
for a condition, with a generous bound.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from litestar import Litestar
from rich.console import Console

from domain.commands import Declaration, Declare, NameContract
from domain.events import CardPlayed, ContractNamed, Declared
from domain.seats import SEATS, Seat
from domain.table import SeatAway, SeatBack, TableEvent, TurnTimedOut
from domain.table_view import SeatStatus
from infra.audit.table import verify_table
from infra.event_store import EventStore
from infra.migrate import upgrade
from infra.tables import Tables
from service.app import create_app
from service.tools.client import (
    DokoClient,
    ProblemError,
    SeatClient,
    TableClient,
)
from service.tools.demo import play
from service.workers.clock import TurnClock
from tests.service.conftest import serve, settings
from tests.service.sessions import presets_with_both_qc
from tests.service.truth import Auditor, Truth

WAIT = 600.0
"""The bound of every wait for a condition (never reached unless something is broken)."""
TURN_SECONDS = 5
ACTIONS = (Declared, ContractNamed, CardPlayed)
"""The events of a turn's action (announcements are no turn's)."""


class FakeNow:
    """The turn clock's time source, set by the test."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def a_day_ahead() -> datetime:
    """A reading past every deadline of the coming hours: every turn expires at once."""
    return datetime.now(UTC) + timedelta(days=1)


def clocked_app(db_url: str, now: Callable[[], datetime], *, tick: float = 0.05) -> Litestar:
    return create_app(settings(db_url, turn_clock_tick=tick, turn_clock_rescan=0.2), now=now)


@asynccontextmanager
async def client(app: Litestar) -> AsyncIterator[DokoClient]:
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        yield DokoClient(http)


def clock_of(app: Litestar) -> TurnClock:
    clock: TurnClock = app.state.services.clock
    return clock


async def log(pool: asyncpg.Pool, table_id: str) -> list[TableEvent]:
    return [event for _, event in await Tables(EventStore(pool)).events(table_id)]


async def until(condition: Callable[[], Any], what: str) -> None:
    """Wait for ``condition()`` (awaited if need be) to hold."""
    async with asyncio.timeout(WAIT):
        while True:
            held = condition()
            if asyncio.iscoroutine(held):
                held = await held
            if held:
                return
            await asyncio.sleep(0.02)
    raise AssertionError(what)


def stand_in_took(events: list[TableEvent], seat: Seat) -> list[bool]:
    """For each turn action of ``seat`` in the log, whether the stand-in took it: a
    `TurnTimedOut` of the seat right before it (a `SeatAway` between them, at the third
    timeout in a row)."""
    taken = []
    for i, event in enumerate(events):
        if isinstance(event, ACTIONS) and event.seat is seat:
            before = [e for e in events[max(0, i - 2) : i] if not isinstance(e, SeatAway)]
            taken.append(
                bool(before) and isinstance(before[-1], TurnTimedOut) and before[-1].seat is seat
            )
    return taken


@pytest.mark.long
async def test_one_seat_never_acts_and_the_session_still_finishes(
    db_url: str, pool: asyncpg.Pool
) -> None:
    """T3.2, T3.3: a human who never acts, three bots, a 5-second clock whose every turn
    expires at once: the stand-in plays every one of the silent seat's turns, marks it
    away after three, and the session ends; the table verifies (clock check included) and
    nothing the silent seat or a spectator received shows a secret."""
    transcript: list[Any] = []
    app = clocked_app(db_url, a_day_ahead)
    async with client(app) as api:
        api.transcript = transcript
        table = await api.create_table("silent", visibility="public", turn_seconds=TURN_SECONDS)
        silent = await table.take_seat("silent", seat=0)
        readers = [
            asyncio.create_task(_read_all(stream)) for stream in (silent.events(), table.events())
        ]
        for kind in ("greedy", "random", "greedy"):
            await table.seat_bot(kind)

        async def over() -> bool:
            return (await silent.view()).winners is not None

        await until(over, "the session did not finish")
        final = await silent.view()
        async with asyncio.timeout(WAIT):
            await asyncio.gather(*readers)
    assert len(final.scoresheet) == 12
    assert final.seats[0].status is SeatStatus.AWAY
    events = await log(pool, table.table_id)
    taken = stand_in_took(events, Seat(0))
    assert len(taken) >= 12 * 13, "a declaration and 12 cards per deal"
    assert all(taken), "every turn of the silent seat was the stand-in's"
    away = [i for i, e in enumerate(events) if isinstance(e, SeatAway) and e.seat == 0]
    timeouts = [i for i, e in enumerate(events) if isinstance(e, TurnTimedOut) and e.seat == 0]
    assert away and away[0] > timeouts[2] > timeouts[1], "away with the third timeout"
    report = await verify_table(Tables(EventStore(pool)), table.table_id)
    assert report.ok, report.failures
    assert next(c for c in report.checks if c.name == "clock").detail.endswith("at its deadline")
    truth = Truth(table.table_id, await EventStore(pool).read_stream(table.table_id))
    auditor = Auditor(truth)
    auditor.audit(transcript)
    assert not auditor.failures, auditor.failures
    seen = auditor.coverage
    assert seen.stream_messages > len(events), "both streams, nearly every event"
    assert seen.timeouts >= 2 * 12 * 13, "every timeout on both streams"
    assert seen.clocks > 0, "views with a running clock"


async def _read_all(stream: Any) -> None:
    """Read a stream (the client records it) up to the end of the session."""
    async with stream as messages:
        async for message in messages:
            if message.event == "session_finished":
                return


async def test_the_clock_acts_at_the_deadline_and_hides_a_named_contract(
    db_url: str, pool: asyncpg.Pool
) -> None:
    """T3.2: the view shows whose turn runs until when (the last event's recorded time plus
    ``turn_seconds``); the clock does nothing before the deadline and times out exactly at
    it; a seat's own turn action after it is refused (``turn_expired``, nothing written)
    and the stand-in acts; the stand-in's contract is hidden from the others (R4.3);
    `back` restarts the count (T3.3)."""
    now = FakeNow(datetime(2000, 1, 1, tzinfo=UTC))
    app = clocked_app(db_url, now, tick=3600)  # the clock acts only when told of a change
    async with client(app) as api:
        presets = presets_with_both_qc("clock")  # deal 1: seat 0 holds both QC
        table = await api.create_table(
            "clock", first_dealer=3, presets=presets, turn_seconds=30, visibility="public"
        )
        seats = [await table.take_seat(f"p{s}", seat=s) for s in SEATS]
        store = EventStore(pool)

        async def deadline() -> datetime:
            head = (await store.read_stream(table.table_id))[-1]
            return head.recorded_at + timedelta(seconds=30)

        view = await seats[0].view()
        assert view.deal is not None and view.clock is not None
        assert view.clock.seat == 0 == view.deal.turn
        assert view.clock.deadline == await deadline()
        await seats[0].send(Declare(Seat(0), Declaration.RESERVATION))
        for s in (1, 2, 3):
            await seats[s].send(Declare(Seat(s), Declaration.HEALTHY))
        naming = await seats[0].view()
        assert naming.clock is not None and naming.clock.seat == 0, "seat 0 names its contract"
        assert naming.deal is not None
        contract = naming.deal.options.contracts[0]
        at = await deadline()
        now.at = at - timedelta(microseconds=1)
        await clock_of(app).expire(table.table_id)  # a microsecond early: nothing
        before = await log(pool, table.table_id)
        assert not any(isinstance(e, TurnTimedOut) for e in before)

        now.at = at
        with pytest.raises(ProblemError) as late:
            await seats[0].send(NameContract(Seat(0), contract))
        assert (late.value.status, late.value.code, late.value.rule) == (
            409,
            "turn_expired",
            "T3.2",
        )

        async def timed_out() -> bool:
            return any(isinstance(e, TurnTimedOut) for e in await log(pool, table.table_id))

        await until(timed_out, "the clock did not act at the deadline")
        events = await log(pool, table.table_id)
        assert len(events) == len(before) + 3  # the timeout, the contract, the game type
        timeout = events[len(before)]
        assert isinstance(timeout, TurnTimedOut)
        assert (timeout.seat, timeout.deal_no, timeout.deadline, timeout.at) == (0, 1, at, at)
        assert isinstance(timeout.action, NameContract)
        assert events[len(before) + 1] == ContractNamed(Seat(0), timeout.action.contract)
        shown = await _event_as(table, seats, len(before) + 1)
        assert shown[0]["action"] == msgspec.to_builtins(timeout.action)
        for viewer in (1, 2, 3, None):
            assert shown[viewer]["action"] is None, f"the contract shown to {viewer}"

        result = await seats[0].back()
        assert result.view.seats[0].status is SeatStatus.SEATED
        assert isinstance((await log(pool, table.table_id))[-1], SeatBack)
        with pytest.raises(ProblemError) as again:
            await seats[0].back()
        assert (again.value.status, again.value.code, again.value.rule) == (409, "not_away", "T3.3")
        await _audit_whole_streams(api, table, seats, pool, timed_out_at=len(before) + 1)


async def _audit_whole_streams(
    api: DokoClient,
    table: TableClient,
    seats: list[SeatClient],
    pool: asyncpg.Pool,
    timed_out_at: int,
) -> None:
    """Every seat's stream and the public one, read from the start, and every viewer's view,
    against the secrecy oracle; the stand-in's contract shown to another fails it."""
    transcript: list[Any] = []
    api.transcript = transcript
    truth = Truth(table.table_id, await EventStore(pool).read_stream(table.table_id))
    viewers: list[tuple[int | None, Any]] = [(s.seat, s.events) for s in seats]
    viewers.append((None, table.events))
    for _, events in viewers:
        async with asyncio.timeout(WAIT), events() as messages:
            async for message in messages:
                if message.id == str(truth.version):
                    break
    for seat in seats:
        await seat.view()
    await table.view()
    auditor = Auditor(truth)
    auditor.audit(transcript)
    assert not auditor.failures, auditor.failures
    seen = auditor.coverage
    assert seen.timeouts == 5 and seen.clocks == seen.views >= 4, seen  # 5 streams, 4 seats
    public = next(i for i in transcript if i.viewer is None and i.version == timed_out_at)
    action = truth.log.events[timed_out_at]["action"]
    leak = json.loads(public.body) | {"action": action}
    auditor = Auditor(truth)
    auditor.audit([msgspec.structs.replace(public, body=json.dumps(leak).encode())])
    assert f"turn_timed_out $.action: got {action!r}, expected None" in auditor.failures[0]


async def _event_as(
    table: TableClient, seats: list[SeatClient], version: int
) -> dict[int | None, dict[str, Any]]:
    """The event at ``version`` as each seat's stream and the public stream deliver it."""
    shown: dict[int | None, dict[str, Any]] = {}
    viewers: list[tuple[int | None, Any]] = [(s.seat, s.events) for s in seats]
    viewers.append((None, table.events))
    for viewer, events in viewers:
        async with asyncio.timeout(WAIT), events(last_event_id=str(version - 1)) as messages:
            message = await anext(aiter(messages))
        assert message.id == str(version)
        shown[viewer] = message.json()
    return shown


async def test_two_processes_time_out_each_turn_exactly_once(empty_db_url: str) -> None:
    """Two service processes on one database (of their own: no other table's clock), each
    with its clock, and four players who never act: the clocks play the whole session
    between them, and every turn is timed out exactly once (one `TurnTimedOut` before each
    turn action; the timeouts the two clocks say they wrote add up to the log's)."""
    await upgrade(empty_db_url)
    first, second = clocked_app(empty_db_url, a_day_ahead), clocked_app(empty_db_url, a_day_ahead)
    async with client(first) as one, client(second) as other:
        table = await one.create_table("two clocks", turn_seconds=TURN_SECONDS)
        for seat in SEATS:
            api = one if seat % 2 == 0 else other
            await api.table(table.table_id, invitation=table.invitation).take_seat(f"p{seat}")

        async def over() -> bool:
            return (await table.view()).winners is not None

        await until(over, "the clocks did not finish the session")
        stats = [clock_of(first).stats, clock_of(second).stats]
    async with asyncpg.create_pool(empty_db_url, min_size=1, max_size=2) as pool:
        events = await log(pool, table.table_id)
        timeouts = [e for e in events if isinstance(e, TurnTimedOut)]
        turn_actions = [e for e in events if isinstance(e, ACTIONS)]
        assert len(turn_actions) >= 12 * 52, "4 declarations and 48 cards per deal"
        assert len(timeouts) == len(turn_actions), "one timeout per turn, and no more"
        for seat in SEATS:
            assert all(stand_in_took(events, seat))
        assert sum(s.written for s in stats) == len(timeouts), stats
        report = await verify_table(Tables(EventStore(pool)), table.table_id)
        assert report.ok, report.failures


async def test_two_clocks_racing_for_one_turn_write_one_timeout(pool: asyncpg.Pool) -> None:
    """The race itself, 20 times: two processes' clocks (two `Tables`, two caches) time out
    the same expired turn at once; exactly one `TurnTimedOut` is written each time."""
    from infra.projections import project
    from tests.infra.test_table_cache import create, sit

    both = [Tables(EventStore(pool), project) for _ in range(2)]
    for tables in both:  # each decides on the table as it last read it, as if nothing was heard
        tables.listening(True)
    clocks = [TurnClock(tables, pool, a_day_ahead) for tables in both]
    stream_id = "racing-clocks"
    await both[0].execute(stream_id, msgspec.structs.replace(create("racing"), turn_seconds=5))
    for seat in SEATS:
        await both[0].execute(stream_id, sit(seat))
    for _ in range(20):
        before = await log(pool, stream_id)
        for tables in both:  # both read the same version: the race is for one turn
            assert (await tables.load(stream_id, fresh=True)).version == len(before)
        await asyncio.gather(*(clock.expire(stream_id) for clock in clocks))
        new = (await log(pool, stream_id))[len(before) :]
        assert sum(isinstance(e, TurnTimedOut) for e in new) == 1, new
    assert sum(c.stats.written for c in clocks) == 20
    assert sum(c.stats.lost for c in clocks) == 20, "the other clock lost each race"


async def test_the_demo_plays_on_with_a_player_who_never_acts(db_url: str) -> None:
    """``doko demo --turn-seconds 5 --bots 3``, against a service whose clock has every turn
    expire at once: the silent player's turns are the stand-in's, and every deal verifies."""
    console = Console(record=True, width=120)
    async with serve(clocked_app(db_url, a_day_ahead)) as url:
        assert await play(url, bots=3, seed=2, console=console, turn_seconds=5) == 0
    text = console.export_text()
    assert "player 1 never acts" in text
    taken = re.search(r"seat 0: the stand-in took (\d+) turns \(away after three in a row\)", text)
    assert taken is not None and int(taken.group(1)) >= 12 * 13
    assert "12 of 12 deals verified" in text


async def test_a_restart_loses_no_deadline(db_url: str, pool: asyncpg.Pool) -> None:
    """Deadlines derive from the log: a process that stopped before a turn expired leaves
    nothing behind, and a new one (finding the table in the lobby projection at start-up)
    times the turn out once it has expired, at the deadline the log implies."""
    before = FakeNow(datetime(2000, 1, 1, tzinfo=UTC))
    async with client(clocked_app(db_url, before)) as api:
        table = await api.create_table("restart", turn_seconds=TURN_SECONDS, first_dealer=0)
        for seat in SEATS:
            await table.take_seat(f"p{seat}", seat=seat)
    head = (await EventStore(pool).read_stream(table.table_id))[-1]
    assert not any(isinstance(e, TurnTimedOut) for e in await log(pool, table.table_id))
    async with client(clocked_app(db_url, a_day_ahead)):

        async def timed_out() -> bool:
            return any(isinstance(e, TurnTimedOut) for e in await log(pool, table.table_id))

        await until(timed_out, "the new process did not time out the turn")
    timeout = next(e for e in await log(pool, table.table_id) if isinstance(e, TurnTimedOut))
    assert timeout.seat == 1, "the first dealer's left declares first (R4.1)"
    assert timeout.deadline == head.recorded_at + timedelta(seconds=TURN_SECONDS)
