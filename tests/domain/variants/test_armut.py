"""V4 Armut: three trumps or fewer offered (V4.1), its precedence (V4.2), the answers in
turn (V4.3), the cards given back (V4.4), the game as a normal game (V4.5), what each
viewer sees (V4.6) and an offer nobody takes: play on (V4.7) or deal again (V4.8).

Expectations come from the rule text (service/web/HOUSE_RULES.md) and hands written out by
hand; whole sessions with the option are checked by the property tests' invariants.
"""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import table
from domain.cards import Card
from domain.commands import (
    AnswerPoverty,
    DealCommand,
    DealPreset,
    DealSeeded,
    Declaration,
    Declare,
    NameContract,
    ReturnPoverty,
)
from domain.deal import DealState, Phase
from domain.dealing import deal_from_seed, verify_deal
from domain.errors import (
    ContractNotAllowed,
    DomainError,
    InvalidTableOption,
    NotYourTurn,
    PhaseClosed,
    PovertyReturnInvalid,
    TurnExpired,
)
from domain.events import (
    DealDealt,
    Dealing,
    Event,
    GameTypeFixed,
    PovertyAnswered,
    PovertyReturned,
)
from domain.game_types import GameType
from domain.observations import Observation, observe
from domain.parties import Party
from domain.players import Chooser, random_action, stand_in_action
from domain.render import render_deal
from domain.rule_set import RuleSet
from domain.seats import Seat
from domain.session import SessionState
from domain.simulation import session_steps
from domain.table import CreateTable, TableState, TakeSeat, TimeOut, TurnTimedOut
from domain.table_view import redact
from domain.turn_clock import require_in_time
from domain.variants.armut import ArmutRefused, PovertyView
from tests.domain.builders import deal_state, fill, hand, play_out, run
from tests.domain.test_properties import play_checked
from tests.domain.variants import random_sessions

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
T0 = datetime(2026, 1, 1, tzinfo=UTC)
V4 = RuleSet(armut=True)
V4_8 = RuleSet(armut=True, armut_refused=ArmutRefused.REDEAL)

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


@pytest.mark.parametrize(
    ("rules", "answers", "void", "partner"),
    [
        (V4_8, (False, False, False), True, None),
        (V4_8, (False, False, True), False, N),
        (V4_8, (True,), False, S),
        (V4, (False, False, False), False, None),
    ],
    ids=["V4.8-all-refuse-redeal", "V4.8-the-last-accepts", "V4.8-the-first-accepts", "V4.7"],
)
def test_v4_8_only_three_refusals_under_the_option_void_the_deal(
    rules: RuleSet, answers: tuple[bool, ...], void: bool, partner: Seat | None
) -> None:
    state = _offered(rules=rules)
    state = run(state, *(AnswerPoverty(s, a) for s, a in zip((S, W, N), answers, strict=False)))[0]
    assert state.void is void
    assert state.poverty is not None and state.poverty.partner is partner
    assert (state.turn is None) is void  # the void deal waits for nobody but its redeal
    assert (state.phase is Phase.PLAY) is (not void and partner is None)  # V4.7 plays on


def _session_at(deal_no: int, rules: RuleSet = V4_8) -> SessionState:
    """A session where ``deal_no - 1`` deals are scored (each 0 to all) and North dealt
    first, so that North deals deal 1, 5, 9 ...; two Bock deals still to come and everyone
    owing the duty solo (as a session's state holds them)."""
    return SessionState(
        first_dealer=N,
        rules=rules,
        sheet=((0, 0, 0, 0),) * (deal_no - 1),
        counted=deal_no - 1,
        bock_pending=2,
        owed=(N, E, S, W),
    )


def _refused_by_all(
    state: SessionState, dealt: DealCommand, answers: tuple[bool, ...] = (False,) * 3
) -> tuple[SessionState, DealDealt, tuple[Event, ...]]:
    """Deal ``dealt`` (North deals); East names poverty, South, West and North answer: the
    state, the deal dealt and every event."""
    declares = [
        Declare(s, Declaration.RESERVATION if s is E else Declaration.HEALTHY) for s in (E, S, W, N)
    ]
    answered = (AnswerPoverty(s, a) for s, a in zip((S, W, N), answers, strict=False))
    state, events = run(state, dealt, *declares, NameContract(E, GameType.POVERTY), *answered)
    assert isinstance(events[0], DealDealt)
    return state, events[0], events


POOR_EAST = deal_state({E: THREE_TRUMPS}).dealt
POOR_EAST_AGAIN = deal_state({E: NO_TRUMPS}).dealt


