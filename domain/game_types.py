"""Game types and the card order each one imposes (R3.1, R3.2, R5).

The game type alone decides which cards are trumps and what must be followed
(R5.6): cards know only rank, suit and points.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from domain.cards import Card, Rank, Suit, card

TRUMP = "trump"
"""The category of every trump: all trumps form one suit for following (R3.2)."""


class GameType(StrEnum):
    """What is being played in a deal."""

    NORMAL = "normal"
    MARRIAGE = "marriage"
    SILENT_SOLO = "silent_solo"
    DIAMONDS_SOLO = "diamonds_solo"
    HEARTS_SOLO = "hearts_solo"
    SPADES_SOLO = "spades_solo"
    CLUBS_SOLO = "clubs_solo"
    QUEEN_SOLO = "queen_solo"
    JACK_SOLO = "jack_solo"
    FLEISCHLOS = "fleischlos"
    POVERTY = "poverty"

    @property
    def is_declared_solo(self) -> bool:
        """R5: a voluntary solo named as a contract."""
        return self in SOLOS


SOLOS: frozenset[GameType] = frozenset(
    {
        GameType.DIAMONDS_SOLO,
        GameType.HEARTS_SOLO,
        GameType.SPADES_SOLO,
        GameType.CLUBS_SOLO,
        GameType.QUEEN_SOLO,
        GameType.JACK_SOLO,
        GameType.FLEISCHLOS,
    }
)
"""R5: the voluntary solos a player may name after `reservation`."""

CONTRACTS: frozenset[GameType] = SOLOS | {GameType.MARRIAGE}
"""R4.2: what a player who said `reservation` may name."""

_QUEENS = (Card.QC, Card.QS, Card.QH, Card.QD)
_JACKS = (Card.JC, Card.JS, Card.JH, Card.JD)
_PLAIN_RANKS = (Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE)


def _suit_trumps(suit: Suit) -> tuple[Card, ...]:
    """R5.2: 10H, queens, jacks, then A 10 K 9 of the suit (no second 10H in hearts)."""
    low = tuple(card(r, suit) for r in (Rank.ACE, Rank.TEN, Rank.KING, Rank.NINE))
    return (Card.TENH, *_QUEENS, *_JACKS, *(c for c in low if c is not Card.TENH))


_TRUMPS: dict[GameType, tuple[Card, ...]] = {
    GameType.NORMAL: _suit_trumps(Suit.DIAMONDS),
    GameType.MARRIAGE: _suit_trumps(Suit.DIAMONDS),
    GameType.SILENT_SOLO: _suit_trumps(Suit.DIAMONDS),
    GameType.DIAMONDS_SOLO: _suit_trumps(Suit.DIAMONDS),
    GameType.HEARTS_SOLO: _suit_trumps(Suit.HEARTS),
    GameType.SPADES_SOLO: _suit_trumps(Suit.SPADES),
    GameType.CLUBS_SOLO: _suit_trumps(Suit.CLUBS),
    GameType.QUEEN_SOLO: _QUEENS,
    GameType.JACK_SOLO: _JACKS,
    GameType.FLEISCHLOS: (),
    GameType.POVERTY: _suit_trumps(Suit.DIAMONDS),
}


class CardOrder(msgspec.Struct, frozen=True):
    """A game type's order: the trumps highest first and each plain suit's order.

    ``category[c]`` is ``TRUMP`` or the card's suit code; ``strength[c]`` ranks
    cards within their category (higher wins).
    """

    trumps: tuple[Card, ...]
    plain: dict[Suit, tuple[Card, ...]]
    category: dict[Card, str]
    strength: dict[Card, int]

    def is_trump(self, c: Card) -> bool:
        return self.category[c] == TRUMP


def card_order(trumps: tuple[Card, ...]) -> CardOrder:
    """The order with ``trumps`` (highest first) and every other card in its plain suit,
    A 10 K Q J 9 (R3.1, R3.2)."""
    plain = {
        suit: tuple(card(r, suit) for r in _PLAIN_RANKS if card(r, suit) not in trumps)
        for suit in Suit
    }
    category: dict[Card, str] = {c: TRUMP for c in trumps}
    strength: dict[Card, int] = {c: 100 + len(trumps) - i for i, c in enumerate(trumps)}
    for suit, cards in plain.items():
        for i, c in enumerate(cards):
            category[c] = suit.value
            strength[c] = len(cards) - i
    return CardOrder(trumps=trumps, plain=plain, category=category, strength=strength)


ORDERS: dict[GameType, CardOrder] = {g: card_order(_TRUMPS[g]) for g in GameType}
"""R3.1, R3.2, R5.2-R5.5: the card order of every game type."""


def order_of(game_type: GameType) -> CardOrder:
    """The card order a game type imposes (R5.6)."""
    return ORDERS[game_type]


def trump_count(game_type: GameType) -> int:
    """How many of the 48 cards are trumps: 26 normal, 24 hearts solo, 8 queen solo, ..."""
    return 2 * len(ORDERS[game_type].trumps)


_SUIT_PLACES = {TRUMP: 0, "C": 1, "S": 2, "H": 3, "D": 4}


def sort_keys(order: CardOrder) -> dict[Card, int]:
    """Each card's place in a sorted hand: by category (trumps, C, S, H, D), then strongest."""
    return {c: 1000 * _SUIT_PLACES[order.category[c]] - order.strength[c] for c in Card}


_SORT_KEYS: dict[GameType, dict[Card, int]] = {g: sort_keys(o) for g, o in ORDERS.items()}


def sort_hand(hand: tuple[Card, ...], game_type: GameType) -> tuple[Card, ...]:
    """A hand sorted for display: trumps highest first, then clubs, spades, hearts, diamonds."""
    return tuple(sorted(hand, key=_SORT_KEYS[game_type].__getitem__))
