"""Determinized search: which card to play, and whether an announcement pays.

**The choice: perfect-information Monte-Carlo (PIMC) with flat rollouts at the root.**
Sievers & Helmert ("A Doppelkopf Player Based on UCT", KI 2015; silvansievers/doko,
``uct.cpp``) run UCT on about 10 determinized card assignments with 1,000 rollouts each,
in C++; FreeDoko's AI plays heuristics first and then Monte-Carlo / virtual games over
hands inferred from what was played; Information Set MCTS (Cowling, Powley & Whitehouse
2012) searches one tree over all determinizations and so avoids *strategy fusion*, but
needs many thousands of iterations before its tree means more than its root. A decision
here must take about 100 ms in Python, which buys some hundred rollouts: too few for any
tree to grow past its root, whether UCT per determinization or ISMCTS. So the tree is the
root alone: each legal card is scored by rollouts on every determinization (the same
determinizations and the same rollout seeds for every card: common random numbers, so
cards are compared on the same luck), and the card with the best mean scoresheet entry
of the viewer is played. The rollout policy is FreeDoko's lesson, a cheap heuristic
player instead of random cards (`expert.playout.policy`); the evaluator is the deal's
own score (`expert.core.outcome`, R7-R10), kept apart from both. The known weakness of
PIMC, that the rollouts see all hands, is the price of the budget; the inference
(`expert.inference`) at least never deals a hand the observation rules out.

The announcements (R6) are priced on rollouts of their own (`word_rollouts`): fresh
determinizations, one rollout each, from the card chosen. A rollout's play does not depend
on what was announced, so each finished rollout is scored again as if the party had also
said the word, which gives the chance of making it and the expected gain at stake. Not the
card search's rollouts: at the first turns those are one or two per determinization and
card, eight or sixteen for the card chosen, and the best of twelve cards' means is the one
luck favoured most, so a word priced on them was said far too often (against FreeDoko's AI
on 2026-12-03 the expert's Kontra in normal games won 44 % of the time, its Re 63 %).

Pure and reproducible: chance comes from the ``random.Random`` the caller seeds from its
chooser, and the budget is a count (determinizations x rollouts), never a clock.
"""

from __future__ import annotations

import random

import msgspec

from domain.announcements import Word
from domain.game_types import SOLOS, GameType
from domain.observations import Observation
from domain.parties import Party
from domain.seats import SEATS
from expert.core import (
    CODE,
    QC,
    Facts,
    count,
    entry,
    observed_tables,
    outcome,
    schweinchen_rank,
)
from expert.inference import played_cards, sample
from expert.playout import Position, play_out


class Budget(msgspec.Struct, frozen=True):
    """The search's budget: ``samples`` determinizations, ``iterations`` rollouts on each
    (shared among the legal cards, at least one per card), and ``words`` determinizations
    of one rollout each to price the announcements when one is allowed. The default,
    16 x 32, is four times the rollouts of the first budget (8 x 16): against FreeDoko's AI
    on the same 198 deal pairs the expert scored 0.79 points per deal per player more with
    it (95 % interval +/- 0.52; Kontra's margin came in the same step: bench/README.md), at
    a median of about 30 ms of CPU a decision, well inside the target of 100 ms."""

    samples: int = 16
    iterations: int = 32
    words: int = 48


CHANCE_NEEDED: dict[int, float] = {1: 0.7, 2: 0.8, 3: 0.88, 4: 0.94, 5: 0.98}
"""The estimated chance of winning a party needs before it adds an announcement of each
level (1 re/kontra ... 5 schwarz): a lost announcement costs the opponents' points too."""

KONTRA_MARGIN = 0.1
"""How much more chance Kontra needs for each word (R6; capped at 0.99): its estimates ran
high, against FreeDoko's AI on 2026-12-03 a Kontra priced by `word_rollouts` at 0.7 or
more won 52 % of its normal games (Re's words, 77 %)."""


class Evaluation(msgspec.Struct, frozen=True):
    """The search's answer: the best card's code and the mean entry of every searched card."""

    best: int
    means: dict[int, float]


def levels(observation: Observation) -> tuple[int, int]:
    """Re's and Kontra's announced levels (R6: words included)."""
    level = {Party.RE: 0, Party.KONTRA: 0}
    for a in observation.announcements:
        level[a.party] = max(level[a.party], *(w.level for w in a.words))
    return level[Party.RE], level[Party.KONTRA]


