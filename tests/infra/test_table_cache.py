"""The table cache of `infra.tables.Tables`: when a cached table is served, when the log is read.

Each test runs two `Tables` on one real database, as two service processes would: ``ours``
(whose cache is under test) and ``theirs`` (the other process, appending behind our back).
A read of the log is seen in what ``load`` returns: the other process's newer version.
Notifications are delivered by hand (``heard``), as `EventStore.listen` would, so that
"not heard yet" is exact rather than a race.

The last tests run the same rules through two live apps on one database (as
tests/service/test_processes.py does): the second app's notifications are held back (its
``heard`` hears nothing), the exact state a notification still on its way leaves it in.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from domain import table
from domain.errors import DomainError, SeatUnavailable
from domain.seats import Seat
from domain.simulation import next_command
from domain.table import CreateTable, SeatTaken, TakeSeat
from infra.event_store import EventStore, StoredEvent
from infra.projections import project
from infra.tables import Executed, Loaded, TableNotFound, Tables
from service.app import create_app
from tests.service.conftest import serve, settings


def create(name: str = "cache") -> CreateTable:
    rng = random.Random(name)
    return CreateTable(name, Seat(0), server_seeds=tuple(rng.randbytes(32) for _ in range(12)))


def sit(seat: int) -> TakeSeat:
    return TakeSeat(f"p{seat}", f"hash-{seat}", Seat(seat), bytes([seat]) * 8)


async def rows(pool: asyncpg.Pool, stream_id: str) -> int:
    count: int = await pool.fetchval("SELECT count(*) FROM events WHERE stream_id = $1", stream_id)
    return count


@pytest.fixture
def stream_id() -> str:
    return uuid.uuid4().hex


@pytest.fixture
def ours(pool: asyncpg.Pool) -> Tables:
    return Tables(EventStore(pool), project)


@pytest.fixture
def theirs(pool: asyncpg.Pool) -> Tables:
    return Tables(EventStore(pool), project)


async def cached_at_2(ours: Tables, theirs: Tables, stream_id: str) -> Loaded:
    """A table at version 2 (created and seat 0 taken by the other process), cached by us."""
    await theirs.execute(stream_id, create())
    await theirs.execute(stream_id, sit(0))
    loaded = await ours.load(stream_id)
    assert loaded.version == 2
    return loaded


async def test_not_listening_every_load_reads_the_log(
    ours: Tables, theirs: Tables, stream_id: str
) -> None:
    """Not listening, a cached table may be stale at any time: `load` reads what is new."""
    await cached_at_2(ours, theirs, stream_id)
    await theirs.execute(stream_id, sit(1))
    loaded = await ours.load(stream_id)
    assert loaded.version == 3
    assert loaded.state.players[1] is not None
    # and the version read is cached from here on: fresh=False serves it without a read
    await theirs.execute(stream_id, sit(2))
    assert (await ours.load(stream_id, fresh=False)).version == 3
    assert (await ours.load(stream_id)).version == 4


async def test_listening_serves_the_cache_until_a_notification_overtakes_it(
    ours: Tables, theirs: Tables, stream_id: str
) -> None:
    """Listening, a cached table is current until `heard` names a newer version of its stream."""
    ours.listening(True)
    cached = await cached_at_2(ours, theirs, stream_id)
    await theirs.execute(stream_id, sit(1))
    assert await ours.load(stream_id) is cached, "not heard yet: served without a read"
    ours.heard("another-stream", 99, 50)
    ours.heard(stream_id, 1, 2)  # a notification of what we have already
    assert await ours.load(stream_id) is cached
    ours.heard(stream_id, 7, 3)
    loaded = await ours.load(stream_id)
    assert loaded.version == 3 and loaded.state.players[1] is not None
    # once caught up, the cache is served again without reads
    await theirs.execute(stream_id, sit(2))
    assert await ours.load(stream_id) is loaded


async def test_a_notification_ahead_of_the_log_keeps_reading(
    ours: Tables, theirs: Tables, stream_id: str
) -> None:
    """A notification naming a version the cache has not reached makes every `load` read,
    until the cache reaches it (a notification is not lost by one read that found less)."""
    ours.listening(True)
    await cached_at_2(ours, theirs, stream_id)
    ours.heard(stream_id, 10, 4)
    await theirs.execute(stream_id, sit(1))
    assert (await ours.load(stream_id)).version == 3
    await theirs.execute(stream_id, sit(2))
    assert (await ours.load(stream_id)).version == 4
    await theirs.execute(stream_id, sit(3))
    assert (await ours.load(stream_id)).version == 4, "caught up with the notification"


async def test_fresh_loads_always_read(ours: Tables, theirs: Tables, stream_id: str) -> None:
    """``load(fresh=True)`` reads the log even while listening and with nothing heard."""
    ours.listening(True)
    cached = await cached_at_2(ours, theirs, stream_id)
    await theirs.execute(stream_id, sit(1))
    assert await ours.load(stream_id) is cached
    assert (await ours.load(stream_id, fresh=True)).version == 3
    await theirs.execute(stream_id, sit(2))
    assert (await ours.load(stream_id)).version == 3, "the fresh read was cached, unheard"


async def test_listening_again_drops_the_cache(
    ours: Tables, theirs: Tables, stream_id: str
) -> None:
    """Appends made while the listening connection was down were not heard: when listening
    starts again, nothing cached is trusted. Listening on without a gap keeps the cache."""
    ours.listening(True)
    cached = await cached_at_2(ours, theirs, stream_id)
    await theirs.execute(stream_id, sit(1))
    ours.listening(True)  # still listening: no gap, nothing dropped
    assert await ours.load(stream_id) is cached
    ours.listening(False)
    ours.listening(True)
    assert (await ours.load(stream_id)).version == 3


async def test_a_stale_cache_conflicts_then_decides_again(
    ours: Tables, theirs: Tables, pool: asyncpg.Pool, stream_id: str
) -> None:
    """A command decided on a stale cache meets `ConcurrencyConflict` on append; it is
    reloaded and decided again, and written once on top of the other writer's events."""
    ours.listening(True)
    await cached_at_2(ours, theirs, stream_id)
    await theirs.execute(stream_id, sit(1))
    done = await ours.execute(stream_id, sit(2))
    assert done.version == 4 and not done.duplicate
    assert done.events == (SeatTaken(Seat(2), "p2", "hash-2", (bytes([2]) * 8).hex()),)
    assert done.state.players[1] is not None, "decided on the other writer's seat 1 too"
    assert await rows(pool, stream_id) == 4
    await theirs.execute(stream_id, sit(3))
    assert (await ours.load(stream_id)).version == 4, "our own append is cached, unheard"


