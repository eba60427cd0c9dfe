"""The table aggregate: four seats, fair dealing, one session, and the table's life (R1, T1-T5).

A table's stream begins with `TableCreated` (the commitments to the server
seeds of all 12 deals, or the preset hands of a tournament director, the first
dealer drawn by lot or fixed by the host, who may join, and the turn clock)
and `SeatTaken` for each player. When the fourth player sits the session starts
and deal 1 is dealt; whenever a deal is scored the next one is dealt in the
same step, until the session is over. Server seeds are secret until their deal
is scored: views and streams must never show `TableCreated.server_seeds`, nor
any token or invitation hash.

The table rules (the platform's house rules around the game; RULES.md covers the game):

- T1 Who may sit. T1.1 A public table is open to anyone; a private table to holders of
  its invitation code (the service checks the code; only its hash is recorded). T1.2 The
  host may replace a private table's invitation code with a new one: the old code stops
  at once for sitting down and watching; the seated players keep their seats.
- T2 Leaving and replacing. T2.1 Before the session starts a player who leaves frees the
  seat. T2.2 During the session the seat is *vacant*: play waits for it (a turn clock, if
  set, still runs and its stand-in acts for the seat) until someone takes it, as anyone
  who may sit there can (T1.1), or the host seats a bot; the newcomer plays on with the
  seat's cards and score. T2.3 A seat may not leave while it is the one to act (its
  declaration, contract or card): it acts first, or lets the clock act. T2.4 The host may
  vacate a bot's seat or an *away* seat (T3.3), never a present player's.
- T3 The turn clock. T3.1 A table may have `turn_seconds` (5-600) or none. T3.2 The seat
  to act has `turn_seconds` from the table's last event; then the stand-in
  (`domain.players.stand_in_action`) acts for it (`TurnTimedOut`), and the seat's own turn
  action comes too late. The time is data: the service passes its clock's reading and the
  deadline it derived from the log (`TimeOut`); the domain never reads a clock. T3.3 After
  three consecutive timeouts the seat is *away*: the stand-in acts on its turns at once
  (no grace) until its player acts again (`SeatBack`), or the host replaces it (T2.4).
- T4 Closing. T4.1 The host may close a table whose session has not started. T4.2 The host
  may abandon a running session: it ends with the deals scored so far and no winners;
  every scored deal stays auditable.
- T5 Table talk. T5.1 Seated players and spectators may send the table short messages: 1-200
  characters once trimmed, without control or bidirectional formatting characters; a
  spectator's name is kept as a seated player's is (N1-N3), 1-40 characters. Talk is no
  event of the table: it is kept beside its log, never in its hash chain, its export or its
  deal records. T5.2 During a deal a seated player's message may not name a card, a suit,
  trump or a party (by code, or by name in German or English): the table hears a person's
  words, never a hand. T5.3 The host may mute a seat or the spectators, and unmute them; a
  muted speaker's messages are refused. T5.4 Bots never talk.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from domain import session
from domain.cards import Card
from domain.commands import (
    Announce,
    AnswerPoverty,
    Command,
    DealCommand,
    DealPreset,
    DealSeeded,
    Declare,
    NameContract,
    PlayCard,
    ReturnPoverty,
    ShowSchweinchen,
    StartSession,
)
from domain.dealing import commitment
from domain.errors import (
    ClockRunning,
    EntropyNotUsed,
    InvalidTableOption,
    LeaveOnTurn,
    NotAway,
    NotPrivate,
    NoTurnClock,
    NotYourTurn,
    PhaseClosed,
    SeatOccupied,
    SeatUnavailable,
    SeatVacant,
    SessionOver,
)
from domain.events import DealDealt, DealScored, Event
from domain.names import normal_name
from domain.observations import observe
from domain.players import stand_in_action
from domain.rule_set import DEFAULT, RuleSet, in_force, recorded
from domain.seats import SEATS, Seat

Hands = tuple[tuple[Card, ...], ...]
T = TypeVar("T")


TURN_SECONDS = (5, 600)
"""T3.1: the shortest and the longest turn clock, in seconds."""
AWAY_AFTER = 3
"""T3.3: consecutive timeouts after which a seat is away."""


class Visibility(StrEnum):
    """T1.1: who may sit at a table and watch it. A private table is listed nowhere."""

    PUBLIC = "public"
    PRIVATE = "private"


class TableStatus(StrEnum):
    """Where a table is in its life: seats free (``open``), ``playing``, ``finished``
    (R1.3), ``abandoned`` (T4.2), or ``closed`` before it started (T4.1)."""

    OPEN = "open"
    PLAYING = "playing"
    FINISHED = "finished"
    ABANDONED = "abandoned"
    CLOSED = "closed"


class DealingMethod(StrEnum):
    """How a table's deals come about (R2.2), known to everyone before anyone sits.

    ``seeded``: server seeds, committed to when the table is created and mixed with the
    players' entropy, so that no one alone controls the hands. ``host_seeded``: seeds
    chosen by the host (shared between tables for identical hands): whoever chose them
    can know every hand, and no entropy is taken. ``preset``: hands set by a tournament
    director.
    """

    SEEDED = "seeded"
    HOST_SEEDED = "host_seeded"
    PRESET = "preset"


class TableCreated(msgspec.Struct, frozen=True, tag_field="type", tag="table_created"):
    """A table was opened. ``server_seeds`` (hex) stay secret until their deal is scored.

    ``visibility`` and ``invitation_hash`` (T1.1; a hash of the private table's invitation
    code, never shown) and ``turn_seconds`` (T3.1) default to what a table created before
    they existed was: public, without a clock; ``rules`` (`domain.rule_set`) too: left out,
    RULES.md exactly.
    """

    name: str
    first_dealer: Seat
    commitments: tuple[str, ...] = ()
    server_seeds: tuple[str, ...] = ()
    presets: tuple[Hands, ...] = ()
    first_dealer_fixed: bool = False
    host_token_hash: str = ""
    shared_seeds: bool = False
    visibility: Visibility = Visibility.PUBLIC
    invitation_hash: str = ""
    turn_seconds: int | None = None
    rules: RuleSet | UnsetType = UNSET

    @property
    def rule_set(self) -> RuleSet:
        """The rules the table plays by (`domain.rule_set.in_force`)."""
        return in_force(self.rules)

    @property
    def dealing_method(self) -> DealingMethod:
        """How this table's deals come about."""
        if self.presets:
            return DealingMethod.PRESET
        return DealingMethod.HOST_SEEDED if self.shared_seeds else DealingMethod.SEEDED


