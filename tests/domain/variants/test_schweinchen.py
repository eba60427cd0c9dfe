"""V3 Schweinchen: both AD in one hand, shown (V3.1), are the highest trumps (V3.2) where
AD is a trump (V3.3).

Expectations come from the rule text (service/web/HOUSE_RULES.md, RULES.md R3.1, R5.2-R5.5)
and its worked examples X3.1-X3.3, written out by hand; whole sessions played with the
option are checked by the property tests' invariants and their oracle, which ranks a shown
AD first.
"""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec import UNSET

from domain import replay
from domain.cards import Card
from domain.commands import DealPreset, PlayCard, ShowSchweinchen, StartSession
from domain.deal import DealState
from domain.deal import Phase as DealPhase
from domain.errors import DomainError, NotYourTurn, PhaseClosed, SchweinchenNotAllowed
from domain.events import CardPlayed, DealScored, Event, SchweinchenShown, TrickWon
from domain.game_types import GameType
from domain.observations import observe, options
from domain.rule_set import DEFAULT, RuleSet, recorded
from domain.seats import SEATS, Seat
from domain.session import SessionState
from domain.simulation import play_session
from domain.tricks import Trick
from domain.variants.schweinchen import schweinchen_possible
from domain.variants.second_heart_ten import SecondHeartTen
from tests.domain.builders import deal_state, events_of, fill, hand, play, run, start_play
from tests.domain.test_properties import play_checked
from tests.domain.variants import random_sessions

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
V3 = RuleSet(schweinchen=True)

DIAMOND_ACE_IS_TRUMP = {
    GameType.NORMAL: True,
    GameType.MARRIAGE: True,
    GameType.SILENT_SOLO: True,
    GameType.DIAMONDS_SOLO: True,
    GameType.HEARTS_SOLO: False,
    GameType.SPADES_SOLO: False,
    GameType.CLUBS_SOLO: False,
    GameType.QUEEN_SOLO: False,
    GameType.JACK_SOLO: False,
    GameType.FLEISCHLOS: False,
    GameType.POVERTY: True,  # V4.5: Armut is played as a normal game
}
"""R3.1, R5.2-R5.5 by hand: where AD is a trump (V3.3: only there are Schweinchen)."""


@pytest.mark.parametrize("game_type", list(GameType))
def test_v3_3_schweinchen_only_where_ad_is_a_trump(game_type: GameType) -> None:
    assert schweinchen_possible(game_type) is DIAMOND_ACE_IS_TRUMP[game_type]


def test_v3_rule_ids_of_the_option() -> None:
    """V3.1 is the option's id, beside V2's; the default records nothing."""
    assert V3.variants == ("V3.1",)
    both = RuleSet(second_heart_ten=SecondHeartTen.ALWAYS, schweinchen=True)
    assert both.variants == ("V2.1", "V3.1")
    assert recorded(RuleSet(schweinchen=False)) is UNSET
    assert msgspec.json.encode(V3) == b'{"schweinchen":true}'


def opened(
    dealt: dict[Seat, str], contracts: dict[Seat, GameType] | None = None, rules: RuleSet = V3
) -> DealState:
    """A deal dealt by North (East declares and leads first), played with ``contracts``."""
    state, _ = start_play(deal_state(dealt, dealer=N, rules=rules), contracts)
    return state


BOTH_AT_EAST = {E: "AD AD QC", W: "QC"}
"""East holds both AD; the QC apart, so that no seat plays a silent solo."""

SHOWING = [
    # hands, contracts, seat, what happens: None (shown) or (error, rule)
    pytest.param(BOTH_AT_EAST, None, E, None, id="V3.1-both-AD-normal"),
    pytest.param({E: "AD", S: "AD", W: "QC"}, None, E, (SchweinchenNotAllowed, "V3.1"), id="one"),
    pytest.param({E: "AD", S: "AD", W: "QC"}, None, S, (NotYourTurn, "V3.1"), id="one-not-turn"),
    pytest.param({S: "AD AD", W: "QC"}, None, S, (NotYourTurn, "V3.1"), id="V3.1-on-turn-only"),
    pytest.param({E: "AD AD QC QC"}, None, E, None, id="V3.3-silent-solo"),
    pytest.param({E: "AD AD QC QC"}, {E: GameType.MARRIAGE}, E, None, id="V3.3-marriage"),
    pytest.param(BOTH_AT_EAST, {E: GameType.DIAMONDS_SOLO}, E, None, id="V3.3-diamonds-solo"),
    pytest.param(
        BOTH_AT_EAST, {S: GameType.DIAMONDS_SOLO}, E, None, id="V3.3-diamonds-solo-opponent"
    ),
    pytest.param(
        BOTH_AT_EAST, {E: GameType.HEARTS_SOLO}, E, (SchweinchenNotAllowed, "V3.3"), id="hearts"
    ),
    pytest.param(
        BOTH_AT_EAST, {E: GameType.CLUBS_SOLO}, E, (SchweinchenNotAllowed, "V3.3"), id="clubs"
    ),
    pytest.param(
        BOTH_AT_EAST, {E: GameType.QUEEN_SOLO}, E, (SchweinchenNotAllowed, "V3.3"), id="queen"
    ),
    pytest.param(
        BOTH_AT_EAST, {E: GameType.FLEISCHLOS}, E, (SchweinchenNotAllowed, "V3.3"), id="meatless"
    ),
]