async def test_a_stale_cache_rejecting_a_valid_command_reads_again(
    ours: Tables, theirs: Tables, pool: asyncpg.Pool, stream_id: str
) -> None:
    """A rejection on a stale cache is not final: the command is decided again on the log.
    Here the other process seated the fourth player, so the session started and deal 1 was
    dealt (R1.2): a first declaration our cache refuses (no deal yet) is valid."""
    ours.listening(True)
    await cached_at_2(ours, theirs, stream_id)
    for seat in (1, 2):
        await ours.execute(stream_id, sit(seat))
    stale = await ours.load(stream_id)
    started = await theirs.execute(stream_id, sit(3))
    deal = started.state.session.deal
    assert deal is not None
    command = next_command(deal, random.Random(1))
    assert command is not None
    with pytest.raises(DomainError):  # what the stale cache says
        table.decide(stale.state, command)
    assert await ours.load(stream_id) is stale, "not heard: still the stale cache"
    done = await ours.execute(stream_id, command, command_id="first-move")
    assert done.version == started.version + 1 and not done.duplicate
    assert done.events == table.decide(started.state, command)
    assert await rows(pool, stream_id) == started.version + 1


async def test_a_command_invalid_on_the_log_writes_nothing(
    ours: Tables, theirs: Tables, pool: asyncpg.Pool, stream_id: str
) -> None:
    """Valid on the stale cache, rejected on the log (seat 1 was taken meanwhile, R1.1):
    the domain's error, and nothing written."""
    ours.listening(True)
    await cached_at_2(ours, theirs, stream_id)
    await theirs.execute(stream_id, sit(1))
    with pytest.raises(SeatUnavailable):
        await ours.execute(stream_id, sit(1))
    assert await rows(pool, stream_id) == 3


def assert_first_result(again: Executed, first: Executed) -> None:
    """A retried command id answered with the first run's table, version and events."""
    assert again.duplicate
    assert (again.version, again.events, again.state) == (first.version, first.events, first.state)


