"""Tables in the event store: the table's kind of stream for the command service.

`Tables` is `infra.streams.Streams` for tables: a table's stream begins with
``table_created``, `domain.table.CreateTable` opens a new one, and its rules are
`domain.table.decide` and ``evolve`` (`domain.replay.TABLE`). The service gives it the
projector of the tables' read models (`infra.projections.project`), whose rows the append
writes in its own transaction.

The time the log recorded for a table's last event (`Loaded.recorded_at`) is known for tables
with a turn clock, whose deadlines derive from it (T3.2): read with the events, or taken from
the append of this process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

from domain.replay import TABLE
from domain.table import CreateTable, TableCommand, TableEvent, TableState
from infra import streams
from infra.codec import EventCodec
from infra.event_store import EventStore, ProjectionRows

CODEC: EventCodec[TableEvent] = EventCodec(TableEvent)
"""How table events are written to and read from the log."""

TABLE_CREATED = "table_created"
"""The type of a table stream's first event."""

Loaded: TypeAlias = streams.Loaded[TableState]
Executed: TypeAlias = streams.Executed[TableState, TableEvent]

Projector = Callable[[TableState, Sequence[TableEvent]], ProjectionRows | None]
"""``projector(state_before, events)``: the projection rows the append writes with the events."""

Check = Callable[[TableState], None]
"""``check(state)``: raises if the command may not be given at this state (authorization)."""


class TableNotFound(streams.StreamNotFound):
    """No table has this id."""

    kind = "table"


def clocked(state: TableState) -> bool:
    """Whether the table has a turn clock, whose deadlines follow the log's times (T3.2)."""
    return state.created is not None and state.created.turn_seconds is not None


KIND: streams.Kind[TableState, TableEvent] = streams.Kind(
    TABLE,
    CODEC,
    TABLE_CREATED,
    TableNotFound,
    begins=lambda command: isinstance(command, CreateTable),
    timed=clocked,
)
"""A table as the command service sees it (module docstring)."""


class Tables(streams.Streams[TableState, TableEvent, TableCommand]):
    """Loads and changes tables through the event store (`infra.streams.Streams`)."""

    def __init__(
        self,
        store: EventStore,
        projector: Projector | None = None,
        *,
        retries: int = 8,
        cache_size: int = 4096,
    ) -> None:
        super().__init__(store, KIND, projector, retries=retries, cache_size=cache_size)
