"""Command handling for tables: load the stream, decide, append, project.

`Tables.execute` is the application layer's one entry for changing a table:
it loads the table (from a per-process cache keyed by stream version, reading
only newer events), runs the pure `domain.table.decide`, and appends the
events with the version it decided on. When another writer got there first
(`ConcurrencyConflict`) it reloads and decides again, a bounded number of
times, as long as the command is still valid. A rejected command raises the
domain's error and writes nothing. Projections run inside the append's
transaction, so the writer's own views are never stale.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec

from domain import table
from domain.table import TableCommand, TableEvent, TableState
from infra.codec import EventCodec
from infra.event_store import ConcurrencyConflict, EventStore, StoredEvent

CODEC: EventCodec[TableEvent] = EventCodec(TableEvent)
"""How table events are written to and read from the log."""

Projector = Callable[[Any, str, TableState, Sequence[TableEvent], int], Awaitable[None]]
"""``projector(conn, stream_id, state_before, events, first_version)``, inside the append."""


class TableNotFound(Exception):
    """No table has this id."""

    def __init__(self, stream_id: str) -> None:
        super().__init__(f"no table {stream_id!r}")
        self.stream_id = stream_id


class VersionMismatch(Exception):
    """The caller's expected table version (If-Match) is not the current one."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(f"table {stream_id!r} is at version {actual}, not {expected}")
        self.expected = expected
        self.actual = actual


class Loaded(msgspec.Struct, frozen=True):
    """A table's state at a version."""

    state: TableState
    version: int


class Executed(msgspec.Struct, frozen=True):
    """The outcome of a command: the table after it, its version, the events it wrote.

    ``duplicate`` marks a retried command id: nothing was written this time, and
    the state, version and events are those of the first run.
    """

    state: TableState
    version: int
    events: tuple[TableEvent, ...]
    duplicate: bool = False


class Tables:
    """Loads and changes tables through the event store."""

    def __init__(
        self,
        store: EventStore,
        projector: Projector | None = None,
        *,
        retries: int = 8,
        cache_size: int = 4096,
    ) -> None:
        self.store = store
        self._projector = projector
        self._retries = retries
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._cache_size = cache_size

    async def load(self, stream_id: str) -> Loaded:
        """The table's newest state; raises `TableNotFound`."""
        cached = self._cache.get(stream_id)
        start = cached or Loaded(TableState(), 0)
        stored = await self.store.read_stream(stream_id, start.version + 1)
        if not stored:
            if cached is None:
                raise TableNotFound(stream_id)
            return cached
        loaded = Loaded(
            table.fold([CODEC.from_stored(e) for e in stored], start.state), stored[-1].version
        )
        self._remember(stream_id, loaded)
        return loaded

    async def events(self, stream_id: str) -> list[tuple[StoredEvent, TableEvent]]:
        """Every stored event of the table with its decoded form; raises `TableNotFound`."""
        stored = await self.store.read_stream(stream_id)
        if not stored:
            raise TableNotFound(stream_id)
        return [(e, CODEC.from_stored(e)) for e in stored]

    async def execute(
        self,
        stream_id: str,
        command: TableCommand,
        *,
        command_id: str | None = None,
        actor: str | None = None,
        expected_version: int | None = None,
    ) -> Executed:
        """Decide and append one command; see the module docstring."""
        if command_id is not None:
            first = await self.store.command_result(stream_id, command_id)
            if first is not None:
                return await self._first_result(stream_id, first.first_version, first.last_version)
        for _ in range(self._retries):
            if isinstance(command, table.CreateTable):
                current = Loaded(TableState(), 0)
            else:
                current = await self.load(stream_id)
            if expected_version is not None and expected_version != current.version:
                raise VersionMismatch(stream_id, expected_version, current.version)
            events = table.decide(current.state, command)
            records = [CODEC.to_new_event(e, actor=actor, causation=command_id) for e in events]
            try:
                result = await self.store.append(
                    stream_id,
                    current.version,
                    records,
                    command_id,
                    on_append=self._on_append(stream_id, current.state, events),
                )
            except ConcurrencyConflict:
                self._cache.pop(stream_id, None)
                continue
            if result.duplicate:
                return await self._first_result(
                    stream_id, result.first_version, result.last_version
                )
            done = Loaded(table.fold(events, current.state), result.last_version)
            self._remember(stream_id, done)
            return Executed(done.state, done.version, events)
        raise ConcurrencyConflict(stream_id, -1, -1)

    def _on_append(
        self, stream_id: str, before: TableState, events: tuple[TableEvent, ...]
    ) -> Callable[[Any, list[StoredEvent]], Awaitable[None]] | None:
        projector = self._projector
        if projector is None:
            return None

        async def project(conn: Any, stored: list[StoredEvent]) -> None:
            await projector(conn, stream_id, before, events, stored[0].version)

        return project

    async def _first_result(self, stream_id: str, first: int, last: int) -> Executed:
        """A retried command's first result: the table as that command left it."""
        stored = await self.store.read_stream(stream_id)
        events = [CODEC.from_stored(e) for e in stored if e.version <= last]
        return Executed(table.fold(events), last, tuple(events[first - 1 :]), duplicate=True)

    def _remember(self, stream_id: str, loaded: Loaded) -> None:
        self._cache[stream_id] = loaded
        self._cache.move_to_end(stream_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