@pytest.mark.parametrize(("dealt", "contracts", "seat", "refused"), SHOWING)
def test_v3_1_who_may_show_schweinchen(
    dealt: dict[Seat, str],
    contracts: dict[Seat, GameType] | None,
    seat: Seat,
    refused: tuple[type[DomainError], str] | None,
) -> None:
    """V3.1, V3.3 at the first lead: the decision and the seat's options agree."""
    state = opened(dealt, contracts)
    assert (options(state, seat).schweinchen is True) is (refused is None)
    if refused is None:
        _, events = run(state, ShowSchweinchen(seat))
        assert events == (SchweinchenShown(seat),)
        return
    error, rule = refused
    with pytest.raises(error) as caught:
        run(state, ShowSchweinchen(seat))
    assert caught.value.rule == rule


def test_v3_1_not_without_the_option_nor_before_the_play() -> None:
    """Without V3 nobody shows them; with it, not during the reservations (the game type,
    and so whether AD is a trump, is not fixed yet)."""
    off = opened(BOTH_AT_EAST, rules=DEFAULT)
    assert options(off, E).schweinchen is UNSET
    with pytest.raises(SchweinchenNotAllowed) as caught:
        run(off, ShowSchweinchen(E))
    assert caught.value.rule == "V3.1"
    early = deal_state(BOTH_AT_EAST, dealer=N, rules=V3)
    with pytest.raises(PhaseClosed) as closed:
        run(early, ShowSchweinchen(E))
    assert closed.value.rule == "V3.1"


def test_v3_1_once_and_only_while_holding_both() -> None:
    """Shown once a deal; a player who played an AD without showing has let it go."""
    state = opened(BOTH_AT_EAST)
    shown, _ = run(state, ShowSchweinchen(E))
    with pytest.raises(SchweinchenNotAllowed, match="already"):
        run(shown, ShowSchweinchen(E))
    played, _ = run(state, PlayCard(E, Card.AD))
    assert played.hands[E].count(Card.AD) == 1
    later, events = play(played, _following(played, 3))
    (won,) = events_of(events, TrickWon)
    assert won.winner is W  # West's QC beat the AD that was not shown (R3.1)
    later, _ = play(later, _following(later, 2))
    assert later.turn is E
    with pytest.raises(SchweinchenNotAllowed, match="both AD"):
        run(later, ShowSchweinchen(E))


def _following(state: DealState, n: int) -> str:
    """The first legal card of each of the next ``n`` seats, as `play` takes them."""
    cards = []
    for _ in range(n):
        seat = state.turn
        assert seat is not None
        card = options(state, seat).cards[0]
        cards.append(card.value)
        state, _ = run(state, PlayCard(seat, card))
    return " ".join(cards)


def in_trick(game_type: GameType, cards: str, shown: Seat | None, rules: RuleSet = V3) -> DealState:
    """A deal of ``game_type`` at its first trick, East to lead, each seat holding (only) its
    card of ``cards`` (East's first, clockwise), Schweinchen ``shown`` by that seat or not."""
    played = hand(cards)
    start = deal_state(dealer=N, rules=rules)
    return msgspec.structs.replace(
        start,
        phase=DealPhase.PLAY,
        game_type=game_type,
        declarer=E,
        clarified_in=1 if game_type is GameType.MARRIAGE else None,
        hands=tuple((played[(seat - E) % 4],) for seat in Seat),
        trick=Trick(E),
        schweinchen=shown,
    )


