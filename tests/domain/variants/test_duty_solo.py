"""V6 the session length (V6.1) and the duty solo (V6.2-V6.8).

Expectations come from the rule text (service/web/HOUSE_RULES.md, `domain.variants.duty_solo`)
and hand-made tables: scripted sessions of preset deals say who names which solo in which
deal, and the dealer, the leader, the seat vorgeführt and the sheet are written out by hand.
Random sessions are checked against an oracle kept here from the rule text alone (a seat's
first winning declared solo while it owes is its duty solo) and by the property tests'
invariants.
"""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec import UNSET

from domain.commands import DealPreset, Declaration, Declare, NameContract, StartSession
from domain.errors import DutySoloForced, InvalidTableOption, SessionOver
from domain.events import DealDealt, DealScored, Event, GameTypeFixed, SessionFinished
from domain.game_types import SOLOS, GameType
from domain.observations import observe
from domain.players import FirstChoice, greedy_action, random_action, stand_in_action
from domain.rule_set import RuleSet
from domain.seats import SEATS, Seat
from domain.session import SessionState
from domain.simulation import play_session
from domain.table import CreateTable, TableCreated, TableState
from domain.table import decide as table_decide
from domain.variants.duty_solo import check_session_deals, counted_left
from tests.domain.builders import events_of, fill, play_out, rejects, run, start_play
from tests.domain.test_properties import play_checked
from tests.domain.variants import random_sessions

N, E, S, W = SEATS
JACKS = GameType.JACK_SOLO
V6 = RuleSet(session_deals=4, duty_solo=True)


@pytest.mark.parametrize("deals", [4, 8, 12, 20, 24, 48])
def test_v6_1_session_lengths_allowed(deals: int) -> None:
    check_session_deals(deals)


@pytest.mark.parametrize("deals", [-4, 0, 1, 2, 3, 5, 10, 13, 22, 52, 96])
def test_v6_1_other_session_lengths_refused(deals: int) -> None:
    with pytest.raises(InvalidTableOption) as caught:
        check_session_deals(deals)
    assert caught.value.rule == "V6.1"


SEEDS = tuple(bytes([i]) * 32 for i in range(60))


@pytest.mark.parametrize(
    ("rules", "seeds", "rule"),
    [
        pytest.param(RuleSet(session_deals=10), 10, "V6.1", id="10-deals"),
        pytest.param(RuleSet(session_deals=52), 52, "V6.1", id="52-deals"),
        pytest.param(RuleSet(duty_solo=True), 12, "V6.1", id="duty-solo-needs-16-seeds"),
        pytest.param(RuleSet(session_deals=20), 12, "V6.1", id="20-deals-12-seeds"),
        pytest.param(RuleSet(), 11, "R1.1", id="12-deals-11-seeds"),
    ],
)
def test_v6_1_a_table_is_refused(rules: RuleSet, seeds: int, rule: str) -> None:
    """A table whose session length is not allowed, or whose seeds do not cover every deal
    of its session (V6.6: N + 4 with duty solos), is refused with the rule's id."""
    command = CreateTable("t", N, server_seeds=SEEDS[:seeds], rules=rules)
    with pytest.raises(InvalidTableOption) as caught:
        table_decide(TableState(), command)
    assert caught.value.rule == rule


@pytest.mark.parametrize(
    ("rules", "seeds"),
    [(RuleSet(session_deals=20), 20), (RuleSet(duty_solo=True), 16), (V6, 8)],
)
def test_v6_1_a_table_takes_a_seed_for_every_deal(rules: RuleSet, seeds: int) -> None:
    (created,) = table_decide(TableState(), CreateTable("t", N, SEEDS[:seeds], rules=rules))
    assert isinstance(created, TableCreated) and len(created.commitments) == seeds


def test_v6_rule_ids_of_the_options() -> None:
    assert RuleSet(session_deals=12).variants == ()
    assert RuleSet(session_deals=20).variants == ("V6.1",)
    assert RuleSet(duty_solo=True).variants == ("V6.2",)
    assert V6.variants == ("V6.1", "V6.2") and V6.all_deals == 8


# --- scripted sessions ------------------------------------------------------------------


def started(rules: RuleSet = V6, first_dealer: Seat = N) -> SessionState:
    state, _ = run(SessionState(), StartSession(first_dealer, rules))
    return state