class SeatTaken(msgspec.Struct, frozen=True, tag_field="type", tag="seat_taken"):
    """A player sat down; only a hash of the seat token is kept. ``entropy`` is hex;
    ``bot`` names the server-side bot playing the seat, if any."""

    seat: Seat
    name: str
    token_hash: str
    entropy: str = ""
    bot: str = ""


class SeatLeft(msgspec.Struct, frozen=True, tag_field="type", tag="seat_left"):
    """``name`` left ``seat`` (T2.1, T2.2), or the host vacated it (``by_host``, T2.4); its
    token no longer acts for it."""

    seat: Seat
    name: str
    by_host: bool = False


class InvitationRotated(msgspec.Struct, frozen=True, tag_field="type", tag="invitation_rotated"):
    """T1.2: the host replaced the private table's invitation code; ``invitation_hash`` is
    the new code's hash (never shown), and the old code opens the table no more."""

    invitation_hash: str


class TurnTimedOut(msgspec.Struct, frozen=True, tag_field="type", tag="turn_timed_out"):
    """T3.2: ``seat``'s time in deal ``deal_no`` ran out at ``deadline`` (UTC); the stand-in
    took ``action`` (its events follow) when the service's clock read ``at``. A named
    contract is as secret as `ContractNamed`, cards given back in an Armut as
    `domain.events.PovertyReturned`: others see ``action`` as null."""

    seat: Seat
    deal_no: int
    action: Declare | NameContract | PlayCard | AnswerPoverty | ReturnPoverty | None
    deadline: datetime
    at: datetime


