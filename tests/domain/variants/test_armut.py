"""V4 Armut: three trumps or fewer offered (V4.1), its precedence (V4.2), the answers in
turn (V4.3), the cards given back (V4.4), the game as a normal game (V4.5), what each
viewer sees (V4.6) and an offer nobody takes (V4.7).

Expectations come from the rule text (service/web/HOUSE_RULES.md) and hands written out by
hand; whole sessions with the option are checked by the property tests' invariants.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import table
from domain.cards import Card
from domain.commands import (
    AnswerPoverty,
    DealCommand,
    Declaration,
    Declare,
    NameContract,
    ReturnPoverty,
)
from domain.deal import DealState, Phase
from domain.errors import (
    ContractNotAllowed,
    DomainError,
    NotYourTurn,
    PhaseClosed,
    PovertyReturnInvalid,
    TurnExpired,
)
from domain.events import DealDealt, Dealing, GameTypeFixed, PovertyAnswered, PovertyReturned
from domain.game_types import GameType
from domain.observations import Observation, observe
from domain.parties import Party
from domain.players import Chooser, random_action, stand_in_action
from domain.render import render_deal
from domain.rule_set import RuleSet
from domain.seats import Seat
from domain.simulation import session_steps
from domain.table import CreateTable, TableState, TakeSeat, TimeOut, TurnTimedOut
from domain.table_view import redact
from domain.turn_clock import require_in_time
from domain.variants.armut import PovertyView
from tests.domain.builders import deal_state, hand, play_out, run
from tests.domain.test_properties import play_checked
from tests.domain.variants import random_sessions

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
T0 = datetime(2026, 1, 1, tzinfo=UTC)
V4 = RuleSet(armut=True)

# East (the dealer North's left) holds few trumps: the rest is plain cards.
THREE_TRUMPS = "AD 10D 9D AC AC 10C KC AS AS 10S KS AH"
"""Three trumps, a fox among them (V4.1: the fox counts)."""
FOUR_TRUMPS = "AD 10D 9D JD AC 10C KC AS AS 10S KS AH"
NO_TRUMPS = "AC AC 10C 10C KC KC AS AS 10S 10S KS KS"


def _reserve(state: DealState, contracts: dict[Seat, GameType]) -> DealState:
    """All four declare from the dealer's left (reservation for ``contracts``' seats),
    then those name theirs in turn."""
    declares = [
        Declare(s, Declaration.RESERVATION if s in contracts else Declaration.HEALTHY)
        for s in state.first.round()
    ]
    names = [NameContract(s, contracts[s]) for s in state.first.round() if s in contracts]
    return run(state, *declares, *names)[0]


def _offered(poor_hand: str = THREE_TRUMPS, rules: RuleSet = V4) -> DealState:
    return _reserve(deal_state({E: poor_hand}, rules=rules), {E: GameType.POVERTY})


def _rejects(state: DealState, command: object, error: type[DomainError], rule: str) -> None:
    with pytest.raises(error) as raised:
        run(state, command)  # type: ignore[arg-type]
    assert raised.value.rule == rule


@pytest.mark.parametrize(
    ("poor_hand", "rules", "allowed", "rule"),
    [
        (THREE_TRUMPS, V4, True, None),
        (NO_TRUMPS, V4, True, None),
        (FOUR_TRUMPS, V4, False, "V4.1"),
        (THREE_TRUMPS, RuleSet(), False, "V4.1"),
    ],
    ids=["3-trumps-fox-counts", "0-trumps", "4-trumps", "table-without-armut"],
)
def test_v4_1_three_trumps_or_fewer_may_offer(
    poor_hand: str, rules: RuleSet, allowed: bool, rule: str | None
) -> None:
    state = deal_state({E: poor_hand}, rules=rules)
    state = run(state, Declare(E, Declaration.RESERVATION))[0]
    state = run(state, *(Declare(s, Declaration.HEALTHY) for s in (S, W, N)))[0]
    assert (GameType.POVERTY in observe(state, E).options.contracts) is allowed
    if allowed:
        state, events = run(state, NameContract(E, GameType.POVERTY))
        assert events[-1] == GameTypeFixed(GameType.POVERTY, E)
        assert state.phase is Phase.POVERTY
    else:
        _rejects(state, NameContract(E, GameType.POVERTY), ContractNotAllowed, str(rule))


@pytest.mark.parametrize(
    ("contracts", "fixed"),
    [
        ({E: GameType.POVERTY, S: GameType.HEARTS_SOLO}, GameTypeFixed(GameType.HEARTS_SOLO, S)),
        ({E: GameType.POVERTY, S: GameType.MARRIAGE}, GameTypeFixed(GameType.POVERTY, E)),
    ],
    ids=["solo-beats-armut", "armut-beats-marriage"],
)
def test_v4_2_precedence(contracts: dict[Seat, GameType], fixed: GameTypeFixed) -> None:
    state = deal_state({E: THREE_TRUMPS, S: "QC QC"}, rules=V4)
    state = _reserve(state, contracts)
    assert (state.game_type, state.declarer) == (fixed.game_type, fixed.declarer)


def test_v4_2_the_earlier_armut_stands() -> None:
    state = deal_state({E: THREE_TRUMPS, S: "10C KC 10S KS AH KH KH 9H 9H 9C 9C 9S"}, rules=V4)
    state = _reserve(state, {E: GameType.POVERTY, S: GameType.POVERTY})
    assert state.poverty is not None and state.poverty.poor is E


def test_v4_3_asked_in_turn_from_the_poor_players_left() -> None:
    state = _offered()
    assert state.turn is S
    _rejects(state, AnswerPoverty(W, True), NotYourTurn, "V4.3")
    _rejects(state, AnswerPoverty(E, True), NotYourTurn, "V4.3")
    state, events = run(state, AnswerPoverty(S, False))
    assert events == (PovertyAnswered(S, False),)
    assert state.turn is W
    state = run(state, AnswerPoverty(W, True))[0]
    assert state.poverty is not None and state.poverty.partner is W
    _rejects(state, AnswerPoverty(N, True), PhaseClosed, "V4.3")  # N is not asked any more
    # W took E's three trumps: 15 cards, E 9
    assert [len(h) for h in state.hands] == [12, 9, 12, 15]
    assert state.hands[W].count(Card.AD) >= 1 and Card.AD not in state.hands[E]


@pytest.mark.parametrize(
    ("cards", "error"),
    [
        ("AC AC", PovertyReturnInvalid),  # two, not three
        ("AC AC AC AC", PovertyReturnInvalid),  # four
        ("QC QC QC", PovertyReturnInvalid),  # more QC than held (filled: S holds two QC)
    ],
    ids=["too-few", "too-many", "not-held"],
)
def test_v4_4_give_back_as_many_cards_as_taken(cards: str, error: type[DomainError]) -> None:
    state = run(_offered(), AnswerPoverty(S, True))[0]
    _rejects(state, ReturnPoverty(S, hand(cards)), error, "V4.4")


def test_v4_4_the_partner_gives_back_and_every_hand_holds_12() -> None:
    state = run(_offered(), AnswerPoverty(S, True))[0]
    _rejects(state, ReturnPoverty(W, ()), NotYourTurn, "V4.4")
    back = (Card.AD, state.hands[S][0], state.hands[S][1])  # the fox it took goes back too
    state, events = run(state, ReturnPoverty(S, back))
    assert events == (PovertyReturned(S, E, back, 3, 1 + sum(c in _TRUMPY for c in back[1:])),)
    assert [len(h) for h in state.hands] == [12, 12, 12, 12]
    assert state.phase is Phase.PLAY and state.turn is E  # V4.5: the dealer's left leads
    assert state.parties == (Party.KONTRA, Party.RE, Party.RE, Party.KONTRA)


_TRUMPY = frozenset(
    map(
        Card.parse, ("10H", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AD", "10D", "KD", "9D")
    )
)
"""R3.1, by hand: the normal game's trumps."""


