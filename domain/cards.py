"""Cards, suits, ranks and card points (R2.1).

A card is written rank then suit: ranks ``A 10 K Q J 9``, suits ``C S H D``;
there are 24 codes and each card exists twice (48 cards).
"""

from __future__ import annotations

from enum import StrEnum

from domain.errors import InvalidCard


class Suit(StrEnum):
    """The four suits, by their one-letter codes."""

    CLUBS = "C"
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"


class Rank(StrEnum):
    """The six ranks, highest first in the plain order A 10 K Q J 9."""

    ACE = "A"
    TEN = "10"
    KING = "K"
    QUEEN = "Q"
    JACK = "J"
    NINE = "9"


RANK_POINTS: dict[Rank, int] = {
    Rank.ACE: 11,
    Rank.TEN: 10,
    Rank.KING: 4,
    Rank.QUEEN: 3,
    Rank.JACK: 2,
    Rank.NINE: 0,
}
"""R2.1: card points A=11, 10=10, K=4, Q=3, J=2, 9=0 (240 in the deck)."""


class Card(StrEnum):
    """One of the 24 card codes; its value is the code (``"QC"``, ``"10H"``)."""

    AC = "AC"
    TENC = "10C"
    KC = "KC"
    QC = "QC"
    JC = "JC"
    NINEC = "9C"
    AS = "AS"
    TENS = "10S"
    KS = "KS"
    QS = "QS"
    JS = "JS"
    NINES = "9S"
    AH = "AH"
    TENH = "10H"
    KH = "KH"
    QH = "QH"
    JH = "JH"
    NINEH = "9H"
    AD = "AD"
    TEND = "10D"
    KD = "KD"
    QD = "QD"
    JD = "JD"
    NINED = "9D"

    @property
    def rank(self) -> Rank:
        return _RANK[self]

    @property
    def suit(self) -> Suit:
        return _SUIT[self]

    @property
    def points(self) -> int:
        """R2.1: the card's points."""
        return CARD_POINTS[self]

    @classmethod
    def parse(cls, code: str) -> Card:
        """Read a card code such as ``QC`` or ``10h``; raise `InvalidCard` otherwise."""
        try:
            return cls(code.strip().upper())
        except ValueError:
            raise InvalidCard(
                f"{code!r} is not a card: write rank (A 10 K Q J 9) then suit (C S H D)",
                rule="R2.1",
            ) from None


_RANK: dict[Card, Rank] = {card: Rank(card.value[:-1]) for card in Card}
_SUIT: dict[Card, Suit] = {card: Suit(card.value[-1]) for card in Card}
CARD_POINTS: dict[Card, int] = {card: RANK_POINTS[_RANK[card]] for card in Card}

DECK: tuple[Card, ...] = tuple(Card) + tuple(Card)
"""R2.1: the 48-card deck in its canonical order, every code twice."""


def card(rank: Rank, suit: Suit) -> Card:
    """The card of that rank and suit."""
    return Card(f"{rank.value}{suit.value}")


def points(cards: tuple[Card, ...] | list[Card]) -> int:
    """R2.1: the card points of some cards."""
    return sum(CARD_POINTS[c] for c in cards)


def without(hand: tuple[Card, ...], cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """``hand`` less one copy of each card of ``cards`` (a card played, R3; an Armut's cards
    passed on, V4.3, V4.4), every one of them in ``hand`` as often."""
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return tuple(rest)