class SeatAway(msgspec.Struct, frozen=True, tag_field="type", tag="seat_away"):
    """T3.3: the seat timed out three times in a row; the stand-in acts for it at once."""

    seat: Seat


class SeatBack(msgspec.Struct, frozen=True, tag_field="type", tag="seat_back"):
    """T3.3: the seat's player acts again after the clock acted for it: the count of
    consecutive timeouts starts again and the seat is no longer away."""

    seat: Seat


class TableClosed(msgspec.Struct, frozen=True, tag_field="type", tag="table_closed"):
    """T4.1: the host closed the table before its session started."""


class SessionAbandoned(msgspec.Struct, frozen=True, tag_field="type", tag="session_abandoned"):
    """T4.2: the host abandoned the session after ``deals`` scored deals, with ``totals``;
    no winners (R1.3 needs all deals)."""

    deals: int
    totals: tuple[int, ...]


class CreateTable(msgspec.Struct, frozen=True, tag_field="command", tag="create_table"):
    """Open a table with 12 secret server seeds, 12 shared seeds, or 12 preset deals;
    public, or private with the hash of its invitation code (T1.1); with a turn clock of
    ``turn_seconds`` (T3.1) or none; played by ``rules`` (`domain.rule_set`)."""

    name: str
    first_dealer: Seat
    server_seeds: tuple[bytes, ...] = ()
    presets: tuple[Hands, ...] = ()
    first_dealer_fixed: bool = False
    host_token_hash: str = ""
    shared_seeds: bool = False
    visibility: Visibility = Visibility.PUBLIC
    invitation_hash: str = ""
    turn_seconds: int | None = None
    rules: RuleSet = DEFAULT


class TakeSeat(msgspec.Struct, frozen=True, tag_field="command", tag="take_seat"):
    """Sit down at ``seat`` (None: the next free seat), adding optional entropy;
    ``bot`` names a server-side bot that will play the seat."""

    name: str
    token_hash: str
    seat: Seat | None = None
    entropy: bytes = b""
    bot: str = ""


class LeaveSeat(msgspec.Struct, frozen=True, tag_field="command", tag="leave_seat"):
    """Leave ``seat`` (T2.1-T2.3), or, ``by_host``, vacate a bot's or an away seat (T2.4)."""

    seat: Seat
    by_host: bool = False


class RotateInvitation(msgspec.Struct, frozen=True, tag_field="command", tag="rotate_invitation"):
    """T1.2: replace the private table's invitation code by the one hashed ``invitation_hash``."""

    invitation_hash: str


class TimeOut(msgspec.Struct, frozen=True, tag_field="command", tag="time_out"):
    """T3.2: ``seat``'s turn ran out at ``deadline``; the service's clock reads ``now``."""

    seat: Seat
    deadline: datetime
    now: datetime


class ComeBack(msgspec.Struct, frozen=True, tag_field="command", tag="come_back"):
    """T3.3: the player of ``seat`` is back after the clock acted for it."""

    seat: Seat


class CloseTable(msgspec.Struct, frozen=True, tag_field="command", tag="close_table"):
    """T4.1: close a table whose session has not started."""


class AbandonSession(msgspec.Struct, frozen=True, tag_field="command", tag="abandon_session"):
    """T4.2: end a running session with the deals scored so far."""


