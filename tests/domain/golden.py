"""The golden playthrough files: how each is made, and the command that rewrites them.

Each file ``golden/<kind>.txt`` is the first deal of a session played by the
seeded random player: ``random.Random(seed)`` draws the first dealer, then
`domain.simulation.play_deal` deals and plays the deal. The seed is in the
file's header. `tests/domain/test_golden.py` only reads the files; after an
intended change, rewrite them with (then read the diff)::

    .venv/bin/python -m tests.domain.golden regenerate
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from domain import session
from domain.commands import StartSession
from domain.events import DealScored, Event
from domain.game_types import GameType
from domain.render import render_deal
from domain.seats import Seat
from domain.simulation import apply, play_deal

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = ".venv/bin/python -m tests.domain.golden regenerate"

SEEDS: dict[str, int] = {
    "normal": 1,
    "marriage": 74,
    "marriage_alone": 900,
    "silent_solo": 49,
    "diamonds_solo": 4,
    "hearts_solo": 11,
    "spades_solo": 19,
    "clubs_solo": 44,
    "queen_solo": 71,
    "jack_solo": 2,
    "fleischlos": 39,
}
"""Per kind of deal, a seed whose first deal is of that kind (most with announcements)."""


def first_deal(seed: int) -> list[Event]:
    """The events of the first deal of the session played from ``random.Random(seed)``."""
    chooser = random.Random(seed)
    started = apply(session.SessionState(), StartSession(Seat(chooser.randrange(4))))
    _, events = play_deal(started.after, chooser)
    return [*started.events, *events]


def kind(events: list[Event]) -> str:
    scored = next(e for e in events if isinstance(e, DealScored))
    if scored.score.game_type is GameType.MARRIAGE and scored.score.solo:
        return "marriage_alone"
    return scored.score.game_type.value


def golden_text(name: str, seed: int, events: list[Event]) -> str:
    header = (
        f"# golden playthrough: {name}\n"
        f"# seed: {seed}  (random.Random({seed}) draws the first dealer, then\n"
        "#   domain.simulation.play_deal deals and plays deal 1 with the random player)\n"
        f"# regenerate: {REGENERATE}\n"
        "\n"
    )
    return header + render_deal(events)


def regenerate(folder: Path = GOLDEN) -> list[Path]:
    """Rewrite every golden file from its seed; refuse a seed that no longer plays its kind."""
    folder.mkdir(exist_ok=True)
    written = []
    for name, seed in sorted(SEEDS.items()):
        events = first_deal(seed)
        if kind(events) != name:
            raise SystemExit(f"seed {seed} no longer plays a {name} deal: choose another")
        path = folder / f"{name}.txt"
        path.write_text(golden_text(name, seed, events), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    if argv != ["regenerate"]:
        print(__doc__)
        return 2
    for path in regenerate():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