def position(observation: Observation, hands: tuple[int, ...]) -> Position:
    """The determinized deal: the observation with these hands (R4.4-R4.6, R5.1)."""
    game_type = observation.game_type or GameType.NORMAL
    tricks = played_cards(observation)
    qcs = [count(hands[s], QC) for s in range(4)]
    for leader, cards in tricks:
        for i, c in enumerate(cards):
            if c == QC:
                qcs[(leader + i) % 4] += 1
    marriage = None
    declarer = observation.declarer
    if game_type is GameType.NORMAL and 2 in qcs:
        game_type = GameType.SILENT_SOLO
        re, solo = frozenset({qcs.index(2)}), True
    elif game_type is GameType.NORMAL:
        re, solo = frozenset(s for s in range(4) if qcs[s]), False
    elif game_type is GameType.MARRIAGE and observation.marriage_clarified_in is None:
        assert declarer is not None
        re, solo, marriage = frozenset({int(declarer)}), False, int(declarer)
    elif game_type in (GameType.MARRIAGE, GameType.POVERTY):  # V4.5: Armut's Re is known
        re = frozenset(int(s) for s in SEATS if observation.parties[s] is Party.RE)
        solo = len(re) == 1
    else:
        assert declarer is not None and (game_type in SOLOS or game_type is GameType.SILENT_SOLO)
        re, solo = frozenset({int(declarer)}), True
    complete = tuple(tricks[: len(observation.tricks)])
    current = tricks[len(observation.tricks)] if observation.trick else None
    first = current[0] if current else observation.trick_leader  # V6.5: a duty soloist
    if first is None:  # no trick open yet
        first = observation.tricks[-1].winner if observation.tricks else observation.dealer.left()
    re_level, kontra_level = levels(observation)
    return Position(
        observed_tables(game_type, observation.rules, schweinchen_rank(observation, game_type)),
        game_type,
        hands,
        complete,
        int(first),
        current[1] if current else (),
        re,
        marriage,
        solo,
        re_level,
        kontra_level,
    )


def evaluate(observation: Observation, rng: random.Random, budget: Budget) -> Evaluation:
    """Score every legal card by rollouts on determinizations (see the module docstring)."""
    viewer = observation.viewer
    assert viewer is not None
    cards = [CODE[c] for c in observation.options.cards]
    per_card = max(1, budget.iterations // len(cards))
    totals = dict.fromkeys(cards, 0)
    for _ in range(budget.samples):
        pos = position(observation, sample(observation, rng))
        seeds = [rng.randrange(1 << 30) for _ in range(per_card)]
        for c in cards:
            for seed in seeds:
                facts = play_out(pos, c, random.Random(seed))
                totals[c] += entry(facts, int(viewer), outcome(facts)[1])
    n = budget.samples * per_card
    means = {c: totals[c] / n for c in cards}
    best = max(cards, key=lambda c: (means[c], -c))
    return Evaluation(best, means)


def word_rollouts(
    observation: Observation, card: int | None, rng: random.Random, budget: Budget
) -> tuple[Facts, ...]:
    """``budget.words`` fresh determinizations played out once each, the viewer's ``card``
    first (None: the seat to play plays by the rollout policy): what a word is priced on."""
    return tuple(
        play_out(position(observation, sample(observation, rng)), card, rng)
        for _ in range(max(1, budget.words))
    )


def word_prices(
    observation: Observation, rollouts: tuple[Facts, ...]
) -> dict[Word, tuple[float, float]]:
    """R6: for each word the viewer may say now, (the chance its party wins, the viewer's
    mean entry) if it said it, on these finished rollouts (scored again with the word)."""
    viewer = observation.viewer
    assert viewer is not None
    party = observation.parties[viewer]
    assert party is not None  # a seat that may announce knows its party (R6.9)
    side = 1 if party is Party.RE else -1
    prices = {}
    for allowance in observation.options.announcements:
        level = allowance.word.level
        said = [
            msgspec.structs.replace(f, re_level=level)
            if side == 1
            else msgspec.structs.replace(f, kontra_level=level)
            for f in rollouts
        ]
        wins = sum(outcome(f)[0] == side for f in said) / len(said)
        prices[allowance.word] = wins, sum(_entry(f, int(viewer)) for f in said) / len(said)
    return prices


def silent_mean(observation: Observation, rollouts: tuple[Facts, ...]) -> float:
    """The viewer's mean entry on these finished rollouts, saying nothing more."""
    assert observation.viewer is not None
    return sum(_entry(f, int(observation.viewer)) for f in rollouts) / len(rollouts)


def announcement(observation: Observation, rollouts: tuple[Facts, ...]) -> Word | None:
    """R6: the highest allowed word whose estimated chance of winning on ``rollouts``
    (`word_rollouts`) reaches `CHANCE_NEEDED` for its level and whose expected entry beats
    saying nothing."""
    viewer = observation.viewer
    assert viewer is not None
    base = silent_mean(observation, rollouts)
    kontra = observation.parties[viewer] is Party.KONTRA
    chosen = None
    for word, (chance, mean) in word_prices(observation, rollouts).items():
        needed = min(0.99, CHANCE_NEEDED[word.level] + KONTRA_MARGIN * kontra)
        if chance >= needed and mean > base:
            chosen = word
    return chosen


def _entry(facts: Facts, seat: int) -> int:
    return entry(facts, seat, outcome(facts)[1])
