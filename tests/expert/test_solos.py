"""Against a declared solo: the expert prices its words on the solo's real strength.

The soloist's declaration says he holds enough trumps and high trumps (R5.2-R5.4,
`expert.soloist`); the inference deals him no less. The deals are hand-made: a club
player sees at a glance that twelve trumps with both Dullen and both QC make the soloist
unbeatable, and that a solo of eight small trumps facing the Dullen, both QC and QS and
three aces is lost. The expectations are those readings; the decision itself is the search's.
"""

from __future__ import annotations

import random

from domain.commands import Announce, PlayCard
from domain.deal import DealState
from domain.game_types import GameType
from domain.observations import observe
from domain.seats import Seat
from expert.core import CODE
from expert.inference import sample
from expert.player import expert_action
from expert.soloist import FLOORS, held
from tests.domain.builders import deal_state, fill, run, start_play

SOLOIST, EXPERT = Seat(1), Seat(2)

STRONG = "10H 10H QC QC QS QS QH QH JC JC AC 10C"
"""A clubs solo of twelve trumps, the eight highest among them."""

MIDDLING = "AS AS AH AH AD 10S KS KH 9S QD 10D 9D"
"""Five aces and one small trump: good in a normal game, nothing against STRONG."""

WEAK = "QH JH JD JD AC AC KC 9C AD KS KH 9H"
"""A clubs solo of eight trumps, the highest a QH: the count, not the strength."""

AGAINST_WEAK = "10H 10H QC QC QS QS JC JC AS AS AH 10S"
"""The Dullen, both QC and QS, both JC and three aces: the soloist cannot win."""


def _first_turn(soloist: str, expert: str) -> DealState:
    """The clubs solo declared by seat 1, its first lead played: seat 2 to play, 12 cards."""
    state, _ = start_play(
        deal_state(fill({SOLOIST: soloist, EXPERT: expert}), dealer=Seat(0)),
        {SOLOIST: GameType.CLUBS_SOLO},
    )
    assert isinstance(state, DealState) and state.turn is SOLOIST
    state, _ = run(state, PlayCard(SOLOIST, state.hands[SOLOIST][0]))
    assert state.turn is EXPERT
    return state


def test_the_soloist_is_dealt_what_his_declaration_says() -> None:
    """R5.2: every hand the inference deals the clubs soloist reaches the solo's floors."""
    observation = observe(_first_turn(WEAK, MIDDLING), EXPERT)
    rng = random.Random(3)
    for _ in range(50):
        soloist = sample(observation, rng)[SOLOIST]
        for floor in FLOORS[GameType.CLUBS_SOLO]:
            led = sum(CODE[c] in floor.codes for c in observation.trick)
            assert held(soloist, floor.codes) + led >= floor.fewest


def test_no_kontra_against_a_strong_solo() -> None:
    """Five aces do not beat twelve trumps: the expert plays a card and says nothing."""
    observation = observe(_first_turn(STRONG, MIDDLING), EXPERT)
    assert observation.options.announcements  # Kontra was allowed (R6.2)
    for seed in range(3):
        assert isinstance(expert_action(observation, random.Random(seed)), PlayCard)


def test_a_weak_solo_gets_its_kontra() -> None:
    """The same evaluation, against eight small trumps with the high ones in its own hand:
    the expert announces (Kontra or more, R6)."""
    observation = observe(_first_turn(WEAK, AGAINST_WEAK), EXPERT)
    for seed in range(3):
        action = expert_action(observation, random.Random(seed))
        assert isinstance(action, Announce)
