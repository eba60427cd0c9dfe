"""A determinized deal and its fast rollout policy: every hand known, played to the end.

The policy is the rollout of the search (kept apart from the tree, STYLE 21): a cheap
reading of the greedy player (`domain.players.greedy_action`) over bit sets, with a
little chance so that rollouts differ: lead a plain ace, smear points on a partner's
trick, win a trick worth it as cheaply as possible, else throw the cheapest card.
"""

from __future__ import annotations

import random

import msgspec

from domain.cards import Rank
from domain.game_types import GameType
from expert.core import (
    CODES,
    POINTS,
    TRUMP_CATEGORY,
    Facts,
    Tables,
    codes_of,
    legal,
    winning_index,
    without,
)

EXPLORE = 0.1
"""How often a rollout plays a random legal card instead of the policy's."""

_PLAIN_ACES: dict[GameType, frozenset[int]] = {}


def plain_aces(tables: Tables) -> frozenset[int]:
    """The codes of the aces that are plain cards in this game type."""
    aces = _PLAIN_ACES.get(tables.game_type)
    if aces is None:
        aces = frozenset(
            i
            for i, c in enumerate(CODES)
            if c.rank is Rank.ACE and tables.category[i] != TRUMP_CATEGORY
        )
        _PLAIN_ACES[tables.game_type] = aces
    return aces


class Position(msgspec.Struct, frozen=True):
    """A deal with every hand known (one determinization): the complete ``tricks`` as
    (leader, codes), the current ``trick`` led by ``leader``, the Re seats as known so far,
    ``marriage`` the declarer of a marriage not yet clarified (R4.6), ``solo`` whether it
    is scored as one, and the parties' announced levels."""

    tables: Tables
    game_type: GameType
    hands: tuple[int, ...]
    tricks: tuple[tuple[int, tuple[int, ...]], ...]
    leader: int
    trick: tuple[int, ...]
    re: frozenset[int]
    marriage: int | None
    solo: bool
    re_level: int
    kontra_level: int


def policy(
    hand: int,
    trick: list[int],
    leader: int,
    seat: int,
    re: set[int],
    tables: Tables,
    rng: random.Random,
) -> int:
    """The rollout's card for ``seat`` (a code of its legal cards)."""
    codes = codes_of(legal(hand, trick[0] if trick else None, tables))
    if len(codes) == 1:
        return codes[0]
    if rng.random() < EXPLORE:
        return codes[rng.randrange(len(codes))]
    cheap = tables.cheap
    if not trick:
        aces = plain_aces(tables)
        for c in codes:
            if c in aces:
                return c
        return min(codes, key=cheap.__getitem__)
    key = tables.key
    best = winning_index(trick, tables)
    if ((leader + best) % 4 in re) == (seat in re):
        return max(codes, key=lambda c: POINTS[c] * 10000 - key[c])
    category = tables.category
    led = category[trick[0]]
    best_key = key[trick[best]]
    beating = [
        c
        for c in codes
        if key[c] > best_key and (category[c] == TRUMP_CATEGORY or category[c] == led)
    ]
    if beating and (len(trick) == 3 or sum(POINTS[c] for c in trick) >= 10):
        return min(beating, key=key.__getitem__)
    return min(codes, key=cheap.__getitem__)


def play_out(position: Position, first: int | None, rng: random.Random) -> Facts:
    """Play the position to the end (``first``: the code the seat to play plays now) and
    return the finished deal's facts; a marriage is clarified on the way (R4.6)."""
    tables = position.tables
    hands = list(position.hands)
    tricks = list(position.tricks)
    trick = list(position.trick)
    leader = position.leader
    re = set(position.re)
    marriage = position.marriage
    solo = position.solo
    left = sum(h.bit_count() for h in hands)  # 12 tricks' cards, 10 without nines (V1.1)
    while left:
        seat = (leader + len(trick)) % 4
        if first is not None:
            code, first = first, None
        else:
            code = policy(hands[seat], trick, leader, seat, re, tables, rng)
        hands[seat] = without(hands[seat], code)
        left -= 1
        trick.append(code)
        if len(trick) < 4:
            continue
        winner = (leader + winning_index(trick, tables, not left)) % 4
        tricks.append((leader, tuple(trick)))
        if marriage is not None:
            if winner != marriage:
                re.add(winner)
                marriage = None
            elif len(tricks) == 3:
                solo = True
                marriage = None
        leader, trick = winner, []
    return Facts(
        position.game_type,
        tuple(tricks),
        frozenset(re),
        solo,
        position.re_level,
        position.kontra_level,
        tables.second_ten,
        tables.schweinchen,
    )
