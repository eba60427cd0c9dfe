"""Golden playthroughs: one whole deal per game type, rendered by `domain.render`.

The test replays each file's seed (`tests.domain.golden`) and compares the text with
the file; it never writes a file. Regenerating is a separate command, run by hand after
an intended change (then read the diff):

    .venv/bin/python -m tests.domain.golden regenerate
"""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import pytest

from domain import replay, session
from domain.commands import DealPreset, DealSeeded, StartSession
from domain.dealing import deal_from_seed
from domain.events import (
    DealDealt,
    Event,
    GameTypeFixed,
    MarriageClarified,
    SessionFinished,
    TrickWon,
)
from domain.game_types import GameType
from domain.render import hand_text, render_deal, render_session, seats_name, split_deals
from domain.seats import Seat
from domain.simulation import apply, play_session
from tests.domain.golden import GOLDEN, REGENERATE, SEEDS, first_deal, golden_text, kind, regenerate

EVENTS = msgspec.json.Decoder(list[Event])


@pytest.mark.parametrize(("name", "seed"), sorted(SEEDS.items()))
def test_golden_playthrough(name: str, seed: int) -> None:
    events = first_deal(seed)
    assert kind(events) == name, f"seed {seed} no longer plays a {name} deal: choose another"
    audit = replay.replay(events)
    assert audit.ok, audit.error
    path = GOLDEN / f"{name}.txt"
    assert path.exists(), f"{path} missing: run {REGENERATE}"
    assert path.read_text(encoding="utf-8") == golden_text(name, seed, events), (
        f"{path.name} differs; after an intended change run {REGENERATE} and read the diff"
    )


def test_the_regenerate_command_writes_the_files_the_test_reads(tmp_path: Path) -> None:
    """The command run by hand writes exactly the committed files (into another folder)."""
    written = regenerate(tmp_path / "golden")
    assert sorted(p.name for p in written) == sorted(p.name for p in GOLDEN.glob("*.txt"))
    for path in written:
        assert path.read_text(encoding="utf-8") == (GOLDEN / path.name).read_text("utf-8")


def test_every_kind_has_a_golden_file() -> None:
    kinds = {"normal", "marriage", "marriage_alone", "silent_solo"} | {
        g.value for g in GameType if g.is_declared_solo
    }
    assert set(SEEDS) == kinds
    assert {p.stem for p in GOLDEN.glob("*.txt")} == kinds


# --- render.py beyond the golden files ------------------------------------------------

IN_PROGRESS = "\n(deal in progress"


@pytest.mark.parametrize("name", ["normal", "marriage", "clubs_solo"])
def test_partial_deal_renders_as_a_prefix(name: str) -> None:
    """Once the game type is fixed (and a marriage clarified) the text only grows; between a
    trick's fourth card and its `TrickWon` nobody is to act."""
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
        complete = isinstance(events[cut], TrickWon)
        assert rest.startswith(": phase play)" if complete else ": phase play, seat ")


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
