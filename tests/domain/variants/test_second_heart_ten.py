"""V2 The second heart ten beats the first (V2.1 always, V2.2 except in the last trick).

Expectations come from the rule text (service/web/HOUSE_RULES.md, RULES.md R3.1, R5.2-R5.5)
and its worked examples X2.1-X2.4, written out by hand; whole sessions played by each
option are checked by the property tests' invariants and an oracle written from the text.
"""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.cards import Card
from domain.commands import PlayCard
from domain.deal import DealState
from domain.deal import Phase as DealPhase
from domain.events import CardPlayed, GameTypeFixed, TrickWon
from domain.game_types import GameType, order_of
from domain.rule_set import RuleSet
from domain.seats import Seat
from domain.simulation import play_session
from domain.tricks import Trick
from domain.variants.second_heart_ten import SecondHeartTen, second_heart_ten_wins
from tests.domain.builders import deal_state, events_of, hand, run
from tests.domain.test_properties import play_checked
from tests.domain.variants import random_sessions

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
FIRST, ALWAYS, EXCEPT_LAST = (
    SecondHeartTen.FIRST,
    SecondHeartTen.ALWAYS,
    SecondHeartTen.EXCEPT_LAST_TRICK,
)

HEART_TEN_IS_TRUMP = {
    GameType.NORMAL: True,
    GameType.MARRIAGE: True,
    GameType.SILENT_SOLO: True,
    GameType.DIAMONDS_SOLO: True,
    GameType.HEARTS_SOLO: True,
    GameType.SPADES_SOLO: True,
    GameType.CLUBS_SOLO: True,
    GameType.QUEEN_SOLO: False,
    GameType.JACK_SOLO: False,
    GameType.FLEISCHLOS: False,
    GameType.POVERTY: True,  # V4.5: Armut is played as a normal game
}
"""R3.1, R5.2-R5.5 by hand: where 10H is a trump (V2.1 applies only there)."""


@pytest.mark.parametrize("game_type", list(GameType))
@pytest.mark.parametrize("option", list(SecondHeartTen))
@pytest.mark.parametrize("trick_no", [1, 11, 12])
def test_v2_where_and_when_the_second_10h_wins(
    game_type: GameType, option: SecondHeartTen, trick_no: int
) -> None:
    """V2.1: every trick where 10H is a trump; V2.2: the same but the last (12th) trick;
    the default (R3.4): never."""
    expected = HEART_TEN_IS_TRUMP[game_type] and (
        option is ALWAYS or (option is EXCEPT_LAST and trick_no != 12)
    )
    assert second_heart_ten_wins(option, order_of(game_type), trick_no, 12) is expected


def in_trick(game_type: GameType, option: SecondHeartTen, trick_no: int, cards: str) -> DealState:
    """A deal of ``game_type`` played by ``option`` at the start of trick ``trick_no``, East
    to lead, each seat holding (only) its card of ``cards`` (East's first, clockwise).

    The tricks before it are placeholders: only the trick's number matters to V2.
    """
    played = hand(cards)
    start = deal_state(dealer=N, rules=RuleSet(second_heart_ten=option))
    placeholder = Trick(E, hand("9C 9C 9S 9S"))
    return msgspec.structs.replace(
        start,
        phase=DealPhase.PLAY,
        game_type=game_type,
        declarer=E,
        clarified_in=1 if game_type is GameType.MARRIAGE else None,
        hands=tuple((played[(seat - E) % 4],) for seat in Seat),
        trick=Trick(E),
        tricks=(placeholder,) * (trick_no - 1),
        winners=(E,) * (trick_no - 1),
    )


