"""The duty solo (V6.3-V6.7) as the expert plans it: when to declare a solo while it owes one.

The rule. With duty solos each player must play one duty solo within the session (V6.2):
a declared solo by a player who still owes it is his duty solo (V6.3); it beats every other
contract but an earlier player's duty solo (V6.4), its soloist leads (V6.5) and it does not
count toward the session's N counted deals (V6.6). A player who still owes it once the N
counted deals are scored is vorgeführt (V6.7): he must name a solo with whatever hand he
then holds (`expert.reservations.forced_solos` chooses it).

The decision. Without the duty the expert declares a solo when its mean beats the game
without reservation by `expert.reservations.SOLO_MARGIN`. Owing it, the solo must come
anyway; the only question is whether this hand is the one. Let a hand's gain ``g`` be its
best solo's mean entry less the best mean without a solo (both by `contract_means`, the
same playouts: the forced solo's mean below is measured so too), ``k`` the counted deals
left, this one included (`domain.variants.duty_solo.counted_left`: public, from the deal
number and who owes), and take the game without a solo as worth 0 on a random hand
(zero-sum, the seats alike). Then, for the rest of the session:

- declaring now: ``g`` now; this deal does not count (V6.6), so all ``k`` counted deals
  still come, free of the duty: each worth `FREE` more than to a player who owes it (his
  voluntary solos; owing, a solo declared is the duty solo instead);
- declining: ``k - 1`` counted deals are left, owing: worth ``V(k - 1)``, with
  ``V(0)`` = `FORCED_SOLO` (vorgeführt on a random hand, V6.7) and ``V(j)`` the mean over
  the next hand of its gain if that passes the bar, else ``V(j - 1) - FREE`` (the duty
  kept; always so for a hand that carries no solo, `expert.reservations.candidates`).

So the solo is declared when ``g > V(k - 1) - FREE``: `bar`, one for each ``k`` (`BARS`).
It is lowest at the last chance, where a solo worse than the game without one is declared
if it costs less than a forced solo, and rises with the chances left; SOLO_MARGIN caps it,
so owing never asks more of a solo than a voluntary one. Not weighed: another seat's
earlier duty solo taking the deal (V6.4), or the scores so far.

The constants are a measurement: the expert's own evaluation of 2,000 hands (seeds 0-499,
all four seats, the default budget), by

    nice -n 10 taskset -c 1 .venv/bin/python bench/bench_duty_solo.py measure --deals 500
"""

from __future__ import annotations

import statistics

from domain.observations import Observation
from domain.rule_set import in_force
from domain.variants.duty_solo import LONGEST, counted_left
from expert.reservations import SOLO_MARGIN

FORCED_SOLO = -4.69
"""V6.7: the mean entry of the solo named vorgeführt on a random hand (measured as above:
95 % interval [-4.81, -4.57])."""

CARRIED = 0.573
"""The share of random hands that carry a solo (measured as above: 1,145 of 2,000)."""

FREE = 0.028
"""What a counted deal is worth more to a player who owes no duty solo: his voluntary
solos, the gain of a solo that passes SOLO_MARGIN, per hand (measured as above)."""

GAINS = (
    -9.28, -8.31, -7.89, -7.59, -7.34, -7.12, -6.92, -6.75, -6.55, -6.27,
    -6.14, -5.95, -5.78, -5.60, -5.44, -5.30, -5.12, -5.00, -4.86, -4.67,
    -4.56, -4.30, -4.11, -3.95, -3.81, -3.66, -3.47, -3.29, -3.09, -2.91,
    -2.64, -2.42, -2.10, -1.88, -1.53, -1.05, -0.62, 0.00, 0.86, 2.30,
)  # fmt: skip
"""The gains of the best solo over the best game without one on random hands that carry a
solo: their 40-quantiles (each the midpoint of a fortieth; measured as above)."""


def _owing(passes: float, kept: float) -> float:
    """A counted deal and the rest of the session, owing: the next hand's gain if it
    ``passes`` the bar, else ``kept`` (the duty kept)."""
    carried = statistics.fmean(g if g > passes else kept for g in GAINS)
    return CARRIED * carried + (1 - CARRIED) * kept


def _bars() -> tuple[float, ...]:
    """The bar for 1 to LONGEST counted deals left: ``V(k - 1) - FREE``, at most
    SOLO_MARGIN, and ``V(k)`` from the bar so used."""
    bars, owing = [], FORCED_SOLO
    for _ in range(LONGEST):
        kept = owing - FREE
        bars.append(min(SOLO_MARGIN, kept))
        owing = _owing(bars[-1], kept)
    return tuple(bars)


BARS = _bars()
"""`bar` by the counted deals left, one first."""


def bar(observation: Observation) -> float | None:
    """How much a solo must be expected to gain over the best game without one for the
    viewer to declare it now as its duty solo (see the module); None when it owes none."""
    owed = observation.duty_owed
    if not isinstance(owed, tuple) or observation.viewer not in owed:
        return None
    left = counted_left(observation.deal_no, in_force(observation.rules).session_deals, owed)
    return BARS[max(1, left) - 1]  # none left: a Vorführung (V6.7), past the last chance
