"""The fast paths behind the views give the answers of the plain rules they replace.

`allowances` (the announcement options) is a closed form of asking `check` about every
word; `sort_hand` sorts by a precomputed key; `observe` remembers the complete tricks.
"""

from __future__ import annotations

import itertools
import random

from domain.announcements import (
    REFUSALS,
    Allowance,
    PartyAnnouncements,
    allowances,
    check,
    party_word,
    until_cards,
)
from domain.cards import DECK
from domain.errors import DomainError
from domain.game_types import TRUMP, GameType, order_of, sort_hand
from domain.observations import PlayedTrick, _complete_tricks, observe
from domain.parties import Party
from domain.seats import SEATS
from domain.simulation import session_steps


def _asking_check(
    party: Party, cards: int, own: PartyAnnouncements, opponents: PartyAnnouncements, shift: int
) -> tuple[Allowance, ...]:
    """Every word `check` accepts, with its `until_cards`: the plain rule."""
    allowed = []
    for word in (party_word(party), *REFUSALS):
        try:
            check(party=party, word=word, cards=cards, own=own, opponents=opponents, shift=shift)
        except DomainError:
            continue
        limit = until_cards(word=word, own=own, opponents=opponents, shift=shift)
        allowed.append(Allowance(word, limit))
    return tuple(allowed)


def test_allowances_are_the_words_check_accepts() -> None:
    """R6: over every level, late-reply flag, hand size and marriage shift (unreachable
    combinations too), the closed form equals asking `check` word by word."""
    levels = [PartyAnnouncements(n, late) for n in range(6) for late in (False, True)]
    for party, own, opponents, shift, cards in itertools.product(
        Party, levels, levels, range(3), range(13)
    ):
        expected = _asking_check(party, cards, own, opponents, shift)
        got = allowances(party=party, cards=cards, own=own, opponents=opponents, shift=shift)
        assert got == expected, (party, own, opponents, shift, cards)


def test_sort_hand_sorts_trumps_first_then_clubs_spades_hearts_diamonds() -> None:
    """Every game type, the whole deck shuffled: trumps highest first, then each plain suit
    highest first, in the order C S H D."""
    places = {TRUMP: 0, "C": 1, "S": 2, "H": 3, "D": 4}
    rng = random.Random(5)
    for game_type in GameType:
        order = order_of(game_type)
        deck = list(DECK)
        rng.shuffle(deck)
        expected = sorted(deck, key=lambda c: (places[order.category[c]], -order.strength[c]))
        assert sort_hand(tuple(deck), game_type) == tuple(expected)


def test_remembered_tricks_equal_fresh_ones() -> None:
    """The complete tricks an observation shows, remembered or not, are the deal's tricks
    with their winners and points, whoever looks."""
    for step in itertools.islice(session_steps(random.Random(11)), 600):
        deal = step.after.deal
        if deal is None:
            continue
        expected = tuple(
            PlayedTrick(t.leader, t.cards, w, t.points)
            for t, w in zip(deal.tricks, deal.winners, strict=True)
        )
        for viewer in (*SEATS, None):
            assert observe(deal, viewer).tricks == expected
        _complete_tricks.cache_clear()
        assert observe(deal, None).tricks == expected
