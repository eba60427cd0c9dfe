"""How the expert prices an announcement (R6, `expert.search.announcement`).

A word is said when the estimated chance of winning with it reaches the level's need
(`CHANCE_NEEDED`; Kontra's need higher by `KONTRA_MARGIN`) and the mean entry with it
beats saying nothing. The rollouts here are sorted by the deal's own score into won and
lost ones and mixed in a chosen proportion, so the chance each test gives the pricing is
known beforehand: 3 won in 4 is enough for Re (0.7) and not for Kontra (0.8); 9 in 10 is
enough for either.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from domain.announcements import Word
from domain.observations import Observation, observe
from domain.parties import Party
from domain.seats import Seat
from expert.core import CODE, Facts, outcome
from expert.search import (
    CHANCE_NEEDED,
    KONTRA_MARGIN,
    Budget,
    announcement,
    silent_mean,
    word_prices,
    word_rollouts,
)
from tests.domain.builders import deal_state, fill, first_legal, run, start_play

RE_SEAT, KONTRA_SEAT = Seat(1), Seat(2)


def _first_turns() -> dict[Party, Observation]:
    """A normal game, N dealing: E (holding a QC, Re) leads, then S (Kontra) is to play;
    each at its first turn, where a word is allowed (R6.2)."""
    state, _ = start_play(deal_state(fill({Seat(1): "QC", Seat(3): "QC"})))
    leading = observe(state, RE_SEAT)
    state, _ = run(state, first_legal(state))
    return {Party.RE: leading, Party.KONTRA: observe(state, KONTRA_SEAT)}


def _mixed(observation: Observation, won: int, lost: int) -> tuple[Facts, ...]:
    """``won`` rollouts the viewer's party wins and ``lost`` it loses with its first word
    said (each party's first word, Re or Kontra, at level 1)."""
    assert observation.viewer is not None
    party = observation.parties[observation.viewer]
    side = 1 if party is Party.RE else -1
    wins: list[Facts] = []
    losses: list[Facts] = []
    rng = random.Random(5)
    while len(wins) < won or len(losses) < lost:
        for facts in word_rollouts(observation, None, rng, Budget(words=64)):
            said = facts.re_level if side == 1 else facts.kontra_level
            assert said == 0
            level = {"re_level": 1} if side == 1 else {"kontra_level": 1}
            scored = msgspec.structs.replace(facts, **level)
            (wins if outcome(scored)[0] == side else losses).append(facts)
    return tuple(wins[:won] + losses[:lost])


def _first_word(party: Party) -> Word:
    return Word.RE if party is Party.RE else Word.KONTRA


@pytest.mark.parametrize(
    ("party", "won", "lost", "said"),
    [
        (Party.RE, 30, 10, True),  # 0.75 >= 0.7
        (Party.KONTRA, 30, 10, False),  # 0.75 < 0.7 + 0.1
        (Party.KONTRA, 36, 4, True),  # 0.9 >= 0.8
        (Party.RE, 24, 16, False),  # 0.6 < 0.7
    ],
)
def test_the_chance_a_word_needs(party: Party, won: int, lost: int, said: bool) -> None:
    observation = _first_turns()[party]
    assert observation.viewer is not None
    assert observation.parties[observation.viewer] is party
    word = _first_word(party)
    assert word in {a.word for a in observation.options.announcements}
    rollouts = _mixed(observation, won, lost)
    chance, mean = word_prices(observation, rollouts)[word]
    assert chance == won / (won + lost)
    needed = CHANCE_NEEDED[1] + (KONTRA_MARGIN if party is Party.KONTRA else 0.0)
    assert (chance >= needed) is said
    if said:  # the other condition: saying it is worth more than silence
        assert mean > silent_mean(observation, rollouts)
    assert (announcement(observation, rollouts) is not None) is said


def test_words_are_priced_on_their_own_rollouts() -> None:
    """`word_rollouts`: as many fresh deals as the budget's ``words``, each played to its
    end (12 tricks) with the viewer's chosen card first."""
    observation = _first_turns()[Party.KONTRA]
    card = observation.options.cards[-1]
    rollouts = word_rollouts(observation, CODE[card], random.Random(1), Budget(words=7))
    assert len(rollouts) == 7
    for facts in rollouts:
        assert len(facts.tricks) == 12
        leader, cards = facts.tricks[0]
        assert cards[(int(KONTRA_SEAT) - leader) % 4] == CODE[card]
