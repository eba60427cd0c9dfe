"""The duty solo as the expert plans it (V6.2-V6.7, `expert.duty_solo`).

The hands are hand-made and read as a club player reads them (the deals' other hands are
`fill`'s, the same in every case):

- MODERATE is a clubs solo of the minimum kind (eight trumps, three of the four highest,
  the rest small, beside two aces and two kings): a solo it would never declare for its
  own sake, since its normal game (five trumps with both Dullen, two aces) is worth more;
  but a solo is a solo: far better than one named vorgeführt on whatever hand comes.
- WEAK carries nothing but a fleischloser (three aces, no second ten, four kings and
  nines): as bad a solo as it gets, about a forced solo's worth.
- STRONG is a clubs solo of twelve trumps, nine of them queens, jacks and Dullen: declared
  by anyone, owing or not.

The expectations follow from the rule (`expert.duty_solo`): the bar falls as the last
chance nears (the closer it is, the more a kept duty costs), so MODERATE is declared at
its last chance and not with many left; without the duty, or with it paid, nothing
changes. The budget is larger than the default so that the playouts' noise is well
inside the margins the hands are chosen with.
"""

from __future__ import annotations

import itertools
import random

import msgspec
import pytest

from domain.commands import Declaration, Declare, NameContract, PlayCard
from domain.deal import DealState
from domain.game_types import GameType
from domain.observations import observe
from domain.rule_set import DEFAULT, RuleSet
from domain.seats import SEATS, Seat
from domain.variants.duty_solo import LONGEST, Duty
from expert.duty_solo import BARS, FORCED_SOLO, FREE, bar
from expert.player import expert_action
from expert.reservations import SOLO_MARGIN
from expert.search import Budget
from tests.domain.builders import deal_state, fill, run, start_play

N, E, S, W = SEATS
BUDGET = Budget(samples=16, iterations=32)
SEEDS = range(3)

MODERATE = "10H 10H QC JD JD KC 9C 9C AS KS AH KH"
WEAK = "QC QS JC JD AC 10C KC 9C AS KS AH KH"
STRONG = "10H 10H QC QS QS QH QH JC JC AC 10C KC"

SHORT = RuleSet(session_deals=4, duty_solo=True)
TWELVE = RuleSet(session_deals=12, duty_solo=True)
LONG = RuleSet(session_deals=LONGEST, duty_solo=True)


def _deal(
    east: str, rules: RuleSet = DEFAULT, deal_no: int = 1, owed: tuple[Seat, ...] = ()
) -> DealState:
    """Deal ``deal_no``, N dealing, E (first to declare) holding ``east``, ``owed`` still
    owing their duty solo (V6.2)."""
    state = deal_state(fill({E: east}), dealer=N, deal_no=deal_no, rules=rules)
    return msgspec.structs.replace(state, duty=Duty(owed))


def _declares(state: DealState, plan_duty: bool = True) -> set[Declaration]:
    """What E declares, for every seed."""
    seen = observe(state, E)
    found = set()
    for seed in SEEDS:
        action = expert_action(seen, random.Random(seed), BUDGET, plan_duty)
        assert isinstance(action, Declare)
        found.add(action.declaration)
    return found


RESERVE, HEALTHY = Declaration.RESERVATION, Declaration.HEALTHY

CASES = [
    # (c) no duty: a solo only for its own sake
    ("no duty, moderate", MODERATE, DEFAULT, 1, (), HEALTHY),
    ("no duty, strong", STRONG, DEFAULT, 1, (), RESERVE),
    ("no duty, a long session", MODERATE, RuleSet(session_deals=LONGEST), 12, (), HEALTHY),
    # (a) owing, the last chance: deal 4 of 4 with nobody's duty solo played (V6.7 next)
    ("last chance, moderate", MODERATE, SHORT, 4, SEATS, RESERVE),
    # deal 7 of 4 + 4 with three duty solos played: its last counted deal
    ("last chance after three duty solos", MODERATE, SHORT, 7, (E,), RESERVE),
    # (b) owing, many chances: the bar is a voluntary solo's
    ("48 chances, moderate", MODERATE, LONG, 1, SEATS, HEALTHY),
    ("12 chances, weak", WEAK, TWELVE, 1, SEATS, HEALTHY),
    ("48 chances, strong", STRONG, LONG, 1, SEATS, RESERVE),
    # (c) the duty paid (E owes no more): as without the duty, at the last counted deal
    ("paid, moderate", MODERATE, SHORT, 5, (N, S, W), HEALTHY),
]


