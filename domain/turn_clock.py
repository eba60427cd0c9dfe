"""The turn clock's time (T3.2, T3.3): whose turn runs until when, and what comes too late.

A table with ``turn_seconds`` (T3.1) gives the seat to act that many seconds from the table's
last event, as the log recorded it; an away seat gets none (T3.3). The domain never reads a
clock: the service passes the time the log recorded and its own clock's reading.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec

from domain.commands import AnswerPoverty, Declare, NameContract, PlayCard, ReturnPoverty
from domain.errors import TurnExpired
from domain.seats import Seat
from domain.table import TableCommand, TableState


class Turn(msgspec.Struct, frozen=True):
    """T3.2, T3.3: the turn the clock runs for: the seat to act, its grace in seconds (0 for
    an away seat) and, when the time of the table's last event is known, the deadline (UTC)."""

    seat: Seat
    seconds: int
    deadline: datetime | None = None


def turn_of(state: TableState, last_event_at: datetime | None = None) -> Turn | None:
    """The running turn clock of the table: None without a clock or a turn (T3.1, T3.2).

    The deadline is ``turn_seconds`` after the table's last event (``last_event_at``, as the
    log recorded it), or that moment itself for an away seat (T3.3).
    """
    seat = state.turn
    created = state.created
    if seat is None or created is None or created.turn_seconds is None:
        return None
    seconds = 0 if state.away[seat] else created.turn_seconds
    if last_event_at is None:
        return Turn(seat, seconds)
    return Turn(seat, seconds, last_event_at + timedelta(seconds=seconds))


TURN_ACTIONS = (Declare, NameContract, PlayCard, AnswerPoverty, ReturnPoverty)
"""T3.2: a seat's own actions on its turn, which the stand-in takes once its time ran out."""


def require_in_time(
    state: TableState, command: TableCommand, last_event_at: datetime | None, now: datetime
) -> None:
    """T3.2: once a seat's time has run out its turn belongs to the stand-in, and the seat's
    own turn action (declaration, contract, answering an Armut or giving back its cards
    (V4.3, V4.4), card) is refused. An away seat's own action is not: it brings its player
    back (T3.3). Announcements and showing Schweinchen (V3.1) are never a turn's action.

    The service calls this with its clock's reading before it executes a seat's command.
    """
    turn = turn_of(state, last_event_at)
    if turn is None or turn.deadline is None or state.away[turn.seat]:
        return
    if not isinstance(command, TURN_ACTIONS) or command.seat is not turn.seat:
        return
    if now >= turn.deadline:
        raise TurnExpired(
            f"seat {int(turn.seat)}'s time ran out at {turn.deadline.isoformat()}: "
            "the stand-in acts for it",
            rule="T3.2",
        )
