"""R3.1, R3.2, R5.2-R5.6: the card order each game type imposes."""

from __future__ import annotations

import pytest

from domain.cards import DECK, Card, Suit
from domain.game_types import (
    CONTRACTS,
    SOLOS,
    TRUMP,
    GameType,
    order_of,
    sort_hand,
    trump_count,
)

from .builders import hand

NORMAL_TRUMPS = "10H QC QS QH QD JC JS JH JD AD 10D KD 9D"
SUIT_SOLO_HEAD = "10H QC QS QH QD JC JS JH JD"

TRUMP_ORDERS = [
    pytest.param(GameType.NORMAL, NORMAL_TRUMPS, id="R3.1-normal"),
    pytest.param(GameType.MARRIAGE, NORMAL_TRUMPS, id="R4.6-marriage-normal-trumps"),
    pytest.param(GameType.SILENT_SOLO, NORMAL_TRUMPS, id="R4.5-silent-solo-normal-trumps"),
    pytest.param(GameType.DIAMONDS_SOLO, NORMAL_TRUMPS, id="R5.2-diamonds-solo-normal-trumps"),
    pytest.param(GameType.HEARTS_SOLO, f"{SUIT_SOLO_HEAD} AH KH 9H", id="R5.2-hearts-solo"),
    pytest.param(GameType.SPADES_SOLO, f"{SUIT_SOLO_HEAD} AS 10S KS 9S", id="R5.2-spades-solo"),
    pytest.param(GameType.CLUBS_SOLO, f"{SUIT_SOLO_HEAD} AC 10C KC 9C", id="R5.2-clubs-solo"),
    pytest.param(GameType.QUEEN_SOLO, "QC QS QH QD", id="R5.3-queen-solo"),
    pytest.param(GameType.JACK_SOLO, "JC JS JH JD", id="R5.4-jack-solo"),
    pytest.param(GameType.FLEISCHLOS, "", id="R5.5-fleischlos-no-trumps"),
]


@pytest.mark.parametrize(("game_type", "trumps"), TRUMP_ORDERS)
def test_trump_order_highest_first(game_type: GameType, trumps: str) -> None:
    """R3.1, R5.2-R5.5: the trumps of every game type, highest first."""
    order = order_of(game_type)
    assert order.trumps == hand(trumps)
    strengths = [order.strength[c] for c in order.trumps]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(strengths)


@pytest.mark.parametrize(
    ("game_type", "count"),
    [
        pytest.param(GameType.NORMAL, 26, id="R3.1-normal-26"),
        pytest.param(GameType.MARRIAGE, 26, id="R4.6-marriage-26"),
        pytest.param(GameType.SILENT_SOLO, 26, id="R4.5-silent-solo-26"),
        pytest.param(GameType.DIAMONDS_SOLO, 26, id="R5.2-diamonds-26"),
        pytest.param(GameType.CLUBS_SOLO, 26, id="R5.2-clubs-26"),
        pytest.param(GameType.SPADES_SOLO, 26, id="R5.2-spades-26"),
        pytest.param(GameType.HEARTS_SOLO, 24, id="R5.2-hearts-24-no-second-10H"),
        pytest.param(GameType.QUEEN_SOLO, 8, id="R5.3-queen-8"),
        pytest.param(GameType.JACK_SOLO, 8, id="R5.4-jack-8"),
        pytest.param(GameType.FLEISCHLOS, 0, id="R5.5-fleischlos-0"),
    ],
)
def test_trump_count_of_the_48_cards(game_type: GameType, count: int) -> None:
    """R3.1 (26 trumps), R5.2 (hearts solo 24), R5.3/R5.4 (8), R5.5 (0)."""
    assert trump_count(game_type) == count
    order = order_of(game_type)
    assert sum(1 for c in DECK if order.is_trump(c)) == count