def test_v4_5_scored_as_a_normal_game_with_its_extras() -> None:
    state = run(_offered(), AnswerPoverty(S, True))[0]
    state = run(state, ReturnPoverty(S, state.hands[S][:3]))[0]
    state = play_out(state)[0]
    assert state.score is not None
    score = state.score.score
    assert score.game_type is GameType.POVERTY and not score.solo
    assert score.re_seats == (E, S)
    assert sum(score.card_points.values()) == 240
    assert sum(score.entries) == 0
    assert any(line.rule == "R9.1" for line in score.lines) is (score.winner is Party.KONTRA)


def _view(state: DealState, viewer: Seat | None) -> PovertyView:
    seen: Observation = observe(state, viewer)
    assert isinstance(seen.poverty, PovertyView)
    return seen.poverty


def test_v4_6_only_the_two_see_the_cards() -> None:
    state = run(_offered(), AnswerPoverty(S, True))[0]
    given = hand("AD 10D 9D")
    assert _view(state, E).given_cards == given
    assert _view(state, S).given_cards == given
    for viewer in (N, W, None):
        assert _view(state, viewer) == PovertyView(poor=E, given=3, partner=S)
    back = state.hands[S][:3]
    state, events = run(state, ReturnPoverty(S, back))
    trumps = sum(c in _TRUMPY for c in back)
    for viewer in (N, W, None):
        assert _view(state, viewer) == PovertyView(
            poor=E, given=3, partner=S, returned=3, returned_trumps=trumps
        )
        assert redact(events[0], viewer) == PovertyReturned(S, E, None, 3, trumps)
    for viewer in (E, S):
        assert _view(state, viewer).returned_cards == back
        assert redact(events[0], viewer) == events[0]


