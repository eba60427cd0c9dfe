"""The event store: an append-only PostgreSQL event log, accessed through asyncpg.

Streams and versions
    Every event belongs to a stream (one table, one game...) and has a 1-based ``version`` within
    it. :meth:`EventStore.append` takes the version the caller last saw (``expected_version``, 0
    for a new stream) and fails with :class:`ConcurrencyConflict` if the stream has moved on.

Idempotency
    An append may carry a ``command_id``. Its result is kept in the ``commands`` table, keyed by
    (stream, command id); appending with the same id on the same stream again writes nothing and
    returns the first result with ``duplicate=True``. With the command id the caller may give a
    ``fingerprint`` of the request it answers (migration 0005): the same id with another
    fingerprint is refused with :class:`IdempotencyKeyReused` and writes nothing.

Global positions, and why a tailing reader never skips an event
    Each event also gets a global ``position`` (1, 2, 3, ... over all streams). Readers that
    follow the whole log (projections) call :meth:`EventStore.read_all` with the last position
    they saw. That is only safe if no event with a *smaller* position can become visible *after*
    a larger one; with a plain sequence it can: transaction A draws position 7, transaction B
    draws 8 and commits, a reader sees 8 and moves past 7, then A commits.

    Here every append takes one transaction-scoped advisory lock (:data:`APPEND_LOCK`) before it
    numbers its events, and holds it until its commit. Under the lock it assigns the positions
    ``max(position) + 1, ...`` — read with a fresh READ COMMITTED snapshot taken after the lock
    was granted (a volatile function's statements each take a new snapshot), so it sees the
    previous holder's rows. PostgreSQL releases a transaction's locks only after the commit is
    visible to new snapshots, so appends commit one at a time in position order and every
    snapshot sees exactly the positions ``1..n`` for some ``n``, without holes. A reader asking
    for ``position > p`` therefore gets the events right after ``p`` or nothing yet; never a
    later one ahead of an earlier one. Appending on a connection whose transaction uses
    REPEATABLE READ or SERIALIZABLE isolation is not supported (its snapshot predates the lock).
    Appends are written in batches by one statement, the ``doko_append_batch`` function
    (migration 0004): the appends that queue up in a process while its previous batch is on
    its way go together (:meth:`EventStore.append`), so under load many appends share one
    round trip, one hold of the lock, one commit and one flush (group commit). The function
    locks the batch's streams (in key order: batches cannot deadlock) and then the global
    lock, and takes the appends in turn. The same locks make the version check, the
    idempotency check and the hash chain race-free.

Notifications
    Each append sends ``pg_notify('doko_events', '<last position>:<last version>:<stream_id>')``
    in its transaction, so listeners (:meth:`EventStore.listen`) hear of it on commit. A
    notification is a hint: notifications sent while the listening connection is down are
    lost (:meth:`EventStore.listen` reconnects and says so), so after waking read from the last
    position seen with :meth:`EventStore.read_all`.

Tamper evidence
    Every event stores the SHA-256 hash chain value defined in :mod:`infra.hash_chain`, and
    the chain version it was linked by (``chain``, migration 0009). An append links its
    events by the current version, which covers the time: the time is taken here (or given by
    the caller), once per append, before hashing, and the database stores it as given
    (``recorded_at``, a ``timestamptz`` of microseconds like the ``datetime`` it is given), so
    that the stored time is the hashed one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import asyncpg
import msgspec

from infra.database import UNAVAILABLE
from infra.hash_chain import CURRENT, GENESIS, event_hash

CHANNEL = "doko_events"
"""The PostgreSQL NOTIFY channel announcing appends."""

APPEND_LOCK = 0x646F6B6F_6576656E  # "dokoeven": advisory lock key taken by every append
STREAM_LOCK_CLASS = 0x646F6B6F  # "doko": first key of a stream's lock, (class, hashtext(stream))


class NewEvent(msgspec.Struct, frozen=True):
    """An event to append: ``payload`` is the JSON encoding of the event's data."""

    type: str
    schema_version: int
    payload: bytes
    actor: str | None = None
    causation: str | None = None


