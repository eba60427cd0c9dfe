"""Events: what happened, in the past tense. The event log is the only truth."""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from domain.announcements import Word
from domain.cards import Card
from domain.commands import Declaration
from domain.game_types import GameType
from domain.parties import Party
from domain.rule_set import RuleSet
from domain.seats import Seat


class Dealing(msgspec.Struct, frozen=True):
    """How a deal's hands came about.

    ``method`` is ``seeded`` (``algorithm``, ``commitment`` = SHA-256(seed) hex,
    ``seed`` hex, and the players' ``entropy`` mixed in, hex) or ``preset``
    (hands supplied by a tournament director). See `domain.dealing`. ``redeal``: which
    redeal of its deal this is after an Armut all refused (V4.8: 1, 2 ...; left out for
    the first dealing).
    """

    method: str
    algorithm: str | None = None
    commitment: str | None = None
    seed: str | None = None
    entropy: tuple[str, ...] = ()
    redeal: int | UnsetType = UNSET

    @property
    def redeals(self) -> int:
        """V4.8: how many times the deal was dealt before this dealing (0: the first)."""
        return 0 if self.redeal is UNSET else self.redeal


class SessionStarted(msgspec.Struct, frozen=True, tag_field="type", tag="session_started"):
    """R1.1, R1.2: a session of ``deals`` deals begins with ``first_dealer`` dealing, played
    by ``rules`` (`domain.rule_set`: left out for RULES.md exactly)."""

    first_dealer: Seat
    deals: int = 12
    rules: RuleSet | UnsetType = UNSET


class DealDealt(msgspec.Struct, frozen=True, tag_field="type", tag="deal_dealt"):
    """R2.2: deal ``deal_no`` (1-based) was dealt by ``dealer``; ``hands`` by seat.
    ``forced``: the seat vorgeführt, which must play its duty solo in this deal (V6.7; left
    out otherwise)."""

    deal_no: int
    dealer: Seat
    hands: tuple[tuple[Card, ...], ...]
    dealing: Dealing
    forced: Seat | UnsetType = UNSET


class Declared(msgspec.Struct, frozen=True, tag_field="type", tag="declared"):
    """R4.1: a player said `healthy` or `reservation`."""

    seat: Seat
    declaration: Declaration


class ContractNamed(msgspec.Struct, frozen=True, tag_field="type", tag="contract_named"):
    """R4.2: a player who said `reservation` named a contract. R4.3: others are told that
    the seat named one, with ``contract`` null (`domain.table_view.redact`); the log always
    holds it."""

    seat: Seat
    contract: GameType | None


class GameTypeFixed(msgspec.Struct, frozen=True, tag_field="type", tag="game_type_fixed"):
    """R4.3-R4.5: the game type and its declarer (soloist, marriage or silent soloist);
    ``duty_solo`` true when it is the declarer's duty solo (V6.3; left out otherwise)."""

    game_type: GameType
    declarer: Seat | None = None
    duty_solo: bool | UnsetType = UNSET


class CardPlayed(msgspec.Struct, frozen=True, tag_field="type", tag="card_played"):
    """R3.6: a player played a card."""

    seat: Seat
    card: Card


class TrickWon(msgspec.Struct, frozen=True, tag_field="type", tag="trick_won"):
    """R3.4: trick ``trick_no`` (1-based) is complete and won by ``winner``."""

    trick_no: int
    winner: Seat
    points: int


class MarriageClarified(msgspec.Struct, frozen=True, tag_field="type", tag="marriage_clarified"):
    """R4.6: the marriage's partner was found in ``trick_no``, or none: a diamond solo."""

    trick_no: int
    partner: Seat | None


class Announced(msgspec.Struct, frozen=True, tag_field="type", tag="announced"):
    """R6: a player announced ``word`` for ``party``; ``words`` adds it and the levels included."""

    seat: Seat
    party: Party
    word: Word
    words: tuple[Word, ...]
    cards: int
    late_reply: bool = False


class SchweinchenShown(msgspec.Struct, frozen=True, tag_field="type", tag="schweinchen_shown"):
    """V3.1: ``seat`` showed both AD: from now on they are the highest trumps (V3.2).
    Everyone sees it."""

    seat: Seat


class PovertyAnswered(msgspec.Struct, frozen=True, tag_field="type", tag="poverty_answered"):
    """V4.3: ``seat`` accepted the Armut (and took the poor player's trumps) or refused it.
    Everyone sees the answer, nobody but the two the cards (V4.6)."""

    seat: Seat
    accepted: bool


class PovertyReturned(msgspec.Struct, frozen=True, tag_field="type", tag="poverty_returned"):
    """V4.4: the partner ``seat`` gave ``count`` cards back to the ``poor`` seat, ``trumps``
    of them trumps. V4.6: ``cards`` only to those two; the others see it null
    (`domain.table_view.redact`); the log always holds it."""

    seat: Seat
    poor: Seat
    cards: tuple[Card, ...] | None
    count: int
    trumps: int


class ScoreLine(msgspec.Struct, frozen=True):
    """One item of the game value (R8, R9): ``points`` to ``party``, for ``reason``."""

    rule: str
    party: Party
    points: int
    reason: str


class Score(msgspec.Struct, frozen=True):
    """The result of a deal (R7-R10).

    ``value`` is the game value from Re's side (positive: Re won it); ``entries``
    are the four scoresheet entries by seat and sum to 0. With Bock rounds (V5):
    ``bock`` true for a Bock deal, counted double (V5.6), and ``bock_triggers`` the
    triggers the deal met (V5.2-V5.5), which bring a Bock round; each left out otherwise.
    ``duty_solo`` true for a duty solo (V6.3, V6.8; left out otherwise).
    """

    game_type: GameType
    solo: bool
    re_seats: tuple[Seat, ...]
    card_points: dict[Party, int]
    tricks: dict[Party, int]
    levels: dict[Party, int]
    winner: Party | None
    lines: tuple[ScoreLine, ...]
    value: int
    entries: tuple[int, ...]
    bock: bool | UnsetType = UNSET
    bock_triggers: tuple[str, ...] | UnsetType = UNSET
    duty_solo: bool | UnsetType = UNSET


class DealScored(msgspec.Struct, frozen=True, tag_field="type", tag="deal_scored"):
    """R7-R10: the 12th trick is complete and the deal is scored."""

    deal_no: int
    score: Score


class SessionFinished(msgspec.Struct, frozen=True, tag_field="type", tag="session_finished"):
    """R1.3: all deals are played; the highest total wins, ties share."""

    totals: tuple[int, ...]
    winners: tuple[Seat, ...]


DealEvent = (
    DealDealt
    | Declared
    | ContractNamed
    | GameTypeFixed
    | CardPlayed
    | TrickWon
    | MarriageClarified
    | Announced
    | SchweinchenShown
    | PovertyAnswered
    | PovertyReturned
    | DealScored
)
Event = (
    SessionStarted
    | DealDealt
    | Declared
    | ContractNamed
    | GameTypeFixed
    | CardPlayed
    | TrickWon
    | MarriageClarified
    | Announced
    | SchweinchenShown
    | PovertyAnswered
    | PovertyReturned
    | DealScored
    | SessionFinished
)
