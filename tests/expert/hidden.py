"""Deals that differ from a seat's only in what the seat cannot see."""

from __future__ import annotations

import random

import msgspec

from domain.cards import Card
from domain.deal import DealState
from domain.game_types import GameType, order_of
from domain.seats import SEATS, Seat


def permute_hidden(state: DealState, viewer: Seat, rng: random.Random, swaps: int = 1) -> DealState:
    """The state with ``swaps`` cards of the other seats exchanged between two of them, each
    for a different card of the same category (no QC, so the parties stay; no void
    changes): every such deal is one the viewer cannot tell from this one."""
    category = order_of(state.game_type or GameType.NORMAL).category
    others = [s for s in SEATS if s is not viewer]
    hands = [list(h) for h in state.hands]
    done = 0
    for _ in range(100 * swaps):
        a, b = rng.sample(others, 2)
        if not hands[a] or not hands[b]:
            continue
        x, y = rng.choice(hands[a]), rng.choice(hands[b])
        if x != y and category[x] == category[y] and Card.QC not in (x, y):
            hands[a][hands[a].index(x)] = y
            hands[b][hands[b].index(y)] = x
            done += 1
            if done == swaps:
                break
    assert done, "no card to exchange"
    return msgspec.structs.replace(state, hands=tuple(tuple(h) for h in hands))
