"""The command service of every aggregate: load a stream, decide, append, project.

`Streams` is the application layer's one entry for changing a stream of one aggregate (a
table, `infra.tables`; a tournament, `infra.tournaments`). It is given what differs between
aggregates as data (`Kind`): the pure rules (`domain.replay.Aggregate`: the empty state,
``decide`` and ``evolve``), the codec of the aggregate's events, the type a stream of it
begins with, which commands begin a stream, whether the time the log records matters (a
clocked table's deadlines derive from it, T3.2) and the projector that writes read models in
the append's transaction.

Commands
    `Streams.execute` takes the stream from a per-process cache (keyed by stream version,
    with the head of its hash chain), runs the pure ``decide`` and appends the events with
    the version it decided on. When another writer got there first (`ConcurrencyConflict`),
    or the cache was stale in any other way, it reloads the newer events and decides again,
    a bounded number of times, as long as the command is still valid. A rejected command
    raises the domain's error and writes nothing. Projection rows are written in the
    append's transaction, so the writer's own read models are never stale. A caller's
    ``check`` (who may give the command: a token of a seat, the director) is run on the very
    state the command is decided on, so that a token which lost its seat meanwhile is
    refused.

Idempotency
    A ``command_id`` makes a command idempotent: run again (by a retry, or by another process
    that lost the race), it returns the first run's result with ``duplicate`` set instead of
    its rejection. A ``command_id`` first used with another ``fingerprint`` raises
    `infra.event_store.IdempotencyKeyReused`. Without a ``command_id``, a request that holds
    an idempotency key (`infra.idempotency.holding`) gives its claim's: every write of such a
    request is written once, whichever route makes it.

Turns
    Within a process, the commands of one stream are decided and appended one at a time, in
    the order they arrive (a lock per stream): they queue instead of racing each other's
    appends, which a busy table's commands would otherwise do again and again (a host
    abandoning a session among four bots' plays lost every race). Between processes the
    expected version decides, as above.

The cache
    This process's own appends update the cache; other processes' appends are heard through
    the event store's notifications (`Streams.heard`, wired to `EventStore.listen` by the
    service, which also reports through `Streams.listening` whether it is listening). While
    listening, a cached stream that no notification has overtaken is current, up to the
    notification's delay, and `load` serves it without reading the log; when not listening
    (or after the connection was lost) every `load` reads what is new. A load thus reads only
    the events appended since the cached version, whatever the stream's length.

Snapshots
    A kind may keep snapshots of its streams (`Kind.snapshot`, `Snapshots`; migration 0014):
    an append that reaches a multiple of ``every`` events writes the state after it, in its
    own transaction, as the projections are written. A stream that is not cached is then
    loaded from its snapshot and the fewer than ``every`` events after it, so a first load
    too reads a bounded number of events, however long the stream. A snapshot of another
    shape (the state's type has changed since) is read as none; `Streams.rebuild_snapshot`
    writes it again from the log.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, Generic, TypeVar

import msgspec
from msgspec.structs import replace

from domain.replay import Aggregate
from infra.codec import EventCodec
from infra.event_store import (
    AppendResult,
    ConcurrencyConflict,
    EventStore,
    ProjectionRows,
    StoredEvent,
)
from infra.hash_chain import GENESIS
from infra.idempotency import holding

S = TypeVar("S")
E = TypeVar("E")
C = TypeVar("C")

Projector = Callable[[Any, Sequence[Any]], ProjectionRows | None]
"""``projector(state_before, events)``: the projection rows the append writes with the events."""

Check = Callable[[Any], None]
"""``check(state)``: raises if the command may not be given at this state (authorization)."""


class StreamNotFound(Exception):
    """No stream of this kind has this id (each kind says it in its own words)."""

    kind = "stream"

    def __init__(self, stream_id: str) -> None:
        super().__init__(f"no {self.kind} {stream_id!r}")
        self.stream_id = stream_id


class VersionMismatch(Exception):
    """The caller's expected version (If-Match) is not the stream's current one."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(f"{stream_id!r} is at version {actual}, not {expected}")
        self.expected = expected
        self.actual = actual


