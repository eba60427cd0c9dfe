"""The lean simulation core of the search: bit sets over the 48 cards (R2.1; without nines
the nines' bits stay empty, V1.1).

A hand is an ``int`` whose bits ``2 * code`` and ``2 * code + 1`` are the two copies of
the card ``CODES[code]`` (the order of `domain.cards.Card`). Each game type's order
(R3.1, R3.2, R5.2-R5.5) is precomputed from `domain.game_types.ORDERS` into a `Tables`:
one mask per category for following (R3.3) and one key per card for winning (R3.4), with
the table's house rule for two 10H in a trick (V2, `domain.variants.second_heart_ten`) and
the AD highest once Schweinchen are shown (V3, `domain.variants.schweinchen`).
Scoring (R7-R10) works on the tricks as codes. The property test
``tests/expert/test_core.py`` keeps all of it equal to `domain/` on random states.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from domain.cards import CARD_POINTS, Card, Suit
from domain.game_types import TRUMP, GameType
from domain.observations import Observation
from domain.rule_set import RuleSet, in_force
from domain.variants.schweinchen import deal_order, schweinchen_possible
from domain.variants.second_heart_ten import SecondHeartTen, second_heart_ten_wins

CODES: tuple[Card, ...] = tuple(Card)
CODE: dict[Card, int] = {c: i for i, c in enumerate(CODES)}
POINTS: tuple[int, ...] = tuple(CARD_POINTS[c] for c in CODES)
QC = CODE[Card.QC]
TENH = CODE[Card.TENH]
JC = CODE[Card.JC]
AD = CODE[Card.AD]
PAIR: tuple[int, ...] = tuple(3 << (2 * i) for i in range(len(CODES)))
"""The two bits of each code."""

TRUMP_CATEGORY = 0
_CATEGORIES = {TRUMP: 0, Suit.CLUBS.value: 1, Suit.SPADES.value: 2, Suit.HEARTS.value: 3}
_CATEGORIES[Suit.DIAMONDS.value] = 4


class Tables(msgspec.Struct, frozen=True):
    """A game type's order as arrays: ``category[code]`` (0 trump, 1-4 C S H D),
    ``masks[category]`` (every bit of that category), ``key[code]`` (higher wins; trumps
    above every plain card) and ``cheap[code]`` (the rollout's "cheapest card" rank).
    ``second_ten`` is the table's V2 option; ``later_ten`` whether by it a 10H beats the
    10H played before it in tricks 1-11, ``later_ten_last`` in the last trick too;
    ``schweinchen`` whether the AD rank highest (V3.2)."""

    game_type: GameType
    category: tuple[int, ...]
    masks: tuple[int, ...]
    key: tuple[int, ...]
    cheap: tuple[int, ...]
    second_ten: SecondHeartTen = SecondHeartTen.FIRST
    later_ten: bool = False
    later_ten_last: bool = False
    schweinchen: bool = False


def _tables(
    game_type: GameType,
    second_ten: SecondHeartTen = SecondHeartTen.FIRST,
    schweinchen: bool = False,
) -> Tables:
    order = deal_order(game_type, schweinchen)
    category = tuple(_CATEGORIES[order.category[c]] for c in CODES)
    key = tuple(order.strength[c] + (1000 if order.is_trump(c) else 0) for c in CODES)
    masks = tuple(sum(PAIR[i] for i in range(len(CODES)) if category[i] == cat) for cat in range(5))
    cheap = tuple(POINTS[i] * 10000 + key[i] for i in range(len(CODES)))
    later = second_heart_ten_wins(second_ten, order, 1, 12)
    later_last = second_heart_ten_wins(second_ten, order, 12, 12)
    return Tables(
        game_type, category, masks, key, cheap, second_ten, later, later_last, schweinchen
    )


TABLES: dict[GameType, Tables] = {g: _tables(g) for g in GameType}
"""R5.6: the precomputed order of every game type (RULES.md: no house rule)."""
_VARIANT_TABLES: dict[tuple[GameType, SecondHeartTen, bool], Tables] = {
    (g, o, s): _tables(g, o, s)
    for g in GameType
    for o in SecondHeartTen
    for s in (False, True)
    if schweinchen_possible(g) or not s
}


def tables_of(game_type: GameType, second_ten: SecondHeartTen, schweinchen: bool = False) -> Tables:
    """The precomputed order of a game type at a table with the V2 option ``second_ten``,
    with the AD highest if ``schweinchen`` (V3.2; only where AD is a trump, V3.3)."""
    return _VARIANT_TABLES[game_type, second_ten, schweinchen and schweinchen_possible(game_type)]


def observed_tables(
    game_type: GameType, rules: RuleSet | UnsetType, schweinchen: bool = False
) -> Tables:
    """The precomputed order of a game type under the rules an observation names."""
    return tables_of(game_type, in_force(rules).second_heart_ten, schweinchen)


def schweinchen_rank(observation: Observation, game_type: GameType) -> bool:
    """V3.2: whether the AD rank highest in a deal of ``game_type`` as the viewer plays it
    out: they are shown, or the viewer holds both AD at a table with Schweinchen and shows
    them at its first turn in the play (`expert.player`). Only where AD is a trump (V3.3)."""
    if not schweinchen_possible(game_type):
        return False
    if observation.schweinchen is not UNSET:
        return True
    return in_force(observation.rules).schweinchen and observation.hand.count(Card.AD) == 2


def mask_of(cards: tuple[Card, ...] | list[Card]) -> int:
    """The bit set of some cards (each card at most twice)."""
    hand = 0
    for c in cards:
        pair = PAIR[CODE[c]]
        low = pair & -pair
        hand |= low if not hand & low else low << 1
    return hand


_CHUNK = 12
"""The bits `codes_of` reads at a time: six codes' pairs."""


def _chunk_codes(offset: int) -> tuple[tuple[int, ...], ...]:
    """For every value of the 12 bits from bit ``2 * offset``: the codes present there."""
    return tuple(
        tuple(offset + i for i in range(_CHUNK // 2) if value >> (2 * i) & 3)
        for value in range(1 << _CHUNK)
    )


_CHUNKS = tuple(_chunk_codes(k * _CHUNK // 2) for k in range(2 * len(CODES) // _CHUNK))


def codes_of(hand: int) -> tuple[int, ...]:
    """The distinct codes in a bit set, lowest first (read six codes at a time: the
    rollouts call it for every card, `expert.playout.policy`)."""
    a, b, c, d = _CHUNKS
    return a[hand & 4095] + b[hand >> 12 & 4095] + c[hand >> 24 & 4095] + d[hand >> 36]


def count(hand: int, code: int) -> int:
    """How many copies of ``code`` the bit set holds (0-2)."""
    return (hand >> (2 * code) & 3).bit_count()


def without(hand: int, code: int) -> int:
    """The bit set with one copy of ``code`` taken out (the higher bit first)."""
    high = 2 << (2 * code)
    return hand ^ high if hand & high else hand ^ (high >> 1)


def legal(hand: int, led: int | None, tables: Tables) -> int:
    """R3.3: the bits the hand may play: of the led card's category if it holds one."""
    if led is None:
        return hand
    following = hand & tables.masks[tables.category[led]]
    return following or hand


def winning_index(cards: list[int] | tuple[int, ...], tables: Tables, last: bool = False) -> int:
    """R3.4: the index of the winning card; a later identical card does not beat it, but a
    10H the 10H before it where V2 holds (``last``: in the last trick, V2.2)."""
    category, key = tables.category, tables.key
    led = category[cards[0]]
    best, best_key = 0, key[cards[0]]
    later = tables.later_ten_last if last else tables.later_ten
    for i in range(1, len(cards)):
        c = cards[i]
        cat = category[c]
        if (cat in (TRUMP_CATEGORY, led)) and (
            key[c] > best_key or (later and c == TENH and cards[best] == TENH)
        ):
            best, best_key = i, key[c]
    return best


class Facts(msgspec.Struct, frozen=True):
    """A finished deal in codes: ``tricks`` as (leader, four codes), ``re`` the Re seats
    (after a marriage's clarification), ``solo`` whether it is scored as a solo, and each
    party's announced level (0-5), the table's V2 option and whether the AD rank highest
    (V3.2)."""

    game_type: GameType
    tricks: tuple[tuple[int, tuple[int, ...]], ...]
    re: frozenset[int]
    solo: bool
    re_level: int
    kontra_level: int
    second_ten: SecondHeartTen = SecondHeartTen.FIRST
    schweinchen: bool = False


_OWN_TARGET = (0, 0, 151, 181, 211)
_AGAINST_TARGET = (0, 0, 90, 60, 30)
_REACHED = ((2, 120), (3, 90), (4, 60), (5, 30))


def _reaches(
    own: int, opposing: int, pts: int, won: int, lost: int, re: bool, only_k: bool
) -> bool:
    """R7.1-R7.4: whether a party with ``pts`` card points and ``won`` tricks (the
    opponents ``lost``) reached its target."""
    if own >= 2:
        return lost == 0 if own == 5 else pts >= _OWN_TARGET[own]
    if opposing >= 2:
        return won >= 1 if opposing == 5 else pts >= _AGAINST_TARGET[opposing]
    if re:
        return pts >= (120 if only_k else 121)
    return pts >= (121 if only_k else 120)


def _under(pts: int, tricks: int) -> int:
    """R8.1: 1 each for ending under 90, 60, 30 and with no trick."""
    return (pts < 90) + (pts < 60) + (pts < 30) + (tricks == 0)


def outcome(facts: Facts) -> tuple[int | None, int]:
    """R7-R9: who won (1 Re, -1 Kontra, None: nobody, R7.5) and the game value from Re's
    side, as `domain.scoring.score` has them."""
    re_seats = facts.re
    tables = tables_of(facts.game_type, facts.second_ten, facts.schweinchen)
    re_pts = re_tricks = extras = 0
    last = len(facts.tricks) - 1
    for n, (leader, cards) in enumerate(facts.tricks):
        best = winning_index(cards, tables, n == last)
        pts = POINTS[cards[0]] + POINTS[cards[1]] + POINTS[cards[2]] + POINTS[cards[3]]
        re_won = (leader + best) % 4 in re_seats
        if re_won:
            re_pts += pts
            re_tricks += 1
        if facts.solo:
            continue
        sign = 1 if re_won else -1
        extras += sign * (pts >= 40)
        for i, c in enumerate(cards):
            if c == AD and (((leader + i) % 4) in re_seats) != re_won:
                extras += sign
        if n == last and cards[best] == JC:
            extras += sign
    ko_pts, ko_tricks = 240 - re_pts, len(facts.tricks) - re_tricks  # 12 tricks, V1.1: 10
    rl, kl = facts.re_level, facts.kontra_level
    only_k = kl >= 1 and rl == 0
    if _reaches(rl, kl, re_pts, re_tricks, ko_tricks, True, only_k):
        winner: int | None = 1
    elif _reaches(kl, rl, ko_pts, ko_tricks, re_tricks, False, only_k):
        winner = -1
    else:
        winner = None
    total = 0
    if winner is not None:
        loser_pts, loser_tricks = (ko_pts, ko_tricks) if winner == 1 else (re_pts, re_tricks)
        announced = 2 * (rl >= 1) + 2 * (kl >= 1) + max(rl - 1, 0) + max(kl - 1, 0)
        total += winner * (1 + _under(loser_pts, loser_tricks) + announced)
        if winner == -1 and not facts.solo:
            extras -= 1  # R9.1 against the old ladies
    else:
        total += _under(ko_pts, ko_tricks) - _under(re_pts, re_tricks)
    for level, threshold in _REACHED:
        total += (kl >= level and re_pts >= threshold) - (rl >= level and ko_pts >= threshold)
    return winner, total + extras


def entry(facts: Facts, seat: int, game_value: int) -> int:
    """R10: the seat's scoresheet entry for a game value from Re's side."""
    if seat in facts.re:
        return 3 * game_value if facts.solo else game_value
    return -game_value