TableEvent = (
    TableCreated
    | SeatTaken
    | SeatLeft
    | InvitationRotated
    | TurnTimedOut
    | SeatAway
    | SeatBack
    | TableClosed
    | SessionAbandoned
    | Event
)
TableCommand = (
    CreateTable
    | TakeSeat
    | LeaveSeat
    | RotateInvitation
    | TimeOut
    | ComeBack
    | CloseTable
    | AbandonSession
    | Command
)
TABLE_EVENTS = (
    TableCreated,
    SeatTaken,
    SeatLeft,
    InvitationRotated,
    TurnTimedOut,
    SeatAway,
    SeatBack,
    TableClosed,
    SessionAbandoned,
)
"""The table's own events, around the session's (`domain.events.Event`)."""


class Player(msgspec.Struct, frozen=True):
    """Who sits on a seat (``bot``: the server-side bot playing it, if any)."""

    name: str
    token_hash: str
    entropy: str
    bot: str = ""


Lineup = tuple[tuple[str, ...], ...]
"""By seat, the names of everyone who held the seat during a deal, in order (T2.2)."""


class TableState(msgspec.Struct, frozen=True):
    """A table: its seats, its dealing material, its session and its life.

    ``invitation_hash`` is the hash of the private table's invitation code in force: the
    one it was created with (`TableCreated`), or the last that replaced it (T1.2).
    ``timeouts`` counts each seat's consecutive timeouts and ``away`` marks the seats the
    stand-in plays at once (T3.3); ``lineup`` says who held each seat in the current deal,
    ``lineups`` the same for every scored deal (T2.2).
    """

    created: TableCreated | None = None
    players: tuple[Player | None, ...] = (None, None, None, None)
    session: session.SessionState = session.SessionState()
    timeouts: tuple[int, ...] = (0, 0, 0, 0)
    away: tuple[bool, ...] = (False, False, False, False)
    closed: bool = False
    abandoned: bool = False
    lineup: Lineup = ((), (), (), ())
    lineups: tuple[Lineup, ...] = ()
    invitation_hash: str = ""

    @property
    def status(self) -> TableStatus:
        """The table's place in its life (`TableStatus`)."""
        if self.closed:
            return TableStatus.CLOSED
        if self.abandoned:
            return TableStatus.ABANDONED
        if self.session.finished:
            return TableStatus.FINISHED
        return TableStatus.PLAYING if self.session.started else TableStatus.OPEN

    @property
    def over(self) -> bool:
        """Nothing more will happen at the table: finished, abandoned or closed."""
        return self.closed or self.abandoned or self.session.finished

    @property
    def turn(self) -> Seat | None:
        """The seat that must act for the session to go on (declare, name, play), if any."""
        deal = self.session.deal
        if self.over or deal is None:
            return None
        return deal.turn


def decide(state: TableState, command: TableCommand) -> tuple[TableEvent, ...]:
    """Validate a command against the table; return the events it causes."""
    if isinstance(command, CreateTable):
        return (_create(state, command),)
    created = state.created
    if created is None:
        raise PhaseClosed("the table does not exist", rule="R1.1")
    if state.closed:
        raise PhaseClosed("the table is closed", rule="T4.1")
    if state.abandoned:
        raise SessionOver("the session was abandoned", rule="T4.2")
    if isinstance(command, _SEAT_ACTIONS):  # the common case first
        return _seat_action(state, created, command)
    if isinstance(command, TakeSeat):
        return _take_seat(state, created, command)
    if isinstance(command, LeaveSeat):
        return (_leave(state, command),)
    if isinstance(command, RotateInvitation):
        return (_rotate(created, command),)
    if isinstance(command, TimeOut):
        return _time_out(state, created, command)
    if isinstance(command, ComeBack):
        return (_come_back(state, command.seat),)
    if isinstance(command, CloseTable):
        return (_close(state),)
    if isinstance(command, AbandonSession):
        return (_abandon(state),)
    raise PhaseClosed("the table starts the session and deals by itself", rule="R1.2")


