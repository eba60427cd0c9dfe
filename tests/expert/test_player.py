"""The expert player: it never cheats, it is reproducible, it reserves by the hand.

The deals are hand-made (`tests.domain.builders`) or played on by the domain's random
player; the expectations come from what a seat may know (R3.3, R4.4) and from hands a
club player reads at a glance.
"""

from __future__ import annotations

import functools
import random

import msgspec
import pytest

from domain.cards import Card
from domain.commands import (
    AnswerPoverty,
    Declaration,
    Declare,
    NameContract,
    PlayCard,
    ReturnPoverty,
    ShowSchweinchen,
)
from domain.deal import DealState
from domain.game_types import SOLOS, GameType
from domain.observations import observe
from domain.players import random_action
from domain.rule_set import RuleSet
from domain.seats import SEATS, Seat
from domain.simulation import next_command
from domain.variants.duty_solo import Duty
from domain.variants.second_heart_ten import SecondHeartTen
from expert.core import AD, CODE, count, observed_tables, schweinchen_rank
from expert.inference import sample
from expert.player import decide, expert_action
from expert.reservations import candidates
from expert.search import Budget
from tests.domain.builders import deal_state, fill, hand, run, start_play
from tests.expert.hidden import permute_hidden

BUDGET = Budget(samples=4, iterations=8, words=8)
SMALL = Budget(samples=1, iterations=2, words=2)


def _midgame(seed: int) -> tuple[DealState, Seat]:
    """A normal game after four random tricks, at a turn with a choice of cards."""
    state, _ = start_play(deal_state(fill({Seat(0): "QC", Seat(2): "QC"})))
    rng = random.Random(seed)
    while True:
        turn = state.turn
        assert turn is not None
        if len(state.tricks) >= 4 and len(observe(state, turn).options.cards) > 1:
            return state, turn
        command = next_command(state, rng, random_action)
        assert command is not None
        state, _ = run(state, command)


def test_it_never_cheats() -> None:
    """Two states that differ only in hidden cards, one observation: the same decision."""
    for seed in range(3):
        state, viewer = _midgame(seed)
        other = permute_hidden(state, viewer, random.Random(seed))
        assert other.hands != state.hands
        assert observe(other, viewer) == observe(state, viewer)
        first = expert_action(observe(state, viewer), random.Random(seed), BUDGET)
        second = expert_action(observe(other, viewer), random.Random(seed), BUDGET)
        assert first is not None
        assert first == second
        if isinstance(first, PlayCard):
            assert first.card in observe(state, viewer).options.cards


def test_it_is_reproducible() -> None:
    """The same observation, seed and budget give the same decision, every time."""
    state, viewer = _midgame(11)
    decisions = {expert_action(observe(state, viewer), random.Random(7), BUDGET) for _ in range(3)}
    assert len(decisions) == 1


def _reserve(cards: str) -> tuple[Declare, NameContract | None]:
    """Seat 1's declaration on this hand (it declares first), and its contract if it
    reserved while the others said healthy."""
    state = deal_state(fill({Seat(1): cards}), dealer=Seat.NORTH)
    declared = expert_action(observe(state, Seat(1)), random.Random(1), BUDGET)
    assert isinstance(declared, Declare)
    if declared.declaration is Declaration.HEALTHY:
        return declared, None
    state, _ = run(
        state,
        declared,
        *(Declare(s, Declaration.HEALTHY) for s in (Seat(2), Seat(3), Seat(0))),
    )
    named = expert_action(observe(state, Seat(1)), random.Random(1), BUDGET)
    assert isinstance(named, NameContract)
    return declared, named


def test_it_reserves_by_the_hand() -> None:
    """Six queens, both JC and three aces: a solo (R5); a hand of nines and kings: healthy."""
    declared, named = _reserve("QS QS QH QH QD QD JC JC AC AC AS AH")
    assert declared.declaration is Declaration.RESERVATION
    assert named is not None and named.contract in SOLOS
    declared, named = _reserve("9C 9C KC KS KS 9S 9S 9H 9H KH KH 9D")
    assert declared.declaration is Declaration.HEALTHY
    assert named is None


