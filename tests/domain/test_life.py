"""What a viewer may do now about the table's life (`domain.life`): per state and role, each
life action allowed or refused with its code and rule. The expectations are written by hand
from T1.2, T2-T4 as domain/table.py's docstring states them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from domain.life import LifeAction, Permission, life_actions
from domain.observations import observe
from domain.players import stand_in_action
from domain.seats import Seat
from domain.table import CloseTable, TableState, TakeSeat
from domain.table_view import table_view
from tests.domain.test_table import (
    PRIVATE,
    SERVER,
    T0,
    abandoned,
    created,
    finished,
    run,
    seated,
    time_out,
)

Refusal = tuple[str, str] | None
"""(code, rule) of a refused action; None: allowed."""


def open_table() -> TableState:
    """NORTH sits at an open public table; the session has not started."""
    state, _ = run(created(SERVER), TakeSeat("p0", "h0", Seat.NORTH))
    return state


def closed_private() -> TableState:
    state, _ = run(created(PRIVATE), TakeSeat("p0", "h0", Seat.NORTH), CloseTable())
    return state


def private_running() -> TableState:
    return seated(PRIVATE)


def east_timed_out() -> TableState:
    """EAST's turn (its declaration) ran out once: the stand-in declared for it (T3.2)."""
    state = seated()
    state, _ = run(state, time_out(state))
    assert state.turn is not Seat.EAST
    return state


def east_away() -> TableState:
    """EAST timed out three times in a row (the others acted themselves): it is away (T3.3)."""
    state = seated()
    while not state.away[Seat.EAST]:
        deal = state.session.deal
        assert deal is not None and state.turn is not None
        own = stand_in_action(observe(deal, state.turn))
        assert own is not None
        state, _ = run(state, time_out(state) if state.turn is Seat.EAST else own)
    assert not any(state.away[s] for s in Seat if s is not Seat.EAST)
    return state


NOT_RUNNING = ("phase_closed", "T3.3")
NOT_AWAY = ("not_away", "T3.3")
CLOSED = ("phase_closed", "T4.1")
ABANDONED = ("session_over", "T4.2")

SEAT_CASES: list[tuple[str, Callable[[], TableState], Seat, Refusal, Refusal]] = [
    # (case, state, seat, leave, come back)
    ("T2.1-leave-before-the-start", open_table, Seat.NORTH, None, NOT_RUNNING),
    ("T2.3-not-on-ones-turn", seated, Seat.EAST, ("leave_on_turn", "T2.3"), NOT_AWAY),
    ("T2.2-leave-off-turn", seated, Seat.NORTH, None, NOT_AWAY),
    ("T3.3-back-after-a-timeout", east_timed_out, Seat.EAST, None, None),
    ("T2.2-none-after-the-end", finished, Seat.NORTH, ("session_over", "T2.2"), NOT_RUNNING),
    ("T4.2-none-once-abandoned", abandoned, Seat.NORTH, ABANDONED, ABANDONED),
    ("T4.1-none-once-closed", closed_private, Seat.NORTH, CLOSED, CLOSED),
]

OCCUPIED = ("seat_occupied", "T2.4")
EMPTY = ("seat_vacant", "T2.1")
PUBLIC = ("table_public", "T1.2")
OVER = ("session_over", "T2.2")

HOST_CASES: list[
    tuple[str, Callable[[], TableState], tuple[Refusal, ...], Refusal, Refusal, Refusal]
] = [
    # (case, state, vacate seats 0-3, close, abandon, rotate the invitation)
    (
        "T4.1-close-before-the-start",
        open_table,
        (OCCUPIED, EMPTY, EMPTY, EMPTY),
        None,
        ("phase_closed", "T4.2"),
        PUBLIC,
    ),
    (
        "T2.4-a-bot-is-vacated-T4.2-abandon",
        seated,
        (OCCUPIED, OCCUPIED, None, OCCUPIED),
        CLOSED,
        None,
        PUBLIC,
    ),
    (
        "T1.2-a-private-table-rotates",
        private_running,
        (OCCUPIED, OCCUPIED, None, OCCUPIED),
        CLOSED,
        None,
        None,
    ),
    (
        "T2.4-an-away-seat-is-vacated",
        east_away,
        (OCCUPIED, None, None, OCCUPIED),
        CLOSED,
        None,
        PUBLIC,
    ),
    ("T4.2-nothing-after-the-end", finished, (OVER,) * 4, CLOSED, ABANDONED, PUBLIC),
    ("T4.2-nothing-once-abandoned", abandoned, (ABANDONED,) * 4, ABANDONED, ABANDONED, ABANDONED),
    ("T4.1-nothing-once-closed", closed_private, (CLOSED,) * 4, CLOSED, CLOSED, CLOSED),
]


def permission(action: LifeAction, refusal: Refusal, seat: Seat | None = None) -> Permission:
    if refusal is None:
        return Permission(action, True, seat=seat)
    return Permission(action, False, refusal[0], refusal[1], seat)


@pytest.mark.parametrize(
    ("given", "seat", "leave", "back"),
    [pytest.param(*case[1:], id=case[0]) for case in SEAT_CASES],
)
def test_a_seats_player_may_leave_and_come_back_as_the_table_rules_say(
    given: Callable[[], TableState], seat: Seat, leave: Refusal, back: Refusal
) -> None:
    assert life_actions(given(), seat) == (
        permission(LifeAction.LEAVE, leave),
        permission(LifeAction.COME_BACK, back),
    )


@pytest.mark.parametrize(
    ("given", "vacate", "close", "abandon", "rotate"),
    [pytest.param(*case[1:], id=case[0]) for case in HOST_CASES],
)
def test_the_host_may_vacate_close_abandon_and_rotate_as_the_table_rules_say(
    given: Callable[[], TableState],
    vacate: tuple[Refusal, ...],
    close: Refusal,
    abandon: Refusal,
    rotate: Refusal,
) -> None:
    assert life_actions(given(), host=True) == (
        *(permission(LifeAction.VACATE, r, s) for s, r in zip(Seat, vacate, strict=True)),
        permission(LifeAction.CLOSE, close),
        permission(LifeAction.ABANDON, abandon),
        permission(LifeAction.ROTATE_INVITATION, rotate),
    )


def test_a_spectator_has_no_life_action_and_a_view_carries_what_it_is_given() -> None:
    state = seated()
    assert life_actions(state) == ()
    mine = life_actions(state, Seat.NORTH)
    view = table_view(state, Seat.NORTH, T0, mine, T0)
    assert (view.actions, view.server_time) == (mine, T0)
    assert (table_view(state, None).actions, table_view(state, None).server_time) == ((), None)
