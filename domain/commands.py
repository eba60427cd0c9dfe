"""Commands: what a player or the table asks for. Orders, in the game's words."""

from __future__ import annotations

from enum import StrEnum

import msgspec

from domain.announcements import Word
from domain.cards import Card
from domain.game_types import GameType
from domain.rule_set import DEFAULT, RuleSet
from domain.seats import Seat


class Declaration(StrEnum):
    """R4.1: the word every player says before the first lead."""

    HEALTHY = "healthy"
    RESERVATION = "reservation"


class Declare(msgspec.Struct, frozen=True, tag_field="command", tag="declare"):
    """R4.1: say `healthy` or `reservation`, in turn from the dealer's left."""

    seat: Seat
    declaration: Declaration


class NameContract(msgspec.Struct, frozen=True, tag_field="command", tag="name_contract"):
    """R4.2: after `reservation`, name a solo or (holding both QC) a marriage."""

    seat: Seat
    contract: GameType


class PlayCard(msgspec.Struct, frozen=True, tag_field="command", tag="play_card"):
    """R3.6: play a card from one's own hand, on one's turn."""

    seat: Seat
    card: Card


class Announce(msgspec.Struct, frozen=True, tag_field="command", tag="announce"):
    """R6: announce for one's own party, at any moment of play."""

    seat: Seat
    word: Word


class ShowSchweinchen(msgspec.Struct, frozen=True, tag_field="command", tag="show_schweinchen"):
    """V3.1: show both AD, on one's turn in the play, to make them the highest trumps."""

    seat: Seat


class AnswerPoverty(msgspec.Struct, frozen=True, tag_field="command", tag="answer_poverty"):
    """V4.3: accept (take the poor player's trumps) or refuse an Armut, in turn."""

    seat: Seat
    accept: bool


class ReturnPoverty(msgspec.Struct, frozen=True, tag_field="command", tag="return_poverty"):
    """V4.4: the Armut's partner gives back as many cards as it took."""

    seat: Seat
    cards: tuple[Card, ...]


DealCommand = (
    Declare | NameContract | PlayCard | Announce | ShowSchweinchen | AnswerPoverty | ReturnPoverty
)


class StartSession(msgspec.Struct, frozen=True, tag_field="command", tag="start_session"):
    """R1.2: begin the session; the first dealer was chosen by lot (an input). Its deals
    are played by ``rules`` (`domain.rule_set`)."""

    first_dealer: Seat
    rules: RuleSet = DEFAULT


class DealSeeded(msgspec.Struct, frozen=True, tag_field="command", tag="deal_seeded"):
    """R2.2: deal the next deal from a 32-byte seed and the players' entropy (`domain.dealing`)."""

    seed: bytes
    entropy: tuple[bytes, ...] = ()


class DealPreset(msgspec.Struct, frozen=True, tag_field="command", tag="deal_preset"):
    """Deal explicit hands supplied by a tournament director, seat by seat."""

    hands: tuple[tuple[Card, ...], ...]


Command = (
    Declare
    | NameContract
    | PlayCard
    | Announce
    | ShowSchweinchen
    | AnswerPoverty
    | ReturnPoverty
    | StartSession
    | DealSeeded
    | DealPreset
)