TRICKS = [
    # game type, option, trick number, cards from East (the leader) clockwise, winner
    pytest.param(GameType.NORMAL, FIRST, 1, "10H 10H QC AD", E, id="R3.4-E1-first-10H"),
    pytest.param(GameType.NORMAL, ALWAYS, 1, "10H 10H QC AD", S, id="V2.1-X2.1-second-10H"),
    pytest.param(GameType.NORMAL, ALWAYS, 12, "10H 10H QC AD", S, id="V2.1-last-trick-too"),
    pytest.param(GameType.NORMAL, EXCEPT_LAST, 11, "10H 10H QC AD", S, id="V2.2-X2.2-trick-11"),
    pytest.param(GameType.NORMAL, EXCEPT_LAST, 12, "10H 10H QC AD", E, id="V2.2-X2.2-trick-12"),
    pytest.param(GameType.NORMAL, ALWAYS, 1, "JC 10H QC 10H", N, id="V2.1-X2.4-not-led"),
    pytest.param(GameType.NORMAL, ALWAYS, 1, "QC QC 10H 9D", W, id="V2.1-one-10H-wins"),
    pytest.param(GameType.NORMAL, ALWAYS, 1, "AD AD 9D 9D", E, id="V2.1-other-pairs-first"),
    pytest.param(GameType.NORMAL, ALWAYS, 1, "QC QC 9D 9D", E, id="V2.1-QC-pair-first"),
    pytest.param(GameType.MARRIAGE, ALWAYS, 4, "10H QC 10H AD", W, id="V2.1-marriage"),
    pytest.param(GameType.SILENT_SOLO, ALWAYS, 2, "10H 10H QC AD", S, id="V2.1-silent-solo"),
    pytest.param(GameType.DIAMONDS_SOLO, ALWAYS, 5, "10H 10H QC AD", S, id="V2.1-diamonds"),
    pytest.param(GameType.HEARTS_SOLO, ALWAYS, 5, "10H 10H AH KH", S, id="V2.1-hearts-solo"),
    pytest.param(GameType.SPADES_SOLO, EXCEPT_LAST, 12, "AS 10H 10H AS", S, id="V2.2-spades"),
    pytest.param(GameType.CLUBS_SOLO, ALWAYS, 12, "AC 10H 10H AC", W, id="V2.1-clubs-solo"),
    pytest.param(GameType.QUEEN_SOLO, ALWAYS, 1, "10H 10H KH 9H", E, id="V2.1-X2.3-queen"),
    pytest.param(GameType.JACK_SOLO, ALWAYS, 3, "10H 10H KH 9H", E, id="V2.1-jack-solo-plain"),
    pytest.param(GameType.FLEISCHLOS, ALWAYS, 3, "10H 10H KH 9H", E, id="V2.1-fleischlos"),
    pytest.param(GameType.FLEISCHLOS, ALWAYS, 3, "AH 10H 10H 9H", E, id="V2.1-fleischlos-AH"),
]


@pytest.mark.parametrize(("game_type", "option", "trick_no", "cards", "winner"), TRICKS)
def test_v2_who_wins_the_trick(
    game_type: GameType, option: SecondHeartTen, trick_no: int, cards: str, winner: Seat
) -> None:
    """V2.1, V2.2 and the worked examples X2.1-X2.4, through the deal aggregate."""
    state = in_trick(game_type, option, trick_no, cards)
    order = (E, S, W, N)
    _, events = run(state, *(PlayCard(seat, c) for seat, c in zip(order, hand(cards), strict=True)))
    (won,) = events_of(events, TrickWon)
    assert (won.trick_no, won.winner) == (trick_no, winner)


def test_v2_rule_ids_of_the_options() -> None:
    """V2.1 and V2.2 are the options' ids; the default is R3.4 with no house rule."""
    assert RuleSet().variants == ()
    assert RuleSet(second_heart_ten=ALWAYS).variants == ("V2.1",)
    assert RuleSet(second_heart_ten=EXCEPT_LAST).variants == ("V2.2",)


@random_sessions(6)
@given(
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    option=st.sampled_from([ALWAYS, EXCEPT_LAST]),
)
def test_v2_random_sessions_keep_every_invariant(seed: int, option: SecondHeartTen) -> None:
    """Whole random sessions played by V2.1 or V2.2: every invariant of the property tests
    (240 card points, zero-sum entries, announcement deadlines, replay and fold equal the
    live state, hidden cards stay hidden), each trick's winner from the oracle written from
    the rule text (the second 10H wins where V2 holds in that trick)."""

    def holds(trick_no: int) -> bool:
        return option is ALWAYS or trick_no != 12

    play_checked(seed, RuleSet(second_heart_ten=option), holds)


@pytest.mark.parametrize("option", [ALWAYS, EXCEPT_LAST])
def test_v2_random_sessions_hold_tricks_with_both_10h(option: SecondHeartTen) -> None:
    """The random sessions do meet V2: tricks holding both 10H as trumps occur, and each is
    won by the second 10H, but with V2.2 in the last trick by the first (the rule text)."""
    seen = 0
    for seed in range(6):
        _, events = play_session(random.Random(seed), rules=RuleSet(second_heart_ten=option))
        game_type, cards = GameType.NORMAL, list[tuple[Seat, Card]]()
        for event in events:
            if isinstance(event, GameTypeFixed):
                game_type = event.game_type
            elif isinstance(event, CardPlayed):
                cards.append((event.seat, event.card))
            elif isinstance(event, TrickWon):
                tens = [seat for seat, c in cards if c is Card.TENH]
                if len(tens) == 2 and HEART_TEN_IS_TRUMP[game_type]:
                    seen += 1
                    second = option is ALWAYS or event.trick_no != 12
                    assert event.winner == tens[1 if second else 0], (event, cards)
                cards = []
    assert seen >= 3