def deal(state: SessionState, solos: dict[Seat, GameType]) -> tuple[SessionState, list[Event]]:
    """Deal preset hands (nobody holds both QC) and play the deal out: each seat in
    ``solos`` says `reservation` and names its solo, the others `healthy`."""
    state, dealt = run(state, DealPreset(fill()))
    state, fixed = start_play(state, solos)
    state, played = play_out(state)
    return state, [*dealt, *fixed, *played]


def one(events: list[Event], kind: type) -> object:
    (found,) = events_of(events, kind)
    return found


# Each row: the solos named in deals 1, 2, ... of a session of 4 counted deals with duty
# solos, first dealer N; then by deal the dealer, the seat vorgeführt, whether the deal was
# a duty solo, and who leads its first trick. Written from V6.3-V6.7 by hand.
SCRIPTS = [
    pytest.param(
        [{}, {}, {}, {}, {E: JACKS}, {S: JACKS}, {W: JACKS}, {N: JACKS}],
        "NESWNNNN",
        "----ESWN",
        "----DDDD",
        "ESWNESWN",
        id="X6.1-no-solo-all-four-vorgefuehrt-in-seat-order-from-the-dealers-left",
    ),
    pytest.param(
        [{E: JACKS}, {S: JACKS}, {W: JACKS}, {N: JACKS}, {}, {}, {}, {}],
        "NNNNNESW",
        "--------",
        "DDDD----",
        "ESWNESWN",
        id="four-duty-solos-first-the-dealer-deals-again",
    ),
    pytest.param(
        [{}, {W: JACKS}, {}, {W: GameType.QUEEN_SOLO}, {}, {E: JACKS}, {S: JACKS}, {N: JACKS}],
        "NEESWNNN",
        "-----ESN",
        "-D---DDD",
        "EWSWNESN",
        id="a-second-solo-is-voluntary-and-counted-then-two-vorgefuehrt",
    ),
    pytest.param(
        [{S: JACKS, W: JACKS}, {W: JACKS}, {}, {}, {}, {}, {E: JACKS}, {N: JACKS}],
        "NNNESWNN",
        "------EN",
        "DD----DD",
        "SWESWNEN",
        id="X6.2-of-two-duty-solos-the-earlier-seat-wins",
    ),
]


@pytest.mark.parametrize(("script", "dealers", "forced", "duty", "leaders"), SCRIPTS)
def test_v6_scripted_sessions(
    script: list[dict[Seat, GameType]], dealers: str, forced: str, duty: str, leaders: str
) -> None:
    names = "NESW"
    state = started()
    for number, solos in enumerate(script, 1):
        assert not state.finished
        assert counted_left(number, 4, state.owed) == 4 - state.counted  # V6.6, V6.7
        state, events = deal(state, solos)
        dealt = one(events, DealDealt)
        fixed = one(events, GameTypeFixed)
        assert isinstance(dealt, DealDealt) and isinstance(fixed, GameTypeFixed)
        at = number - 1
        assert names[dealt.dealer] == dealers[at], number  # R1.2, V6.6
        assert (names[dealt.forced] if dealt.forced is not UNSET else "-") == forced[at]  # V6.7
        assert fixed.duty_solo is (True if duty[at] == "D" else UNSET), number  # V6.3, V6.4
        assert state.deal is not None
        assert names[state.deal.tricks[0].leader] == leaders[at], number  # R3.5, V6.5
        score = one(events, DealScored)
        assert isinstance(score, DealScored)
        assert score.score.duty_solo is fixed.duty_solo  # V6.8
    assert state.finished and len(state.sheet) == 8  # V6.6, V6.8: N + 4
    assert state.owed == () and state.counted == 4
    assert [g.duty_solo for g in state.games] == [d == "D" for d in duty]
    assert sum(state.totals) == 0
    rejects(state, DealPreset(fill()), SessionOver, "R1.1")


@pytest.mark.parametrize(
    ("deal_no", "deals", "owed", "left"),
    [
        (1, 12, SEATS, 12),  # the first deal: all to come
        (4, 4, SEATS, 1),  # nobody's duty solo yet: the last counted deal
        (5, 4, SEATS, 0),  # X6.1: deal 5 is a Vorführung
        (3, 4, (N, S, W), 3),  # E's duty solo in deal 1 or 2: one counted deal before
        (12, 12, (E, W), 3),  # two duty solos among deals 1-11: 9 counted
        (16, 12, (), 1),  # all four played: deal 16 is the last of 12 + 4
        (8, 4, (N,), 0),  # X6.1: deal 8, N vorgeführt
    ],
)
def test_v6_6_counted_deals_left(
    deal_no: int, deals: int, owed: tuple[Seat, ...], left: int
) -> None:
    """V6.6, V6.7: the counted deals to come, from the deal number and who owes (public)."""
    assert counted_left(deal_no, deals, owed) == left


