"""R1 session: 12 deals, the dealer moving left, ties sharing the win; seats."""

from __future__ import annotations

from itertools import pairwise

import pytest

from domain import session
from domain.cards import Card
from domain.commands import (
    Command,
    DealPreset,
    DealSeeded,
    Declaration,
    Declare,
    PlayCard,
    StartSession,
)
from domain.deal import Phase
from domain.errors import PhaseClosed, SessionOver
from domain.events import DealDealt, DealScored, Event, SessionFinished, SessionStarted
from domain.seats import SEATS, Seat
from domain.session import DEALS, SessionState, session_winners

from .builders import events_of, fill, first_legal, fold, play_out, rejects, run, start_play

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST

# --- seats -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", SEATS, ids=lambda s: f"R1.2-seat-{s.value}")
def test_seat_left_is_the_next_seat_clockwise(seat: Seat) -> None:
    """Card codes / R1.2: a seat's left is (s + 1) % 4; right is the previous seat."""
    assert seat.left() == (seat + 1) % 4
    assert seat.right() == (seat + 3) % 4
    assert seat.left().right() is seat
    assert seat.after(4) is seat and seat.after(1) is seat.left()
    assert seat.round() == tuple(Seat((seat + k) % 4) for k in range(4))
    assert len(set(seat.round())) == 4


# --- a whole session ---------------------------------------------------------------------------


def _seed(n: int) -> bytes:
    return bytes([n, 0xD0, 0x4C]) * 10 + bytes([n, n])


def play_session(first: Seat) -> tuple[SessionState, list[tuple[Event, ...]], list[Event]]:
    """A whole session: each deal seeded, everyone healthy, the first legal card each time.
    Returns the final state, the events of each deal, and the whole event log."""
    state, log = run(SessionState(), StartSession(first))
    per_deal: list[tuple[Event, ...]] = []
    for n in range(DEALS):
        state, dealt = run(state, DealSeeded(_seed(n)))
        state, fixed = start_play(state)
        state, played = play_out(state)
        per_deal.append((*dealt, *fixed, *played))
        log = (*log, *dealt, *fixed, *played)
    return state, per_deal, list(log)


Whole = tuple[Seat, SessionState, list[tuple[Event, ...]], list[Event]]


@pytest.fixture(scope="module", params=SEATS, ids=lambda s: f"first-dealer-{s.value}")
def whole(request: pytest.FixtureRequest) -> Whole:
    """A whole session for each choice of first dealer (played once per module)."""
    first: Seat = request.param
    return (first, *play_session(first))


def test_r1_1_start_session() -> None:
    """R1.1, R1.2: a session of 12 deals begins with the dealer chosen by lot (an input),
    every player at 0."""
    first = W
    state, events = run(SessionState(), StartSession(first))
    assert events == (SessionStarted(first, 12),)
    assert state.totals == (0, 0, 0, 0)
    assert state.next_dealer is first
    assert not state.finished and state.deal is None


def test_r1_1_twelve_deals_then_session_over(whole: Whole) -> None:
    """R1.1: exactly 12 deals; the 12th deal's last card also finishes the session; a 13th
    deal is SessionOver (R1.1) and changes nothing."""
    _, state, per_deal, _ = whole
    assert len(per_deal) == 12
    assert len(state.sheet) == 12
    assert [e.deal_no for d in per_deal for e in events_of(d, DealDealt)] == list(range(1, 13))
    for events in per_deal[:-1]:
        assert not events_of(events, SessionFinished)
    last = per_deal[-1]
    assert isinstance(last[-2], DealScored) and isinstance(last[-1], SessionFinished)
    assert state.finished
    rejects(state, DealSeeded(_seed(99)), SessionOver, "R1.1")
    error = rejects(state, DealPreset(fill()), SessionOver, "R1.1")
    assert error.code == "session_over"
    assert state.deal is not None and state.deal.phase is Phase.SCORED
    rejects(state, PlayCard(N, Card.QC), PhaseClosed, "R3.6")
    rejects(state, Declare(N, Declaration.HEALTHY), PhaseClosed, "R4.1")
    rejects(state, StartSession(N), PhaseClosed, "R1.2")


def test_r1_2_dealer_moves_one_seat_left_after_each_deal(whole: Whole) -> None:
    """R1.2: deal n is dealt by the first dealer moved n-1 seats to the left; R3.5: the
    dealer's left leads."""
    first, _, per_deal, _ = whole
    dealers = [events_of(d, DealDealt)[0].dealer for d in per_deal]
    assert dealers == [first.after(n) for n in range(12)]
    for previous, nxt in pairwise(dealers):
        assert nxt is previous.left()


