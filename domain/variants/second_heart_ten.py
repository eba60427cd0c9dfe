"""V2 The second heart ten beats the first (die zweite Dulle sticht die erste).

- V2 With ``always``: where 10H is a trump (the normal game, a marriage, a silent solo and
  the four suit solos, R3.1, R5.2), of the two 10H in one trick the one played second
  wins it, instead of the first (R3.4). In a queen solo, a jack solo and a Fleischloser
  10H is a plain card and R3.4 stands.
- V2.1 With ``except_last_trick``: as V2 in tricks 1 to 11; in the last trick the first
  10H wins, as in R3.4 (FreeDoko's ``dullen second over first`` with ``... except last
  trick``).

Nothing else changes: following (R3.3) and the points are as before.
"""

from __future__ import annotations

from enum import StrEnum

from domain.cards import Card
from domain.game_types import CardOrder


class SecondHeartTen(StrEnum):
    """V2: which 10H wins a trick holding both: ``first`` (R3.4, the default), ``always``
    the second (V2), or the second ``except_last_trick`` (V2.1)."""

    FIRST = "first"
    ALWAYS = "always"
    EXCEPT_LAST_TRICK = "except_last_trick"

    @property
    def rule(self) -> str | None:
        """The variant's id; None for R3.4 as it stands."""
        return _RULES[self]


_RULES = {
    SecondHeartTen.FIRST: None,
    SecondHeartTen.ALWAYS: "V2",
    SecondHeartTen.EXCEPT_LAST_TRICK: "V2.1",
}


def second_heart_ten_wins(
    option: SecondHeartTen, order: CardOrder, trick_no: int, last_trick: int
) -> bool:
    """V2, V2.1: whether in trick ``trick_no`` (of ``last_trick``) the second 10H beats the
    first: with V2 wherever 10H is a trump, with V2.1 too but not in the last trick."""
    if option is SecondHeartTen.FIRST or not order.is_trump(Card.TENH):
        return False
    return option is SecondHeartTen.ALWAYS or trick_no < last_trick
