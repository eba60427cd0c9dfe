"""The review of a scored deal (`expert.review.review_deal`): its time per deal, one process.

    .venv/bin/python bench/bench_review.py [--deals N]

Plays ``--deals`` deals in process (two `expert` seats against two `greedy`, the deals of
`bench_expert.py`) and reviews each scored deal from its events, as a worker of the
service's pool does, timing each review: the median, p90 and maximum of its CPU time
(`time.process_time`, so that other processes on the machine count less) and wall time
per deal, and the CPU time per decision reviewed.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import get_args

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.commands import DealSeeded, StartSession
from domain.events import DealEvent
from domain.players import greedy_action
from domain.seats import Seat
from domain.session import SessionState
from domain.simulation import apply, next_command
from expert.player import expert_action
from expert.review import REVIEW_BUDGET, review_deal


def _events(seed: int) -> list[DealEvent]:
    """The events of the deal of ``seed`` (as `bench_expert.py` deals it), played to its
    score, its `DealDealt` first."""
    state = apply(SessionState(), StartSession(Seat(seed % 4))).after
    step = apply(state, DealSeeded(random.Random(seed).randbytes(32)))
    kept = get_args(DealEvent)
    events: list[DealEvent] = [e for e in step.events if isinstance(e, kept)]
    state = step.after
    chance = random.Random(seed + 1_000_003)
    players = [expert_action, greedy_action, expert_action, greedy_action]
    while state.deal is not None and state.deal.score is None:
        command = next_command(state.deal, chance, players)
        assert command is not None
        step = apply(state, command)
        events.extend(e for e in step.events if isinstance(e, kept))
        state = step.after
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10)
    args = parser.parse_args()
    cpu, wall, per_decision = [], [], []
    for seed in range(args.deals):
        events = _events(seed)
        c, w = time.process_time(), time.perf_counter()
        decisions = review_deal(events, f"bench:{seed}")
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
        per_decision.append(1000 * cpu[-1] / len(decisions))
    print(
        f"python {platform.python_version()}, {platform.machine()}, "
        f"review budget {REVIEW_BUDGET.samples} x {REVIEW_BUDGET.iterations}, {args.deals} deals"
    )
    for name, values in (("cpu", cpu), ("wall", wall)):
        print(
            f"{name:>4} per deal: median {statistics.median(values):.2f} s, "
            f"p90 {sorted(values)[int(0.9 * (len(values) - 1))]:.2f} s, max {max(values):.2f} s"
        )
    print(f"cpu per decision reviewed: median {statistics.median(per_decision):.1f} ms")


if __name__ == "__main__":
    main()