async def test_a_retried_command_id_now_rejected_returns_the_first_result(
    ours: Tables, theirs: Tables, pool: asyncpg.Pool, stream_id: str
) -> None:
    """A retried command id whose command the table now rejects (its seat is taken, by the
    first run itself, R1.1) answers with the first run's state, version and events,
    ``duplicate=True``, and writes nothing: through our cache (which holds the first
    run) and through the other process."""
    ours.listening(True)
    await cached_at_2(ours, theirs, stream_id)
    first = await ours.execute(stream_id, sit(1), command_id="sit-1")
    assert (first.version, first.duplicate) == (3, False)
    await theirs.execute(stream_id, sit(2))  # unheard by us: our cache is stale
    count = await rows(pool, stream_id)
    for tables in (ours, theirs):
        again = await tables.execute(stream_id, sit(1), command_id="sit-1")
        assert_first_result(again, first)
    assert await rows(pool, stream_id) == count
    # without the command id the same command is the domain's rejection
    with pytest.raises(SeatUnavailable):
        await ours.execute(stream_id, sit(1))


async def test_a_retried_command_id_still_valid_is_found_by_the_append(
    ours: Tables, theirs: Tables, pool: asyncpg.Pool, stream_id: str
) -> None:
    """The retry of a command still valid on the current table (take the next free seat)
    is decided again, and the append finds its command id: the first result, nothing
    written (no second seat), on a stale cache, on the other process and on a new one."""
    ours.listening(True)
    await cached_at_2(ours, theirs, stream_id)
    command = TakeSeat("next", "hash-next", None)
    first = await ours.execute(stream_id, command, command_id="next")
    assert first.events[0] == SeatTaken(Seat(1), "next", "hash-next")
    await theirs.execute(stream_id, sit(2))  # unheard by us: our cache is stale
    count = await rows(pool, stream_id)
    for tables in (ours, theirs, Tables(EventStore(pool))):
        again = await tables.execute(stream_id, command, command_id="next")
        assert_first_result(again, first)
    assert await rows(pool, stream_id) == count
    assert (await theirs.load(stream_id, fresh=True)).state.players[3] is None


class NoReadBack(EventStore):
    """An event store that refuses to read an event's time back (the append tells it)."""

    async def recorded_at(self, stream_id: str, version: int) -> Any:
        raise AssertionError("the append's own time was read back")


async def test_a_clocked_table_knows_its_commits_time_without_reading_it_back(
    pool: asyncpg.Pool, stream_id: str
) -> None:
    """T3.2: a clocked table's deadlines follow the time the log records for its last event;
    after a command that time is the one its append stored, taken from the append itself."""
    tables = Tables(NoReadBack(pool), project)
    clocked = msgspec.structs.replace(create(), turn_seconds=30)
    done = [await tables.execute(stream_id, clocked)]
    done += [await tables.execute(stream_id, sit(seat)) for seat in range(4)]
    stored = await pool.fetch(
        "SELECT version, recorded_at FROM events WHERE stream_id = $1 ORDER BY version", stream_id
    )
    last_of_each = {d.version: d.recorded_at for d in done}
    assert all(at is not None for at in last_of_each.values())
    assert {r["version"]: r["recorded_at"] for r in stored if r["version"] in last_of_each} == (
        last_of_each
    )
    fresh = await Tables(EventStore(pool), project).load(stream_id)
    assert (fresh.version, fresh.recorded_at) == (done[-1].version, done[-1].recorded_at)


async def test_an_unclocked_table_has_no_time(ours: Tables, stream_id: str) -> None:
    """Only a clocked table needs the log's time (T3.2)."""
    done = await ours.execute(stream_id, create())
    assert done.recorded_at is None


async def test_unknown_tables_are_not_found(ours: Tables, stream_id: str) -> None:
    """A table that does not exist raises `TableNotFound`, listening or not."""
    for up in (False, True):
        ours.listening(up)
        with pytest.raises(TableNotFound):
            await ours.load(stream_id)
    with pytest.raises(TableNotFound):
        await ours.events(stream_id)


async def test_a_full_cache_drops_the_table_remembered_longest_ago(
    pool: asyncpg.Pool, theirs: Tables
) -> None:
    """With room for two tables, remembering a third drops the one remembered first: it
    is read from the log again, the other is still served from the cache."""
    ours = Tables(EventStore(pool), project, cache_size=2)
    ours.listening(True)
    first, second, third = (uuid.uuid4().hex for _ in range(3))
    for stream in (first, second, third):
        await theirs.execute(stream, create())
    for stream in (first, second):
        assert (await ours.load(stream)).version == 1
    for stream in (first, second):
        await theirs.execute(stream, sit(0))  # not heard by ours
    assert (await ours.load(third)).version == 1  # remembered: the first is dropped
    assert (await ours.load(second)).version == 1  # cached, the append unheard
    assert (await ours.load(first)).version == 2  # read from the log again


