"""The event store against a real PostgreSQL: concurrency, idempotency, tailing, NOTIFY."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import asyncpg
import msgspec
import pytest

from infra.event_store import (
    BATCH_LIMIT,
    AppendResult,
    ConcurrencyConflict,
    EventStore,
    IdempotencyKeyReused,
    NewEvent,
    ProjectionRows,
    StoredEvent,
    _Pending,
)
from infra.hash_chain import verify_chain


def tick(**data: object) -> NewEvent:
    """A small event with *data* as its payload."""
    return NewEvent(type="tick", schema_version=1, payload=msgspec.json.encode(data))


@pytest.fixture(scope="module")
def store(pool: asyncpg.Pool) -> EventStore:
    return EventStore(pool)


class CountingStore(EventStore):
    """An event store that records the size of every ``doko_append_batch`` call it sends;
    ``sending`` (if set) runs just before each is sent."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        super().__init__(pool)
        self.batches: list[int] = []
        self.sending: Callable[[], Awaitable[None]] | None = None

    async def _send(self, conn: Any, batch: Sequence[_Pending]) -> list[asyncpg.Record]:
        self.batches.append(len(batch))
        if self.sending is not None:
            await self.sending()
        return await super()._send(conn, batch)


async def test_append_and_read_back(store: EventStore) -> None:
    events = [
        NewEvent("opened", 1, b'{"seats": 4}', actor="host"),
        NewEvent("joined", 2, b'{"seat": 2}', actor="seat:2", causation="cmd-a"),
    ]
    result = await store.append("basic", 0, events, command_id="cmd-a")

    assert (result.first_version, result.last_version, result.duplicate) == (1, 2, False)
    assert result.positions[1] == result.positions[0] + 1
    stored = await store.read_stream("basic")
    assert [(e.version, e.type, e.schema_version) for e in stored] == [
        (1, "opened", 1),
        (2, "joined", 2),
    ]
    assert [msgspec.json.decode(e.payload) for e in stored] == [{"seats": 4}, {"seat": 2}]
    assert [(e.actor, e.causation, e.command_id) for e in stored] == [
        ("host", None, "cmd-a"),
        ("seat:2", "cmd-a", "cmd-a"),
    ]
    assert [e.position for e in stored] == list(result.positions)
    assert await store.stream_version("basic") == 2
    assert await store.stream_version("nothing here") == 0
    assert [e.version for e in await store.read_stream("basic", from_version=2)] == [2]


async def test_stale_expected_version_writes_nothing(store: EventStore) -> None:
    await store.append("stale", 0, [tick(n=1)])
    with pytest.raises(ConcurrencyConflict) as conflict:
        await store.append("stale", 0, [tick(n=2), tick(n=3)])
    assert (conflict.value.stream_id, conflict.value.expected, conflict.value.actual) == (
        "stale",
        0,
        1,
    )
    assert await store.stream_version("stale") == 1


async def test_empty_append_is_refused(store: EventStore) -> None:
    with pytest.raises(ValueError):
        await store.append("empty", 0, [])


async def test_two_racing_writers_exactly_one_wins(store: EventStore, pool: asyncpg.Pool) -> None:
    async with pool.acquire() as first, pool.acquire() as second:
        for version in range(200):
            outcomes = await asyncio.gather(
                store.append("race", version, [tick(writer=1)], conn=first),
                store.append("race", version, [tick(writer=2)], conn=second),
                return_exceptions=True,
            )
            wins = [o for o in outcomes if isinstance(o, AppendResult)]
            conflicts = [o for o in outcomes if isinstance(o, ConcurrencyConflict)]
            assert len(wins) == 1, outcomes
            assert len(conflicts) == 1, outcomes
            assert wins[0].last_version == conflicts[0].actual == version + 1

    assert [e.version for e in await store.read_stream("race")] == list(range(1, 201))


