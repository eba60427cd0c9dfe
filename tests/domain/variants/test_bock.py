"""V5 Bock rounds: the triggers (V5.2-V5.5), the doubling (V5.6) and the queue (V5.7).

Expectations come from the rule text (service/web/HOUSE_RULES.md) and hand-made tables; whole
sessions played with the option are checked by the property tests' invariants (a Bock deal's
value is the oracle's doubled) and by a queue kept here from the rule text alone.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec import UNSET

from domain.events import DealScored, Score, ScoreLine
from domain.game_types import GameType
from domain.parties import Party
from domain.rule_set import RuleSet
from domain.seats import Seat
from domain.simulation import play_session
from domain.variants.bock import bock_triggers, doubled, pending_after
from tests.domain.test_properties import play_checked
from tests.domain.variants import random_sessions

RE, KONTRA = Party.RE, Party.KONTRA
V5 = RuleSet(bock_rounds=True)
NORMAL_PARTIES = (RE, KONTRA, RE, KONTRA)
SOLO_PARTIES = (RE, KONTRA, KONTRA, KONTRA)


def a_score(
    value: int,
    re_points: int,
    winner: Party | None,
    *,
    solo: bool = False,
    re_level: int = 0,
    kontra_level: int = 0,
) -> Score:
    """A hand-made score: only what the triggers read is meant (lines are one R8.1 line)."""
    parties = SOLO_PARTIES if solo else NORMAL_PARTIES
    factor = 3 if solo else 1
    party = RE if value >= 0 else KONTRA
    return Score(
        game_type=GameType.CLUBS_SOLO if solo else GameType.NORMAL,
        solo=solo,
        re_seats=tuple(Seat(s) for s, p in enumerate(parties) if p is RE),
        card_points={RE: re_points, KONTRA: 240 - re_points},
        tricks={RE: 6, KONTRA: 6},
        levels={RE: re_level, KONTRA: kontra_level},
        winner=winner,
        lines=(ScoreLine("R8.1", party, abs(value), "won"),) if value else (),
        value=value,
        entries=tuple(value * factor if p is RE else -value for p in parties),
    )


TRIGGERS = [
    # score, the triggers it meets
    pytest.param(a_score(0, 100, None), ("V5.2",), id="V5.2-zero"),
    pytest.param(a_score(2, 130, RE), (), id="none-re-wins"),
    pytest.param(a_score(-1, 120, KONTRA), ("V5.3",), id="V5.3-120-to-120"),
    pytest.param(a_score(-2, 119, KONTRA), (), id="none-119"),
    pytest.param(a_score(-3, 100, KONTRA, solo=True), ("V5.4",), id="V5.4-lost-solo"),
    pytest.param(a_score(0, 100, None, solo=True), ("V5.2", "V5.4"), id="V5.4-no-winner"),
    pytest.param(a_score(4, 160, RE, solo=True), (), id="none-solo-won"),
    pytest.param(a_score(-4, 100, KONTRA, re_level=1), ("V5.5",), id="V5.5-kontra-beats-re"),
    pytest.param(a_score(5, 160, RE, re_level=1), (), id="none-re-announced-and-won"),
    pytest.param(a_score(-4, 100, KONTRA, kontra_level=1), (), id="none-kontra-only"),
    pytest.param(
        a_score(-6, 100, KONTRA, solo=True, re_level=2), ("V5.4", "V5.5"), id="V5.4-and-V5.5"
    ),
    pytest.param(a_score(-1, 120, KONTRA, re_level=1), ("V5.3", "V5.5"), id="V5.3-and-V5.5"),
]


@pytest.mark.parametrize(("score", "met"), TRIGGERS)
def test_v5_triggers(score: Score, met: tuple[str, ...]) -> None:
    assert bock_triggers(score) == met


DOUBLED = [
    # score, parties, the V5.6 line (None: none), value, entries
    pytest.param(
        a_score(3, 130, RE),
        NORMAL_PARTIES,
        ScoreLine("V5.6", RE, 3, "Bock: the deal counts double"),
        6,
        (6, -6, 6, -6),
        id="V5.6-X5.2-re-3-to-6",
    ),
    pytest.param(
        a_score(-2, 100, KONTRA, solo=True),
        SOLO_PARTIES,
        ScoreLine("V5.6", KONTRA, 2, "Bock: the deal counts double"),
        -4,
        (-12, 4, 4, 4),
        id="V5.6-X5.2-R10.2-solo-lost",
    ),
    pytest.param(a_score(0, 100, None), NORMAL_PARTIES, None, 0, (0, 0, 0, 0), id="V5.6-zero"),
]


@pytest.mark.parametrize(("score", "parties", "line", "value", "entries"), DOUBLED)
def test_v5_6_a_bock_deal_counts_double(
    score: Score,
    parties: tuple[Party, ...],
    line: ScoreLine | None,
    value: int,
    entries: tuple[int, ...],
) -> None:
    got = doubled(score, parties)
    assert got.bock is True
    assert got.lines == (*score.lines, *([line] if line else []))
    assert (got.value, got.entries) == (value, entries)
    assert sum(got.entries) == 0
    assert sum(ln.points if ln.party is RE else -ln.points for ln in got.lines) == got.value


QUEUE = [
    # pending, this deal a Bock deal, it met a trigger, pending after it
    pytest.param(0, False, False, 0, id="nothing"),
    pytest.param(0, False, True, 4, id="V5.1-a-round-follows"),
    pytest.param(4, True, False, 3, id="V5.1-one-bock-deal-played"),
    pytest.param(3, True, True, 6, id="V5.7-queued-behind"),
    pytest.param(1, True, False, 0, id="V5.1-the-round-ends"),
    pytest.param(1, True, True, 4, id="V5.7-a-bock-deal-brings-the-next"),
]


@pytest.mark.parametrize(("pending", "bock_deal", "triggered", "after"), QUEUE)
def test_v5_7_bock_rounds_are_queued(
    pending: int, bock_deal: bool, triggered: bool, after: int
) -> None:
    score = a_score(0, 100, None) if triggered else a_score(2, 130, RE)
    if triggered:
        score = Score(**{**_fields(score), "bock_triggers": bock_triggers(score)})
    assert pending_after(pending, bock_deal, score) == after


def _fields(score: Score) -> dict[str, object]:
    return {f: getattr(score, f) for f in Score.__struct_fields__}


def test_v5_rule_id_of_the_option() -> None:
    assert V5.variants == ("V5.1",)
    assert RuleSet(schweinchen=True, bock_rounds=True).variants == ("V3.1", "V5.1")


def _oracle_triggers(score: Score) -> tuple[str, ...]:
    """V5.2-V5.5 from the rule text, read off the scored deal (its undoubled value)."""
    value = score.value // 2 if score.bock is True else score.value
    met = []
    if value == 0:
        met.append("V5.2")
    if score.card_points[RE] == 120:
        met.append("V5.3")
    if score.solo and score.winner is not RE:
        met.append("V5.4")
    if score.levels[RE] > 0 and score.winner is KONTRA:
        met.append("V5.5")
    return tuple(met)


def test_v5_random_sessions_follow_the_queue() -> None:
    """Whole random sessions by V5: each deal is a Bock deal exactly when the queue kept
    here from V5.1 and V5.7 says so, names the triggers V5.2-V5.5 it met, a Bock deal has
    its V5.6 line (but a 0) and the scoresheet marks it; some Bock deals do occur."""
    bock_deals = 0
    for seed in range(6):
        state, events = play_session(random.Random(seed), rules=V5)
        pending = 0
        marks = []
        for event in events:
            if not isinstance(event, DealScored):
                continue
            score = event.score
            is_bock = pending > 0
            assert score.bock is (True if is_bock else UNSET), (seed, event.deal_no)
            met = _oracle_triggers(score)
            assert score.bock_triggers == (met or UNSET)
            v56 = [ln for ln in score.lines if ln.rule == "V5.6"]
            assert len(v56) == (1 if is_bock and score.value else 0)
            pending = max(0, pending - 1) + (4 if met else 0)
            marks.append(is_bock)
            bock_deals += is_bock
        assert [g.bock for g in state.games] == marks
        assert sum(state.totals) == 0
    assert bock_deals >= 4


@random_sessions(4)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_v5_random_sessions_keep_every_invariant(seed: int) -> None:
    """Whole random sessions by V5 (with V3 too): every invariant of the property tests
    (240 card points, zero-sum entries, a Bock deal's value the oracle's doubled, replay
    and fold equal the live state, hidden cards stay hidden)."""
    play_checked(seed, RuleSet(schweinchen=True, bock_rounds=True))


def test_v5_x5_1_two_rounds_queued() -> None:
    """X5.1: a lost solo in deal 3, Kontra beating `re` in deal 5: deals 4-11 are Bock
    deals, none counted four times (the queue's length never passes 2 rounds)."""
    triggering = {3: a_score(-3, 100, KONTRA, solo=True), 5: a_score(-4, 100, KONTRA, re_level=1)}
    pending, bock_deals = 0, []
    for deal_no in range(1, 13):
        score = triggering.get(deal_no, a_score(2, 130, RE))
        met = bock_triggers(score)
        if met:
            score = Score(**{**_fields(score), "bock_triggers": met})
        if pending:
            bock_deals.append(deal_no)
        pending = pending_after(pending, pending > 0, score)
    assert bock_deals == [4, 5, 6, 7, 8, 9, 10, 11]