def test_v4_7_nobody_accepts_the_deal_goes_on_without_it() -> None:
    state = _offered()
    state = run(state, AnswerPoverty(S, False), AnswerPoverty(W, False))[0]
    state, events = run(state, AnswerPoverty(N, False))
    assert events[-1] == GameTypeFixed(GameType.NORMAL, None)
    assert state.phase is Phase.PLAY and state.game_type is GameType.NORMAL
    assert [len(h) for h in state.hands] == [12, 12, 12, 12]
    assert state.hands[E] == hand(THREE_TRUMPS)  # the poor player keeps its cards
    assert state.poverty is not None and state.poverty.refused == (S, W, N)


def test_v4_7_a_marriage_behind_a_lapsed_armut_stands() -> None:
    state = deal_state({E: THREE_TRUMPS, S: "QC QC"}, rules=V4)
    state = _reserve(state, {E: GameType.POVERTY, S: GameType.MARRIAGE})
    state = run(state, *(AnswerPoverty(s, False) for s in (S, W, N)))[0]
    assert (state.game_type, state.declarer) == (GameType.MARRIAGE, S)


def armut_first(observation: Observation, chooser: Chooser) -> DealCommand | None:
    """The random player, but offering Armut whenever it may (V4.1) and else healthy, so
    that no solo takes precedence over it (V4.2)."""
    seat = observation.viewer
    assert seat is not None
    if observation.options.declarations:
        poor = _poor(observation.hand)
        return Declare(seat, Declaration.RESERVATION if poor else Declaration.HEALTHY)
    if GameType.POVERTY in observation.options.contracts:
        return NameContract(seat, GameType.POVERTY)
    return random_action(observation, chooser)


def _poor(cards: tuple[Card, ...]) -> bool:
    return sum(c in _TRUMPY for c in cards) <= 3


@random_sessions(12)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_v4_random_sessions_with_armut_keep_every_invariant(seed: int) -> None:
    """240 Augen, zero-sum entries, replay and the hidden cards (V4.6) in every step: the
    property tests' invariants, with Armut offered whenever a hand may."""
    play_checked(seed, V4, players=armut_first)


def test_v4_armut_is_offered_and_played_in_random_sessions() -> None:
    """The random sessions above do play Armut: offered, accepted and refused."""
    seen: set[object] = set()
    steps = (s for seed in range(4) for s in session_steps(random.Random(seed), armut_first, V4))
    for step in steps:
        for event in step.events:
            if isinstance(event, PovertyAnswered):
                seen.add(event.accepted)
            if isinstance(event, PovertyReturned):
                seen.add("returned")
                assert step.after.deal is not None
                assert [len(h) for h in step.after.deal.hands] == [12] * 4
    assert seen == {True, False, "returned"}


def test_x4_2_one_refuses_the_next_takes_the_last_is_not_asked() -> None:
    """X4.2: D (North) deals; A (East) names poverty. B (South) refuses, C (West) accepts and
    takes AD 10D 9D (C holds 15 cards, A 9); D is not asked. C gives back 9D and two plain
    cards: every hand holds 12 again, A and C are Re. B and D see that C took three cards
    and gave back three, one of them a trump, not which."""
    a, b, c, d = E, S, W, N
    state = run(_offered(), AnswerPoverty(b, False), AnswerPoverty(c, True))[0]
    assert [len(state.hands[s]) for s in (a, c)] == [9, 15]
    _rejects(state, AnswerPoverty(d, False), PhaseClosed, "V4.3")
    plain = [x for x in state.hands[c] if x not in _TRUMPY][:2]
    back = (Card.NINED, *plain)
    state, events = run(state, ReturnPoverty(c, back))
    assert [len(h) for h in state.hands] == [12, 12, 12, 12]
    assert {s for s in (N, E, S, W) if state.parties[s] is Party.RE} == {a, c}
    for viewer in (b, d):
        assert _view(state, viewer) == PovertyView(
            poor=a, given=3, refused=(b,), partner=c, returned=3, returned_trumps=1
        )
        assert redact(events[0], viewer) == PovertyReturned(c, a, None, 3, 1)


