"""Table talk (T5): what may be said at a table, by whom, and when.

Talk is no event of the table: it is decided here, on the table's state and the mutes the
host set, and kept beside the log (`infra.talk`), never in it. A message is a person's
words: a seated player's during a deal may not name a card, a suit, trump or a party
(T5.2), so that talk is not a second, unrefereed way of playing. That is as far as a rule
can go: a player who spells a card some other way ("the old lady of the black suit") is not
stopped by a word list, as no club stops a player from winking. The refusal keeps the
obvious out, and the table's host can mute (T5.3).
"""

from __future__ import annotations

import re
import unicodedata

import msgspec

from domain.cards import Card
from domain.deal import Phase
from domain.errors import TalkMuted, TalkNamesCard, TalkText
from domain.names import BIDI_CONTROLS, normal_name
from domain.seats import Seat
from domain.table import TableState

MAX_TEXT = 200
"""T5.1: the most characters of a message, once trimmed."""
MAX_NAME = 40
"""T5.1: the most characters of a spectator's name, once trimmed."""

CARD_WORDS = frozenset(
    {
        # German: suits, trump, ranks, the cards' own names, the parties
        "kreuz", "pik", "herz", "karo", "eichel", "grün", "gruen", "laub", "schell",
        "schellen", "trumpf", "trümpfe", "truempfe", "fehl", "dame", "damen", "bube",
        "buben", "könig", "koenig", "ass", "asse", "zehn", "zehnen", "neun", "neunen",
        "dulle", "dullen", "fuchs", "füchse", "fuechse", "karlchen", "alten",
        "re", "kontra", "hochzeit", "solo", "armut",
        # English
        "club", "clubs", "spade", "spades", "heart", "hearts", "diamond", "diamonds",
        "trump", "trumps", "queen", "queens", "jack", "jacks", "king", "kings", "ace",
        "aces", "ten", "tens", "nine", "nines", "fox", "foxes", "charlie", "contra",
        "marriage",
    }
)  # fmt: skip
"""T5.2: words that name a card, a suit, trump or a party, folded to lower case."""

CARD_CODES = frozenset(card.value for card in Card)
"""T5.2: the card codes (R2.1), as they are written: upper case (``QC``, ``10H``)."""

_WORD = re.compile(r"\w+")


class Mutes(msgspec.Struct, frozen=True):
    """T5.3: whom the host muted: ``seats`` (sorted) and ``spectators``."""

    seats: tuple[Seat, ...] = ()
    spectators: bool = False

    def silences(self, seat: Seat | None) -> bool:
        """Whether a speaker on ``seat`` (None: a spectator) is muted."""
        return self.spectators if seat is None else seat in self.seats

    def with_mute(self, seat: Seat | None, muted: bool) -> Mutes:
        """T5.3: these mutes after the host (un)muted ``seat`` (None: the spectators)."""
        if seat is None:
            return Mutes(self.seats, muted)
        seats = {*self.seats, seat} if muted else set(self.seats) - {seat}
        return Mutes(tuple(sorted(seats)), self.spectators)


def words(text: str) -> str:
    """T5.1: a message as it is kept: NFC, trimmed, 1 to `MAX_TEXT` characters, without
    control (Unicode category Cc) or bidirectional controls (`domain.names.BIDI_CONTROLS`,
    which could make a message read otherwise than it was written); else `TalkText`."""
    kept = unicodedata.normalize("NFC", text).strip()
    if any(unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS for c in kept):
        raise TalkText("a message may hold no control or direction characters", rule="T5.1")
    if not 1 <= len(kept) <= MAX_TEXT:
        raise TalkText(f"a message has 1-{MAX_TEXT} characters, not {len(kept)}", rule="T5.1")
    return kept


def spectator_name(text: str) -> str:
    """T5.1: a spectator's name as it is kept: a name as `domain.names` keeps a seated
    player's (`normal_name`: N1 normal form, N2 `UnseenCharacters`, N3 `MixedScripts`) of 1
    to `MAX_NAME` characters, else `TalkText`: talk names its speakers as the seats do."""
    kept = normal_name(text)
    if not 1 <= len(kept) <= MAX_NAME:
        raise TalkText(f"a name has 1-{MAX_NAME} characters, not {len(kept)}", rule="T5.1")
    return kept


def names_a_card(text: str) -> bool:
    """T5.2: whether ``text`` names a card, a suit, trump or a party: one of `CARD_WORDS`
    (any case) or `CARD_CODES` (upper case, as codes are written) as a word of its own."""
    found = _WORD.findall(text)
    return any(w in CARD_CODES or w.casefold() in CARD_WORDS for w in found)


def in_deal(state: TableState) -> bool:
    """T5.2: whether a deal runs at the table: dealt and not scored, the session going on
    (the next deal is dealt as one is scored, so that is the whole running session)."""
    deal = state.session.deal
    return deal is not None and deal.phase is not Phase.SCORED and not state.over


def said(state: TableState, seat: Seat | None, text: str, mutes: Mutes) -> str:
    """T5.1-T5.4: what a speaker on ``seat`` (None: a spectator) may say of ``text``: its
    kept form (`words`); `TalkMuted` if the host muted the speaker (T5.3), `TalkNamesCard`
    if a seated player names a card during a deal (T5.2). Bots never talk (T5.4): the
    service gives them no seat token to speak with, and their seats none here."""
    kept = words(text)
    if mutes.silences(seat):
        whom = "the spectators are" if seat is None else f"seat {int(seat)} is"
        raise TalkMuted(f"the host muted the table talk: {whom} muted", rule="T5.3")
    if seat is not None:
        player = state.players[seat]
        if player is None or player.bot:
            raise TalkMuted("bots never talk", rule="T5.4")
        if in_deal(state) and names_a_card(kept):
            raise TalkNamesCard(
                "during a deal a player's message may not name a card, a suit, trump or a party",
                rule="T5.2",
            )
    return kept