# -- through two live apps ----------------------------------------------------------------


class TwoApps(msgspec.Struct):
    """Clients of two live apps on one database; ``b`` hears no notifications."""

    a: httpx.AsyncClient
    b: httpx.AsyncClient


@pytest.fixture(scope="module")
async def apps(db_url: str) -> AsyncIterator[TwoApps]:
    a_app, b_app = create_app(settings(db_url)), create_app(settings(db_url))
    async with (
        serve(a_app) as a_url,
        serve(b_app) as b_url,
        httpx.AsyncClient(base_url=a_url, timeout=10.0) as a,
        httpx.AsyncClient(base_url=b_url, timeout=10.0) as b,
    ):
        b_tables: Tables = b_app.state.services.tables
        b_tables.heard = lambda *_: None  # type: ignore[method-assign]
        yield TwoApps(a, b)


async def new_table(http: httpx.AsyncClient) -> str:
    body = {"name": "two apps", "first_dealer": 0, "visibility": "public"}
    response = await http.post("/tables", json=body)
    assert response.status_code == 201, response.text
    table_id: str = response.json()["table_id"]
    return table_id


async def take(http: httpx.AsyncClient, table_id: str, seat: int) -> dict[str, Any]:
    response = await http.post(f"/tables/{table_id}/seats", json={"name": f"p{seat}", "seat": seat})
    assert response.status_code == 201, response.text
    taken: dict[str, Any] = response.json()
    return taken


def auth(taken: dict[str, Any], **headers: str) -> dict[str, str]:
    return {"authorization": f"Bearer {taken['token']}", **headers}


async def test_a_newer_if_none_match_is_answered_from_the_log(apps: TwoApps) -> None:
    """A client that names a version newer than the serving process has cached (it saw it
    through another process) gets that process to read the log: the newest view, or 304
    when it holds that; never a view behind what it saw (`service.routes.shared.current_table`)."""
    table_id = await new_table(apps.a)
    north = await take(apps.a, table_id, 0)
    view = f"/tables/{table_id}/seats/0"
    cached = await apps.b.get(view, headers=auth(north))
    assert (cached.status_code, cached.headers["etag"]) == (200, '"2"')
    await take(apps.a, table_id, 1)
    newest = await take(apps.a, table_id, 2)
    assert newest["version"] == 4
    stale = await apps.b.get(view, headers=auth(north))
    assert stale.headers["etag"] == '"2"', "b serves its cache: nothing heard"

    newer = await apps.b.get(view, headers=auth(north, **{"if-none-match": '"3"'}))
    assert (newer.status_code, newer.headers["etag"]) == (200, '"4"')
    truth = await apps.a.get(view, headers=auth(north))
    assert newer.json() | {"server_time": None} == truth.json() | {"server_time": None}
    assert [s["name"] for s in newer.json()["seats"]] == ["p0", "p1", "p2", None]
    held = await apps.b.get(view, headers=auth(north, **{"if-none-match": '"4"'}))
    assert (held.status_code, held.headers["etag"], held.content) == (304, '"4"', b"")
    public = await apps.b.get(f"/tables/{table_id}", headers={"if-none-match": '"4"'})
    assert (public.status_code, public.headers["etag"]) == (304, '"4"')