V21 = RuleSet(second_heart_ten=SecondHeartTen.ALWAYS, schweinchen=True)
TRICKS = [
    # game type, cards from East (the leader) clockwise, shown by, rules, winner
    pytest.param(GameType.NORMAL, "10H AD QC 9D", None, V3, E, id="R3.4-not-shown-10H"),
    pytest.param(GameType.NORMAL, "10H AD QC 9D", S, V3, S, id="V3.2-X3.1-AD-above-10H"),
    pytest.param(GameType.NORMAL, "AD 10H 10H QC", E, V21, E, id="V3.2-X3.2-above-V2"),
    pytest.param(GameType.NORMAL, "AD 10H 10H QC", None, V21, W, id="V2.1-not-shown"),
    pytest.param(GameType.NORMAL, "9D QC AD JC", W, V3, W, id="V3.2-led-low-diamond"),
    pytest.param(GameType.MARRIAGE, "QC 10H JD AD", N, V3, N, id="V3.2-marriage"),
    pytest.param(GameType.SILENT_SOLO, "QC AD 10H QC", S, V3, S, id="V3.2-silent-solo"),
    pytest.param(GameType.DIAMONDS_SOLO, "10H QC AD 10D", W, V3, W, id="V3.2-X3.3-diamonds"),
    pytest.param(GameType.NORMAL, "AC AD 10C KC", S, V3, S, id="V3.2-AD-trumps-a-plain"),
]


@pytest.mark.parametrize(("game_type", "cards", "shown", "rules", "winner"), TRICKS)
def test_v3_2_who_wins_the_trick(
    game_type: GameType, cards: str, shown: Seat | None, rules: RuleSet, winner: Seat
) -> None:
    """V3.2 and the worked examples X3.1-X3.3, through the deal aggregate."""
    state = in_trick(game_type, cards, shown, rules)
    order = (E, S, W, N)
    _, events = run(state, *(PlayCard(seat, c) for seat, c in zip(order, hand(cards), strict=True)))
    (won,) = events_of(events, TrickWon)
    assert won.winner == winner


def test_v3_1_everyone_sees_who_showed() -> None:
    """The showing is public: every seat and a spectator see the seat; before it nobody
    does; only the holder, on its turn, has the option; the holder's hand sorts AD first."""
    state = opened(BOTH_AT_EAST)
    for viewer in (*SEATS, None):
        assert observe(state, viewer).schweinchen is UNSET
    assert [s for s in SEATS if options(state, s).schweinchen is True] == [E]
    shown, _ = run(state, ShowSchweinchen(E))
    for viewer in (*SEATS, None):
        assert observe(shown, viewer).schweinchen == E
    assert options(shown, E).schweinchen is UNSET
    assert observe(shown, E).hand[:2] == (Card.AD, Card.AD)
    assert observe(state, E).hand[0] is not Card.AD


def _session_with_schweinchen() -> tuple[SessionState, list[Event]]:
    """A session by V3 whose first deal East plays out: shows, leads AD, wins the trick."""
    state, events = run(SessionState(), StartSession(N, V3))
    state, dealt = run(state, DealPreset(fill(BOTH_AT_EAST)))
    state, started = start_play(state)
    state, shown = run(state, ShowSchweinchen(E), PlayCard(E, Card.AD))
    assert state.deal is not None
    state, trick = play(state, _following(state.deal, 3))
    return state, [*events, *dealt, *started, *shown, *trick]


def test_v3_a_deal_with_schweinchen_replays_exactly() -> None:
    """The showing is in the log: replay re-decides it and gets every event; East's AD won
    the first trick, whatever the others played (V3.2); a log whose showing names a seat
    without both AD stops there."""
    state, events = _session_with_schweinchen()
    (won,) = events_of(events, TrickWon)
    assert won.winner == E
    result = replay.replay(events, replay.SESSION)
    assert result.ok, result.error
    assert result.state == state
    at = next(i for i, e in enumerate(events) if isinstance(e, SchweinchenShown))
    forged = [*events[:at], SchweinchenShown(S), *events[at + 1 :]]
    bad = replay.replay(forged, replay.SESSION)
    assert not bad.ok and bad.valid == at


@random_sessions(4)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_v3_random_sessions_keep_every_invariant(seed: int) -> None:
    """Whole random sessions played by V3: every invariant of the property tests (240 card
    points, zero-sum entries, deadlines, replay equal to the live state, hidden cards stay
    hidden), each trick's winner from the oracle (a shown AD wins, V3.2)."""
    play_checked(seed, V3)


def test_v3_random_sessions_show_schweinchen() -> None:
    """The random sessions do meet V3: Schweinchen are shown, and every trick after it
    holding a shown AD is won by it."""
    seen = 0
    for seed in range(8):
        _, events = play_session(random.Random(seed), rules=V3)
        shown: Seat | None = None
        cards: list[tuple[Seat, Card]] = []
        for event in events:
            if isinstance(event, SchweinchenShown):
                shown, seen = event.seat, seen + 1
            elif isinstance(event, CardPlayed):
                cards.append((event.seat, event.card))
            elif isinstance(event, TrickWon):
                if shown is not None and (shown, Card.AD) in cards:
                    assert event.winner == shown, (event, cards)
                cards = []
            elif isinstance(event, DealScored):
                shown = None
    assert seen >= 3