def test_x4_4_all_refuse_the_same_dealer_deals_the_deal_again() -> None:
    """X4.4 (V4.8) armut_refused is redeal; D deals deal 5. A names poverty and B, C and D
    refuse: deal 5 is void and not scored, the sheet holds 4 deals. D deals deal 5 again
    (redeal 1, from the same committed seed). If all refuse again, D deals it a third time
    (redeal 2). Had D accepted, the Armut would be played (V4.5) and nobody dealt again."""
    d = N
    state, first, void = _refused_by_all(_session_at(5), DealPreset(POOR_EAST))
    assert (first.deal_no, first.dealer, first.dealing) == (5, d, Dealing("preset"))
    assert state.deal is not None and state.deal.void and state.deal.score is None
    assert len(state.sheet) == 4
    state, again, redealt = _refused_by_all(state, DealPreset(POOR_EAST_AGAIN))
    assert (again.deal_no, again.dealer, again.dealing) == (5, d, Dealing("preset", redeal=1))
    state, third, _ = _refused_by_all(state, DealPreset(POOR_EAST), (False, False, True))
    assert (third.deal_no, third.dealer, third.dealing) == (5, d, Dealing("preset", redeal=2))
    assert state.deal is not None and not state.deal.void and state.deal.poverty is not None
    assert state.deal.poverty.partner is d  # D accepted: the Armut is played
    # V5, V6: nothing of the void deals is scored or counted
    assert (len(state.sheet), state.counted, state.bock_pending) == (4, 4, 2)
    assert state.owed == (N, E, S, W) and state.deal.bock
    text = render_deal(void)  # the rendered void dealing, and its redeal
    assert text.endswith("(void: all refused the Armut; the same dealer deals it again, V4.8)\n")
    assert "  dealt again: redeal 1 (V4.8)" in render_deal(redealt)
    with pytest.raises(PhaseClosed) as refused:  # no redeal once someone accepted
        run(state, DealPreset(POOR_EAST))
    assert refused.value.rule == "R2.2"


def _poor_east_seed(deal_no: int, redeal: int) -> bytes:
    """A server seed whose deal ``deal_no`` (North dealing, no entropy) gives East three
    trumps or fewer, and whose redeal ``redeal`` as well: searched, not written by hand."""
    for i in range(100_000):
        seed = i.to_bytes(32, "big")
        again = _rule_text_seed(seed, deal_no, redeal)
        if all(_poor(deal_from_seed(s, N)[E]) for s in (seed, again)):
            return seed
    raise AssertionError("no seed found")


def _rule_text_seed(seed: bytes, deal_no: int, redeal: int) -> bytes:
    """V4.8 as its text says: SHA-256(server seed || entropy (none) || k || r)."""
    return hashlib.sha256(seed + deal_no.to_bytes(4, "big") + redeal.to_bytes(4, "big")).digest()


def test_v4_8_the_redeal_comes_from_the_committed_seed_and_verifies() -> None:
    seed = _poor_east_seed(5, 1)
    state, first, _ = _refused_by_all(_session_at(5), DealSeeded(seed))
    assert first.hands == deal_from_seed(seed, N)
    state, again, _ = _refused_by_all(state, DealSeeded(seed))
    assert again.hands == deal_from_seed(_rule_text_seed(seed, 5, 1), N)
    assert again.dealing.redeal == 1 and again.dealing.seed == first.dealing.seed
    for dealt in (first, again):
        assert verify_deal(dealt.dealing, dealt.dealer, dealt.hands, 5)
    assert not verify_deal(first.dealing, N, again.hands, 5)  # each dealing its own hands


@pytest.mark.parametrize(
    ("rules", "presets"),
    [
        (RuleSet(armut_refused=ArmutRefused.REDEAL), ()),
        (V4_8, (fill({}),) * 12),
    ],
    ids=["without-armut", "preset-hands"],
)
def test_v4_8_the_redeal_needs_armut_and_seeds(
    rules: RuleSet, presets: tuple[tuple[tuple[Card, ...], ...], ...]
) -> None:
    seeds = () if presets else (b"s" * 32,) * 12
    create = CreateTable("t", N, server_seeds=seeds, presets=presets, rules=rules)
    with pytest.raises(InvalidTableOption) as refused:
        table.decide(TableState(), create)
    assert refused.value.rule == "V4.8"


def test_v4_8_the_table_deals_again_by_itself() -> None:
    """At a table the third refusal is followed by the redeal in the same step (bots and
    clocks never wait for a deal nobody deals)."""
    seed = _poor_east_seed(1, 1)
    create = CreateTable(
        "t", N, server_seeds=(seed,) * 12, first_dealer_fixed=True, shared_seeds=True, rules=V4_8
    )
    state = table.fold(table.decide(TableState(), create))
    for s in Seat:
        state = table.fold(table.decide(state, TakeSeat(f"p{s}", f"h{s}", s)), state)
    events: tuple[object, ...] = ()
    for command in (
        Declare(E, Declaration.RESERVATION),
        *(Declare(s, Declaration.HEALTHY) for s in (S, W, N)),
        NameContract(E, GameType.POVERTY),
        *(AnswerPoverty(s, False) for s in (S, W, N)),
    ):
        events = table.decide(state, command)
        state = table.fold(events, state)
    assert isinstance(events[-1], DealDealt) and events[-1].dealing.redeal == 1
    assert events[-1].hands == deal_from_seed(_rule_text_seed(seed, 1, 1), N)
    assert state.turn is E and len(state.session.sheet) == 0


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


@random_sessions(3)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_v4_8_random_short_sessions_with_the_redeal_keep_every_invariant(seed: int) -> None:
    """The same invariants with V4.8 in sessions of four counted deals (V6.1): a void deal
    is dealt again from its seed, and the session still ends."""
    play_checked(seed, msgspec.structs.replace(V4_8, session_deals=4), players=armut_first)


def test_v4_8_random_sessions_do_deal_again() -> None:
    """Random sessions with V4.8 do see all three refuse and the deal dealt again (twice in
    a row: X4.4); each redeal verifies from its seed."""
    rules = msgspec.structs.replace(V4_8, session_deals=4)
    redeals: set[int] = set()
    for seed in range(6):
        for step in session_steps(random.Random(seed), armut_first, rules):
            for event in step.events:
                if isinstance(event, DealDealt) and event.dealing.redeal:
                    redeals.add(event.dealing.redeals)
                    assert verify_deal(event.dealing, event.dealer, event.hands, event.deal_no)
    assert 1 in redeals


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
