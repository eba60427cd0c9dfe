"""The table aggregate: four seats, provably fair dealing, and one session (R1).

A table's stream begins with `TableCreated` (the commitments to the server
seeds of all 12 deals, or the preset hands of a tournament director, and the
first dealer drawn by lot or fixed by the host) and `SeatTaken` for each
player. When the fourth player sits the session starts and deal 1 is dealt;
whenever a deal is scored the next one is dealt in the same step, until the
session is over. Server seeds are secret until their deal is scored: views
and streams must never show `TableCreated.server_seeds`.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from domain import session
from domain.cards import Card
from domain.commands import Command, DealPreset, DealSeeded, StartSession
from domain.dealing import commitment, validate_preset
from domain.errors import DomainError, PhaseClosed
from domain.events import DealScored, Event
from domain.seats import SEATS, Seat

Hands = tuple[tuple[Card, ...], ...]


class SeatUnavailable(DomainError):
    """The seat is taken, or the table is full (R1.1: four players)."""

    code = "seat_unavailable"


class EntropyNotUsed(DomainError):
    """Entropy sent to a table whose deals are fixed in advance: it would not be mixed in (R2.2)."""

    code = "entropy_not_used"


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
    """A table was opened. ``server_seeds`` (hex) stay secret until their deal is scored."""

    name: str
    first_dealer: Seat
    commitments: tuple[str, ...] = ()
    server_seeds: tuple[str, ...] = ()
    presets: tuple[Hands, ...] = ()
    first_dealer_fixed: bool = False
    host_token_hash: str = ""
    shared_seeds: bool = False

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


class CreateTable(msgspec.Struct, frozen=True, tag_field="command", tag="create_table"):
    """Open a table with 12 secret server seeds, 12 shared seeds, or 12 preset deals."""

    name: str
    first_dealer: Seat
    server_seeds: tuple[bytes, ...] = ()
    presets: tuple[Hands, ...] = ()
    first_dealer_fixed: bool = False
    host_token_hash: str = ""
    shared_seeds: bool = False


class TakeSeat(msgspec.Struct, frozen=True, tag_field="command", tag="take_seat"):
    """Sit down at ``seat`` (None: the next free seat), adding optional entropy;
    ``bot`` names a server-side bot that will play the seat."""

    name: str
    token_hash: str
    seat: Seat | None = None
    entropy: bytes = b""
    bot: str = ""


TableEvent = TableCreated | SeatTaken | Event
TableCommand = CreateTable | TakeSeat | Command


class Player(msgspec.Struct, frozen=True):
    """Who sits on a seat (``bot``: the server-side bot playing it, if any)."""

    name: str
    token_hash: str
    entropy: str
    bot: str = ""


class TableState(msgspec.Struct, frozen=True):
    """A table: its seats, its dealing material and its session."""

    created: TableCreated | None = None
    players: tuple[Player | None, ...] = (None, None, None, None)
    session: session.SessionState = session.SessionState()


def decide(state: TableState, command: TableCommand) -> tuple[TableEvent, ...]:
    """Validate a command against the table; return the events it causes."""
    if isinstance(command, CreateTable):
        return (_create(state, command),)
    created = state.created
    if created is None:
        raise PhaseClosed("the table does not exist", rule="R1.1")
    if isinstance(command, TakeSeat):
        return _take_seat(state, created, command)
    if isinstance(command, StartSession | DealSeeded | DealPreset):
        raise PhaseClosed("the table starts the session and deals by itself", rule="R1.2")
    events = session.decide(state.session, command)
    if isinstance(events[-1], DealScored) and len(state.session.sheet) + 1 < state.session.deals:
        after = session.fold(events, state.session)
        events = (*events, *session.decide(after, _next_deal(state, created, after)))
    return events


def _create(state: TableState, command: CreateTable) -> TableCreated:
    if state.created is not None:
        raise PhaseClosed("the table exists already", rule="R1.1")
    for hands in command.presets:
        validate_preset(hands)
    return TableCreated(
        name=command.name,
        first_dealer=command.first_dealer,
        commitments=tuple(commitment(s) for s in command.server_seeds),
        server_seeds=tuple(s.hex() for s in command.server_seeds),
        presets=command.presets,
        first_dealer_fixed=command.first_dealer_fixed,
        host_token_hash=command.host_token_hash,
        shared_seeds=command.shared_seeds,
    )


def _take_seat(
    state: TableState, created: TableCreated, command: TakeSeat
) -> tuple[TableEvent, ...]:
    """R1.1: four players; when the fourth sits, the session starts (R1.2) and deal 1 is dealt.

    R2.2: entropy is mixed into server seeds only; at a table whose deals are fixed in
    advance (host seeds, preset hands) it is refused rather than silently dropped.
    """
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
    taken = SeatTaken(seat, command.name, command.token_hash, command.entropy.hex(), command.bot)
    if len(free) > 1:
        return (taken,)
    seated = evolve(state, taken)
    started = session.decide(seated.session, StartSession(created.first_dealer))
    after = session.fold(started, seated.session)
    return (taken, *started, *session.decide(after, _next_deal(seated, created, after)))


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
    if isinstance(event, TableCreated):
        return msgspec.structs.replace(state, created=event)
    if isinstance(event, SeatTaken):
        player = Player(event.name, event.token_hash, event.entropy, event.bot)
        players = tuple(
            player if s is event.seat else p for s, p in zip(SEATS, state.players, strict=True)
        )
        return msgspec.structs.replace(state, players=players)
    return msgspec.structs.replace(state, session=session.evolve(state.session, event))


def fold(
    events: list[TableEvent] | tuple[TableEvent, ...], state: TableState | None = None
) -> TableState:
    """The table after the events: a fold of `evolve`."""
    state = state or TableState()
    for event in events:
        state = evolve(state, event)
    return state
