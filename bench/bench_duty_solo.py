"""The duty solo (V6): what the expert's planning of it is built on, and what it is worth.

    .venv/bin/python bench/bench_duty_solo.py measure [--deals N]
    .venv/bin/python bench/bench_duty_solo.py match [--sessions N] [--counted N]

``measure`` deals ``--deals`` random deals (seeds 0..N-1) and evaluates every seat's hand
as the expert does (`expert.reservations.contract_means`, default budget): for a hand that
carries a solo, the gain of its best solo over the game without reservation; and the mean
of the solo it would name if it were vorgeführt (V6.7) with that hand (a forced solo: the
best of the solos it carries, or of all solos if it carries none). It prints what
`expert.duty_solo` holds as constants: the forced solo's mean, the share of hands that
carry a solo, the gain per hand of the voluntary solos (those whose gain passes
`expert.reservations.SOLO_MARGIN`) and the gains' 40-quantiles.

``match`` plays ``--sessions`` duplicate sessions of ``--counted`` deals with duty
solos (V6.1, V6.2), seeds 0..N-1: the expert that plans its duty solo (A, seats 0 and 2)
against the expert that does not (B, `plan_duty=False`: it declares a solo while it owes
as when it owes nothing, until it is vorgeführt), then the same session with the seats
swapped; the deals of a session are dealt from the same seeds by deal number at both
tables. Prints A minus B points per deal per player with its 95 % interval.
"""

from __future__ import annotations

import argparse
import functools
import math
import random
import statistics
import sys
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.commands import DealSeeded, StartSession
from domain.game_types import SOLOS
from domain.observations import observe
from domain.rule_set import RuleSet
from domain.seats import SEATS, Seat
from domain.session import SessionState
from domain.simulation import Player, apply, next_command
from expert.player import DEFAULT_BUDGET, expert_action
from expert.reservations import SOLO_MARGIN, contract_means, forced_solos

PARTS = 40
"""The quantiles of the gains printed: `expert.duty_solo.GAINS`."""


def measure(deals: int) -> None:
    """The forced solo's mean and the gains of the solos hands carry (see the module)."""
    rules = RuleSet(session_deals=4, duty_solo=True)
    gains: list[float] = []
    forced: list[float] = []
    hands = 0
    for seed in range(deals):
        state = apply(SessionState(), StartSession(Seat(seed % 4), rules)).after
        state = apply(state, DealSeeded(random.Random(seed).randbytes(32))).after
        assert state.deal is not None
        for seat in SEATS:
            hands += 1
            seen = observe(state.deal, seat)
            rng = random.Random(seed * 4 + seat)
            means = contract_means(seen, rng, DEFAULT_BUDGET)
            solos = [m for g, m in means.items() if g in SOLOS]
            if solos:
                gains.append(max(solos) - max(m for g, m in means.items() if g not in SOLOS))
            vorgefuehrt = msgspec.structs.replace(seen, forced=seat)
            named = contract_means(vorgefuehrt, rng, DEFAULT_BUDGET, forced_solos(vorgefuehrt))
            forced.append(max(m for g, m in named.items() if g in SOLOS))
    mean = statistics.fmean(forced)
    half = 1.96 * statistics.stdev(forced) / math.sqrt(len(forced))
    print(
        f"{hands} hands: forced solo mean {mean:+.2f}, "
        f"95 % CI [{mean - half:+.2f}, {mean + half:+.2f}]"
    )
    print(f"hands carrying a solo: {len(gains)} ({len(gains) / hands:.3f})")
    free = sum(g for g in gains if g > SOLO_MARGIN) / hands
    print(f"voluntary solos' gain per hand (a gain above {SOLO_MARGIN}): {free:.3f}")
    ordered = sorted(gains)
    quantiles = [ordered[int((i + 0.5) * len(ordered) / PARTS)] for i in range(PARTS)]
    print(f"gains' {PARTS}-quantiles (midpoints):", ", ".join(f"{q:.2f}" for q in quantiles))


def session(seed: int, deals: int, players: list[Player]) -> tuple[int, ...]:
    """One session of ``seed`` with duty solos, its deals dealt from seeds by deal number:
    the totals by seat."""
    rules = RuleSet(session_deals=deals, duty_solo=True)
    chance = random.Random(seed + 1_000_003)
    state = apply(SessionState(), StartSession(Seat(seed % 4), rules)).after
    while not state.finished:
        deal_seed = random.Random(seed * 100 + len(state.sheet)).randbytes(32)
        state = apply(state, DealSeeded(deal_seed)).after
        assert state.deal is not None
        while state.deal.score is None:
            command = next_command(state.deal, chance, players)
            assert command is not None
            state = apply(state, command).after
            assert state.deal is not None
    return state.totals


def match(sessions: int, deals: int) -> None:
    """A (plans its duty solo) against B (does not), duplicate (see the module)."""
    a: Player = expert_action
    b: Player = functools.partial(expert_action, plan_duty=False)
    per_deal = 4 * (deals + len(SEATS))  # both tables' A-B sums, N + 4 deals (V6.6)
    values: list[float] = []
    for seed in range(sessions):
        first = session(seed, deals, [a, b, a, b])
        second = session(seed, deals, [b, a, b, a])
        diff = (first[0] + first[2] - first[1] - first[3]) + (
            second[1] + second[3] - second[0] - second[2]
        )
        values.append(diff / per_deal)
        if len(values) > 1:
            mean = statistics.fmean(values)
            half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
            print(
                f"A - B after {len(values)} session pairs: {mean:+.3f} points per deal per "
                f"player, 95 % CI [{mean - half:+.3f}, {mean + half:+.3f}]",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("measure", "match"))
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--counted", type=int, default=8)
    args = parser.parse_args()
    if args.what == "measure":
        measure(args.deals)
    else:
        match(args.sessions, args.counted)


if __name__ == "__main__":
    main()
