"""What a seat, or a spectator, may see of a table and of each event in its stream.

Builds on `domain.observations`: nothing here shows another seat's hand, a
hidden party, a losing contract or a silent solo before the deal is scored, nor
any server seed before its deal is scored, nor a token or invitation hash.

A stream shows every event to every viewer, redacted where it holds a secret (`redact`),
so that its ids have no gaps; and with each event what the table asks now (`prompt`): whose
turn it is, until when, and what the viewing seat may do.
"""

from __future__ import annotations

import functools
from datetime import datetime
from enum import StrEnum

import msgspec
from msgspec import UNSET, UnsetType

from domain.commands import NameContract, ReturnPoverty
from domain.events import ContractNamed, DealDealt, GameTypeFixed, PovertyReturned
from domain.game_types import GameType
from domain.life import Permission
from domain.observations import Observation, Options, observe, options
from domain.rule_set import RuleSet
from domain.seats import SEATS, Seat
from domain.table import (
    DealingMethod,
    InvitationRotated,
    Player,
    SeatTaken,
    TableCreated,
    TableEvent,
    TableState,
    TableStatus,
    TurnTimedOut,
    Visibility,
)
from domain.turn_clock import Turn, turn_of


class SeatStatus(StrEnum):
    """A seat: ``free`` before the session, ``vacant`` during it (T2.1, T2.2), ``seated``, or
    ``away`` (its turns played by the stand-in at once, T3.3)."""

    FREE = "free"
    SEATED = "seated"
    VACANT = "vacant"
    AWAY = "away"


class SeatInfo(msgspec.Struct, frozen=True):
    """A seat as everyone sees it (``bot``: the kind of server-side bot playing it)."""

    seat: Seat
    name: str | None
    bot: str | None = None
    status: SeatStatus = SeatStatus.SEATED


class TableView(msgspec.Struct, frozen=True):
    """A table as ``viewer`` (None: a spectator) sees it. ``dealing_method`` says how its
    deals come about (R2.2, `domain.table.DealingMethod`); ``preset`` is true when that is
    ``preset``. ``status`` is the table's place in its life, ``visibility`` who may join
    (T1.1); ``turn_seconds`` is its turn clock (T3.1) and ``clock`` the running turn: whose
    it is and its deadline (UTC, T3.2; null where the time of the last event is not known,
    as in the stored projection). ``actions`` are the life actions the viewer's role may take
    now, each allowed or refused with its code and rule (`domain.life`: a seat's player's,
    the host's; none for a spectator); ``server_time`` is the service's clock when it
    rendered the view (UTC: the domain reads no clock; null where none was given, as in the
    stored projection); ``version`` is the table version it shows (the events of the table's
    log it folds: the service sends it as the view's ETag too; 0 where none was given, as in
    the stored projection). ``rules`` is the rule set the table plays by (`domain.rule_set`:
    its house rules, V1-V6; left out for RULES.md exactly); ``deals`` the deals of its
    session (R1.1: 12; V6.1, V6.6: the counted ones, and one duty solo each)."""

    name: str
    viewer: Seat | None
    seats: tuple[SeatInfo, ...]
    commitments: tuple[str, ...]
    preset: bool
    dealing_method: DealingMethod
    first_dealer: Seat | None
    deals: int
    deal: Observation | None
    scoresheet: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    winners: tuple[Seat, ...] | None
    status: TableStatus = TableStatus.OPEN
    visibility: Visibility = Visibility.PUBLIC
    turn_seconds: int | None = None
    clock: Turn | None = None
    actions: tuple[Permission, ...] = ()
    server_time: datetime | None = None
    version: int = 0
    rules: RuleSet | UnsetType = UNSET


@functools.lru_cache(maxsize=4096)
def _seat_infos(
    players: tuple[Player | None, ...], away: tuple[bool, ...], started: bool
) -> tuple[SeatInfo, ...]:
    """Each seat as everyone sees it (remembered: it changes only when players come and go)."""
    empty = SeatStatus.VACANT if started else SeatStatus.FREE
    return tuple(
        SeatInfo(s, p.name, p.bot or None, SeatStatus.AWAY if gone else SeatStatus.SEATED)
        if p
        else SeatInfo(s, None, None, empty)
        for s, p, gone in zip(SEATS, players, away, strict=True)
    )


def seat_infos(state: TableState) -> tuple[SeatInfo, ...]:
    """Each seat as everyone sees it: who sits there, and whether it is free, vacant or away."""
    return _seat_infos(state.players, state.away, state.session.started)