@pytest.mark.parametrize(
    ("east", "rules", "deal_no", "owed", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_v6_3_when_the_expert_declares_a_solo(
    east: str, rules: RuleSet, deal_no: int, owed: tuple[Seat, ...], expected: Declaration
) -> None:
    assert _declares(_deal(east, rules, deal_no, owed)) == {expected}


def test_v6_3_without_planning_a_moderate_solo_waits_for_the_vorfuehrung() -> None:
    """The expert that does not plan its duty (the bench's other side) declines MODERATE at
    its last chance, as it would owing nothing."""
    assert _declares(_deal(MODERATE, SHORT, 4, SEATS), plan_duty=False) == {HEALTHY}


def test_v6_3_at_the_last_chance_it_names_the_solo_it_reserved_for() -> None:
    """MODERATE reserved at the last chance, everybody else healthy: E names its clubs solo,
    its duty solo (V6.3)."""
    state, _ = run(
        _deal(MODERATE, SHORT, 4, SEATS),
        Declare(E, RESERVE),
        Declare(S, HEALTHY),
        Declare(W, HEALTHY),
        Declare(N, HEALTHY),
    )
    assert isinstance(state, DealState)
    seen = observe(state, E)
    for seed in SEEDS:
        assert expert_action(seen, random.Random(seed), BUDGET) == NameContract(
            E, GameType.CLUBS_SOLO
        )


def test_v6_7_the_bars_fall_as_the_last_chance_nears() -> None:
    """The bar with one counted deal left is what keeping the duty then costs: the forced
    solo's mean less what a counted deal is worth free of the duty; with more left it
    never falls, and it never asks more than a voluntary solo."""
    assert BARS[0] == pytest.approx(FORCED_SOLO - FREE)
    assert FORCED_SOLO < 0 <= FREE
    assert all(a <= b for a, b in itertools.pairwise(BARS))
    assert BARS[-1] <= SOLO_MARGIN
    assert len(BARS) == LONGEST


@pytest.mark.parametrize(
    ("rules", "deal_no", "owed", "left"),
    [
        (SHORT, 4, SEATS, 1),
        (SHORT, 1, SEATS, 4),
        (SHORT, 6, (E,), 2),  # three duty solos among deals 1-5: 2 counted
        (SHORT, 7, (E,), 1),
        (TWELVE, 10, (E, W), 5),  # two duty solos among deals 1-9: 7 counted
        (LONG, 1, SEATS, LONGEST),
    ],
)
def test_v6_6_the_bar_is_read_from_the_counted_deals_left(
    rules: RuleSet, deal_no: int, owed: tuple[Seat, ...], left: int
) -> None:
    assert bar(observe(_deal(MODERATE, rules, deal_no, owed), E)) == BARS[left - 1]


@pytest.mark.parametrize(
    ("rules", "owed"), [(DEFAULT, ()), (SHORT, (N, S, W)), (RuleSet(session_deals=8), ())]
)
def test_v6_2_no_bar_without_a_duty_owed(rules: RuleSet, owed: tuple[Seat, ...]) -> None:
    assert bar(observe(_deal(MODERATE, rules, 2, owed), E)) is None


def test_v6_5_the_duty_soloist_leads_and_the_expert_plays_its_first_card() -> None:
    """V6.5: W's duty solo, N dealing: W leads the first trick, though E is the dealer's
    left; the expert at W plays one of its cards (its search starts the trick at W)."""
    state, _ = start_play(_deal(MODERATE, SHORT, 1, SEATS), {W: GameType.CLUBS_SOLO})
    assert isinstance(state, DealState) and state.turn is W and state.duty_solo
    seen = observe(state, W)
    for seed in SEEDS:
        action = expert_action(seen, random.Random(seed), BUDGET)
        assert isinstance(action, PlayCard) and action.card in seen.options.cards