_SEAT_ACTIONS = (
    PlayCard,
    Announce,
    Declare,
    NameContract,
    ShowSchweinchen,
    AnswerPoverty,
    ReturnPoverty,
)


def _seat_action(
    state: TableState, created: TableCreated, command: DealCommand
) -> tuple[TableEvent, ...]:
    """A player's own action, decided by the session. A vacant seat does not act (T2.2);
    a seat the clock acted for is back (T3.3)."""
    seat = command.seat
    if state.session.started and state.players[seat] is None:
        raise SeatVacant(f"seat {int(seat)} is vacant: nobody plays it", rule="T2.2")
    events = _session_step(state, created, command)
    return (SeatBack(seat), *events) if state.timeouts[seat] else events


def _session_step(
    state: TableState, created: TableCreated, command: DealCommand
) -> tuple[TableEvent, ...]:
    """A deal command decided by the session; a scored deal is followed by the next one, a
    void deal (V4.8) by its redeal."""
    events = session.decide(state.session, command)
    after = session.fold(events, state.session)
    void = after.deal is not None and after.deal.void
    if isinstance(events[-1], DealScored) or void:  # else the session finished with it
        events = (*events, *session.decide(after, _next_deal(state, created, after)))
    return events


def _create(state: TableState, command: CreateTable) -> TableCreated:
    """R2.2: presets must be decks; T1.1: a private table has an invitation; T3.1: a turn
    clock of 5-600 seconds; N1-N3: its name as `domain.names` keeps names; V6.1: a session
    length of 4-48 deals, and seeds or presets for every deal of it (V6.6: N + 4 with duty
    solos)."""
    if state.created is not None:
        raise PhaseClosed("the table exists already", rule="R1.1")
    session.check_deals(command.rules, command.presets, len(command.server_seeds))
    low, high = TURN_SECONDS
    if command.turn_seconds is not None and not low <= command.turn_seconds <= high:
        raise InvalidTableOption(
            f"a turn clock runs {low}-{high} seconds, not {command.turn_seconds}", rule="T3.1"
        )
    if command.visibility is Visibility.PRIVATE and not command.invitation_hash:
        raise InvalidTableOption("a private table needs an invitation code", rule="T1.1")
    return TableCreated(
        name=normal_name(command.name),
        first_dealer=command.first_dealer,
        commitments=tuple(commitment(s) for s in command.server_seeds),
        server_seeds=tuple(s.hex() for s in command.server_seeds),
        presets=command.presets,
        first_dealer_fixed=command.first_dealer_fixed,
        host_token_hash=command.host_token_hash,
        shared_seeds=command.shared_seeds,
        visibility=command.visibility,
        invitation_hash=command.invitation_hash,
        turn_seconds=command.turn_seconds,
        rules=recorded(command.rules),
    )


def _take_seat(
    state: TableState, created: TableCreated, command: TakeSeat
) -> tuple[TableEvent, ...]:
    """R1.1: four players; when the fourth sits, the session starts (R1.2) and deal 1 is dealt.
    During the session a newcomer takes a vacant seat (T2.2) and plays on with its cards.

    R2.2: entropy is mixed into server seeds only; at a table whose deals are fixed in
    advance (host seeds, preset hands) it is refused rather than silently dropped. A
    newcomer's entropy is mixed into the deals dealt after it sat down.

    N1-N3: the player's name as `domain.names` keeps names.
    """
    if state.session.finished:
        raise SessionOver("the session is over", rule="R1.1")
    if command.entropy and created.dealing_method is not DealingMethod.SEEDED:
        raise EntropyNotUsed(
            f"this table's deals are fixed in advance ({created.dealing_method.value}): "
            "entropy would not be mixed in; sit down without it",
            rule="R2.2",
        )
    free = [s for s in SEATS if state.players[s] is None]
    if not free:
        raise SeatUnavailable("the table is full: four players sit already", rule="R1.1")
    seat = command.seat if command.seat is not None else free[0]
    if state.players[seat] is not None:
        raise SeatUnavailable(f"seat {int(seat)} is taken", rule="R1.1")
    taken = SeatTaken(
        seat, normal_name(command.name), command.token_hash, command.entropy.hex(), command.bot
    )
    if len(free) > 1 or state.session.started:
        return (taken,)
    seated = evolve(state, taken)
    started = session.decide(seated.session, StartSession(created.first_dealer, created.rule_set))
    after = session.fold(started, seated.session)
    return (taken, *started, *session.decide(after, _next_deal(seated, created, after)))