def test_t3_2_the_stand_in_answers_and_gives_back_as_the_greedy_player() -> None:
    """T3.2 with V4.3, V4.4: a timed-out seat asked refuses with few trumps, takes an Armut
    with many; the partner's stand-in gives back its plain cards, the cheapest first. To the
    others a stand-in's giving back is as secret as the event (V4.6)."""
    state = _offered()
    assert stand_in_action(observe(state, S)) == AnswerPoverty(S, False)  # S holds few trumps
    rich = deal_state({E: THREE_TRUMPS, S: "10H 10H QC QS QS QH QH QD JC JS JH JD"}, rules=V4)
    rich = _reserve(rich, {E: GameType.POVERTY})
    assert stand_in_action(observe(rich, S)) == AnswerPoverty(S, True)
    rich = run(rich, AnswerPoverty(S, True))[0]
    back = stand_in_action(observe(rich, S))
    assert isinstance(back, ReturnPoverty)
    assert back.cards == (Card.NINED, Card.JD, Card.JH)  # only trumps: the fewest points
    timed = TurnTimedOut(S, 1, back, T0, T0)
    assert redact(timed, N).action is None and redact(timed, S) == timed


def test_the_deal_rendered_names_the_exchange() -> None:
    """The rendered deal (golden files, `doko deal`) tells the offer, the answers and the
    cards given back with their rule ids."""
    state = first = deal_state({E: THREE_TRUMPS}, rules=V4)
    declares = [
        Declare(s, Declaration.RESERVATION if s is E else Declaration.HEALTHY)
        for s in state.first.round()
    ]
    state, events = run(state, *declares, NameContract(E, GameType.POVERTY))
    state, more = run(state, AnswerPoverty(S, True))
    back = state.hands[S][:3]
    state, last = run(state, ReturnPoverty(S, back))
    dealt = DealDealt(1, N, first.dealt, Dealing("preset"))
    text = render_deal([dealt, *events, *more, *last])
    assert "Armut offered, the trumps: AD 10D 9D (V4.3)" in text
    assert "Armut: seat 2 takes the trumps (V4.3)" in text
    trumps = sum(x in _TRUMPY for x in back)
    assert f"Armut: seat 2 gives back 3 cards, {trumps} trumps: " in text
    assert "(V4.4); re seat 1 and seat 2 (V4.5)" in text


def _clocked_armut() -> TableState:
    """A table with Armut and a 30-second clock, deal 1 preset: East (to declare first)
    names poverty with three trumps; South is asked."""
    hands = deal_state({E: THREE_TRUMPS}).dealt
    create = CreateTable(
        "t", N, presets=(hands,) * 12, first_dealer_fixed=True, turn_seconds=30, rules=V4
    )
    state = table.fold(table.decide(TableState(), create))
    for s in Seat:
        state = table.fold(table.decide(state, TakeSeat(f"p{s}", f"h{s}", s)), state)
    for command in (
        Declare(E, Declaration.RESERVATION),
        *(Declare(s, Declaration.HEALTHY) for s in (S, W, N)),
        NameContract(E, GameType.POVERTY),
    ):
        state = table.fold(table.decide(state, command), state)
    return state


@pytest.mark.parametrize(
    ("command", "refused"),
    [
        (AnswerPoverty(S, True), True),
        (AnswerPoverty(W, True), False),  # not its turn: the deal refuses it, not the clock
    ],
    ids=["T3.2-answer-after-the-deadline", "T3.2-another-seat"],
)
def test_t3_2_answering_an_armut_is_a_turn_action(command: AnswerPoverty, refused: bool) -> None:
    state = _clocked_armut()
    assert state.turn is S
    late = T0 + timedelta(seconds=30)
    if refused:
        with pytest.raises(TurnExpired) as caught:
            require_in_time(state, command, T0, late)
        assert caught.value.rule == "T3.2"
    else:
        require_in_time(state, command, T0, late)


def test_t3_2_the_clock_answers_for_the_seat_asked() -> None:
    """The stand-in answers for South when its time ran out (T3.2): the timeout names the
    answer, public to everyone, and the next seat is asked."""
    state = _clocked_armut()
    events = table.decide(state, TimeOut(S, T0, T0))
    timed = events[0]
    assert isinstance(timed, TurnTimedOut) and timed.action == AnswerPoverty(S, False)
    assert PovertyAnswered(S, False) in events
    assert table.fold(events, state).turn is W