def test_r1_3_totals_and_winners(whole: Whole) -> None:
    """R1.3: the totals are the sums of the 12 sheet lines (each summing to 0, R10); the
    highest total wins, equal totals share."""
    _, state, per_deal, _ = whole
    entries = [events_of(d, DealScored)[0].score.entries for d in per_deal]
    assert list(state.sheet) == entries
    totals = tuple(sum(line[s] for line in entries) for s in SEATS)
    assert state.totals == totals
    assert all(sum(line) == 0 for line in entries) and sum(totals) == 0
    (finished,) = events_of(per_deal[-1], SessionFinished)
    assert finished == SessionFinished(totals, session_winners(totals))
    assert state.winners == finished.winners
    assert {totals[s] for s in finished.winners} == {max(totals)}


def test_session_fold_equals_live_state(whole: Whole) -> None:
    """Replaying the event log with evolve alone gives the live state (R1, R2.2)."""
    _, state, _, log = whole
    assert session.fold(log) == state
    assert fold(SessionState(), log) == state


@pytest.mark.parametrize(
    ("totals", "winners"),
    [
        pytest.param((5, 1, -3, -3), (N,), id="R1.3-single-winner"),
        pytest.param((-4, -4, 2, 6), (W,), id="R1.3-last-seat-wins"),
        pytest.param((3, 3, -3, -3), (N, E), id="R1.3-two-way-tie-shares"),
        pytest.param((4, -6, 4, -2), (N, S), id="R1.3-tie-not-adjacent"),
        pytest.param((2, 2, 2, -6), (N, E, S), id="R1.3-three-way-tie"),
        pytest.param((0, 0, 0, 0), (N, E, S, W), id="R1.3-all-zero-all-win"),
        pytest.param((-1, -1, 1, 1), (S, W), id="R1.3-no-tie-break"),
    ],
)
def test_r1_3_highest_total_wins_ties_share(
    totals: tuple[int, ...], winners: tuple[Seat, ...]
) -> None:
    """R1.3: highest individual total wins; equal totals share the win (no tie-break)."""
    assert session_winners(totals) == winners


# --- rejected session commands -----------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(DealSeeded(_seed(0)), id="R1.1-deal-before-start"),
        pytest.param(DealPreset(fill()), id="R1.1-preset-before-start"),
        pytest.param(Declare(E, Declaration.HEALTHY), id="R1.1-declare-before-start"),
        pytest.param(PlayCard(E, Card.QC), id="R1.1-play-before-start"),
    ],
)
def test_r1_1_nothing_before_the_session_starts(command: Command) -> None:
    """R1.1: until the session starts, every other command is PhaseClosed (R1.1)."""
    rejects(SessionState(), command, PhaseClosed, "R1.1")


def test_r1_2_a_session_starts_once() -> None:
    """R1.2: the first dealer is chosen once: a second StartSession is PhaseClosed (R1.2)."""
    state, _ = run(SessionState(), StartSession(S))
    rejects(state, StartSession(S), PhaseClosed, "R1.2")
    rejects(state, StartSession(E), PhaseClosed, "R1.2")


def test_r2_2_no_deal_commands_before_the_first_deal() -> None:
    """R2.2: after the start but before a deal is dealt, deal commands are PhaseClosed."""
    state, _ = run(SessionState(), StartSession(S))
    rejects(state, Declare(W, Declaration.HEALTHY), PhaseClosed, "R2.2")
    rejects(state, PlayCard(W, Card.QC), PhaseClosed, "R2.2")


@pytest.mark.parametrize(
    "stage",
    [
        pytest.param("dealt", id="R2.2-next-deal-not-while-reserving"),
        pytest.param("playing", id="R2.2-next-deal-not-while-playing"),
        pytest.param("one-card-left", id="R2.2-next-deal-not-before-last-card"),
    ],
)
def test_r1_2_next_deal_only_once_the_current_is_scored(stage: str) -> None:
    """R1.2, R2.2: the next deal comes only after the current one is scored (PhaseClosed)."""
    state, _ = run(SessionState(), StartSession(E), DealSeeded(_seed(1)))
    if stage != "dealt":
        state, _ = start_play(state)
    if stage == "one-card-left":
        assert state.deal is not None
        while sum(len(h) for h in state.deal.hands) > 1:
            state, _ = run(state, first_legal(state.deal))
    rejects(state, DealSeeded(_seed(2)), PhaseClosed, "R2.2")
    rejects(state, DealPreset(fill()), PhaseClosed, "R2.2")


def test_r1_2_second_deal_dealt_by_the_first_dealers_left() -> None:
    """R1.2: after deal 1 (dealer East) is scored, deal 2 is dealt by South."""
    state, _ = run(SessionState(), StartSession(E), DealPreset(fill()))
    state, _ = start_play(state)
    state, _ = play_out(state)
    state, events = run(state, DealPreset(fill()))
    (dealt,) = events
    assert isinstance(dealt, DealDealt)
    assert (dealt.deal_no, dealt.dealer) == (2, S)
    assert state.deal is not None and state.deal.turn is W