def _leave(state: TableState, command: LeaveSeat) -> SeatLeft:
    """T2.1-T2.4: a player leaves its seat, not while it is the one to act; the host vacates
    a bot's or an away seat (at any moment: the clock acts for a vacant seat)."""
    seat = command.seat
    player = state.players[seat]
    if state.session.finished:
        raise SessionOver("the session is over: nobody leaves it", rule="T2.2")
    if player is None:
        raise SeatVacant(f"nobody sits on seat {int(seat)}", rule="T2.1")
    if command.by_host:
        if not (player.bot or state.away[seat]):
            raise SeatOccupied(
                f"seat {int(seat)}'s player is present: only they may leave it", rule="T2.4"
            )
    elif state.turn is seat:
        raise LeaveOnTurn(f"seat {int(seat)} is the one to act: act first, then leave", rule="T2.3")
    return SeatLeft(seat, player.name, command.by_host)


def _rotate(created: TableCreated, command: RotateInvitation) -> InvitationRotated:
    """T1.2: only a private table has an invitation code to replace (also once its session
    is over: its records stay open to the code's holders)."""
    if created.visibility is not Visibility.PRIVATE:
        raise NotPrivate("a public table is open to anyone: it has no invitation", rule="T1.2")
    return InvitationRotated(command.invitation_hash)


def _time_out(state: TableState, created: TableCreated, command: TimeOut) -> tuple[TableEvent, ...]:
    """T3.2, T3.3: the stand-in acts for the seat whose time ran out; its third timeout in
    a row marks it away."""
    if created.turn_seconds is None:
        raise NoTurnClock("this table has no turn clock", rule="T3.1")
    seat = command.seat
    turn = state.turn
    deal = state.session.deal
    if turn is None or deal is None:
        raise PhaseClosed("no turn is running", rule="T3.2")
    if turn is not seat:
        raise NotYourTurn(f"it is seat {int(turn)}'s turn, not seat {int(seat)}'s", rule="T3.2")
    if command.now < command.deadline:
        raise ClockRunning(
            f"seat {int(seat)}'s time runs until {command.deadline.isoformat()}", rule="T3.2"
        )
    action = stand_in_action(observe(deal, seat))
    assert action is not None  # the seat to act always has a turn action
    timed_out = TurnTimedOut(seat, deal.deal_no, action, command.deadline, command.now)
    goes_away = not state.away[seat] and state.timeouts[seat] + 1 >= AWAY_AFTER
    away = (SeatAway(seat),) if goes_away else ()
    return (timed_out, *away, *_session_step(state, created, action))


def _come_back(state: TableState, seat: Seat) -> SeatBack:
    """T3.3: a player whose turns the clock took is back (also implied by its own action)."""
    if state.over or not state.session.started:
        raise PhaseClosed("no session is running", rule="T3.3")
    if state.players[seat] is None:
        raise SeatVacant(f"seat {int(seat)} is vacant", rule="T2.2")
    if not state.timeouts[seat]:
        raise NotAway(f"the clock has not acted for seat {int(seat)}", rule="T3.3")
    return SeatBack(seat)


def _close(state: TableState) -> TableClosed:
    """T4.1: only a table whose session has not started is closed."""
    if state.session.started:
        raise PhaseClosed("the session has started: abandon it instead", rule="T4.1")
    return TableClosed()