PLAIN_ORDERS = [
    pytest.param(GameType.NORMAL, Suit.CLUBS, "AC 10C KC 9C", id="R3.2-normal-clubs"),
    pytest.param(GameType.NORMAL, Suit.SPADES, "AS 10S KS 9S", id="R3.2-normal-spades"),
    pytest.param(GameType.NORMAL, Suit.HEARTS, "AH KH 9H", id="R3.2-normal-hearts-A-K-9"),
    pytest.param(GameType.NORMAL, Suit.DIAMONDS, "", id="R3.2-normal-no-plain-diamonds"),
    pytest.param(GameType.MARRIAGE, Suit.HEARTS, "AH KH 9H", id="R4.6-marriage-hearts"),
    pytest.param(GameType.SILENT_SOLO, Suit.SPADES, "AS 10S KS 9S", id="R4.5-silent-spades"),
    pytest.param(GameType.DIAMONDS_SOLO, Suit.DIAMONDS, "", id="R5.2-diamonds-solo-no-plain-D"),
    pytest.param(GameType.DIAMONDS_SOLO, Suit.HEARTS, "AH KH 9H", id="R5.2-diamonds-solo-hearts"),
    pytest.param(
        GameType.CLUBS_SOLO, Suit.DIAMONDS, "AD 10D KD 9D", id="R5.2-clubs-solo-10D-plain"
    ),
    pytest.param(GameType.CLUBS_SOLO, Suit.HEARTS, "AH KH 9H", id="R5.2-clubs-solo-hearts-A-K-9"),
    pytest.param(GameType.CLUBS_SOLO, Suit.SPADES, "AS 10S KS 9S", id="R5.2-clubs-solo-spades"),
    pytest.param(GameType.CLUBS_SOLO, Suit.CLUBS, "", id="R5.2-clubs-solo-no-plain-clubs"),
    pytest.param(GameType.SPADES_SOLO, Suit.CLUBS, "AC 10C KC 9C", id="R5.2-spades-solo-clubs"),
    pytest.param(GameType.SPADES_SOLO, Suit.HEARTS, "AH KH 9H", id="R5.2-spades-solo-hearts"),
    pytest.param(GameType.HEARTS_SOLO, Suit.DIAMONDS, "AD 10D KD 9D", id="R5.2-hearts-solo-D"),
    pytest.param(GameType.HEARTS_SOLO, Suit.HEARTS, "", id="R5.2-hearts-solo-no-plain-H"),
    pytest.param(GameType.QUEEN_SOLO, Suit.CLUBS, "AC 10C KC JC 9C", id="R5.3-queen-solo-clubs"),
    pytest.param(GameType.QUEEN_SOLO, Suit.HEARTS, "AH 10H KH JH 9H", id="R5.3-queen-solo-10H"),
    pytest.param(GameType.QUEEN_SOLO, Suit.DIAMONDS, "AD 10D KD JD 9D", id="R5.3-queen-solo-D"),
    pytest.param(GameType.JACK_SOLO, Suit.SPADES, "AS 10S KS QS 9S", id="R5.4-jack-solo-QS-plain"),
    pytest.param(GameType.JACK_SOLO, Suit.HEARTS, "AH 10H KH QH 9H", id="R5.4-jack-solo-hearts"),
    pytest.param(GameType.FLEISCHLOS, Suit.CLUBS, "AC 10C KC QC JC 9C", id="R5.5-fleischlos-C"),
    pytest.param(GameType.FLEISCHLOS, Suit.HEARTS, "AH 10H KH QH JH 9H", id="R5.5-fleischlos-H"),
    pytest.param(GameType.FLEISCHLOS, Suit.DIAMONDS, "AD 10D KD QD JD 9D", id="R5.5-fleischlos-D"),
]


@pytest.mark.parametrize(("game_type", "suit", "cards"), PLAIN_ORDERS)
def test_plain_suit_order_highest_first(game_type: GameType, suit: Suit, cards: str) -> None:
    """R3.2, R5.2-R5.5: each plain suit's cards, highest first; its 10 where it belongs."""
    order = order_of(game_type)
    assert order.plain[suit] == hand(cards)
    for c in hand(cards):
        assert order.category[c] == suit.value
        assert not order.is_trump(c)
    strengths = [order.strength[c] for c in hand(cards)]
    assert strengths == sorted(strengths, reverse=True)


