"""The review of a deal: every decision priced from what its seat saw, and nothing more.

The hidden-information test reviews the same decision on deals that differ only in the
cards the seat could not see (the other hands permuted as the seat's observation allows,
`tests.expert.hidden`): with the same seed, the same alternatives and means. The count of
decisions comes from the log itself (R4.1: four declarations, R3.6: 48 cards, R6: each
word said).
"""

from __future__ import annotations

import random
from typing import get_args

import pytest

from domain.commands import Announce, Declare, PlayCard
from domain.deal import DealState
from domain.events import Announced, CardPlayed, DealDealt, DealEvent, Dealing, Declared
from domain.observations import observe
from domain.players import greedy_action
from domain.seats import Seat
from domain.simulation import next_command
from expert.review import review_deal, review_decision
from expert.search import Budget
from tests.domain.builders import deal_state, fill, run, start_play
from tests.expert.hidden import permute_hidden


def _played(seed: int, tricks: int) -> tuple[DealState, list[DealEvent]]:
    """A normal game played by greedy seats up to ``tricks`` tricks (12: scored), and its
    events from the deal on."""
    first = deal_state(fill({Seat(0): "QC", Seat(2): "QC"}))
    state, events = start_play(first)
    dealt = DealDealt(first.deal_no, first.dealer, first.hands, Dealing("preset"))
    log: list[DealEvent] = [dealt, *(e for e in events if isinstance(e, get_args(DealEvent)))]
    rng = random.Random(seed)
    while state.score is None and len(state.tricks) < tricks:
        command = next_command(state, rng, greedy_action)
        assert command is not None
        state, new = run(state, command)
        log.extend(e for e in new if isinstance(e, get_args(DealEvent)))
    return state, log


def test_a_card_is_priced_on_what_its_seat_saw() -> None:
    """Hidden cards permuted: the same observation, the same alternatives and means."""
    for seed in range(3):
        state, _ = _played(seed, 4)
        seat = state.turn
        assert seat is not None
        card = observe(state, seat).options.cards[-1]
        other = permute_hidden(state, seat, random.Random(seed), swaps=6)
        assert other.hands != state.hands
        assert observe(other, seat) == observe(state, seat)
        mine = review_decision(observe(state, seat), PlayCard(seat, card), 7, "s")
        theirs = review_decision(observe(other, seat), PlayCard(seat, card), 7, "s")
        assert mine == theirs
        assert len(mine.alternatives) == len(observe(state, seat).options.cards)


def test_a_declaration_and_a_word_are_priced_on_what_their_seat_saw() -> None:
    """The same for a declaration (R4.1) and for an announcement (R6) at the first turn."""
    state = deal_state(fill({Seat(1): "QC QC QS QS QH QH JC JC AC AC AS AH"}))
    seat = state.turn
    assert seat is not None
    other = permute_hidden(state, seat, random.Random(1), swaps=6)
    action = Declare(seat, observe(state, seat).options.declarations[0])
    assert review_decision(observe(state, seat), action, 0, "s") == review_decision(
        observe(other, seat), action, 0, "s"
    )
    playing, _ = start_play(state)
    assert isinstance(playing, DealState)
    seat = playing.turn
    assert seat is not None
    allowed = observe(playing, seat).options.announcements
    assert allowed
    word = Announce(seat, allowed[0].word)
    other = permute_hidden(playing, seat, random.Random(2), swaps=6)
    mine = review_decision(observe(playing, seat), word, 3, "s")
    assert mine == review_decision(observe(other, seat), word, 3, "s")
    assert {a.option for a in mine.alternatives} == {"none", *(a.word.value for a in allowed)}
    assert review_decision(observe(playing, seat), word, 3, "s", Budget(1, 1)).alternatives


@pytest.mark.long
def test_every_decision_of_a_deal_is_reviewed() -> None:
    """One entry per action of the log, in order; the best alternative has the highest
    mean, the choice's loss is the difference, never negative."""
    state, log = _played(4, 12)
    assert state.score is not None
    decisions = review_deal(log, "deal")
    actions = [e for e in log if isinstance(e, Declared | CardPlayed | Announced)]
    assert len(decisions) == len(actions) == 4 + 48 + sum(isinstance(e, Announced) for e in log)
    for index, (decision, event) in enumerate(zip(decisions, actions, strict=True)):
        assert decision.index == index and decision.seat is event.seat
        means = {a.option: a.mean for a in decision.alternatives}
        assert means[decision.best] == max(means.values())
        assert decision.chosen in means
        assert decision.lost == round(means[decision.best] - means[decision.chosen], 3) >= 0
    assert decisions == review_deal(log, "deal")
