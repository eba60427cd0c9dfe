"""The expert without nines (V1): its core agrees with the domain on 40-card deals (10
tricks, the last trick 10 for V2.2, the score), its samples deal the unseen cards of the
40-card deck, four experts play a deal from its reservations to its score, and the review
prices a deal without nines by its rules."""

from __future__ import annotations

import random
from typing import get_args

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import Rank
from domain.deal import deal_started
from domain.dealing import deal_from_seed
from domain.events import Announced, CardPlayed, DealDealt, DealEvent, Dealing, Declared
from domain.observations import observe
from domain.players import greedy_action
from domain.rule_set import RuleSet
from domain.seats import Seat
from domain.simulation import next_command
from domain.variants import without_nines
from domain.variants.second_heart_ten import SecondHeartTen
from expert import core
from expert.inference import sample, unseen
from expert.review import review_deal
from tests.domain.builders import run
from tests.expert.test_core import DEALS, check_core
from tests.expert.test_player import SMALL, experts_play_out

V1 = RuleSet(without_nines=True)


@settings(max_examples=DEALS // 2, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from(list(SecondHeartTen)))
def test_core_agrees_with_the_domain_without_nines(seed: int, option: SecondHeartTen) -> None:
    """V1.1, V1.5 (with any V2 option): legal cards, trick winners (trick 10 the last) and
    scores as the domain's; every sample fits the viewer's observation."""
    check_core(seed, RuleSet(without_nines=True, second_heart_ten=option))


def _dealt(seed: int) -> DealDealt:
    hands = deal_from_seed(bytes([seed]) * 32, Seat.NORTH, without_nines.ALGORITHM)
    return DealDealt(1, Seat.NORTH, hands, Dealing("preset"))


def test_the_unseen_cards_are_of_the_40_card_deck() -> None:
    """V1.1: before the first card a seat's unseen cards are the 30 others of the 40: no nine."""
    state = deal_started(_dealt(3), V1)
    observation = observe(state, Seat.EAST)
    hidden = [core.CODES[c] for c in unseen(observation)]
    assert len(hidden) == 30 and all(c.rank is not Rank.NINE for c in hidden)
    hands = sample(observation, random.Random(1))
    assert [h.bit_count() for h in hands] == [10, 10, 10, 10]


def test_four_experts_play_a_deal_without_nines_to_its_score() -> None:
    """From the reservations to the score: 10 tricks, 240 card points, entries summing to 0."""
    ended = experts_play_out(deal_started(_dealt(5), V1), random.Random(3))
    assert ended.score is not None
    score = ended.score.score
    assert len(ended.tricks) == 10 and sum(score.tricks.values()) == 10
    assert sum(score.card_points.values()) == 240 and sum(score.entries) == 0


def test_a_deal_without_nines_is_reviewed_by_its_rules() -> None:
    """The review sees the deal as the table plays it (V1.1): one entry per action (four
    declarations, 40 cards, each word), each seat's samples of the 40-card deck."""
    dealt = _dealt(6)
    state, log = deal_started(dealt, V1), [dealt]
    rng = random.Random(2)
    while state.score is None:
        command = next_command(state, rng, greedy_action)
        assert command is not None
        state, new = run(state, command)
        log.extend(e for e in new if isinstance(e, get_args(DealEvent)))
    decisions = review_deal(log, "v1", SMALL, V1)
    actions = [e for e in log if isinstance(e, Declared | CardPlayed | Announced)]
    assert len(decisions) == len(actions) == 4 + 40 + sum(isinstance(e, Announced) for e in log)
