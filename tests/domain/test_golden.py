"""Golden playthroughs: one whole deal per game type, rendered by `domain.render`.

Each file ``golden/<kind>.txt`` is the first deal of a session played by the
seeded random player: ``random.Random(seed)`` draws the first dealer, then
`domain.simulation.play_deal` deals and plays the deal. The seed is in the
file's header. The test replays the seed and compares the text.

Regenerate after an intended change (then read the diff):

    DOKO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/domain/test_golden.py
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import msgspec
import pytest

from domain import replay, session
from domain.commands import DealPreset, DealSeeded, StartSession
from domain.dealing import deal_from_seed
from domain.events import (
    DealDealt,
    DealScored,
    Event,
    GameTypeFixed,
    MarriageClarified,
    SessionFinished,
)
from domain.game_types import GameType
from domain.render import hand_text, render_deal, render_session, seats_name, split_deals
from domain.seats import Seat
from domain.simulation import apply, play_deal, play_session

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("DOKO_UPDATE_GOLDEN") == "1"
EVENTS = msgspec.json.Decoder(list[Event])

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
        "# regenerate: DOKO_UPDATE_GOLDEN=1 pytest tests/domain/test_golden.py\n"
        "\n"
    )
    return header + render_deal(events)


@pytest.mark.parametrize(("name", "seed"), sorted(SEEDS.items()))
def test_golden_playthrough(name: str, seed: int) -> None:
    events = first_deal(seed)
    assert kind(events) == name, f"seed {seed} no longer plays a {name} deal: choose another"
    audit = replay.replay(events)
    assert audit.ok, audit.error
    text = golden_text(name, seed, events)
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run with DOKO_UPDATE_GOLDEN=1"
    assert path.read_text(encoding="utf-8") == text


def test_every_kind_has_a_golden_file() -> None:
    kinds = {"normal", "marriage", "marriage_alone", "silent_solo"} | {
        g.value for g in GameType if g.is_declared_solo
    }
    assert set(SEEDS) == kinds
    if not UPDATE:
        assert {p.stem for p in GOLDEN.glob("*.txt")} == kinds


# --- render.py beyond the golden files ------------------------------------------------

IN_PROGRESS = "\n(deal in progress"


@pytest.mark.parametrize("name", ["normal", "marriage", "clubs_solo"])
def test_partial_deal_renders_as_a_prefix(name: str) -> None:
    """Once the game type is fixed (and a marriage clarified) the text only grows."""
    events = first_deal(SEEDS[name])
    full = render_deal(events)
    fixed = next(
        i
        for i, e in enumerate(events)
        if isinstance(e, MarriageClarified)
        or (isinstance(e, GameTypeFixed) and e.game_type is not GameType.MARRIAGE)
    )
    for cut in range(fixed + 1, len(events) - 1):
        partial = render_deal(events[:cut])
        assert IN_PROGRESS in partial
        body, _, rest = partial.partition(IN_PROGRESS)
        assert full.startswith(body), f"cut at event {cut}"
        assert rest.startswith(": phase play, seat ")


def test_deal_in_reservations_renders() -> None:
    events = first_deal(SEEDS["normal"])
    dealt = next(i for i, e in enumerate(events) if isinstance(e, DealDealt))
    text = render_deal(events[: dealt + 2])
    assert "Reservations (R4.1)" in text
    assert text.endswith("(deal in progress: phase reservations, seat 3 to act)\n")


def test_render_needs_exactly_one_deal() -> None:
    _, log = play_session(random.Random(3))
    with pytest.raises(ValueError, match="one deal, not 12"):
        render_deal(log)
    with pytest.raises(ValueError, match="one deal, not 0"):
        render_deal(log[:1])
    assert [render_deal(d) for d in split_deals(log)] == [
        render_deal(d) for d in split_deals(EVENTS.decode(msgspec.json.encode(log)))
    ]


def test_render_session() -> None:
    _, log = play_session(random.Random(5))
    text = render_session(log)
    assert text.startswith("Session: 12 deals, first dealer seat ")
    assert [f"Deal {n}:" in text for n in range(1, 13)] == [True] * 12
    finished = log[-1]
    assert isinstance(finished, SessionFinished)
    assert text.endswith(f"; winners {seats_name(finished.winners)}\n")
    assert text == render_session(log)


def test_render_preset_deal_and_names() -> None:
    started = apply(session.SessionState(), StartSession(Seat.EAST))
    dealt = apply(started.after, DealPreset(deal_from_seed(bytes(32), Seat.EAST)))
    text = render_deal(dealt.events)
    assert "Dealing: preset\n" in text
    assert "Deal 1: dealer seat 1, seat 2 declares and leads first" in text
    mixed = apply(started.after, DealSeeded(bytes(32), (b"\x01", b"", b"\xff", b"")))
    assert "entropy: seat 0 01, seat 1 -, seat 2 ff, seat 3 -\n" in render_deal(mixed.events)
    assert seats_name([]) == "nobody" and seats_name([Seat.NORTH, Seat.WEST]) == "seats 0, 3"
    assert hand_text(deal_from_seed(bytes(32), Seat.EAST)[0], GameType.FLEISCHLOS).startswith(
        "clubs "
    )