async def test_min_version_asks_for_a_view_at_least_that_new(apps: TwoApps) -> None:
    """``?min_version=N`` (a version learned from a command's answer or a stream event id)
    makes a process whose cache is older read the log, for every view route; a version the
    table has not reached is refused, 409 ``version_not_reached`` with the newest version as
    its ETag (no waiting)."""
    table_id = await new_table(apps.a)
    north = await take(apps.a, table_id, 0)
    seat_view = f"/tables/{table_id}/seats/0"
    routes = (f"/tables/{table_id}", f"/tables/{table_id}/scoresheet", seat_view)
    for route in routes:
        assert (await apps.b.get(route, headers=auth(north))).headers["etag"] == '"2"'
    newest = await take(apps.a, table_id, 1)
    assert newest["version"] == 3
    assert (await apps.b.get(seat_view, headers=auth(north))).headers["etag"] == '"2"'
    for route in routes:
        plain = await apps.b.get(route, headers=auth(north), params={"min_version": 2})
        assert plain.headers["etag"] == '"2"', "the cache satisfies min_version 2"
    for route in routes:  # the first read refreshes the cache the others are served from
        fresh = await apps.b.get(route, headers=auth(north), params={"min_version": 3})
        assert (fresh.status_code, fresh.headers["etag"]) == (200, '"3"'), route
    ahead = await apps.b.get(seat_view, headers=auth(north), params={"min_version": 99})
    assert (ahead.status_code, ahead.headers["etag"]) == (409, '"3"')
    assert ahead.json()["code"] == "version_not_reached"
    refused = await apps.b.get(seat_view, headers=auth(north), params={"min_version": -1})
    assert refused.status_code == 400


async def test_a_weak_if_none_match_tag_is_compared_weakly(apps: TwoApps) -> None:
    """If-None-Match compares entity tags weakly (RFC 9110 13.1.2): ``W/"4"`` matches the
    ETag ``"4"``, so the client holding it gets 304, as `_tag_version` already reads it."""
    table_id = await new_table(apps.a)
    await take(apps.a, table_id, 0)
    current = await apps.a.get(f"/tables/{table_id}")
    tag = current.headers["etag"]
    for app in (apps.a, apps.b):
        response = await app.get(f"/tables/{table_id}", headers={"if-none-match": f"W/{tag}"})
        assert (response.status_code, response.headers["etag"]) == (304, tag)


async def test_a_seat_taken_through_one_process_is_served_by_the_other(apps: TwoApps) -> None:
    """A token the serving process's cached table does not know may be a seat taken through
    another process: the table is read from the log before the token is refused. Its view
    is served at once, and its command accepted, by a process that heard nothing."""
    for act in (False, True):
        table_id = await new_table(apps.a)
        for seat in (0, 2, 3):
            await take(apps.a, table_id, seat)
        cached = await apps.b.get(f"/tables/{table_id}")
        assert cached.headers["etag"] == '"4"'
        east = await take(apps.a, table_id, 1)  # the fourth: deal 1 is dealt, east declares
        assert east["version"] > 5
        assert (await apps.b.get(f"/tables/{table_id}")).headers["etag"] == '"4"', "stale"
        if act:
            response = await apps.b.post(
                f"/tables/{table_id}/seats/1/reservation",
                json={"declaration": "healthy"},
                headers=auth(east),
            )
            assert response.status_code == 200, response.text
            assert response.json()["version"] == east["version"] + 1
        else:
            response = await apps.b.get(f"/tables/{table_id}/seats/1", headers=auth(east))
            assert response.status_code == 200, response.text
            assert response.headers["etag"] == f'"{east["version"]}"'
            assert len(response.json()["deal"]["hand"]) == 12


class GatedStore(EventStore):
    """The real event store, whose next `read_stream` holds its result until ``gate`` is
    set: a load that read the log, still on its way back while other work goes on."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        super().__init__(pool)
        self.gate: asyncio.Event | None = None
        self.held = asyncio.Event()

    async def read_stream(self, stream_id: str, from_version: int = 1) -> list[StoredEvent]:
        stored = await super().read_stream(stream_id, from_version)
        gate, self.gate = self.gate, None
        if gate is not None:
            self.held.set()
            await gate.wait()
        return stored


async def test_the_cache_never_goes_back_to_an_older_version(
    pool: asyncpg.Pool, theirs: Tables, stream_id: str
) -> None:
    """A load reads versions 3-4 and is slow to come back; meanwhile our own command
    appends version 5. The load's older table must not replace version 5 in the cache."""
    store = GatedStore(pool)
    ours = Tables(store, project)
    await cached_at_2(ours, theirs, stream_id)
    await theirs.execute(stream_id, sit(1))
    await theirs.execute(stream_id, sit(2))
    gate = store.gate = asyncio.Event()
    slow = asyncio.create_task(ours.load(stream_id, fresh=True))
    await store.held.wait()  # it has read versions 3-4
    done = await ours.execute(stream_id, sit(3))  # reads again (ungated), appends
    assert done.version >= 5
    gate.set()
    assert (await slow).version == done.version, "the newest known table"
    assert (await ours.load(stream_id, fresh=False)).version == done.version