class StoredEvent(msgspec.Struct, frozen=True):
    """An event as recorded in the log.

    ``payload`` is JSON bytes as rendered by PostgreSQL's ``jsonb``: its spelling may differ
    from what was appended, the JSON value does not.
    """

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    payload: bytes
    command_id: str | None
    actor: str | None
    causation: str | None
    recorded_at: datetime
    hash: bytes
    chain: int = 1


class AppendResult(msgspec.Struct, frozen=True):
    """The versions and global positions written by one append.

    ``duplicate`` is true when the command id had been seen on the stream before: the result is
    then that of the first append, and nothing was written this time.
    """

    first_version: int
    last_version: int
    positions: tuple[int, ...]
    duplicate: bool = False
    last_hash: bytes = b""


class ConcurrencyConflict(Exception):
    """The stream's version was not the one the writer expected; nothing was written."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream_id!r} is at version {actual}, expected {expected}")
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class IdempotencyKeyReused(Exception):
    """The command id was first used for another request (another fingerprint); nothing
    was written."""

    def __init__(self, stream_id: str, command_id: str) -> None:
        super().__init__(
            f"command id {command_id!r} of stream {stream_id!r} was used for another request"
        )
        self.stream_id = stream_id
        self.command_id = command_id


class ProjectionRows(msgspec.Struct, frozen=True):
    """Projection rows written in an append's transaction (see `infra.projections`): the
    table's public view (JSON), its scoresheet if it changed (JSON, and the 1-based place
    among the appended events of the last event that changed it), its lobby entry if it
    changed (the same place, and JSON with ``status`` and ``visibility`` fields, migration
    0005) and archived deals as (deal number, JSON); a snapshot of the stream's state
    after the append (`infra.streams.Kind.snapshot`, migration 0014); a tournament's
    standings (JSON, `infra.tournaments`, migration 0014)."""

    view: bytes | None = None
    sheet: tuple[int, bytes] | None = None
    deals: tuple[tuple[int, bytes], ...] = ()
    lobby: tuple[int, bytes] | None = None
    snapshot: bytes | None = None
    standings: bytes | None = None


Listener = Callable[[str, int, int], None]
"""``listener(stream_id, last_position, last_version)``: called for every append committed
while listening."""

Listening = Callable[[bool], None]
"""``listening(True)`` once the LISTEN connection is up (again), ``listening(False)`` when it is
lost: appends committed until the next ``True`` are not heard."""

_COLUMNS = """
    position, stream_id, version, type, schema_version, payload::text, command_id, actor,
    causation, recorded_at, hash, chain
"""

_APPEND_BATCH = """
    SELECT item, status, first_version, last_version, positions, last_hash
    FROM doko_append_batch(
        $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
        $20, $21, $22, $23, $24, $25
    )
"""
"""One round trip for a batch of appends: see ``doko_append_batch`` (migrations 0004, 0005,
0009, 0014)."""

_SNAPSHOT = """
    SELECT e.position, e.stream_id, e.version, e.type, e.schema_version, 'null', e.command_id,
           e.actor, e.causation, e.recorded_at, e.hash, e.chain, s.state
    FROM stream_snapshots AS s
    JOIN events AS e ON e.stream_id = s.stream_id AND e.version = s.version
    WHERE s.stream_id = $1
"""
_PUT_SNAPSHOT = """
    INSERT INTO stream_snapshots (stream_id, version, state) VALUES ($1, $2, $3)
    ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, state = EXCLUDED.state