def test_it_plays_marriages_and_solos_to_the_end() -> None:
    """Four experts play a marriage (R4.6) and a clubs solo (R5.2) through the rules: every
    action they choose is accepted, and the deal is scored after 12 tricks."""
    for contracts in ({Seat(1): GameType.MARRIAGE}, {Seat(2): GameType.CLUBS_SOLO}):
        state, _ = start_play(deal_state(fill({Seat(1): "QC QC"})), contracts)
        assert state.game_type is next(iter(contracts.values()))
        assert len(experts_play_out(state, random.Random(5)).tricks) == 12


def experts_play_out(state: DealState, rng: random.Random) -> DealState:
    """Four experts (small budget) play the deal to its score through the rules."""
    while state.score is None:
        command = next_command(state, rng, functools.partial(expert_action, budget=SMALL))
        assert command is not None
        state, _ = run(state, command)
    return state


def test_the_pool_runs_the_same_decision() -> None:
    """`decide` (what a worker process runs) is `expert_action` seeded by the string."""
    state, viewer = _midgame(2)
    observation = observe(state, viewer)
    assert decide(observation, "t:7:1") == expert_action(observation, random.Random("t:7:1"))


def test_a_marriage_is_weighed_with_both_qc() -> None:
    """R4.2: only a hand with both QC may name a marriage, so only then is it weighed."""
    assert GameType.MARRIAGE in candidates(hand("QC QC 9C 9C KC KS KS 9S 9S 9H 9H KH"))
    assert GameType.MARRIAGE not in candidates(hand("QC QS 9C 9C KC KS KS 9S 9S 9H 9H KH"))


def test_an_inconsistent_observation_has_no_deal() -> None:
    """The other seats said to hold no card while cards are unseen: no deal fits."""
    state, viewer = _midgame(3)
    observation = observe(state, viewer)
    sizes = tuple(0 if s is not viewer else n for s, n in enumerate(observation.hand_sizes))
    with pytest.raises(ValueError, match="no deal"):
        sample(msgspec.structs.replace(observation, hand_sizes=sizes), random.Random(1))


@pytest.mark.parametrize("option", [SecondHeartTen.ALWAYS, SecondHeartTen.EXCEPT_LAST_TRICK])
def test_it_plays_a_v2_deal_to_the_end_and_sees_the_rule(option: SecondHeartTen) -> None:
    """At a table with V2.1 or V2.2 the expert's observation names the rule, its search
    decides tricks by it (`expert.core.observed_tables`), and four experts play the deal
    through the rules to its score."""
    rules = RuleSet(second_heart_ten=option)
    state, _ = start_play(deal_state(fill({Seat(0): "10H", Seat(2): "10H"}), rules=rules))
    observation = observe(state, Seat(0))
    assert observation.rules == rules
    tables = observed_tables(GameType.NORMAL, observation.rules)
    assert tables.second_ten is option and tables.later_ten
    assert tables.later_ten_last is (option is SecondHeartTen.ALWAYS)
    assert len(experts_play_out(state, random.Random(7)).tricks) == 12


def test_it_shows_schweinchen_and_plays_a_v3_deal_to_the_end() -> None:
    """V3.1: holding both AD at a table with Schweinchen, the expert shows them at its first
    turn in the play; the others' samples give both AD to it (they are in its hand), every
    search ranks them highest (V3.2), and four experts play the deal to its score, each
    trick holding an AD won by the holder."""
    east, west = Seat(1), Seat(3)
    rules = RuleSet(schweinchen=True)
    state, _ = start_play(deal_state(fill({east: "AD AD QC", west: "QC"}), rules=rules))
    assert state.turn is east
    before = observe(state, east)
    assert schweinchen_rank(before, GameType.NORMAL)
    assert not schweinchen_rank(observe(state, west), GameType.NORMAL)
    assert expert_action(before, random.Random(1), SMALL) == ShowSchweinchen(east)
    state, _ = run(state, ShowSchweinchen(east))
    seen = observe(state, west)
    assert seen.schweinchen == east and schweinchen_rank(seen, GameType.NORMAL)
    assert observed_tables(GameType.NORMAL, seen.rules, True).schweinchen
    for n in range(5):
        hands = sample(seen, random.Random(n))
        assert count(hands[east], AD) == 2
    ended = experts_play_out(state, random.Random(7))
    won = [w for t, w in zip(ended.tricks, ended.winners, strict=True) if Card.AD in t.cards]
    assert won == [east, east]