async def test_retried_command_writes_once_and_returns_the_first_result(
    store: EventStore,
) -> None:
    batch = [tick(n=1), tick(n=2), tick(n=3)]
    first = await store.append("idem", 0, batch, command_id="deal-7")
    await store.append("idem", 3, [tick(n=4)], command_id="next")

    again = await store.append("idem", 0, batch, command_id="deal-7")

    assert again == msgspec.structs.replace(first, duplicate=True)
    assert await store.stream_version("idem") == 4
    elsewhere = await store.append("idem-other", 0, batch, command_id="deal-7")
    assert not elsewhere.duplicate


async def test_concurrent_retries_of_one_command_write_once(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    results = await asyncio.gather(
        *(store.append("idem-race", 0, [tick(n=1), tick(n=2)], command_id="c1") for _ in range(5))
    )

    assert sorted(r.duplicate for r in results) == [False, True, True, True, True]
    assert {(r.first_version, r.last_version, r.positions) for r in results} == {
        (results[0].first_version, results[0].last_version, results[0].positions)
    }
    assert await store.stream_version("idem-race") == 2


async def test_a_command_id_is_bound_to_its_fingerprint(store: EventStore) -> None:
    """Same id and fingerprint: the first result; another fingerprint: refused, nothing
    written; an id recorded (or retried) without a fingerprint matches any (migration 0005)."""
    first = await store.append("bound", 0, [tick(n=1)], command_id="k", fingerprint="play QC")
    same = await store.append("bound", 0, [tick(n=1)], command_id="k", fingerprint="play QC")
    assert same == msgspec.structs.replace(first, duplicate=True)
    with pytest.raises(IdempotencyKeyReused):
        await store.append("bound", 1, [tick(n=2)], command_id="k", fingerprint="play AD")
    with pytest.raises(IdempotencyKeyReused):
        await store.command_result("bound", "k", "play AD")
    assert await store.command_result("bound", "k", "play QC") == same
    assert await store.command_result("bound", "k") == same
    unbound = await store.append("bound", 0, [tick(n=1)], command_id="k")
    assert unbound.duplicate
    assert await store.stream_version("bound") == 1
    await store.append("bound", 1, [tick(n=2)], command_id="old")
    anything = await store.append("bound", 1, [tick(n=3)], command_id="old", fingerprint="x")
    assert anything.duplicate
    assert await store.stream_version("bound") == 2


async def test_concurrent_reuse_of_a_command_id_writes_once(store: EventStore) -> None:
    """Five appends with one command id and five different fingerprints, at once: one is
    written, the four others are refused as reused."""
    outcomes = await asyncio.gather(
        *(
            store.append("reuse-race", 0, [tick(n=n)], command_id="k", fingerprint=f"f{n}")
            for n in range(5)
        ),
        return_exceptions=True,
    )
    kinds = sorted(type(o).__name__ for o in outcomes)
    assert kinds == ["AppendResult"] + ["IdempotencyKeyReused"] * 4
    assert await store.stream_version("reuse-race") == 1


async def test_the_lobby_row_keeps_the_tables_creation(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    """A lobby entry's status and visibility are copied into columns; its version is that of
    the event that changed it (its place among the appended ones); its position and
    creation time stay those of the stream's first event, whenever the row is written."""
    first = await store.append("lobbied", 0, [tick(n=1)])
    entry = b'{"status": "open", "visibility": "public", "name": "x"}'
    second = await store.append(
        "lobbied", 1, [tick(n=2)], projection=ProjectionRows(view=b"{}", lobby=(1, entry))
    )
    row = await pool.fetchrow("SELECT * FROM lobby WHERE stream_id = 'lobbied'")
    created = await pool.fetchval(
        "SELECT recorded_at FROM events WHERE stream_id = 'lobbied' AND version = 1"
    )
    assert (row["position"], row["created_at"], row["version"]) == (
        first.positions[0],
        created,
        second.last_version,
    )
    assert (row["status"], row["public"]) == ("open", True)
    assert msgspec.json.decode(row["entry"])["name"] == "x"
    hidden = b'{"status": "playing", "visibility": "private"}'
    await store.append(
        "lobbied",
        2,
        [tick(n=3), tick(n=4)],
        projection=ProjectionRows(view=b"{}", lobby=(1, hidden)),
    )
    row = await pool.fetchrow("SELECT * FROM lobby WHERE stream_id = 'lobbied'")
    assert (row["position"], row["version"], row["status"], row["public"]) == (
        first.positions[0],
        3,
        "playing",
        False,
    )


async def test_projection_rows_are_written_in_the_same_transaction(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    rows = ProjectionRows(
        view=b'{"seen": 1}', sheet=(1, b'{"rows": []}'), deals=((1, b'{"d": 1}'),)
    )
    result = await store.append("projected", 0, [tick(n=1), tick(n=2)], projection=rows)
    view = await pool.fetchrow(
        "SELECT version, view FROM table_views WHERE stream_id = 'projected'"
    )
    assert (view["version"], msgspec.json.decode(view["view"])) == (
        result.last_version,
        {"seen": 1},
    )
    sheet = await pool.fetchval("SELECT version FROM scoresheets WHERE stream_id = 'projected'")
    assert sheet == result.first_version  # the version of the event that changed it
    deal = await pool.fetchval("SELECT record FROM deal_archive WHERE stream_id = 'projected'")
    assert msgspec.json.decode(deal) == {"d": 1}
    unchanged = ProjectionRows(view=b'{"seen": 2}')
    await store.append("projected", result.last_version, [tick(n=3)], projection=unchanged)
    kept = await pool.fetchrow(
        "SELECT version, sheet FROM scoresheets WHERE stream_id = 'projected'"
    )
    assert (kept["version"], msgspec.json.decode(kept["sheet"])) == (sheet, {"rows": []})


async def test_an_invalid_projection_writes_nothing(store: EventStore, pool: asyncpg.Pool) -> None:
    broken = ProjectionRows(view=b"not json", sheet=(1, b"{}"))
    with pytest.raises(asyncpg.InvalidTextRepresentationError):
        await store.append("unprojected", 0, [tick(n=1)], command_id="c", projection=broken)
    assert await store.stream_version("unprojected") == 0
    assert await store.command_result("unprojected", "c") is None
    views = await pool.fetchval("SELECT count(*) FROM table_views WHERE stream_id = 'unprojected'")
    assert views == 0


async def test_a_wrong_previous_hash_is_refused(store: EventStore) -> None:
    """The chain can only be extended from its real head."""
    await store.append("chained", 0, [tick(n=1)])
    with pytest.raises(asyncpg.RaiseError, match="hash chain"):
        await store.append("chained", 1, [tick(n=2)], previous_hash=bytes(32))
    assert await store.stream_version("chained") == 1
    await store.append("chained", 1, [tick(n=2)])
    assert verify_chain(await store.read_stream("chained")) is None


async def test_tailing_reader_sees_every_event_once_in_position_order(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    writers, per_writer = 4, 500
    total = writers * per_writer
    after = await pool.fetchval("SELECT coalesce(max(position), 0) FROM events")
    done = asyncio.Event()

    async def write(writer: int) -> None:
        version = 0
        async with pool.acquire() as conn:
            while version < per_writer:
                size = min(1 + version % 3, per_writer - version)
                batch = [tick(writer=writer, n=version + k) for k in range(size)]
                async with conn.transaction():  # commit late: others get to run meanwhile
                    await store.append(f"tail-{writer}", version, batch, conn=conn)
                    await asyncio.sleep(0)
                version += size

    async def tail() -> list[StoredEvent]:
        seen: list[StoredEvent] = []
        last = after
        while True:
            finished = done.is_set()  # before reading: then an empty read means the end
            batch = await store.read_all(last, limit=50)
            if not batch:
                if finished:
                    break
                await asyncio.sleep(0.001)
            for event in batch:
                assert event.position > last
                last = event.position
                seen.append(event)
        return seen

    async def write_all() -> None:
        await asyncio.gather(*(write(w) for w in range(writers)))
        done.set()

    seen, _ = await asyncio.gather(tail(), write_all())

    keys = [msgspec.json.decode(e.payload) for e in seen]
    assert len(seen) == total
    assert sorted((k["writer"], k["n"]) for k in keys) == [
        (w, n) for w in range(writers) for n in range(per_writer)
    ]
    assert [e.position for e in seen] == list(range(after + 1, after + total + 1))
    for writer in range(writers):
        versions = [e.version for e in seen if e.stream_id == f"tail-{writer}"]
        assert versions == list(range(1, per_writer + 1))


async def test_listener_is_woken_by_an_append(store: EventStore) -> None:
    woken = asyncio.Event()
    heard: list[tuple[str, int, int]] = []

    def hear(stream_id: str, position: int, version: int) -> None:
        heard.append((stream_id, position, version))
        woken.set()

    async with store.listen(hear):
        result = await store.append("table:7", 0, [tick(n=1), tick(n=2)])
        await asyncio.wait_for(woken.wait(), timeout=5)

    assert heard == [("table:7", result.positions[-1], 2)]


async def test_listener_comes_back_after_its_connection_is_killed(db_url: str) -> None:
    """A lost LISTEN connection is replaced, and the owner is told (appends meanwhile
    are not heard: that is what `listening(False)` warns of). Only this test's own
    connection is killed: its database and its application name say which it is."""
    states: list[bool] = []
    heard: list[str] = []
    changed = asyncio.Event()

    def listening(up: bool) -> None:
        states.append(up)
        changed.set()

    name = f"doko-test-listen-{uuid.uuid4().hex[:12]}"
    async with (
        asyncpg.create_pool(
            db_url, min_size=1, max_size=2, server_settings={"application_name": name}
        ) as own,
        EventStore(own).listen(lambda s, _p, _v: heard.append(s), listening, retry=0.05),
    ):
        assert states == [True]
        changed.clear()
        killed = await own.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = $1"
            " AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
            name,
        )
        assert killed == 1
        for _ in range(100):
            if states[-2:] == [False, True]:
                break
            await asyncio.wait_for(changed.wait(), timeout=5)
            changed.clear()
        assert states == [True, False, True]
        await EventStore(own).append("table:8", 0, [tick(n=1)])
        for _ in range(100):
            if "table:8" in heard:
                break
            await asyncio.sleep(0.02)
    assert "table:8" in heard


async def test_concurrent_appends_share_batches(pool: asyncpg.Pool) -> None:
    """Appends queued while a batch is on its way go together in the next one (group
    commit): fewer statements than appends, every append written once, in order."""
    store = CountingStore(pool)
    results = await asyncio.gather(*(store.append(f"batch-{n}", 0, [tick(n=n)]) for n in range(40)))
    assert store.batches == [40]
    assert [r.first_version for r in results] == [1] * 40
    positions = sorted(p for r in results for p in r.positions)
    assert positions == list(range(positions[0], positions[0] + 40))
    for n in range(40):
        stored = await store.read_stream(f"batch-{n}")
        assert [msgspec.json.decode(e.payload) for e in stored] == [{"n": n}]


async def test_one_bad_append_fails_alone_in_its_batch(pool: asyncpg.Pool) -> None:
    """An error fails the whole batch in the database; the appends are then sent one by
    one, so only the faulty one fails and the others are written."""
    store = CountingStore(pool)
    broken = ProjectionRows(view=b"not json")
    outcomes = await asyncio.gather(
        store.append("lone-a", 0, [tick(n=1)]),
        store.append("lone-b", 0, [tick(n=1)], projection=broken),
        store.append("lone-c", 0, [tick(n=1)]),
        return_exceptions=True,
    )
    assert store.batches == [3, 1, 1, 1]  # together, then resent one by one
    assert isinstance(outcomes[1], asyncpg.InvalidTextRepresentationError)
    assert [type(o).__name__ for o in outcomes[::2]] == ["AppendResult", "AppendResult"]
    assert [await store.stream_version(s) for s in ("lone-a", "lone-b", "lone-c")] == [1, 0, 1]


async def test_two_appends_to_one_stream_in_a_batch(pool: asyncpg.Pool) -> None:
    """In one batch, an append expecting a version that an earlier append of the same
    batch has just written conflicts with it; exactly one of them is written."""
    store = CountingStore(pool)
    first = await store.append("twice", 0, [tick(n=1)])
    outcomes = await asyncio.gather(
        store.append("twice", 1, [tick(n=2)], previous_hash=first.last_hash),
        store.append("twice", 1, [tick(n=3)], previous_hash=first.last_hash),
        return_exceptions=True,
    )
    assert store.batches == [1, 2]  # the two went in one batch
    assert sorted(type(o).__name__ for o in outcomes) == ["AppendResult", "ConcurrencyConflict"]
    assert await store.stream_version("twice") == 2
    assert verify_chain(await store.read_stream("twice")) is None


async def test_more_than_a_batch_limit_of_appends_go_in_several_batches(pool: asyncpg.Pool) -> None:
    """At most `BATCH_LIMIT` appends share a batch: the rest follow in the next ones, all
    written, in the order they were queued."""
    store = CountingStore(pool)
    count = 2 * BATCH_LIMIT + 22
    results = await asyncio.gather(
        *(store.append(f"split-{n}", 0, [tick(n=n), tick(n=n)]) for n in range(count))
    )
    assert store.batches == [BATCH_LIMIT, BATCH_LIMIT, 22]
    positions = [p for r in results for p in r.positions]
    assert positions == list(range(positions[0], positions[0] + 2 * count))
    for n in (0, BATCH_LIMIT - 1, BATCH_LIMIT, count - 1):
        stored = await store.read_stream(f"split-{n}")
        assert [(e.version, msgspec.json.decode(e.payload)) for e in stored] == [
            (1, {"n": n}),
            (2, {"n": n}),
        ]
        assert verify_chain(stored) is None


@pytest.mark.parametrize("ahead", [1, 5])
async def test_an_expected_version_ahead_of_the_stream_conflicts(
    store: EventStore, pool: asyncpg.Pool, ahead: int
) -> None:
    """A writer claiming a version the stream has not reached writes nothing."""
    stream = f"ahead-{ahead}"
    await store.append(stream, 0, [tick(n=1)])
    total = await pool.fetchval("SELECT count(*) FROM events")
    with pytest.raises(ConcurrencyConflict) as conflict:
        await store.append(stream, 1 + ahead, [tick(n=2)], command_id="c")
    assert (conflict.value.expected, conflict.value.actual) == (1 + ahead, 1)
    with pytest.raises(ConcurrencyConflict):
        await store.append(f"{stream}-new", ahead, [tick(n=1)])
    assert await pool.fetchval("SELECT count(*) FROM events") == total
    assert await store.command_result(stream, "c") is None
    assert await store.stream_version(f"{stream}-new") == 0


@pytest.mark.parametrize("when", ["queued", "sent"])
async def test_a_caller_cancelled_mid_append_leaves_the_store_consistent(
    pool: asyncpg.Pool, when: str
) -> None:
    """A caller cancelled while its append waits for its batch (``queued``) or while the
    batch is in the database (``sent``) gets CancelledError; its append is written whole
    or not at all, the others in its batch are answered, and the store carries on."""
    store = CountingStore(pool)
    sent = asyncio.Event()
    go_on = asyncio.Event()

    async def hold() -> None:
        sent.set()
        await go_on.wait()

    store.sending = hold
    streams = [f"cancel-{when}-{k}" for k in range(3)]
    callers = [asyncio.create_task(store.append(s, 0, [tick(n=k)])) for k, s in enumerate(streams)]
    if when == "queued":
        await asyncio.sleep(0)  # the three are queued; the writer has not sent them yet
        assert store.batches == []
        callers[1].cancel()
    await asyncio.wait_for(sent.wait(), 10)
    if when == "sent":
        callers[1].cancel()
        await asyncio.sleep(0)
    store.sending = None
    go_on.set()
    outcomes = await asyncio.gather(*callers, return_exceptions=True)
    assert isinstance(outcomes[1], asyncio.CancelledError)
    assert [type(o).__name__ for o in outcomes[::2]] == ["AppendResult", "AppendResult"]
    assert store.batches == [3]
    for stream in streams:
        stored = await store.read_stream(stream)
        assert len(stored) in (0, 1)
        assert verify_chain(stored) is None
    version = await store.stream_version(streams[1])
    later = await store.append(streams[1], version, [tick(n=9)])
    assert later.first_version == version + 1
    assert verify_chain(await store.read_stream(streams[1])) is None
