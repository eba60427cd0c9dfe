"""Reservations and contracts (R4, R5): a solo or a marriage when the hand is worth it.

The hand is evaluated, not drawn by chance: every contract the hand could carry (a solo
with the cards it takes, `expert.soloist`, a marriage with both QC) and the game without
reservation (normal, or a silent solo with both QC, R4.5) are played out on the same
determinizations with the same rollout seeds, and the contract with the best mean
scoresheet entry wins; a solo must beat the game without reservation by `SOLO_MARGIN`,
since its entries count three times (R10.2) and the rollouts are optimistic.
"""

from __future__ import annotations

import random

from domain.cards import Card
from domain.game_types import SOLOS, GameType
from domain.observations import Observation
from expert.core import (
    QC,
    count,
    entry,
    mask_of,
    observed_tables,
    outcome,
    schweinchen_rank,
)
from expert.inference import sample
from expert.playout import Position, play_out
from expert.search import Budget, position
from expert.soloist import SOLO_TRUMPS, carries

SOLO_MARGIN = 1.5
"""How much more a solo must be expected to score than the game without reservation."""


def candidates(hand: tuple[Card, ...]) -> list[GameType]:
    """The contracts worth playing out for this hand: a solo it carries
    (`expert.soloist.carries`, R5.2-R5.5), a marriage with both QC (R4.2)."""
    found = [g for g in (*SOLO_TRUMPS, GameType.FLEISCHLOS) if carries(hand, g)]
    if count(mask_of(list(hand)), QC) == 2:
        found.append(GameType.MARRIAGE)
    return found


def forced_solos(observation: Observation) -> list[GameType] | None:
    """V6.7: vorgeführt, the solos to play out: those the hand carries, or every solo if it
    carries none (a solo must be named); None (the `candidates`) otherwise."""
    if observation.forced is not observation.viewer:
        return None
    carried = [g for g in candidates(observation.hand) if g in SOLOS]
    return carried or [g for g in GameType if g in SOLOS]


def _start(observation: Observation, game_type: GameType, hands: tuple[int, ...]) -> Position:
    """The deal before its first lead, played as ``game_type`` by the viewer."""
    viewer = observation.viewer
    assert viewer is not None
    owed = observation.duty_owed
    duty = game_type in SOLOS and isinstance(owed, tuple) and viewer in owed
    first = int(viewer if duty else observation.dealer.left())  # V6.5: a duty solo's soloist
    if game_type is GameType.NORMAL:
        return position(observation, hands)
    marriage = int(viewer) if game_type is GameType.MARRIAGE else None
    return Position(
        observed_tables(game_type, observation.rules, schweinchen_rank(observation, game_type)),
        game_type,
        hands,
        (),
        first,
        (),
        frozenset({int(viewer)}),
        marriage,
        game_type in SOLOS,
        0,
        0,
    )


def contract_means(
    observation: Observation,
    rng: random.Random,
    budget: Budget,
    contracts: list[GameType] | None = None,
) -> dict[GameType, float]:
    """The mean entry of every contract (by default the `candidates`) and of
    `GameType.NORMAL` (no reservation)."""
    viewer = observation.viewer
    assert viewer is not None
    games = [GameType.NORMAL, *(candidates(observation.hand) if contracts is None else contracts)]
    if len(games) == 1:
        return {GameType.NORMAL: 0.0}
    totals = dict.fromkeys(games, 0)
    per_sample = max(1, budget.iterations // len(games))
    for _ in range(budget.samples):
        hands = sample(observation, rng)
        seeds = [rng.randrange(1 << 30) for _ in range(per_sample)]
        for game_type in games:
            start = _start(observation, game_type, hands)
            for seed in seeds:
                facts = play_out(start, None, random.Random(seed))
                totals[game_type] += entry(facts, int(viewer), outcome(facts)[1])
    n = budget.samples * per_sample
    return {g: totals[g] / n for g in games}


def best_contract(means: dict[GameType, float]) -> GameType | None:
    """The contract to name, or None to play without reservation."""
    normal = means[GameType.NORMAL]
    best, best_mean = None, normal
    for game_type, mean in means.items():
        margin = SOLO_MARGIN if game_type in SOLOS else 0.0
        if game_type is not GameType.NORMAL and mean > best_mean and mean > normal + margin:
            best, best_mean = game_type, mean
    return best


def duty_contract(means: dict[GameType, float], bar: float) -> GameType | None:
    """V6.3: owing the duty solo, the contract to name: the best solo if its mean beats the
    best game without a solo by ``bar`` (`expert.duty_solo.bar`), else what `best_contract`
    names without the solos (a solo declared now would be the duty solo, so it is weighed
    against the best of the others, not with SOLO_MARGIN)."""
    others = {g: m for g, m in means.items() if g not in SOLOS}
    solos = [g for g in means if g in SOLOS]
    solo = max(solos, key=means.__getitem__, default=None)
    if solo is not None and means[solo] > max(others.values()) + bar:
        return solo
    return best_contract(others)
