"""Domain throughput on this machine, single process.

    .venv/bin/python bench/bench_domain.py [--sessions N] [--repeat R] [--profile WHAT]

Prints three figures, in complete deals per second:

* play    random complete deals played: decide + evolve, the random player
          choosing from observations (`domain.simulation.play_session`);
* fold    deals replayed by `session.fold` (events -> final state and score,
          no validation);
* replay  deals replayed by the audit replay `replay.replay`, which re-decides
          every recorded action and compares the events.

The corpus is ``--sessions`` random sessions of 12 deals (seeds 0..N-1). The
fold and replay figures are the best of ``--repeat`` passes over the corpus.
``--profile play|fold|replay`` prints the top cProfile costs of that figure.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain import replay, session
from domain.events import DealScored, Event
from domain.simulation import play_session

TARGET = 3000
"""Deals per second the audit replay should reach."""


def _deals(log: list[Event]) -> int:
    return sum(isinstance(e, DealScored) for e in log)


def play(seeds: range) -> list[list[Event]]:
    return [play_session(random.Random(seed))[1] for seed in seeds]


def fold_all(logs: list[list[Event]]) -> None:
    for log in logs:
        state = session.fold(log)
        assert state.finished


def replay_all(logs: list[list[Event]]) -> None:
    for log in logs:
        result = replay.replay(log)
        assert result.ok, result.error


def best_of(repeat: int, run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def profile(run: Callable[[], object], top: int = 20) -> None:
    profiler = cProfile.Profile()
    profiler.runcall(run)
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(r"domain", top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=40, help="random sessions (12 deals)")
    parser.add_argument("--repeat", type=int, default=5, help="best of this many passes")
    parser.add_argument("--profile", choices=("play", "fold", "replay"), default=None)
    args = parser.parse_args(argv)

    seeds = range(args.sessions)
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.platform()}")

    start = time.perf_counter()
    logs = play(seeds)
    play_seconds = time.perf_counter() - start
    deals = sum(_deals(log) for log in logs)
    events = sum(len(log) for log in logs)
    print(f"corpus: {len(logs)} sessions, {deals} deals, {events} events")

    fold_seconds = best_of(args.repeat, lambda: fold_all(logs))
    replay_seconds = best_of(args.repeat, lambda: replay_all(logs))

    rows = (
        ("play", "random complete deals played (decide+evolve)", deals / play_seconds, None),
        ("fold", "deals replayed by session.fold", deals / fold_seconds, None),
        ("replay", "deals replayed by replay.replay (audit)", deals / replay_seconds, TARGET),
    )
    for name, label, rate, target in rows:
        mark = ""
        if target is not None:
            mark = f"  (target >= {target}: {'ok' if rate >= target else 'MISSED'})"
        print(f"{name:7} {rate:9.0f} deals/s  {label}{mark}")

    if args.profile == "play":
        profile(lambda: play(range(min(args.sessions, 10))))
    elif args.profile == "fold":
        profile(lambda: fold_all(logs))
    elif args.profile == "replay":
        profile(lambda: replay_all(logs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