class Loaded(msgspec.Struct, Generic[S], frozen=True):
    """A stream's state at a version, the hash chain value of that version and, when known,
    the time the log recorded for it."""

    state: S
    version: int
    head_hash: bytes = GENESIS
    recorded_at: datetime | None = None


class Executed(msgspec.Struct, Generic[S, E], frozen=True):
    """The outcome of a command: the state after it, its version, the events it wrote.

    ``duplicate`` marks a retried command id: nothing was written this time, and the state,
    version and events are those of the first run.
    """

    state: S
    version: int
    events: tuple[E, ...]
    duplicate: bool = False
    recorded_at: datetime | None = None


@dataclass(frozen=True)
class Snapshots(Generic[S]):
    """A kind's snapshots (module docstring): the state's type, the name of the kind, how
    many events apart. The shape a snapshot is tagged with is the name and the state type's
    schema: a snapshot of an earlier state type is read as none."""

    state_type: type[S]
    name: str
    every: int = 64

    @cached_property
    def shape(self) -> str:
        schema = msgspec.json.encode(msgspec.json.schema(self.state_type))
        return f"{self.name}:{hashlib.sha256(schema).hexdigest()[:16]}"

    def due(self, version: int, appended: int) -> bool:
        """Whether an append of ``appended`` events after ``version`` writes a snapshot."""
        return (version + appended) // self.every > version // self.every

    def encode(self, state: S) -> bytes:
        return msgspec.msgpack.encode((self.shape, state))

    def decode(self, data: bytes) -> S | None:
        """The state of a snapshot, or None if it is of another shape."""
        shape, state = msgspec.msgpack.decode(data, type=tuple[str, msgspec.Raw])
        if shape != self.shape:
            return None
        return msgspec.msgpack.decode(state, type=self.state_type)


@dataclass(frozen=True)
class Kind(Generic[S, E]):
    """What makes the streams of one aggregate what they are (module docstring).

    ``first_type`` is the type of the first event of every stream of this kind: a stream
    that begins otherwise is no stream of it (`StreamNotFound`). ``begins(command)`` says
    whether the command opens a new stream (decided on the empty state, never on a cache).
    ``timed(state)`` says whether the time the log records for the last event is needed
    (`Loaded.recorded_at`: read with the events, or after an append of this process the time
    it gave the append to record, without reading it back). ``not_found``
    is the error a missing stream raises. ``snapshot``: the kind's snapshots, if it keeps any.
    """

    aggregate: Aggregate[S]
    codec: EventCodec[E]
    first_type: str
    not_found: type[StreamNotFound] = StreamNotFound
    begins: Callable[[Any], bool] = lambda _command: False
    timed: Callable[[Any], bool] = lambda _state: False
    snapshot: Snapshots[S] | None = None


