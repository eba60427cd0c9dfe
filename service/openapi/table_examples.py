"""Examples of the tables' routes for the OpenAPI document, rendered by the real domain from
a fixed table.

Deterministic (fixed seeds, fixed names), so the exported document is stable.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar.openapi.spec import Example

from domain import table
from domain.commands import Declaration, Declare
from domain.life import life_actions
from domain.seats import Seat
from domain.table import CreateTable, TableState, TakeSeat, Visibility
from domain.table_view import table_view

NAMES = ("Anna", "Ben", "Carla", "Dieter")


def _seed(n: int) -> bytes:
    return hashlib.sha256(f"doko example seed {n}".encode()).digest()


def example_table() -> TableState:
    """A private table (with a 30-second turn clock) whose four players have sat down and
    the first two said `healthy`."""
    seeds = tuple(_seed(n) for n in range(12))
    create = CreateTable(
        "Friday league",
        Seat(0),
        seeds,
        visibility=Visibility.PRIVATE,
        invitation_hash="-",
        turn_seconds=30,
    )
    state = table.fold(table.decide(TableState(), create))
    for name in NAMES:
        state = table.fold(table.decide(state, TakeSeat(name, "-", None)), state)
    for seat in (Seat(1), Seat(2)):
        state = table.fold(table.decide(state, Declare(seat, Declaration.HEALTHY)), state)
    return state


_STATE = example_table()
_VERSION = 9
_LAST_EVENT_AT = datetime(2026, 12, 4, 19, 30, tzinfo=UTC)
"""When the example table's last event was recorded: its turn runs 30 seconds from then."""
_SERVER_TIME = datetime(2026, 12, 4, 19, 30, 12, 250000, tzinfo=UTC)
"""The service's time when it answered: 12.25 seconds into the turn."""


def _rendered(
    state: TableState, viewer: Seat | None, *, host: bool = False, version: int = _VERSION
) -> dict[str, Any]:
    actions = life_actions(state, viewer, host=host)
    shown = table_view(state, viewer, _LAST_EVENT_AT, actions, _SERVER_TIME, version)
    rendered: dict[str, Any] = msgspec.to_builtins(shown)
    return rendered


def view(viewer: Seat | None, *, host: bool = False, version: int = _VERSION) -> dict[str, Any]:
    """The example table as ``viewer`` (or, ``host``, its host) sees it at ``version``, as
    JSON values."""
    return _rendered(_STATE, viewer, host=host, version=version)


def examples(summary: str, value: dict[str, Any]) -> list[Example]:
    return [Example(summary=summary, value=value)]


TABLE_VIEW = examples("a spectator's view", view(None))
SEAT_VIEW = examples("seat 3's own view, on turn to declare", view(Seat(3)))
_AFTER = table.fold(table.decide(_STATE, Declare(Seat(3), Declaration.HEALTHY)), _STATE)
COMMAND_RESULT = examples(
    "after seat 3 said healthy",
    {
        "version": _VERSION + 1,
        "view": _rendered(_AFTER, Seat(3), version=_VERSION + 1),
    },
)
TABLE_CREATED = examples(
    "a new table",
    {
        "table_id": "5b0e3f1c2d9a4e7f8a6b1c0d2e3f4a5b",
        "host_token": "h0st-t0ken-shown-once",
        "commitments": list(_STATE.created.commitments if _STATE.created else ()),
        "version": 1,
        "view": view(None, host=True, version=1),
        "invitation": "1nv1tat10n-shown-once",
    },
)
SEAT_TAKEN = examples(
    "seat 3 taken",
    {
        "table_id": "5b0e3f1c2d9a4e7f8a6b1c0d2e3f4a5b",
        "seat": 3,
        "token": "s3at-t0ken-shown-once",
        "version": 7,
        "view": view(Seat(3), version=7),
    },
)
TABLE_RESULT = examples(
    "the table after the host's command, with the host's life actions",
    {"version": _VERSION, "view": view(None, host=True)},
)
