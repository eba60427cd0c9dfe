"""V3 Schweinchen: both diamond aces in one hand, shown, are the highest trumps.

- V3.1 Option schweinchen true: a player who holds both AD may show them ("Schweinchen") in
  the play, on their own turn, before the card they play, for as long as they hold both:
  at the latest just before the first of them. A player who plays an AD without having
  shown has let the chance go (the other AD alone is no Schweinchen). Showing is an
  action of its own, seen by everyone at the table (the log records it); it tells them
  that this seat holds both AD and nothing else (not its party). (FreeDoko: "swines",
  without "swines announcement at the beginning": shown at any turn before the first
  fox is played.)
- V3.2 Once shown, both AD are the highest trumps for the rest of the deal, above the
  10H (with V2 too). Both are in one hand, so they never meet in one trick. Following
  (R3.3), card points, the fox (R9.3: a shown AD is never captured) and scoring are
  unchanged.
- V3.3 Where: wherever AD is a trump: the normal game, a marriage (before and after its
  clarifying trick), an Armut (V4.5), a silent solo and the diamonds solo. In the other
  suit solos, a queen solo, a jack solo and a Fleischloser AD is a plain card: no
  Schweinchen.
"""

from __future__ import annotations

from domain.cards import Card
from domain.game_types import CardOrder, GameType, card_order, order_of, sort_keys

RULE = "V3.1"
"""The option's id, as `domain.rule_set.RuleSet.variants` lists it."""


def schweinchen_possible(game_type: GameType) -> bool:
    """V3.3: whether AD is a trump in ``game_type``, so that Schweinchen may be shown."""
    return order_of(game_type).is_trump(Card.AD)


def _raised(order: CardOrder) -> CardOrder:
    """V3.2: ``order`` with AD above every other trump."""
    return card_order((Card.AD, *(c for c in order.trumps if c is not Card.AD)))


SHOWN_ORDERS: dict[GameType, CardOrder] = {
    g: _raised(order_of(g)) for g in GameType if schweinchen_possible(g)
}
"""V3.2: the card order of every game type with AD a trump, once Schweinchen are shown."""

_SHOWN_SORT_KEYS = {g: sort_keys(o) for g, o in SHOWN_ORDERS.items()}


def deal_order(game_type: GameType, shown: bool) -> CardOrder:
    """The card order of a deal of ``game_type``: with Schweinchen ``shown`` (V3.2) the
    AD highest, else the game type's (R5.6)."""
    return SHOWN_ORDERS[game_type] if shown else order_of(game_type)


def sort_shown(hand: tuple[Card, ...], game_type: GameType) -> tuple[Card, ...]:
    """A hand sorted for display once Schweinchen are shown: the AD first (V3.2), then as
    `domain.game_types.sort_hand`."""
    return tuple(sorted(hand, key=_SHOWN_SORT_KEYS[game_type].__getitem__))
