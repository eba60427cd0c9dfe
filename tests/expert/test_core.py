"""The search's lean core agrees with `domain/`: from thousands of random states.

Random deals are played through the domain (`domain.simulation`, random players: every
game type, marriages, announcements). At every card the core's legal cards (R3.3) equal
the domain's; at every complete trick its winner (R3.4) does; at every score its winner,
game value and entries (R7-R10) do. Each observation's sampled deal of the hidden cards
(`expert.inference`) fits what the viewer knows: the right number of cards per seat,
exactly the unseen cards, no card of a category the seat failed to follow.
Bounded by the example count, not by time.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import DECK
from domain.commands import DealSeeded, StartSession
from domain.deal import DealState, facts
from domain.events import DealScored, TrickWon
from domain.game_types import order_of
from domain.observations import observe
from domain.parties import Party
from domain.rule_set import RuleSet
from domain.scoring import score
from domain.seats import SEATS, Seat
from domain.session import SessionState
from domain.simulation import apply, next_command
from domain.tricks import legal_cards
from domain.variants.second_heart_ten import SecondHeartTen
from expert import core
from expert.inference import sample, unseen, voids
from expert.search import levels

DEALS = 60
"""About 50 states a deal: some 3,000 states."""


def core_facts(deal: DealState) -> core.Facts:
    """The finished deal in the core's words."""
    assert deal.game_type is not None
    return core.Facts(
        deal.game_type,
        tuple((int(t.leader), tuple(core.CODE[c] for c in t.cards)) for t in deal.tricks),
        frozenset(int(s) for s in SEATS if deal.parties[s] is Party.RE),
        deal.solo,
        deal.re.level,
        deal.kontra.level,
        deal.rules.second_heart_ten,
        deal.schweinchen is not None,
    )


def check_sample(deal: DealState, seat: Seat, rng: random.Random) -> None:
    """The sampled hands fit the seat's observation."""
    observation = observe(deal, seat)
    hands = sample(observation, rng)
    assert hands[seat] == core.mask_of(list(deal.hands[seat]))
    assert [h.bit_count() for h in hands] == [len(h) for h in deal.hands]
    hidden = sorted(
        c
        for s in SEATS
        if s is not seat
        for c in core.codes_of(hands[s])
        for _ in range(core.count(hands[s], c))
    )
    assert hidden == sorted(unseen(observation))
    tables = core.tables_of(
        observation.game_type or deal.game_type,
        deal.rules.second_heart_ten,
        deal.schweinchen is not None,
    )
    shown = voids(observation, tables)
    for s in SEATS:
        if s is not seat:
            assert not hands[s] & shown[s]
            assert not core.mask_of(list(deal.hands[s])) & shown[s]  # the truth fits too


@settings(max_examples=DEALS, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_core_agrees_with_the_domain(seed: int) -> None:
    check_core(seed, RuleSet())


@settings(max_examples=DEALS // 2, deadline=None, derandomize=True)
@given(
    st.integers(min_value=0, max_value=2**32),
    st.sampled_from([SecondHeartTen.ALWAYS, SecondHeartTen.EXCEPT_LAST_TRICK]),
)
def test_core_agrees_with_the_domain_under_v2(seed: int, option: SecondHeartTen) -> None:
    """V2.1, V2.2: the core decides a trick holding both 10H, and scores, as the domain."""
    check_core(seed, RuleSet(second_heart_ten=option))


@settings(max_examples=DEALS // 2, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from(list(SecondHeartTen)))
def test_core_agrees_with_the_domain_under_v3(seed: int, option: SecondHeartTen) -> None:
    """V3.2 (with any V2 option): once Schweinchen are shown the core ranks the AD highest,
    decides tricks and scores as the domain; a sample deals the shown AD to their holder."""
    check_core(seed, RuleSet(second_heart_ten=option, schweinchen=True))


def check_core(seed: int, rules: RuleSet) -> None:
    """One random deal played by ``rules``: the core agrees with the domain at every card,
    trick and score."""
    rng = random.Random(seed)
    state = apply(SessionState(), StartSession(Seat(seed % 4), rules)).after
    state = apply(state, DealSeeded(rng.randbytes(32))).after
    deal = state.deal
    assert deal is not None
    while deal.score is None:
        turn = deal.turn
        if deal.trick is not None and deal.game_type is not None and turn is not None:
            tables = core.tables_of(
                deal.game_type, rules.second_heart_ten, deal.schweinchen is not None
            )
            hand = core.mask_of(list(deal.hands[turn]))
            led = core.CODE[deal.trick.cards[0]] if deal.trick.cards else None
            expected = {
                core.CODE[c]
                for c in legal_cards(deal.hands[turn], deal.trick, order_of(deal.game_type))
            }
            assert set(core.codes_of(core.legal(hand, led, tables))) == expected
            if rng.random() < 0.2:
                check_sample(deal, turn, rng)
        step = apply(state, next_command(deal, rng))
        for event in step.events:
            if isinstance(event, TrickWon):
                trick = step.after.deal.tricks[-1]  # type: ignore[union-attr]
                codes = [core.CODE[c] for c in trick.cards]
                tables = core.tables_of(
                    deal.game_type,  # type: ignore[arg-type]
                    rules.second_heart_ten,
                    step.after.deal.schweinchen is not None,  # type: ignore[union-attr]
                )
                index = core.winning_index(codes, tables, event.trick_no == rules.tricks)
                assert trick.leader.after(index) is event.winner
            if isinstance(event, DealScored):
                ended = step.after.deal
                assert ended is not None
                mine = core_facts(ended)
                winner, value = core.outcome(mine)
                expected_score = score(facts(ended))
                assert value == expected_score.value == event.score.value
                assert winner == {Party.RE: 1, Party.KONTRA: -1, None: None}[expected_score.winner]
                assert [core.entry(mine, s, value) for s in range(4)] == list(
                    expected_score.entries
                )
                assert levels(observe(ended, Seat(0))) == (ended.re.level, ended.kontra.level)
        state = step.after
        deal = state.deal
        assert deal is not None
    assert len(DECK) == 48
