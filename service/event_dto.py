"""Request and response bodies of the events' routes (`service.routes.events`, E1-E6)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from domain.event import ROUNDS, EventState, EventStatus, StandingsMethod
from domain.table import TURN_SECONDS, TableState, Visibility
from infra.events import table_id
from infra.projections import DealRecord
from service.dto import NO_CONTROLS, ZERO_MINIMUM, Hand, Invitation, Name, SeatNumber

PlayerNumber = Annotated[
    int, Meta(ge=0, le=9999, examples=[3], extra_json_schema={"extra": ZERO_MINIMUM})
]
"""A player's number in the event (0, 1, ... in the order they registered, E2.1)."""
RoundNumber = Annotated[int, Meta(ge=ROUNDS[0], le=ROUNDS[1], examples=[1])]
Deals = Annotated[list[Annotated[list[Hand], Meta(min_length=4, max_length=4)]], Meta()]


class CreateEventRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A new event (E1.1): its ``name``, the number of ``rounds`` (1-12), ``public`` (anyone
    registers) or ``private`` (registration takes the invitation code), the turn clock of
    its tables (5-600 seconds, or none, T3.1), the standings ``method`` (``total_points``,
    ``placement_points`` or ``duplicate``, E6) and optionally ``presets``: for every round
    12 deals of four hands (else the service draws every round's 12 seeds, E1.2)."""

    name: Annotated[str, Meta(max_length=100, pattern=NO_CONTROLS, examples=["Friday club"])]
    rounds: RoundNumber = 2
    visibility: Annotated[Visibility, Meta(examples=["public"])] = Visibility.PUBLIC
    turn_seconds: (
        Annotated[int, Meta(ge=TURN_SECONDS[0], le=TURN_SECONDS[1], examples=[60])] | None
    ) = None
    method: Annotated[str, Meta(max_length=40, examples=["total_points"])] = (
        StandingsMethod.TOTAL_POINTS.value
    )
    presets: (
        Annotated[list[Annotated[Deals, Meta(min_length=12, max_length=12)]], Meta(max_length=12)]
        | None
    ) = None


class RegisterRequest(msgspec.Struct, forbid_unknown_fields=True):
    """E2.1: register under ``name``; at a private event with its ``invitation`` code (the
    director registers players with the host token instead)."""

    name: Name
    invitation: Invitation | None = None


SeatingTable = Annotated[
    list[PlayerNumber | None],
    Meta(min_length=4, max_length=4, description="seats 0-3: a player's number, or null: a bot"),
]


class StartRoundRequest(msgspec.Struct, forbid_unknown_fields=True):
    """E4.1: start round ``round_no`` (the next one; starting a round that has started
    already answers as its start did), seated by the rule (E3.1, E3.2) or, with
    ``seating``, by hand (E3.3: its tables of four seats, every player exactly once)."""

    round_no: RoundNumber
    seating: list[SeatingTable] | None = None


class EventPlayer(msgspec.Struct, frozen=True):
    """A registered player: number, name, whether the director registered them."""

    player: int
    name: str
    by_director: bool


class EventSeat(msgspec.Struct, frozen=True):
    """A seat of an event table: the player on it (null: a bot, E3.4) and their name."""

    seat: SeatNumber
    player: int | None
    name: str


class EventTable(msgspec.Struct, frozen=True):
    """A table of a round: its number and id (a private table: its players open it with
    their event credentials, the director with the host token), its seats, how many deals
    it has scored, whether it is over and whether the director abandoned it (T4.2)."""

    table_no: int
    table_id: str
    seats: tuple[EventSeat, ...]
    deals: int
    over: bool
    abandoned: bool = False


class EventRound(msgspec.Struct, frozen=True):
    """A round started: its seating's tables and whether it has ended (E4.3)."""

    round_no: int
    ended: bool
    tables: tuple[EventTable, ...]


class EventView(msgspec.Struct, frozen=True):
    """An event as anyone allowed to see it sees it: its options, the commitments to its
    chance (E1.2: the seating seed's, revealed with ``seating_seed`` once the event is
    finished, and every round's 12 deal seeds', none for preset deals), its players, its
    rounds and their tables' progress. ETag = the event's version."""

    event_id: str
    name: str
    rounds: int
    visibility: Visibility
    turn_seconds: int | None
    method: StandingsMethod
    status: EventStatus
    version: int
    seating_commitment: str
    commitments: tuple[tuple[str, ...], ...]
    preset: bool
    players: tuple[EventPlayer, ...]
    played: tuple[EventRound, ...]
    seating_seed: str | None = None


class EventCreatedResponse(msgspec.Struct, frozen=True):
    """The new event: its id, the director's host token and, for a private event, the
    invitation code (both shown once: only their hashes are kept), and the event."""

    event_id: str
    host_token: str
    event: EventView
    invitation: str | None = None


class PlayerRegisteredResponse(msgspec.Struct, frozen=True):
    """The player registered and their event credential (shown once: keep it). It opens
    their table and seat in every round (`getPlayerTable`) and acts there as the seat's
    token."""

    event_id: str
    player: int
    name: str
    token: str
    version: int


class PlayerTable(msgspec.Struct, frozen=True):
    """Where a player plays now: the round (0 before round 1) and, if the player has a
    table in it, the table's id and number and the player's seat (the event credential is
    the seat's token there); null while registration runs."""

    event_id: str
    player: int
    name: str
    status: EventStatus
    round_no: int
    table_id: str | None = None
    table_no: int | None = None
    seat: SeatNumber | None = None


class RoundStartedResponse(msgspec.Struct, frozen=True):
    """The round started and the event after it."""

    round_no: int
    version: int
    event: EventView


class TableDeal(msgspec.Struct, frozen=True):
    """One table's play of the deal: its record (hands, contract, announcements, tricks and
    score), or null for a table that was abandoned before it (T4.2)."""

    table_no: int
    table_id: str
    players: tuple[str, ...]
    record: DealRecord | None


class DealComparison(msgspec.Struct, frozen=True):
    """E5.1: deal ``deal_no`` of round ``round_no`` at every table of the round, side by
    side: the same cards in the same seats, each table's contract, announcements, tricks
    and score."""

    event_id: str
    round_no: int
    deal_no: int
    tables: tuple[TableDeal, ...]


Progress = tuple[int, bool, bool]
"""A table's scored deals, whether it is over, whether it was abandoned."""


def table_progress(table: TableState | None) -> Progress:
    """A table's `Progress` as its log has it (not opened yet: none)."""
    if table is None:
        return 0, False, False
    return len(table.session.sheet), table.over, table.abandoned


def seat_infos(state: EventState, seats: tuple[int | None, ...]) -> tuple[EventSeat, ...]:
    """A table's seats with their players' names (a bot's: ``bot``)."""
    return tuple(
        EventSeat(seat, player, "bot" if player is None else state.players[player].name)
        for seat, player in enumerate(seats)
    )


def render_event(
    event_id: str, state: EventState, version: int, shown: list[list[Progress]]
) -> EventView:
    """The event at ``version``, with the progress of every table of every round started."""
    created = state.created
    assert created is not None
    played = tuple(
        EventRound(
            round_no,
            round_no <= len(state.ended),
            tuple(
                EventTable(
                    table_no,
                    table_id(event_id, round_no, table_no),
                    seat_infos(state, seats),
                    deals,
                    over,
                    abandoned,
                )
                for table_no, (seats, (deals, over, abandoned)) in enumerate(
                    zip(seating, progress, strict=True), 1
                )
            ),
        )
        for round_no, (seating, progress) in enumerate(zip(state.seatings, shown, strict=True), 1)
    )
    return EventView(
        event_id=event_id,
        name=created.name,
        rounds=created.rounds,
        visibility=created.visibility,
        turn_seconds=created.turn_seconds,
        method=created.method,
        status=state.status,
        version=version,
        seating_commitment=created.seating_commitment,
        commitments=created.commitments,
        preset=bool(created.presets),
        players=tuple(EventPlayer(n, p.name, p.by_director) for n, p in enumerate(state.players)),
        played=played,
        seating_seed=created.seating_seed if state.finished else None,
    )
