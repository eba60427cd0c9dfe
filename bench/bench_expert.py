"""The `expert` bot's decision time at its default budget, single process, one core.

    .venv/bin/python bench/bench_expert.py [--deals N] [--samples S] [--iterations I]

Plays ``--deals`` deals in process (`domain` rules, no service): two `expert` seats
(0 and 2) against two `greedy` ones, the same deals twice with the kinds swapped, and
times every decision the expert makes (declaring, naming a contract, announcing,
playing; a turn with one legal card and nothing to announce included, as the bot
makes it). Prints the median, p90, p99 and maximum of the decision's CPU time
(`time.process_time`, so that other processes on the machine count less), the same
of its wall time, and the in-process duplicate result (A minus B points per deal per
player, 95 % interval) as a quick check of strength; `doko match` is the measure.
"""

from __future__ import annotations

import argparse
import functools
import math
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.commands import DealCommand, DealSeeded, StartSession
from domain.observations import Observation
from domain.players import Chooser, greedy_action
from domain.seats import Seat
from domain.session import SessionState
from domain.simulation import Player, apply, next_command
from expert.player import DEFAULT_BUDGET, expert_action
from expert.search import Budget

TARGET_MEDIAN_MS = 100
TARGET_P99_MS = 400


def _timed(player: Player, cpu: list[float], wall: list[float]) -> Player:
    def timed(observation: Observation, chooser: Chooser) -> DealCommand | None:
        c, w = time.process_time(), time.perf_counter()
        action = player(observation, chooser)
        if action is not None:
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
        return action

    return timed


def _deal(seed: int, players: list[Player]) -> tuple[int, ...]:
    """One deal from ``seed``, the players' chance apart from the deal's."""
    state = apply(SessionState(), StartSession(Seat(seed % 4))).after
    state = apply(state, DealSeeded(random.Random(seed).randbytes(32))).after
    chance = random.Random(seed + 1_000_003)
    deal = state.deal
    assert deal is not None
    while deal.score is None:
        command = next_command(deal, chance, players)
        assert command is not None
        state = apply(state, command).after
        deal = state.deal
        assert deal is not None
    return deal.score.score.entries


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--samples", type=int, default=DEFAULT_BUDGET.samples)
    parser.add_argument("--iterations", type=int, default=DEFAULT_BUDGET.iterations)
    args = parser.parse_args()
    budget = Budget(args.samples, args.iterations)
    cpu: list[float] = []
    wall: list[float] = []
    expert: Callable[..., DealCommand | None] = functools.partial(expert_action, budget=budget)
    e, g = _timed(expert, cpu, wall), greedy_action
    pairs = []
    for seed in range(args.deals):
        first = _deal(seed, [e, g, e, g])
        second = _deal(seed, [g, e, g, e])
        pairs.append(
            (
                (first[0] + first[2] - first[1] - first[3])
                + (second[1] + second[3] - second[0] - second[2])
            )
            / 4
        )
    print(
        f"python {platform.python_version()}, {platform.machine()}, "
        f"budget {budget.samples} x {budget.iterations}"
    )
    for name, values in (("cpu", cpu), ("wall", wall)):
        ms = [1000 * v for v in values]
        print(
            f"{name:>4}: {len(ms)} decisions, median {statistics.median(ms):.1f} ms, "
            f"p90 {_quantile(ms, 0.9):.1f} ms, p99 {_quantile(ms, 0.99):.1f} ms, "
            f"max {max(ms):.1f} ms (targets: median <= {TARGET_MEDIAN_MS}, p99 <= {TARGET_P99_MS})"
        )
    mean = statistics.fmean(pairs)
    half = 1.96 * statistics.stdev(pairs) / math.sqrt(len(pairs))
    print(
        f"expert - greedy in process: {mean:+.2f} points per deal per player, "
        f"95 % CI [{mean - half:+.2f}, {mean + half:+.2f}], {len(pairs)} deal pairs"
    )


if __name__ == "__main__":
    main()