def test_v6_2_without_duty_solos_a_session_is_its_length() -> None:
    """V6.1 alone: 8 counted deals, a solo is voluntary and counted, the dealer moves on."""
    state = started(RuleSet(session_deals=8))
    for number in range(8):
        state, events = deal(state, {E: JACKS} if number == 2 else {})
        fixed = one(events, GameTypeFixed)
        assert isinstance(fixed, GameTypeFixed) and fixed.duty_solo is UNSET
        assert state.deal is not None and state.deal.dealer == N.after(number)
    assert state.finished and len(state.sheet) == 8


def vorgefuehrt(rules: RuleSet = V6, east: str | None = None) -> SessionState:
    """Deal 5 of V6 with nobody's solo played: E (holding ``east``, if given) is vorgeführt
    (V6.7)."""
    state = started(rules)
    for _ in range(4):
        state, _ = deal(state, {})
    state, _ = run(state, DealPreset(fill({E: east} if east else None)))
    assert state.deal is not None and state.deal.duty.forced is E
    return state


def test_v6_7_the_seat_vorgefuehrt_may_not_say_healthy() -> None:
    state = vorgefuehrt()
    rejects(state, Declare(E, Declaration.HEALTHY), DutySoloForced, "V6.7")
    assert state.deal is not None
    seen = observe(state.deal, E)
    assert seen.options.declarations == (Declaration.RESERVATION,)
    assert seen.forced is E and seen.duty_owed == (N, E, S, W)
    assert observe(state.deal, None).forced is E  # public
    state, _ = run(state, Declare(E, Declaration.RESERVATION))
    assert state.deal is not None
    assert observe(state.deal, S).options.declarations == tuple(Declaration)


POOR = "KD 10D 9D KC KC 9C 9C KS 9S 9S KH 9H"
"""Three trumps (V4.1): E may offer an Armut at an Armut table, but not vorgeführt."""


@pytest.mark.parametrize(
    ("rules", "east", "contract"),
    [
        (V6, None, GameType.MARRIAGE),
        (msgspec.structs.replace(V6, armut=True), POOR, GameType.POVERTY),
    ],
    ids=["marriage", "armut"],
)
def test_v6_7_the_seat_vorgefuehrt_names_a_solo_not_a_marriage_nor_an_armut(
    rules: RuleSet, east: str | None, contract: GameType
) -> None:
    state = vorgefuehrt(rules, east)
    for seat in (E, S, W, N):
        word = Declaration.RESERVATION if seat is E else Declaration.HEALTHY
        state, _ = run(state, Declare(seat, word))
    rejects(state, NameContract(E, contract), DutySoloForced, "V6.7")
    assert state.deal is not None
    assert set(observe(state.deal, E).options.contracts) == set(SOLOS)
    state, events = run(state, NameContract(E, GameType.FLEISCHLOS))
    fixed = one(list(events), GameTypeFixed)
    assert fixed == GameTypeFixed(GameType.FLEISCHLOS, E, duty_solo=True)


def test_v6_4_a_voluntary_solo_of_an_earlier_seat_loses_to_a_duty_solo() -> None:
    """S played its duty solo in deal 1; in deal 2 (dealer N again) S names a voluntary
    solo before W names its duty solo: W's duty solo wins (V6.4), W leads (V6.5)."""
    state = started()
    state, _ = deal(state, {S: JACKS})
    state, events = deal(state, {S: GameType.CLUBS_SOLO, W: GameType.QUEEN_SOLO})
    fixed = one(events, GameTypeFixed)
    assert fixed == GameTypeFixed(GameType.QUEEN_SOLO, W, duty_solo=True)
    assert state.owed == (N, E)


