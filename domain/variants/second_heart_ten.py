"""V2 The second heart ten beats the first (die zweite Dulle sticht die erste).

- V2.1 Option second_heart_ten "always": where 10H is a trump (the normal game, a
  marriage, an Armut (V4.5), a silent solo and the four suit solos: R3.1, R5.2), of the
  two 10H in one trick the one played second ranks higher and wins it, in every trick.
  Only the 10H changes: of any other two identical cards the first still ranks higher
  (R3.4). In a queen solo, a jack solo and a Fleischloser 10H is a plain card and R3.4
  stands.
  Following (R3.3), card points and scoring are unchanged. (FreeDoko: "dollen second
  over first".)
- V2.2 Option second_heart_ten "except_last_trick": as V2.1 in every trick but the
  last; in the last trick the first 10H ranks higher again, as in R3.4. (FreeDoko:
  "... contrary in last trick".)
"""

from __future__ import annotations

from enum import StrEnum

from domain.cards import Card
from domain.game_types import CardOrder


class SecondHeartTen(StrEnum):
    """V2: which 10H wins: ``first`` (R3.4), the second ``always`` or ``except_last_trick``."""

    FIRST = "first"
    ALWAYS = "always"
    EXCEPT_LAST_TRICK = "except_last_trick"

    @property
    def rule(self) -> str | None:
        """The variant's id; None for R3.4 as it stands."""
        return _RULES[self]


_RULES = {
    SecondHeartTen.FIRST: None,
    SecondHeartTen.ALWAYS: "V2.1",
    SecondHeartTen.EXCEPT_LAST_TRICK: "V2.2",
}


def second_heart_ten_wins(
    option: SecondHeartTen, order: CardOrder, trick_no: int, last_trick: int
) -> bool:
    """V2.1, V2.2: whether in trick ``trick_no`` (of ``last_trick``) the second 10H beats the
    first: with V2.1 wherever 10H is a trump, with V2.2 too but not in the last trick."""
    if option is SecondHeartTen.FIRST or not order.is_trump(Card.TENH):
        return False
    return option is SecondHeartTen.ALWAYS or trick_no < last_trick
