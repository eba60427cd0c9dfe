"""What a viewer may do now about the table's life (T1.2, T2, T3.3, T4): each life action
allowed, or refused with the code and the rule id its command would be refused with.

The table is the only referee: each action is its command decided on the state
(`domain.table.decide`), so an action is allowed exactly when its command would be, and a
refused one names the `DomainError` the command would raise. Who may give which command is
the viewer's role: a seat's player leaves (T2.1-T2.3) and comes back (T3.3); the host
vacates a bot's or an away seat (T2.4), closes (T4.1), abandons (T4.2) and replaces the
invitation (T1.2); a spectator has no life action. (Authorization is the service's: the
actions are those of the role the request authenticates as.)
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from domain.errors import DomainError
from domain.seats import SEATS, Seat
from domain.table import (
    AbandonSession,
    CloseTable,
    ComeBack,
    LeaveSeat,
    RotateInvitation,
    TableCommand,
    TableState,
    decide,
)


class LifeAction(StrEnum):
    """A life action of the table: ``leave`` the seat (T2.1-T2.3), ``come_back`` after the
    clock acted for it (T3.3); as the host, ``vacate`` a seat (T2.4), ``close`` the table
    (T4.1), ``abandon`` the session (T4.2), ``rotate_invitation`` (T1.2)."""

    LEAVE = "leave"
    COME_BACK = "come_back"
    VACATE = "vacate"
    CLOSE = "close"
    ABANDON = "abandon"
    ROTATE_INVITATION = "rotate_invitation"


class Permission(msgspec.Struct, frozen=True):
    """Whether the viewer may take ``action`` now (on ``seat``, for ``vacate``); if not,
    the ``code`` and ``rule`` its command would be refused with."""

    action: LifeAction
    allowed: bool
    code: str | None = None
    rule: str | None = None
    seat: Seat | None = None


def _decided(
    state: TableState, action: LifeAction, command: TableCommand, seat: Seat | None = None
) -> Permission:
    try:
        decide(state, command)
    except DomainError as refused:
        return Permission(action, False, refused.code, refused.rule, seat)
    return Permission(action, True, seat=seat)


def life_actions(
    state: TableState, seat: Seat | None = None, *, host: bool = False
) -> tuple[Permission, ...]:
    """The life actions of the player of ``seat`` (None: not a seat's) and, if ``host``, of
    the table's host, each decided on ``state``; none for a spectator."""
    mine: list[Permission] = []
    if seat is not None:
        mine.append(_decided(state, LifeAction.LEAVE, LeaveSeat(seat)))
        mine.append(_decided(state, LifeAction.COME_BACK, ComeBack(seat)))
    if host:
        mine.extend(
            _decided(state, LifeAction.VACATE, LeaveSeat(s, by_host=True), s) for s in SEATS
        )
        mine.append(_decided(state, LifeAction.CLOSE, CloseTable()))
        mine.append(_decided(state, LifeAction.ABANDON, AbandonSession()))
        mine.append(_decided(state, LifeAction.ROTATE_INVITATION, RotateInvitation("")))
    return tuple(mine)