POOR = "KD 10D 9D KC KC 9C 9C KS 9S 9S KH 9H"
"""V4.1: three trumps and no ace: no solo to play."""
RICH = "10H 10H QC QS QS QH QH QD JC JS JH JD"
"""Twelve trumps: worth taking an Armut."""


def test_it_offers_takes_and_plays_an_armut_to_the_end() -> None:
    """V4: at a table with Armut the expert holding three trumps (and no solo worth
    playing) reserves and names poverty; asked, the expert with twelve trumps takes it and
    gives back three cards; the poor expert's samples leave the given trumps with the
    partner; four experts play the deal to its score, Re the poor player and its partner."""
    east, south = Seat(1), Seat(2)
    state = deal_state(fill({east: POOR, south: RICH}), rules=RuleSet(armut=True))
    assert expert_action(observe(state, east), random.Random(1), SMALL) == Declare(
        east, Declaration.RESERVATION
    )
    state, _ = run(state, Declare(east, Declaration.RESERVATION))
    state, _ = run(state, *(Declare(s, Declaration.HEALTHY) for s in (Seat(2), Seat(3), Seat(0))))
    assert expert_action(observe(state, east), random.Random(1), SMALL) == NameContract(
        east, GameType.POVERTY
    )
    state, _ = run(state, NameContract(east, GameType.POVERTY))
    answer = expert_action(observe(state, south), random.Random(1), SMALL)
    assert answer == AnswerPoverty(south, True)
    state, _ = run(state, answer)
    back = expert_action(observe(state, south), random.Random(1), SMALL)
    assert isinstance(back, ReturnPoverty) and len(back.cards) == 3
    state, _ = run(state, back)
    seen = observe(state, east)
    kept = [c for c in hand("KD 10D 9D") if c not in back.cards]
    for n in range(5):
        hands = sample(seen, random.Random(n))
        for c in kept:
            assert count(hands[south], CODE[c]) >= kept.count(c)
    ended = experts_play_out(state, random.Random(7))
    assert ended.score is not None and ended.score.score.re_seats == (east, south)


def _vorgefuehrt(east_hand: str) -> DealState:
    """V6.7: deal 5 of a session of 4 counted deals with duty solos, N dealing, nobody has
    played the duty solo: E (the dealer's left) is vorgeführt."""
    rules = RuleSet(session_deals=4, duty_solo=True)
    state = deal_state(fill({Seat(1): east_hand}), rules=rules)
    return msgspec.structs.replace(state, duty=Duty(SEATS, Seat(1)))


def test_vorgefuehrt_it_names_a_solo_and_plays_it_to_the_end() -> None:
    """V6.7: with a hand it would never reserve with, the expert vorgeführt says
    `reservation`, names a solo (the one its rollouts of every solo rate best) and four
    experts play the duty solo to its score, the soloist leading (V6.5)."""
    east = Seat(1)
    state = _vorgefuehrt("9C 9C KC KS KS 9S 9S 9H 9H KH KH 9D")
    declared = expert_action(observe(state, east), random.Random(2), SMALL)
    assert declared == Declare(east, Declaration.RESERVATION)
    state, _ = run(state, declared)
    for seat in (Seat(2), Seat(3), Seat(0)):
        state, _ = run(state, Declare(seat, Declaration.HEALTHY))
    named = expert_action(observe(state, east), random.Random(3), SMALL)
    assert isinstance(named, NameContract) and named.contract in SOLOS
    state, _ = run(state, named)
    assert state.duty_solo and state.declarer is east
    ended = experts_play_out(state, random.Random(4))
    assert ended.tricks[0].leader is east and ended.score is not None
    assert ended.score.score.duty_solo is True
