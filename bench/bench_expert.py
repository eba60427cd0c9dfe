"""The `expert` bot's decision time at its default budget, single process, one core.

    .venv/bin/python bench/bench_expert.py [--deals N] [--samples S] [--iterations I] [--solo]

Plays ``--deals`` deals in process (`domain` rules, no service): two `expert` seats
(0 and 2) against two `greedy` ones, the same deals twice with the kinds swapped, and
times every decision the expert makes (declaring, naming a contract, announcing,
playing; a turn with one legal card and nothing to announce included, as the bot
makes it). Prints the median, p90, p99 and maximum of the decision's CPU time
(`time.process_time`, so that other processes on the machine count less), the same
of its wall time, and the in-process duplicate result (A minus B points per deal per
player, 95 % interval) as a quick check of strength; `doko match` is the measure. The
deal pairs in which a solo was declared at either table are reported apart.

``--solo`` plays only deals in which some seat holds a solo hand (`solo_of`: eight trumps
of a suit solo, four of a queen or jack solo), and the `greedy` seats then declare that
solo (`greedy` never reserves otherwise): the expert meets declared solos at its
opponents' seats and weighs its own, on the same deals at both tables.
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

from domain.cards import Card
from domain.commands import (
    DealCommand,
    DealSeeded,
    Declaration,
    Declare,
    NameContract,
    StartSession,
)
from domain.game_types import SOLOS, GameType, order_of
from domain.observations import Observation
from domain.players import Chooser, greedy_action
from domain.seats import SEATS, Seat
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


SOLO_HAND = {GameType.JACK_SOLO: 4, GameType.QUEEN_SOLO: 4} | {
    g: 8 for g in SOLOS if g not in (GameType.JACK_SOLO, GameType.QUEEN_SOLO, GameType.FLEISCHLOS)
}
"""The trumps of a solo's own order that make a hand a solo hand here (the same before and
after a change of the expert)."""


def solo_of(hand: tuple[Card, ...]) -> GameType | None:
    """The solo with the most trumps of its order the hand holds enough of, if any."""
    found = [
        (sum(order_of(g).is_trump(c) for c in hand), g)
        for g, fewest in SOLO_HAND.items()
        if sum(order_of(g).is_trump(c) for c in hand) >= fewest
    ]
    return max(found)[1] if found else None


def soloing(player: Player) -> Player:
    """``player``, who declares the solo of a solo hand (`solo_of`)."""

    def act(observation: Observation, chooser: Chooser) -> DealCommand | None:
        seat = observation.viewer
        assert seat is not None
        solo = solo_of(observation.hand)
        if solo is not None and observation.options.declarations:
            return Declare(seat, Declaration.RESERVATION)
        if solo is not None and solo in observation.options.contracts:
            return NameContract(seat, solo)
        return player(observation, chooser)

    return act


def dealt(seed: int) -> SessionState:
    """The session of ``seed`` with its first deal dealt: dealer ``seed % 4``, the cards
    from ``random.Random(seed)`` (the same deal for every bench that names the seed)."""
    state = apply(SessionState(), StartSession(Seat(seed % 4))).after
    return apply(state, DealSeeded(random.Random(seed).randbytes(32))).after


def _solo_deal(seed: int) -> bool:
    """Whether some seat holds a solo hand in the deal of ``seed``."""
    deal = dealt(seed).deal
    assert deal is not None
    return any(solo_of(deal.hands[s]) is not None for s in SEATS)


def _deal(seed: int, players: list[Player]) -> tuple[tuple[int, ...], bool]:
    """One deal from ``seed``, the players' chance apart from the deal's: the entries and
    whether it was a declared solo."""
    state = dealt(seed)
    chance = random.Random(seed + 1_000_003)
    deal = state.deal
    assert deal is not None
    while deal.score is None:
        command = next_command(deal, chance, players)
        assert command is not None
        state = apply(state, command).after
        deal = state.deal
        assert deal is not None
    return deal.score.score.entries, deal.game_type in SOLOS


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--samples", type=int, default=DEFAULT_BUDGET.samples)
    parser.add_argument("--iterations", type=int, default=DEFAULT_BUDGET.iterations)
    parser.add_argument("--solo", action="store_true", help="deals with a solo hand only")
    args = parser.parse_args()
    budget = Budget(args.samples, args.iterations)
    cpu: list[float] = []
    wall: list[float] = []
    expert: Callable[..., DealCommand | None] = functools.partial(expert_action, budget=budget)
    e, g = _timed(expert, cpu, wall), soloing(greedy_action) if args.solo else greedy_action
    seeds = (s for s in range(1 << 30) if not args.solo or _solo_deal(s))
    pairs, solo_pairs = [], []
    for seed, _ in zip(seeds, range(args.deals), strict=False):
        first, solo_first = _deal(seed, [e, g, e, g])
        second, solo_second = _deal(seed, [g, e, g, e])
        value = (
            (first[0] + first[2] - first[1] - first[3])
            + (second[1] + second[3] - second[0] - second[2])
        ) / 4
        pairs.append(value)
        if solo_first or solo_second:
            solo_pairs.append(value)
        if len(pairs) % 10 == 0:
            print(_line("so far, all deal pairs", pairs), flush=True)
            print(_line("so far, a solo declared", solo_pairs), flush=True)
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
    print(_line("all deal pairs", pairs))
    print(_line("a solo declared", solo_pairs))


def _line(name: str, values: list[float]) -> str:
    """The mean of the deal pairs' values with its 95 % interval."""
    if len(values) < 2:
        return f"expert - greedy, {name}: {len(values)} deal pairs"
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return (
        f"expert - greedy in process, {name}: {mean:+.2f} points per deal per player, "
        f"95 % CI [{mean - half:+.2f}, {mean + half:+.2f}], {len(values)} deal pairs"
    )


if __name__ == "__main__":
    main()
