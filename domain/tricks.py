"""Tricks: following (R3.3) and who wins (R3.4)."""

from __future__ import annotations

import msgspec

from domain.cards import CARD_POINTS, Card
from domain.game_types import TRUMP, CardOrder
from domain.seats import Seat

_POINTS = CARD_POINTS.__getitem__


class Trick(msgspec.Struct, frozen=True):
    """A trick: who led and the cards played so far, in order, clockwise."""

    leader: Seat
    cards: tuple[Card, ...] = ()

    def seat_of(self, index: int) -> Seat:
        """The seat that played the ``index``-th card of this trick."""
        return self.leader.after(index)

    @property
    def complete(self) -> bool:
        return len(self.cards) == 4

    @property
    def points(self) -> int:
        """R2.1: the card points in the trick."""
        return sum(map(_POINTS, self.cards))

    @property
    def to_play(self) -> Seat:
        """R3.6: the next seat clockwise from the leader."""
        return self.leader.after(len(self.cards))


def legal_cards(hand: tuple[Card, ...], trick: Trick, order: CardOrder) -> tuple[Card, ...]:
    """R3.3: follow the led category (trump, or the led plain suit) if able; else anything.

    There is no obligation to trump or to beat. Returns the distinct legal cards
    of the hand, in hand order.
    """
    distinct = tuple(dict.fromkeys(hand))
    if not trick.cards:
        return distinct
    led = order.category[trick.cards[0]]
    following = tuple(c for c in distinct if order.category[c] == led)
    return following or distinct


def follows(played: Card, hand: tuple[Card, ...], trick: Trick, order: CardOrder) -> bool:
    """R3.3: whether ``played`` from ``hand`` is legal: it is of the led category, or the
    hand holds no card of that category (the same rule as `legal_cards`, for one card)."""
    if not trick.cards:
        return True
    category = order.category
    led = category[trick.cards[0]]
    return category[played] == led or all(category[c] != led for c in hand)


def winning_index(cards: tuple[Card, ...], order: CardOrder, second_heart_ten: bool = False) -> int:
    """R3.4: the index of the winning card among the cards played so far.

    The highest trump wins; with no trump, the highest card of the led plain
    suit. Of two identical cards the one played first ranks higher (10H too):
    a later card must be strictly stronger to take the lead. With
    ``second_heart_ten`` (V2, `domain.variants.second_heart_ten`) a 10H beats
    the 10H played before it.
    """
    category = order.category
    strength = order.strength
    led = category[cards[0]]
    best = 0
    best_key = strength[cards[0]] + (1000 if led == TRUMP else 0)
    for i in range(1, len(cards)):
        c = cards[i]
        cat = category[c]
        if cat == TRUMP:
            key = strength[c] + 1000
        elif cat == led:
            key = strength[c]
        else:
            continue
        if key > best_key or (second_heart_ten and c is Card.TENH and cards[best] is c):
            best, best_key = i, key
    return best


def trick_winner(trick: Trick, order: CardOrder, second_heart_ten: bool = False) -> Seat:
    """R3.4: the seat whose card wins the (complete or partial) trick (V2: see
    `winning_index`)."""
    return trick.seat_of(winning_index(trick.cards, order, second_heart_ten))