"""

BATCH_LIMIT = 64
"""The most appends sent in one batch."""


class _Pending(msgspec.Struct, frozen=True):
    """One append waiting for its batch: what `EventStore.append` was given, hashed."""

    stream_id: str
    expected_version: int
    previous_hash: bytes
    command_id: str | None
    fingerprint: str | None
    events: Sequence[NewEvent]
    recorded_at: datetime
    hashes: list[bytes]
    projection: ProjectionRows | None


def _batch_arguments(batch: Sequence[_Pending]) -> list[Any]:
    """The parameters of ``doko_append_batch`` for these appends, in order."""
    firsts, first = [], 1
    for item in batch:
        firsts.append(first)
        first += len(item.events)
    events = [e for item in batch for e in item.events]
    rows = [item.projection for item in batch]
    deals = [(k, n, r.decode()) for k, p in enumerate(rows, 1) if p for n, r in p.deals]
    return [
        [item.stream_id for item in batch],
        [item.expected_version for item in batch],
        [item.previous_hash for item in batch],
        [item.command_id for item in batch],
        [item.fingerprint for item in batch],
        firsts,
        [len(item.events) for item in batch],
        [e.type for e in events],
        [e.schema_version for e in events],
        [e.payload.decode() for e in events],
        [e.actor for e in events],
        [e.causation for e in events],
        [h for item in batch for h in item.hashes],
        [p.view.decode() if p and p.view else None for p in rows],
        [p.sheet[1].decode() if p and p.sheet else None for p in rows],
        [p.sheet[0] if p and p.sheet else None for p in rows],
        [p.lobby[1].decode() if p and p.lobby else None for p in rows],
        [p.lobby[0] if p and p.lobby else None for p in rows],
        [k for k, _, _ in deals],
        [n for _, n, _ in deals],
        [r for _, _, r in deals],
        [item.recorded_at for item in batch],
        [CURRENT for _ in batch],
        [p.snapshot if p else None for p in rows],
        [p.standings.decode() if p and p.standings else None for p in rows],
    ]


def _outcome(
    item: _Pending, row: asyncpg.Record
) -> AppendResult | ConcurrencyConflict | IdempotencyKeyReused:
    """What a batch answered for one append: its result, or the error to raise."""
    _, status, first, last, positions, last_hash = row
    if status == "conflict":
        return ConcurrencyConflict(item.stream_id, item.expected_version, first)
    if status == "reused":
        assert item.command_id is not None
        return IdempotencyKeyReused(item.stream_id, item.command_id)
    return AppendResult(
        first_version=first,
        last_version=last,
        positions=tuple(positions),
        duplicate=status == "duplicate",
        last_hash=last_hash,
    )


class EventStore:
    """Appends to and reads from the ``events`` table through an asyncpg pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._queue: list[tuple[_Pending, asyncio.Future[AppendResult]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str | None = None,
        *,
        fingerprint: str | None = None,
        conn: Any = None,
        previous_hash: bytes | None = None,
        projection: ProjectionRows | None = None,
        recorded_at: datetime | None = None,
    ) -> AppendResult:
        """Append *events* to the stream and return what was written.

        The append goes to the database with the others queued meanwhile, in one batch
        (see the module docstring); a batch that fails is sent again one append at a time.

        Raises :class:`ConcurrencyConflict` (writing nothing) when the stream is not at
        *expected_version*. A *command_id* already recorded on this stream returns the first
        result with ``duplicate=True`` (checked before the version), unless it was recorded with
        another *fingerprint*: then :class:`IdempotencyKeyReused` is raised (a command id
        recorded without one, or given without one, matches any). *previous_hash* is the
        stream's last hash (the caller usually knows it; else it is read first). *projection*
        rows are written in the same transaction; if they are invalid nothing is written.
        With *conn*, the append runs on that connection. *recorded_at* is the time to record
        (and hash) for the events, an aware ``datetime`` (default: now); a caller that needs
        the time its events were recorded at gives it, and needs no read-back.
        """
        if not events:
            raise ValueError("append needs at least one event")
        if previous_hash is None:
            previous_hash = await self.head_hash(stream_id, expected_version, conn=conn)
        at = datetime.now(UTC) if recorded_at is None else recorded_at
        hashes = _chain(stream_id, expected_version, previous_hash, events, command_id, at)
        item = _Pending(
            stream_id,
            expected_version,
            previous_hash,
            command_id,
            fingerprint,
            events,
            at,
            hashes,
            projection,
        )
        if conn is not None:
            outcome = _outcome(item, (await self._send(conn, [item]))[0])
            if isinstance(outcome, Exception):
                raise outcome
            return outcome
        done: asyncio.Future[AppendResult] = asyncio.get_running_loop().create_future()
        self._queue.append((item, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())
        return await done

    async def _send(self, conn: Any, batch: Sequence[_Pending]) -> list[asyncpg.Record]:
        """One ``doko_append_batch`` call: its rows, in the order of ``batch``."""
        rows = await conn.fetch(_APPEND_BATCH, *_batch_arguments(batch))
        return sorted(rows, key=lambda row: row[0])

    async def _write(self) -> None:
        """Send the queued appends, a batch at a time, until none is left.

        Appends that queue up while a batch is on its way go together in the next one
        (group commit: one round trip, one commit and one flush for all of them). If a
        batch fails, its appends are sent again one by one, so that an error belongs
        only to the append that caused it; unless the database is unavailable
        (`infra.database.UNAVAILABLE`): then every waiting append fails at once with that
        error, instead of each waiting for its own timeout.
        """
        while self._queue:
            taken, self._queue = self._queue[:BATCH_LIMIT], self._queue[BATCH_LIMIT:]
            groups = [taken]
            while groups:
                group = groups.pop()
                outcomes: list[AppendResult | BaseException]
                try:
                    rows = await self._send(self._pool, [item for item, _ in group])
                    outcomes = [
                        _outcome(item, row) for (item, _), row in zip(group, rows, strict=True)
                    ]
                except UNAVAILABLE as error:  # not one append's fault: fail all that wait
                    for _, done in [*group, *(p for g in groups for p in g), *self._queue]:
                        _settle(done, error)
                    groups, self._queue = [], []
                    continue
                except Exception as error:
                    if len(group) > 1:
                        groups.extend([single] for single in reversed(group))
                        continue
                    outcomes = [error]
                for (_, done), outcome in zip(group, outcomes, strict=True):
                    _settle(done, outcome)

    async def head_hash(self, stream_id: str, version: int, *, conn: Any = None) -> bytes:
        """The hash of the stream's event at *version* (`GENESIS` for 0, or if there is none)."""
        if version == 0:
            return GENESIS
        head: bytes | None = await (conn or self._pool).fetchval(
            "SELECT hash FROM events WHERE stream_id = $1 AND version = $2", stream_id, version
        )
        return head or GENESIS

    async def command_result(
        self, stream_id: str, command_id: str, fingerprint: str | None = None
    ) -> AppendResult | None:
        """Return the first result of *command_id* on the stream, or None if it never ran.

        Raises :class:`IdempotencyKeyReused` if it ran for another *fingerprint* (see
        :meth:`append`)."""
        row = await self._pool.fetchrow(
            "SELECT c.first_version, c.last_version, c.positions, e.hash, c.fingerprint"
            " FROM commands c"
            " JOIN events e ON e.stream_id = c.stream_id AND e.version = c.last_version"
            " WHERE c.stream_id = $1 AND c.command_id = $2",
            stream_id,
            command_id,
        )
        if row is None:
            return None
        if None not in (row[4], fingerprint) and row[4] != fingerprint:
            raise IdempotencyKeyReused(stream_id, command_id)
        return AppendResult(row[0], row[1], tuple(row[2]), duplicate=True, last_hash=row[3])

    async def snapshot(self, stream_id: str) -> tuple[StoredEvent, bytes] | None:
        """The stream's snapshot (migration 0014), if it has one: the event it was taken at
        (for its version, hash and time; its payload is not read) and the snapshot."""
        row = await self._pool.fetchrow(_SNAPSHOT, stream_id)
        if row is None:
            return None
        return _stored(row), bytes(row["state"])

    async def put_snapshot(self, stream_id: str, version: int, state: bytes) -> None:
        """Store the stream's snapshot at ``version`` (a rebuild: the live ones are written
        by the append)."""
        await self._pool.execute(_PUT_SNAPSHOT, stream_id, version, state)

    async def recorded_at(self, stream_id: str, version: int) -> datetime | None:
        """When the database recorded the stream's event at *version* (None if there is none)."""
        at: datetime | None = await self._pool.fetchval(
            "SELECT recorded_at FROM events WHERE stream_id = $1 AND version = $2",
            stream_id,
            version,
        )
        return at

    async def stream_version(self, stream_id: str) -> int:
        """Return the stream's current version (0 if it has no events)."""
        version: int = await self._pool.fetchval(
            "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1", stream_id
        )
        return version

    async def head_position(self) -> int:
        """Return the newest global position (0 if the log is empty)."""
        position: int = await self._pool.fetchval("SELECT coalesce(max(position), 0) FROM events")
        return position

    async def read_stream(self, stream_id: str, from_version: int = 1) -> list[StoredEvent]:
        """Return the stream's events from *from_version* on, in version order (*from_version*
        may be one past the largest version, 2^31 - 1: there are none then)."""
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version",
            stream_id,
            from_version - 1,
        )
        return [_stored(row) for row in rows]

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[StoredEvent]:
        """Return up to *limit* events with positions after *after_position*, in position order.

        Safe for tailing: call again with the last position returned and no event is ever
        skipped, even one committed late by a concurrent writer (see the module docstring).
        """
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2",
            after_position,
            limit,
        )
        return [_stored(row) for row in rows]

    async def listen_once(
        self,
        listener: Listener,
        listening: Listening | None = None,
        also: Mapping[str, Callable[[str], None]] | None = None,
    ) -> None:
        """Call *listener* for every append committed while one pool connection listens.

        Returns when that connection is lost (raises if it cannot be had), telling
        *listening* ``True`` once it listens and ``False`` when it is lost. *listener* runs on
        the event loop and should be quick (e.g. set an :class:`asyncio.Event`). The same
        connection listens to the channels of *also*, calling each one's callback with the
        notification's payload (table talk: `infra.talk.CHANNEL`).
        """
        others = {
            channel: (lambda _c, _p, _ch, payload, call=call: call(payload))
            for channel, call in (also or {}).items()
        }

        def relay(_conn: object, _pid: int, _channel: str, payload: str) -> None:
            position, version, stream_id = payload.split(":", 2)
            listener(stream_id, int(position), int(version))

        async with self._pool.acquire() as conn:
            lost = asyncio.Event()
            conn.add_termination_listener(lambda _conn: lost.set())
            await conn.add_listener(CHANNEL, relay)
            for channel, other in others.items():
                await conn.add_listener(channel, other)
            if listening is not None:
                listening(True)
            try:
                await lost.wait()
            finally:
                if listening is not None:
                    listening(False)
                with contextlib.suppress(asyncpg.InterfaceError):  # released when it was lost
                    if not conn.is_closed():
                        await conn.remove_listener(CHANNEL, relay)
                        for channel, other in others.items():
                            await conn.remove_listener(channel, other)

    @asynccontextmanager
    async def listen(
        self, listener: Listener, listening: Listening | None = None, *, retry: float = 1.0
    ) -> AsyncIterator[None]:
        """Call *listener* for every append committed while the block runs.

        Holds one pool connection for the duration (:meth:`listen_once`), and when that
        connection is lost takes another (every *retry* seconds until one answers), telling
        *listening* of each change. The block starts once the first connection listens.
        """
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def tell(up: bool) -> None:
            if up and not first.done():
                first.set_result(None)
            if listening is not None:
                listening(up)

        async def follow() -> None:
            while True:
                try:
                    await self.listen_once(listener, tell)
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                    if not first.done():
                        first.set_exception(error)
                        return
                await asyncio.sleep(retry)

        task = asyncio.create_task(follow())
        try:
            await first
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _settle(done: asyncio.Future[AppendResult], outcome: AppendResult | BaseException) -> None:
    """Hand an append its result (or error), unless its caller has stopped waiting."""
    if done.done():
        return
    if isinstance(outcome, BaseException):
        done.set_exception(outcome)
    else:
        done.set_result(outcome)


def _chain(
    stream_id: str,
    version: int,
    previous: bytes,
    events: Sequence[NewEvent],
    command_id: str | None,
    recorded_at: datetime,
) -> list[bytes]:
    """The hash chain values of *events* as the successors of *version* ending in *previous*,
    linked by the current chain version, recorded at *recorded_at*."""
    hashes = []
    for offset, event in enumerate(events, start=1):
        previous = event_hash(
            previous,
            stream_id,
            version + offset,
            event.type,
            event.schema_version,
            event.payload,
            actor=event.actor,
            causation=event.causation,
            command_id=command_id,
            chain=CURRENT,
            recorded_at=recorded_at,
        )
        hashes.append(previous)
    return hashes


def _stored(row: asyncpg.Record) -> StoredEvent:
    """Build a :class:`StoredEvent` from a row selected with ``_COLUMNS``."""
    return StoredEvent(
        position=row[0],
        stream_id=row[1],
        version=row[2],
        type=row[3],
        schema_version=row[4],
        payload=row[5].encode(),
        command_id=row[6],
        actor=row[7],
        causation=row[8],
        recorded_at=row[9],
        hash=row[10],
        chain=row[11],
    )