def _abandon(state: TableState) -> SessionAbandoned:
    """T4.2: a running session ends with the deals scored so far, without winners."""
    current = state.session
    if not current.started:
        raise PhaseClosed("the session has not started: close the table instead", rule="T4.2")
    if current.finished:
        raise SessionOver("the session is over already", rule="T4.2")
    return SessionAbandoned(len(current.sheet), current.totals)


def _next_deal(
    state: TableState, created: TableCreated, current: session.SessionState
) -> DealSeeded | DealPreset:
    """The dealing of the next deal: its preset hands, or its server seed mixed with entropy.

    Seeds shared by a tournament director between tables are used unmixed, so
    that every table gets the same hands.
    """
    index = len(current.sheet)
    if created.presets:
        return DealPreset(created.presets[index])
    if created.shared_seeds:
        return DealSeeded(bytes.fromhex(created.server_seeds[index]))
    entropy = tuple(bytes.fromhex(p.entropy) if p else b"" for p in state.players)
    return DealSeeded(bytes.fromhex(created.server_seeds[index]), entropy)


def evolve(state: TableState, event: TableEvent) -> TableState:
    """Apply one event to the table. Never validates."""
    replace = msgspec.structs.replace
    if isinstance(event, session.IN_PLAY):  # the common case first: most events are plays
        return replace(state, session=session.evolve(state.session, event))
    if isinstance(event, TABLE_EVENTS):
        return _evolve_table(state, event)
    after = replace(state, session=session.evolve(state.session, event))
    if isinstance(event, DealDealt):
        return replace(after, lineup=tuple((p.name,) if p else () for p in state.players))
    if isinstance(event, DealScored):
        return replace(after, lineups=(*state.lineups, state.lineup))
    return after


def _evolve_table(state: TableState, event: TableEvent) -> TableState:
    replace = msgspec.structs.replace
    if isinstance(event, TableCreated):
        return replace(state, created=event, invitation_hash=event.invitation_hash)
    if isinstance(event, InvitationRotated):
        return replace(state, invitation_hash=event.invitation_hash)
    if isinstance(event, SeatTaken):
        player = Player(event.name, event.token_hash, event.entropy, event.bot)
        seat = event.seat
        in_deal = state.session.deal is not None and state.session.deal.score is None
        lineup = _set(state.lineup, seat, (*state.lineup[seat], event.name))
        return replace(
            _seat(state, seat, player),
            lineup=lineup if in_deal else state.lineup,
        )
    if isinstance(event, SeatLeft):
        return _seat(state, event.seat, None)
    if isinstance(event, TurnTimedOut):
        return replace(
            state, timeouts=_set(state.timeouts, event.seat, state.timeouts[event.seat] + 1)
        )
    if isinstance(event, SeatAway):
        return replace(state, away=_set(state.away, event.seat, True))
    if isinstance(event, SeatBack):
        return replace(
            state,
            timeouts=_set(state.timeouts, event.seat, 0),
            away=_set(state.away, event.seat, False),
        )
    if isinstance(event, TableClosed):
        return replace(state, closed=True)
    return replace(state, abandoned=True)


def _seat(state: TableState, seat: Seat, player: Player | None) -> TableState:
    """The seat taken by ``player`` (None: left), with a fresh count of timeouts (T3.3)."""
    return msgspec.structs.replace(
        state,
        players=_set(state.players, seat, player),
        timeouts=_set(state.timeouts, seat, 0),
        away=_set(state.away, seat, False),
    )


def _set(values: tuple[T, ...], seat: Seat, value: T) -> tuple[T, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def fold(
    events: list[TableEvent] | tuple[TableEvent, ...], state: TableState | None = None
) -> TableState:
    """The table after the events: a fold of `evolve`."""
    state = state or TableState()
    for event in events:
        state = evolve(state, event)
    return state
