"""R2.1: card codes, the 48-card deck and card points."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.cards import CARD_POINTS, DECK, Card, Rank, Suit, card, points, without
from domain.errors import InvalidCard

from .builders import hand


def test_r2_1_there_are_24_codes_rank_then_suit() -> None:
    """R2.1 / card codes: 6 ranks x 4 suits, each written rank then suit."""
    assert len(Card) == 24
    assert {c.value for c in Card} == {r.value + s.value for r in Rank for s in Suit}
    for c in Card:
        assert c.value == c.rank.value + c.suit.value
        assert card(c.rank, c.suit) is c


def test_r2_1_deck_has_48_cards_every_code_twice() -> None:
    """R2.1: 48 cards, A 10 K Q J 9 of each suit, twice."""
    assert len(DECK) == 48
    assert Counter(DECK) == {c: 2 for c in Card}


@pytest.mark.parametrize(
    ("rank", "value"),
    [
        pytest.param(Rank.ACE, 11, id="R2.1-A-11"),
        pytest.param(Rank.TEN, 10, id="R2.1-10-10"),
        pytest.param(Rank.KING, 4, id="R2.1-K-4"),
        pytest.param(Rank.QUEEN, 3, id="R2.1-Q-3"),
        pytest.param(Rank.JACK, 2, id="R2.1-J-2"),
        pytest.param(Rank.NINE, 0, id="R2.1-9-0"),
    ],
)
def test_r2_1_card_points_by_rank(rank: Rank, value: int) -> None:
    """R2.1: A=11, 10=10, K=4, Q=3, J=2, 9=0, whatever the suit."""
    for suit in Suit:
        c = card(rank, suit)
        assert c.points == value
        assert CARD_POINTS[c] == value


def test_r2_1_the_deck_holds_240_card_points() -> None:
    """R2.1: 240 card points in all."""
    assert points(DECK) == 240
    assert points(list(DECK)) == 240
    assert points(()) == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("QC", Card.QC, id="R2.1-parse-QC"),
        pytest.param("10H", Card.TENH, id="R2.1-parse-10H"),
        pytest.param("10h", Card.TENH, id="R2.1-parse-lowercase"),
        pytest.param(" 9s ", Card.NINES, id="R2.1-parse-strips-spaces"),
        pytest.param("ad", Card.AD, id="R2.1-parse-AD"),
        pytest.param("JD", Card.JD, id="R2.1-parse-JD"),
    ],
)
def test_r2_1_parse_accepts_card_codes(text: str, expected: Card) -> None:
    """R2.1: a card is written rank then suit; case and surrounding spaces do not matter."""
    assert Card.parse(text) is expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="R2.1-reject-empty"),
        pytest.param("Q", id="R2.1-reject-rank-only"),
        pytest.param("C", id="R2.1-reject-suit-only"),
        pytest.param("CQ", id="R2.1-reject-suit-first"),
        pytest.param("1H", id="R2.1-reject-rank-1"),
        pytest.param("8S", id="R2.1-reject-rank-8"),
        pytest.param("TH", id="R2.1-reject-T-for-10"),
        pytest.param("QX", id="R2.1-reject-suit-X"),
        pytest.param("10", id="R2.1-reject-10-without-suit"),
        pytest.param("Q C", id="R2.1-reject-inner-space"),
    ],
)
def test_r2_1_parse_rejects_other_text(text: str) -> None:
    """R2.1: anything but the 24 codes is an InvalidCard citing R2.1."""
    with pytest.raises(InvalidCard) as caught:
        Card.parse(text)
    assert caught.value.code == "invalid_card"
    assert caught.value.rule == "R2.1"
    assert repr(text) in caught.value.message


def test_r2_1_card_parts() -> None:
    """R2.1: rank and suit of a card; cards know nothing of trumps (R5.6)."""
    assert (Card.TENH.rank, Card.TENH.suit) == (Rank.TEN, Suit.HEARTS)
    assert (Card.QS.rank, Card.QS.suit) == (Rank.QUEEN, Suit.SPADES)
    assert not hasattr(Card.QC, "is_trump")


def test_builders_hand_parses_compact_text() -> None:
    """The test helper reads codes as R2.1 writes them."""
    assert hand("QC qc 10H 9d") == (Card.QC, Card.QC, Card.TENH, Card.NINED)
    assert hand("") == ()


@pytest.mark.parametrize(
    ("hand", "cards", "left"),
    [
        ((Card.QC, Card.AD, Card.QC), (Card.QC,), (Card.AD, Card.QC)),  # one copy only
        ((Card.QC, Card.AD, Card.QC), (Card.QC, Card.QC), (Card.AD,)),
        ((Card.AD, Card.TEND, Card.NINED), (Card.NINED, Card.AD), (Card.TEND,)),
        ((Card.AD,), (), (Card.AD,)),
    ],
)
def test_without_takes_one_copy_of_each_card_given(
    hand: tuple[Card, ...], cards: tuple[Card, ...], left: tuple[Card, ...]
) -> None:
    """A card played (R3) or passed on in an Armut (V4.3, V4.4) leaves the hand once."""
    assert without(hand, cards) == left