@pytest.mark.parametrize(
    ("game_type", "code", "category"),
    [
        pytest.param(GameType.NORMAL, "QS", TRUMP, id="R3.2-normal-QS-is-trump-not-spade"),
        pytest.param(GameType.NORMAL, "JC", TRUMP, id="R3.2-normal-JC-trump"),
        pytest.param(GameType.NORMAL, "10H", TRUMP, id="R3.1-normal-10H-trump"),
        pytest.param(GameType.NORMAL, "AH", "H", id="R3.2-normal-AH-plain"),
        pytest.param(GameType.NORMAL, "9D", TRUMP, id="R3.1-normal-9D-trump"),
        pytest.param(GameType.JACK_SOLO, "QS", "S", id="R5.4-jack-solo-QS-is-a-spade"),
        pytest.param(GameType.JACK_SOLO, "10H", "H", id="R5.4-jack-solo-10H-plain"),
        pytest.param(GameType.JACK_SOLO, "AD", "D", id="R5.4-jack-solo-AD-plain"),
        pytest.param(GameType.QUEEN_SOLO, "JC", "C", id="R5.3-queen-solo-JC-a-club"),
        pytest.param(GameType.QUEEN_SOLO, "QD", TRUMP, id="R5.3-queen-solo-QD-trump"),
        pytest.param(GameType.CLUBS_SOLO, "10D", "D", id="R5.2-clubs-solo-10D-plain"),
        pytest.param(GameType.CLUBS_SOLO, "9C", TRUMP, id="R5.2-clubs-solo-9C-trump"),
        pytest.param(GameType.CLUBS_SOLO, "10H", TRUMP, id="R5.2-clubs-solo-10H-trump"),
        pytest.param(GameType.HEARTS_SOLO, "10H", TRUMP, id="R5.2-hearts-solo-10H-trump"),
        pytest.param(GameType.HEARTS_SOLO, "AD", "D", id="R5.2-hearts-solo-AD-plain"),
        pytest.param(GameType.FLEISCHLOS, "QC", "C", id="R5.5-fleischlos-QC-a-club"),
        pytest.param(GameType.FLEISCHLOS, "10H", "H", id="R5.5-fleischlos-10H-a-heart"),
    ],
)
def test_category_of_a_card_depends_on_the_game_type(
    game_type: GameType, code: str, category: str
) -> None:
    """R5.6: the game type alone decides which cards are trumps (R3.2: one trump suit)."""
    c = Card.parse(code)
    assert order_of(game_type).category[c] == category
    assert order_of(game_type).is_trump(c) is (category == TRUMP)


@pytest.mark.parametrize("game_type", list(GameType), ids=lambda g: f"R5.6-{g.value}")
def test_every_card_has_one_place_in_the_order(game_type: GameType) -> None:
    """R5.6: each of the 24 codes is either a trump or in exactly one plain suit; strengths
    within a category are distinct, and every trump outranks every plain card."""
    order = order_of(game_type)
    placed = list(order.trumps) + [c for cards in order.plain.values() for c in cards]
    assert sorted(placed) == sorted(Card)
    assert set(order.category) == set(Card) == set(order.strength)
    for cat in {TRUMP, *(s.value for s in Suit)}:
        members = [c for c in Card if order.category[c] == cat]
        assert len({order.strength[c] for c in members}) == len(members)
    if order.trumps:
        lowest_trump = min(order.strength[c] for c in order.trumps)
        highest_plain = max(order.strength[c] for c in Card if not order.is_trump(c))
        assert lowest_trump > highest_plain


def test_r4_2_contracts_are_solos_and_marriage_only() -> None:
    """R4.2: after `reservation` a solo (R5) or a marriage; NORMAL and SILENT_SOLO are not
    contracts (R4.5: a silent solo is never named)."""
    assert SOLOS | {GameType.MARRIAGE} == CONTRACTS
    assert GameType.NORMAL not in CONTRACTS
    assert GameType.SILENT_SOLO not in CONTRACTS
    assert {
        GameType.DIAMONDS_SOLO,
        GameType.HEARTS_SOLO,
        GameType.SPADES_SOLO,
        GameType.CLUBS_SOLO,
        GameType.QUEEN_SOLO,
        GameType.JACK_SOLO,
        GameType.FLEISCHLOS,
    } == SOLOS
    assert all(g.is_declared_solo for g in SOLOS)
    assert not GameType.SILENT_SOLO.is_declared_solo
    assert not GameType.MARRIAGE.is_declared_solo


@pytest.mark.parametrize(
    ("game_type", "cards", "sorted_cards"),
    [
        pytest.param(
            GameType.NORMAL,
            "9H AS QS 9D 10H AH AC 10C",
            "10H QS 9D AC 10C AS AH 9H",
            id="R3.1-R3.2-normal-trumps-first-then-C-S-H",
        ),
        pytest.param(
            GameType.JACK_SOLO,
            "QS JD AS JC 10H",
            "JC JD AS QS 10H",
            id="R5.4-jack-solo-QS-sorted-as-spade",
        ),
        pytest.param(
            GameType.FLEISCHLOS,
            "9D QC 10H AD JC",
            "QC JC 10H AD 9D",
            id="R5.5-fleischlos-all-plain",
        ),
    ],
)
def test_sort_hand_for_display(game_type: GameType, cards: str, sorted_cards: str) -> None:
    """R5.6: display order follows the game type: trumps high to low, then C S H D."""
    assert sort_hand(hand(cards), game_type) == hand(sorted_cards)
