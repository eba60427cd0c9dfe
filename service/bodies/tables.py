"""Request and response bodies of the tables' routes (tables, lobby, seats, play, life:
`service.routes`), and the field types the tournaments' bodies share (msgspec Structs,
validated at the edge)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, ClassVar

import msgspec
from msgspec import Meta

from domain.announcements import Word
from domain.cards import Card
from domain.commands import Declaration
from domain.game_types import GameType
from domain.rule_set import RuleSet
from domain.table import TURN_SECONDS, Visibility
from domain.table_view import TableView
from domain.variants.duty_solo import MOST_DEALS, ROUND
from infra.projections import LobbyEntry
from service.edge.validation import Rulings
from service.workers.bots import BotKind

Hex32 = Annotated[str, Meta(pattern="^[0-9a-fA-F]{64}$", description="32 bytes in hex")]
NO_CONTROLS = "^[^\\x00-\\x1f\\x7f-\\x9f]*$"
"""Names are text without control characters (C0, DEL, C1): no NUL, no line breaks."""
Name = Annotated[str, Meta(min_length=1, max_length=40, pattern=NO_CONTROLS, examples=["Anna"])]
ZERO_MINIMUM = {"minimum": 0}
"""The lower bound of a number that starts at 0, for the OpenAPI document: litestar leaves
a bound of ``ge=0`` out (it tests the bound's truth), so every ``ge=0`` names it again, as
``extra_json_schema={"extra": ZERO_MINIMUM}`` on a msgspec `Meta` and as
``schema_extra=ZERO_MINIMUM`` on a litestar ``Parameter``."""
SeatNumber = Annotated[
    int, Meta(ge=0, le=3, examples=[2], extra_json_schema={"extra": ZERO_MINIMUM})
]
"""A seat, 0-3."""
Hand = Annotated[
    list[Card],
    Meta(min_length=10, max_length=12, description="12 cards; 10 at a table without nines (V1.2)"),
]
Invitation = Annotated[
    str, Meta(min_length=1, max_length=100, description="a private table's invitation code")
]


class CreateTableRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A new table. Give ``seeds`` (one for each deal of the session: 12, or as ``rules``
    say, V6.1, V6.6; shared with other tables so they play the same hands) or ``presets``
    (as many deals of 4 hands, from a tournament director), or neither for fresh secret
    server seeds. ``first_dealer`` fixes the first dealer instead of a lot.
    ``visibility``: a ``private`` table (the default) is joined with its invitation code
    and listed nowhere; a ``public`` one is in the lobby and open to anyone (T1.1).
    ``turn_seconds``: the turn clock, 5-600 seconds, or none (T3.1). ``rules``: the house
    rules the table plays by (V1-V6, the rules page; left out: RULES.md exactly).

    A value out of a rule's bounds is refused with the rule's code: a turn clock
    of 3 s is ``invalid_table_option`` (T3.1), as is a session of 10 deals (V6.1), a preset
    card that is none ``invalid_card`` (R2.1), preset hands of the wrong shape
    ``invalid_deal`` (R2.2)."""

    RULINGS: ClassVar[Rulings] = {
        "turn_seconds": ("invalid_table_option", "T3.1"),
        "visibility": ("invalid_table_option", "T1.1"),
        "presets": ("invalid_deal", "R2.2"),
        "presets/*/*/*": ("invalid_card", "R2.1"),
        "rules/second_heart_ten": ("invalid_table_option", "V2"),
        "rules/session_deals": ("invalid_table_option", "V6.1"),
    }

    name: Annotated[
        str, Meta(max_length=100, pattern=NO_CONTROLS, examples=["Friday league, table 3"])
    ] = ""
    first_dealer: SeatNumber | None = None
    seeds: Annotated[list[Hex32], Meta(min_length=ROUND, max_length=MOST_DEALS)] | None = None
    presets: (
        Annotated[
            list[Annotated[list[Hand], Meta(min_length=4, max_length=4)]],
            Meta(min_length=ROUND, max_length=MOST_DEALS),
        ]
        | None
    ) = None
    visibility: Annotated[Visibility, Meta(examples=["private"])] = Visibility.PRIVATE
    turn_seconds: (
        Annotated[int, Meta(ge=TURN_SECONDS[0], le=TURN_SECONDS[1], examples=[30])] | None
    ) = None
    rules: RuleSet = msgspec.field(default_factory=RuleSet)


class TableCreatedResponse(msgspec.Struct):
    """The new table: its id, the host token and, for a private table, the invitation code
    (both shown once), and the seed commitments."""

    table_id: str
    host_token: str
    commitments: list[str]
    version: int
    view: TableView
    invitation: str | None = None


class TakeSeatRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Sit down: on ``seat`` or the next free (or, during the session, vacant) one,
    optionally adding entropy (hex, <= 64 bytes); at a private table with its
    ``invitation`` code (T1.1)."""

    name: Name
    seat: SeatNumber | None = None
    entropy: Annotated[
        str, Meta(pattern="^([0-9a-fA-F]{2}){0,64}$", examples=["5f3a9c01d2e4b6a8"])
    ] = ""
    invitation: Invitation | None = None


class SeatTakenResponse(msgspec.Struct):
    """The seat taken and its token (shown once: keep it)."""

    table_id: str
    seat: SeatNumber
    token: str
    version: int
    view: TableView


class ReservationRequest(msgspec.Struct, forbid_unknown_fields=True):
    """R4.1: `healthy` or `reservation`."""

    declaration: Annotated[Declaration, Meta(examples=["healthy"])]


class ContractRequest(msgspec.Struct, forbid_unknown_fields=True):
    """R4.2: the contract named after `reservation`."""

    contract: Annotated[GameType, Meta(examples=["queen_solo"])]


class PlayRequest(msgspec.Struct, forbid_unknown_fields=True):
    """R3.6: the card to play, e.g. ``QC`` or ``10H``; one that is none is ``invalid_card``
    (R2.1)."""

    RULINGS: ClassVar[Rulings] = {"card": ("invalid_card", "R2.1")}

    card: Annotated[Card, Meta(examples=["10H"])]


class AnnounceRequest(msgspec.Struct, forbid_unknown_fields=True):
    """R6: `re`, `kontra`, `no90`, `no60`, `no30` or `schwarz`."""

    word: Annotated[Word, Meta(examples=["re"])]


class PovertyAnswerRequest(msgspec.Struct, forbid_unknown_fields=True):
    """V4.3: ``accept`` the Armut offered (take the poor player's trumps) or refuse it."""

    accept: Annotated[bool, Meta(examples=[True])]


class PovertyReturnRequest(msgspec.Struct, forbid_unknown_fields=True):
    """V4.4: the cards the Armut's partner gives back, as many as it took (a code that is
    no card is ``invalid_card``, R2.1)."""

    RULINGS: ClassVar[Rulings] = {"cards": ("invalid_card", "R2.1")}

    cards: Annotated[tuple[Card, ...], Meta(examples=[["AC", "9S", "KH"]])]


class CommandResponse(msgspec.Struct):
    """The acting seat's view after the command, and the table's new version."""

    version: int
    view: TableView


class SeatBotRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Fill ``seat`` (or the next free one; during the session, a vacant one) with a
    server-side bot."""

    kind: Annotated[BotKind, Meta(examples=["greedy"])] = BotKind.RANDOM
    seat: SeatNumber | None = None
    name: Name | None = None


class BotSeatedResponse(msgspec.Struct):
    """The seat the bot took, and the table's version."""

    seat: SeatNumber
    version: int


class LobbyTable(LobbyEntry, frozen=True):
    """A public table in the lobby: its entry (`infra.projections.LobbyEntry`), its id and
    when it was created."""

    table_id: str
    created: datetime


class LobbyPage(msgspec.Struct, frozen=True):
    """Public tables, newest first; ``next`` is the ``before`` of the next page (null: the
    last page)."""

    tables: tuple[LobbyTable, ...]
    next: int | None