def table_view(
    state: TableState,
    viewer: Seat | None,
    last_event_at: datetime | None = None,
    actions: tuple[Permission, ...] = (),
    now: datetime | None = None,
    version: int = 0,
) -> TableView:
    """The table as ``viewer`` sees it; the current deal through `observe`. The running
    turn's deadline needs the time the log recorded for the last event (``last_event_at``);
    the viewer's life ``actions`` (`domain.life.life_actions`), the service's time ``now``
    and the table ``version`` the state is at are given."""
    created = state.created
    assert created is not None
    current = state.session
    return TableView(  # positional, in field order: the fastest way to build it
        created.name,
        viewer,
        seat_infos(state),
        created.commitments,
        bool(created.presets),
        created.dealing_method,
        current.first_dealer,
        created.rule_set.all_deals,
        observe(current.deal, viewer) if current.deal is not None else None,
        current.sheet,
        current.totals,
        current.winners,
        state.status,
        created.visibility,
        created.turn_seconds,
        turn_of(state, last_event_at),
        actions,
        now,
        version,
        created.rules,
    )


def redact(event: TableEvent, viewer: Seat | None) -> TableEvent:
    """An event as ``viewer`` may see it: every event reaches every viewer, its secrets
    emptied.

    Server seeds, preset hands, token and invitation hashes are never shown; a dealt
    deal shows only the viewer's hand and no seed; a named contract only to its namer, the
    others are told that the seat named one, with ``contract`` null (R4.3), and a contract
    the stand-in named is the null ``action`` of the timeout to them (T3.2); a silent solo
    looks like a normal game to all but its soloist (R4.5); the cards given back in an
    Armut are null to all but its two players (V4.6), and so is the stand-in's giving back.
    """
    if isinstance(event, TableCreated | SeatTaken | InvitationRotated):
        return without_secrets(event)
    if (
        isinstance(event, TurnTimedOut)
        and isinstance(event.action, NameContract | ReturnPoverty)
        and event.seat is not viewer
    ):
        return msgspec.structs.replace(event, action=None)
    if isinstance(event, PovertyReturned) and viewer not in (event.seat, event.poor):
        return msgspec.structs.replace(event, cards=None)
    if isinstance(event, DealDealt):
        hands = tuple(h if s is viewer else () for s, h in zip(SEATS, event.hands, strict=True))
        return msgspec.structs.replace(
            event, hands=hands, dealing=msgspec.structs.replace(event.dealing, seed=None)
        )
    if isinstance(event, ContractNamed):
        return event if event.seat is viewer else ContractNamed(event.seat, None)
    if (
        isinstance(event, GameTypeFixed)
        and event.game_type is GameType.SILENT_SOLO
        and event.declarer is not viewer
    ):
        return GameTypeFixed(GameType.NORMAL, None)
    return event


class Prompt(msgspec.Struct, frozen=True):
    """What the table asks once an event has happened, as a viewer may know it: ``turn``, the
    seat to act now (declare R4.1, name a contract R4.2, play R3.6; null: nobody), ``clock``
    its turn clock (T3.2, as in views) and, for a seat, its ``options``: what it may do now,
    the words it may still announce with their deadlines included (R6.1-R6.7); null for a
    spectator. Options hold nothing the seat may not know (`domain.observations`): no hidden
    contract (R4.3), no silent solo but its soloist's own (R4.5)."""

    turn: Seat | None
    clock: Turn | None
    options: Options | None


_NOTHING = Options()


def prompt(state: TableState, viewer: Seat | None, last_event_at: datetime | None = None) -> Prompt:
    """What the table asks of whom in ``state`` (after an event the log recorded at
    ``last_event_at``), as ``viewer`` may know it. Nobody acts once the table is over (T4,
    R1.3)."""
    deal = state.session.deal
    if viewer is None:
        seen = None
    elif deal is None or state.over:
        seen = _NOTHING
    else:
        seen = options(deal, viewer)
    return Prompt(state.turn, turn_of(state, last_event_at), seen)


def without_secrets(event: TableEvent) -> TableEvent:
    """The event without what nobody is ever shown: server seeds and preset hands at the
    table's creation, token and invitation hashes. (A scored deal's record shows the rest.)"""
    if isinstance(event, TableCreated):
        return msgspec.structs.replace(
            event, server_seeds=(), presets=(), host_token_hash="", invitation_hash=""
        )
    if isinstance(event, SeatTaken):
        return msgspec.structs.replace(event, token_hash="")
    if isinstance(event, InvitationRotated):
        return InvitationRotated("")
    return event