def test_v6_3_a_solo_after_the_duty_solo_is_voluntary() -> None:
    """X6.3: E's second solo is voluntary: not marked, led from the dealer's left (R3.5), counted
    (the dealer moves on, V6.6), and E owes nothing again."""
    state = started()
    state, _ = deal(state, {E: JACKS})
    state, events = deal(state, {E: GameType.HEARTS_SOLO})
    fixed = one(events, GameTypeFixed)
    assert fixed == GameTypeFixed(GameType.HEARTS_SOLO, E)
    assert state.deal is not None and state.deal.tricks[0].leader is E  # N deals: E is left
    assert state.counted == 1 and state.owed == (N, S, W)
    state, events = deal(state, {})
    dealt = one(events, DealDealt)
    assert isinstance(dealt, DealDealt) and dealt.dealer is E


# --- random sessions --------------------------------------------------------------------


def _oracle(events: list[Event]) -> list[bool]:
    """By deal, whether it was a duty solo, from V6.3 alone: the winning declared solo
    of a seat that has not yet played one while owing."""
    paid: set[Seat] = set()
    marks: list[bool] = []
    for event in events:
        if isinstance(event, GameTypeFixed):
            duty = event.game_type in SOLOS and event.declarer not in paid
            if duty:
                assert event.declarer is not None
                paid.add(event.declarer)
            marks.append(duty)
    return marks


@pytest.mark.parametrize("deals", [4, 8, 12])
def test_v6_random_sessions_play_every_duty_solo_once(deals: int) -> None:
    """Random sessions: N + 4 deals, N of them counted; each player exactly one duty solo,
    the one the oracle names; entries sum to 0; the session ends with its last deal."""
    rules = RuleSet(session_deals=deals, duty_solo=True)
    for seed in range(4):
        state, events = play_session(random.Random(f"{deals} {seed}"), rules=rules)
        scored = events_of(events, DealScored)
        assert len(scored) == deals + 4
        marks = _oracle(events)
        assert [s.score.duty_solo is True for s in scored] == marks
        soloists = sorted(s.score.re_seats[0] for s in scored if s.score.duty_solo is True)
        assert soloists == list(SEATS)
        assert sum(not m for m in marks) == deals
        assert all(sum(s.score.entries) == 0 for s in scored)
        assert isinstance(events[-1], SessionFinished) and sum(state.totals) == 0


@random_sessions(4)
@given(
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    deals=st.sampled_from([4, 8]),
    bock=st.booleans(),
)
def test_v6_random_sessions_keep_every_invariant(seed: int, deals: int, bock: bool) -> None:
    """Whole random sessions by V6 (with V5 sometimes): every invariant of the property tests
    (240 card points, zero-sum entries, the dealer staying after a duty solo, its soloist
    leading, N + 4 deals, replay and fold equal the live state, hidden cards stay hidden)."""
    play_checked(seed, RuleSet(session_deals=deals, duty_solo=True, bock_rounds=bock))


# --- the bots ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("east_hand", "solo"),
    [
        # trumps held: diamonds 1, hearts 4, spades 4, clubs 3, queens 0, jacks 0, none 0
        ("9C 9C KC KS KS 9S 9S 9H 9H KH KH 9D", GameType.HEARTS_SOLO),
        # diamonds 6, hearts 6, spades 8, clubs 10 (4 jacks, 2 queens, AC AC KC 9C),
        # queens 2, jacks 4, none 0
        ("JC JC JS JS QS QD AC AC KC 9C 9S 9S", GameType.CLUBS_SOLO),
    ],
)
def test_v6_7_the_greedy_bot_vorgefuehrt_names_the_solo_with_most_trumps(
    east_hand: str, solo: GameType
) -> None:
    """The greedy bot (and the stand-in, T3.2) says `reservation` when vorgeführt and names
    the solo in which its hand holds the most trumps, the first of equals (counted by hand
    in the table); the random bot says `reservation` too."""
    state = started()
    for _ in range(4):
        state, _ = deal(state, {})
    state, _ = run(state, DealPreset(fill({E: east_hand})))
    assert state.deal is not None
    seen = observe(state.deal, E)
    assert greedy_action(seen, FirstChoice()) == Declare(E, Declaration.RESERVATION)
    assert stand_in_action(seen) == Declare(E, Declaration.RESERVATION)
    for seed in range(20):
        assert random_action(seen, random.Random(seed)) == Declare(E, Declaration.RESERVATION)
    state, _ = run(state, Declare(E, Declaration.RESERVATION))
    for seat in (S, W, N):
        state, _ = run(state, Declare(seat, Declaration.HEALTHY))
    assert state.deal is not None
    assert greedy_action(observe(state.deal, E), FirstChoice()) == NameContract(E, solo)
