"""Request and response bodies of the tournaments' routes (`service.routes.tournaments`, E1-E6)."""

from __future__ import annotations

from typing import Annotated, ClassVar

import msgspec
from msgspec import Meta

from domain.rule_set import RuleSet
from domain.table import TURN_SECONDS, Visibility
from domain.tournament import (
    DEFAULT_PLAYERS,
    PLAYERS,
    ROUNDS,
    StandingsMethod,
    TournamentStatus,
)
from domain.tournament_view import TournamentView
from domain.variants.duty_solo import MOST_DEALS, ROUND
from infra.projections import DealRecord
from service.bodies.tables import NO_CONTROLS, ZERO_MINIMUM, Hand, Invitation, Name, SeatNumber
from service.edge.validation import Rulings

PlayerNumber = Annotated[
    int, Meta(ge=0, le=9999, examples=[3], extra_json_schema={"extra": ZERO_MINIMUM})
]
"""A player's number in the tournament (0, 1, ... in the order they registered, E2.1)."""
RoundNumber = Annotated[int, Meta(ge=ROUNDS[0], le=ROUNDS[1], examples=[1])]
Deals = Annotated[list[Annotated[list[Hand], Meta(min_length=4, max_length=4)]], Meta()]


class CreateTournamentRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A new tournament (E1.1): its ``name``, the number of ``rounds`` (1-12), ``public`` (anyone
    registers) or ``private`` (registration takes the invitation code), the turn clock of
    its tables (5-600 seconds, or none, T3.1), the standings ``method`` (``total_points``,
    ``placement_points`` or ``duplicate``, E6), the most players that may register
    (``max_players``, 1-4000, 1000 unless said, E1.1, E2.3), optionally ``presets``: for
    every round a deal of four hands for each deal of a table's session (12, or as ``rules``
    say, V6.1, V6.6; else the service draws every round's seeds, E1.2),
    and ``rules``: the house rules every table plays by (V1-V6, the rules page; left out:
    RULES.md exactly). The name is kept as names are (N1-N3: normalised; invisible
    characters, bidirectional controls and letters of several scripts refused).

    A value out of a rule's bounds is refused with the rule's code: rounds, visibility, a
    turn clock or most players out of bounds are ``invalid_tournament_option`` (E1.1), presets
    of the wrong number of rounds or deals too (E1.2), a deal of the wrong shape
    ``invalid_deal`` (R2.2), a card that is none ``invalid_card`` (R2.1)."""

    RULINGS: ClassVar[Rulings] = {
        "rounds": ("invalid_tournament_option", "E1.1"),
        "visibility": ("invalid_tournament_option", "E1.1"),
        "turn_seconds": ("invalid_tournament_option", "E1.1"),
        "max_players": ("invalid_tournament_option", "E1.1"),
        "presets": ("invalid_tournament_option", "E1.2"),
        "presets/*/*": ("invalid_deal", "R2.2"),
        "presets/*/*/*/*": ("invalid_card", "R2.1"),
        "rules/second_heart_ten": ("invalid_tournament_option", "V2"),
        "rules/session_deals": ("invalid_tournament_option", "V6.1"),
    }

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
        Annotated[
            list[Annotated[Deals, Meta(min_length=ROUND, max_length=MOST_DEALS)]],
            Meta(max_length=12),
        ]
        | None
    ) = None
    max_players: Annotated[int, Meta(ge=PLAYERS[0], le=PLAYERS[1], examples=[64])] = DEFAULT_PLAYERS
    rules: RuleSet = msgspec.field(default_factory=RuleSet)


class RegisterRequest(msgspec.Struct, forbid_unknown_fields=True):
    """E2.1: register under ``name``; at a private tournament with its ``invitation`` code (the
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


class TableProgress(msgspec.Struct, frozen=True):
    """A table of the running round as its log has it now: its number and id (a private
    table: its players open it with their tournament credentials, the director with the host
    token), the deals it has scored, whether it is over (finished or abandoned, T4.2)."""

    table_no: int
    table_id: str
    deals: int
    over: bool


class TournamentAnswer(msgspec.Struct, frozen=True):
    """A tournament: its id, its version (of the tournament's stream), what anyone allowed to see it
    sees (`domain.tournament_view.TournamentView`: options, commitments, players' names, every
    round's seating and its tables' ends, the seating seed once finished) and the progress of the
    running round's tables. Table ``t`` of round ``r`` is ``<tournament_id>-r<r>t<t>``."""

    tournament_id: str
    version: int
    tournament: TournamentView
    tables: tuple[TableProgress, ...] = ()


class TournamentCreatedResponse(msgspec.Struct, frozen=True):
    """The new tournament: its id, the director's host token and, for a private tournament, the
    invitation code (both shown once: only their hashes are kept), and the tournament."""

    tournament_id: str
    host_token: str
    tournament: TournamentAnswer
    invitation: str | None = None


class PlayerRegisteredResponse(msgspec.Struct, frozen=True):
    """The player registered and their tournament credential (shown once: keep it). It opens
    their table and seat in every round (`getPlayerTable`) and acts there as the seat's
    token."""

    tournament_id: str
    player: int
    name: str
    token: str
    version: int


class PlayerTable(msgspec.Struct, frozen=True):
    """Where a player plays now: the round (0 before round 1) and, if the player has a
    table in it, the table's id and number and the player's seat (the tournament credential is
    the seat's token there); null while registration runs. ``table_open``: whether the
    table has every seat taken, so that the seat's view and commands answer the credential
    (E5.2); false before round 1 and for the moment after a round starts while the service
    opens and seats its tables, until the tournament's stream says ``table_opened``."""

    tournament_id: str
    player: int
    name: str
    status: TournamentStatus
    round_no: int
    table_id: str | None = None
    table_no: int | None = None
    seat: SeatNumber | None = None
    table_open: bool = False


class RoundStartedResponse(msgspec.Struct, frozen=True):
    """The round started and the tournament after it."""

    round_no: int
    version: int
    tournament: TournamentAnswer


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

    tournament_id: str
    round_no: int
    deal_no: int
    tables: tuple[TableDeal, ...]