class Streams(Generic[S, E, C]):
    """Loads and changes the streams of one aggregate through the event store."""

    def __init__(
        self,
        store: EventStore,
        kind: Kind[S, E],
        projector: Projector | None = None,
        *,
        retries: int = 8,
        cache_size: int = 4096,
    ) -> None:
        self.store = store
        self.kind = kind
        self._projector = projector
        self._retries = retries
        self._cache: OrderedDict[str, Loaded[S]] = OrderedDict()
        self._cache_size = cache_size
        self._heads: dict[str, int] = {}
        self._listening = False
        self._turns: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._generation = 0  # the times the cache was dropped

    def listening(self, up: bool) -> None:
        """Notifications are heard from now on (``True``), or no longer (``False``).

        Appends made while nobody listened were not heard, so the cache is dropped when
        listening starts again.
        """
        if up and not self._listening:
            self._cache.clear()
            self._heads.clear()
            self._generation += 1
        self._listening = up

    def heard(self, stream_id: str, _position: int, version: int) -> None:
        """A notification: the stream has reached ``version`` (see `EventStore.listen`)."""
        cached = self._cache.get(stream_id)
        if cached is not None and version > cached.version:
            self._heads[stream_id] = max(version, self._heads.get(stream_id, 0))

    def fold(self, events: Sequence[E], state: S | None = None) -> S:
        """The state after ``events`` (from the empty state, or from ``state``)."""
        evolve = self.kind.aggregate.evolve
        current = self.kind.aggregate.initial if state is None else state
        for event in events:
            current = evolve(current, event)
        return current

    async def load(self, stream_id: str, *, fresh: bool | None = None) -> Loaded[S]:
        """The stream's state; raises the kind's `StreamNotFound`.

        By default the newest state this process knows of: the cached one while it is
        current (see the module docstring), else the cached one plus the events committed
        since. ``fresh=True`` always reads the log for newer events; ``fresh=False`` takes
        a cached state even when not listening, unless a notification has overtaken it.
        """
        cached = self._cache.get(stream_id)
        if (
            cached is not None
            and fresh is not True
            and (self._listening or fresh is False)
            and self._heads.get(stream_id, 0) <= cached.version
        ):
            return cached
        generation = self._generation
        known = cached or await self._snapshot(stream_id)
        start = known or Loaded(self.kind.aggregate.initial, 0)
        stored = await self.store.read_stream(stream_id, start.version + 1)
        if not stored:
            if known is None:
                raise self.kind.not_found(stream_id)
            if cached is None and generation == self._generation:
                self._remember(stream_id, known)
            return known
        if known is None and stored[0].type != self.kind.first_type:
            raise self.kind.not_found(stream_id)
        state = self.fold([self.kind.codec.from_stored(e) for e in stored], start.state)
        loaded = Loaded(state, stored[-1].version, stored[-1].hash, stored[-1].recorded_at)
        if generation != self._generation:  # read before the cache was dropped: may be stale
            return loaded
        self._remember(stream_id, loaded)
        return self._cache.get(stream_id, loaded)

    async def _snapshot(self, stream_id: str) -> Loaded[S] | None:
        """The stream as its snapshot has it, if the kind keeps snapshots and it has one of
        the kind's shape."""
        snapshots = self.kind.snapshot
        found = await self.store.snapshot(stream_id) if snapshots else None
        if snapshots is None or found is None:
            return None
        at, data = found
        state = snapshots.decode(data)
        return None if state is None else Loaded(state, at.version, at.hash, at.recorded_at)

    async def rebuild_snapshot(self, stream_id: str) -> None:
        """Write the stream's snapshot again from its log (if the kind keeps snapshots)."""
        snapshots = self.kind.snapshot
        if snapshots is None:
            return
        stored = await self.store.read_stream(stream_id)
        if stored:
            state = self.fold([self.kind.codec.from_stored(e) for e in stored])
            await self.store.put_snapshot(stream_id, stored[-1].version, snapshots.encode(state))

    async def events(self, stream_id: str) -> list[tuple[StoredEvent, E]]:
        """Every stored event of the stream with its decoded form; raises `StreamNotFound`."""
        stored = await self.store.read_stream(stream_id)
        if not stored or stored[0].type != self.kind.first_type:
            raise self.kind.not_found(stream_id)
        return [(e, self.kind.codec.from_stored(e)) for e in stored]

    async def execute(
        self,
        stream_id: str,
        command: C,
        *,
        command_id: str | None = None,
        fingerprint: str | None = None,
        actor: str | None = None,
        expected_version: int | None = None,
        check: Check | None = None,
    ) -> Executed[S, E]:
        """Decide and append one command; see the module docstring.

        The first attempt decides on the cached state without reading the log (unless a
        notification says it is behind); whatever a stale cache gets wrong (a version
        conflict, a rejection, an If-Match mismatch, a failed ``check``) is decided again on
        a fresh load. A retried ``command_id`` returns its first result: the append finds it
        (when the command is still valid), or the command's rejection on the fresh state
        sends us to look it up, so a first run costs no extra round trip.
        """
        claim = holding()
        if command_id is None and claim is not None:
            command_id, fingerprint = claim.command_id, claim.fingerprint.hex()
        turn = self._turns.get(stream_id)
        if turn is None:
            turn = self._turns[stream_id] = asyncio.Lock()
        async with turn:
            return await self._execute(
                stream_id, command, command_id, fingerprint, actor, expected_version, check
            )

    async def _execute(
        self,
        stream_id: str,
        command: C,
        command_id: str | None,
        fingerprint: str | None,
        actor: str | None,
        expected_version: int | None,
        check: Check | None,
    ) -> Executed[S, E]:
        kind, fresh = self.kind, False
        for _ in range(self._retries):
            current: Loaded[S]
            if kind.begins(command):
                current, fresh = Loaded(kind.aggregate.initial, 0), True
            else:
                current = await self.load(stream_id, fresh=fresh)
            try:
                if check is not None:
                    check(current.state)
                if expected_version is not None and expected_version != current.version:
                    raise VersionMismatch(stream_id, expected_version, current.version)
                events = tuple(kind.aggregate.decide(current.state, command))
            except Exception:
                if not fresh:
                    fresh = True
                    continue
                if command_id is not None:
                    first = await self.store.command_result(stream_id, command_id, fingerprint)
                    if first is not None:
                        return await self._first_result(stream_id, first)
                raise
            state = self.fold(events, current.state)
            at = datetime.now(UTC)
            try:
                result = await self.store.append(
                    stream_id,
                    current.version,
                    [kind.codec.to_new_event(e, actor=actor, causation=command_id) for e in events],
                    command_id,
                    fingerprint=fingerprint,
                    previous_hash=current.head_hash,
                    projection=self._projection(current, events, state),
                    recorded_at=at,
                )
            except ConcurrencyConflict:
                fresh = True
                continue
            if result.duplicate:
                return await self._first_result(stream_id, result)
            recorded_at = at if kind.timed(state) else None
            done = Loaded(state, result.last_version, result.last_hash, recorded_at)
            self._remember(stream_id, done)
            return Executed(done.state, done.version, events, recorded_at=recorded_at)
        raise ConcurrencyConflict(stream_id, -1, -1)

    def _projection(
        self, before: Loaded[S], events: Sequence[E], after: S
    ) -> ProjectionRows | None:
        """The rows the append writes: the projector's, and the snapshot when it is due."""
        rows = self._projector(before.state, events) if self._projector else None
        snapshots = self.kind.snapshot
        if snapshots is None or not snapshots.due(before.version, len(events)):
            return rows
        snapshot = snapshots.encode(after)
        return replace(rows or ProjectionRows(), snapshot=snapshot)

    async def _first_result(self, stream_id: str, first: AppendResult) -> Executed[S, E]:
        """A retried command's first result: the stream as that command left it."""
        stored = await self.store.read_stream(stream_id)
        upto = [e for e in stored if e.version <= first.last_version]
        events = [self.kind.codec.from_stored(e) for e in upto]
        done = tuple(events[first.first_version - 1 :])
        return Executed(self.fold(events), first.last_version, done, True, upto[-1].recorded_at)

    def _remember(self, stream_id: str, loaded: Loaded[S]) -> None:
        """Cache ``loaded``, unless a newer version is cached already (a load that read the
        log before an append of this process finished after it): the cache never goes
        back."""
        cached = self._cache.get(stream_id)
        if cached is None or cached.version < loaded.version:
            self._cache[stream_id] = loaded
        self._cache.move_to_end(stream_id)
        if self._heads.get(stream_id, 0) <= loaded.version:
            self._heads.pop(stream_id, None)
        while len(self._cache) > self._cache_size:
            dropped, _ = self._cache.popitem(last=False)
            self._heads.pop(dropped, None)
