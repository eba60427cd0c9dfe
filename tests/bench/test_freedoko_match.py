"""The FreeDoko match's side of the line protocol (bench/freedoko_match.py), against a
test double of the driver: its lines parsed, the seats mapped, the deals scheduled to
both tables, a game refereed and scored by our rules, and FreeDoko's departures from
them voiding the game. FreeDoko itself is not run here (it is never part of the repo)."""

from __future__ import annotations

import random
import sys
from itertools import count
from pathlib import Path

import pytest

from bench import freedoko_match
from bench.bench_expert import dealt
from bench.freedoko_match import (
    BOTS,
    REMOTE,
    Game,
    Message,
    Schedule,
    parse,
    table_for,
)
from domain.commands import Announce, PlayCard
from domain.observations import observe
from domain.players import greedy_action
from domain.seats import SEATS, Seat


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("deal 2\n", Message("deal", 2)),
        ("reservation? 1", Message("reservation?", 1)),
        ("announce? 3", Message("announce?", 3)),
        ("play? 1", Message("play?", 1)),
        ("reserved 0 clubs_solo", Message("reserved", 0, ("clubs_solo",))),
        ("game normal -1", Message("game", -1, ("normal", "-1"))),
        ("game spades_solo 2", Message("game", -1, ("spades_solo", "2"))),
        ("played 2 10H", Message("played", 2, ("10H",))),
        ("announced 0 no90", Message("announced", 0, ("no90",))),
        ("rejected", Message("rejected")),
        ("end", Message("end")),
        ("", None),
        ("runtime", None),
        ("     764: ai choosebestcard", None),
        ("ready profi 13", None),
    ],
)
def test_parse(line: str, message: Message | None) -> None:
    assert parse(line) == message


@pytest.mark.parametrize(
    ("start", "leader", "table"),
    [(0, 1, 0), (1, 1, 1), (2, 1, 0), (1, 0, 0), (3, 0, 0), (0, 0, 1), (3, 2, 0)],
)
def test_table_for(start: int, leader: int, table: int) -> None:
    """Table 0 puts our bot at seats 0 and 2: the driver's players 1 and 3 there."""
    assert table_for(start, Seat(leader)) == table


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("start", range(4))
def test_seats_and_hands(seed: int, start: int) -> None:
    """Each driver's player gets the hand of its seat; our bot sits at REMOTE; the first
    leader (R3.5) is FreeDoko's start player."""
    deal = dealt(seed).deal
    assert deal is not None
    table = table_for(start, deal.first)
    game = Game(seed, table, start, BOTS["greedy"])
    words = game.hands().split()
    assert words[0] == "hands"
    assert game.player(deal.first) == start
    for p in range(4):
        seat = game.seat(p)
        assert game.player(seat) == p
        assert words[1 + p].split(",") == [c.value for c in deal.hands[seat]]
    bot_seats = {s for s in SEATS if s % 2 == table}
    assert {game.player(s) for s in bot_seats} == set(REMOTE)


def test_schedule_plays_both_tables_of_a_deal_in_turn() -> None:
    """FreeDoko's start player moves one to the left each game: the two tables of a deal
    follow each other."""
    schedule = Schedule(count(10))
    taken = [schedule.take(start % 4) for start in range(8)]
    assert [seed for seed, _ in taken] == [10, 10, 11, 11, 12, 12, 13, 13]
    assert all({taken[i][1], taken[i + 1][1]} == {0, 1} for i in range(0, 8, 2))
    assert schedule.pending == []


def _double(game: Game, rng: random.Random) -> None:
    """The driver's test double for one game: FreeDoko's players played by `greedy` (any
    legal player does), ours asked through `Game.answer`, everything reported back."""
    deal = game.state.deal
    assert deal is not None
    for i in range(4):
        p = (game.start + i) % 4
        said = game.answer(Message("reservation?", p)) if p in REMOTE else "normal"
        game.hear(Message("reserved", p, (said,)))
    deal = game.state.deal
    assert deal is not None and deal.game_type is not None
    game.hear(Message("game", -1, (deal.game_type.value, "-1")))
    while deal.score is None and game.void is None:
        seat = deal.turn
        assert seat is not None
        p = game.player(seat)
        if p in REMOTE:
            answer = game.answer(Message("play?", p))
            if answer.startswith("announce "):
                game.hear(Message("announced", p, (answer.split()[1],)))
            else:
                game.hear(Message("played", p, (answer,)))
        else:
            action = greedy_action(observe(deal, seat), rng)
            if isinstance(action, Announce):
                game.hear(Message("announced", p, (action.word.value,)))
            else:
                assert isinstance(action, PlayCard)
                game.hear(Message("played", p, (action.card.value,)))
        deal = game.state.deal
        assert deal is not None


@pytest.mark.parametrize("seed", range(6))
def test_a_game_is_refereed_and_scored_by_our_rules(seed: int) -> None:
    """R10: a game played through the protocol ends scored, its entries summing to 0."""
    leader = Seat(seed % 4).left()
    start = next(s for s in range(4) if table_for(s, leader) == seed % 2)
    game = Game(seed, seed % 2, start, BOTS["greedy"])
    _double(game, random.Random(seed))
    assert game.void is None
    entries = game.entries()
    assert entries is not None and sum(entries) == 0


def _first_game() -> Game:
    deal = dealt(3).deal
    assert deal is not None
    return Game(3, table_for(0, deal.first), 0, BOTS["greedy"])


def test_a_card_freedoko_does_not_hold_voids_the_game() -> None:
    game = _first_game()
    for p in range(4):
        game.hear(Message("reserved", p, ("normal",)))
    deal = game.state.deal
    assert deal is not None and deal.turn is not None
    foreign = next(
        c for s in SEATS if s != deal.turn for c in deal.hands[s] if c not in deal.hands[deal.turn]
    )
    game.hear(Message("played", game.player(deal.turn), (foreign.value,)))
    assert game.void is not None and game.void.startswith("FreeDoko's PlayCard rejected")
    assert game.answer(Message("play?", REMOTE[0])) == "ai"


@pytest.mark.parametrize(
    "lines",
    [
        [Message("rejected")],
        [Message("reserved", p, ("normal",)) for p in range(4)]
        + [Message("game", -1, ("clubs_solo", "0"))],
        [Message("reserved", 0, ("poverty",))],
    ],
)
def test_a_difference_from_our_rules_voids_the_game(lines: list[Message]) -> None:
    game = _first_game()
    for message in lines:
        game.hear(message)
    assert game.void is not None
    assert game.answer(Message("reservation?", REMOTE[1])) == "ai"


@pytest.mark.parametrize("given", [False, True], ids=["default", "stall_seconds"])
def test_a_stalled_driver_is_restarted_and_its_game_void(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: bool
) -> None:
    """A driver that starts a game and then says nothing (FreeDoko's AI looping) has that
    game voided and is started afresh; the log keeps the void games. (The double stalls
    until its input ends: the last one, never given a game, ends when the match closes it.)
    The bound is `STALL_SECONDS`, or the run's own (``--stall-seconds``)."""
    fake = tmp_path / "driver"
    fake.write_text(
        f"#!{sys.executable}\nimport sys\nprint('deal 0', flush=True)\nsys.stdin.read()\n"
    )
    fake.chmod(0o755)
    if not given:
        monkeypatch.setattr(freedoko_match, "STALL_SECONDS", 0.2)
    log = tmp_path / "log"
    stall = 0.2 if given else None
    outcome = freedoko_match.play(str(fake), "profi", "greedy", [7, 8], 1, log, stall)
    assert outcome.values == []
    assert outcome.void == {"FreeDoko's AI stalled (0 s without a word)": 2}
    assert [line.split()[:2] for line in log.read_text().splitlines()] == [
        ["void", "7"],
        ["void", "8"],
    ]
    assert freedoko_match.summarize([log]).void == outcome.void


@pytest.mark.parametrize("seed", range(4))
def test_a_scored_game_is_logged_with_its_contract_parties_words_and_entries(
    tmp_path: Path, seed: int
) -> None:
    """The log's ``game`` line: per seat who played it (our bot at the seats of the
    table's parity), its party, its words and its scoresheet entry, as the refereed deal
    has them; `summarize` reads only the pairs and void games around it."""
    leader = Seat(seed % 4).left()
    start = next(s for s in range(4) if table_for(s, leader) == seed % 2)
    game = Game(seed, seed % 2, start, BOTS["greedy"])
    _double(game, random.Random(seed))
    deal = game.state.deal
    assert deal is not None and deal.score is not None and deal.game_type is not None
    log = tmp_path / "log"
    tally = freedoko_match.Tally(log)
    tally.add(game)
    line = log.read_text().split()
    assert line[:4] == ["game", str(seed), str(seed % 2), deal.game_type.value]
    for seat, field in zip(SEATS, line[5:], strict=True):
        kind, party, words, entry = field.split(":")
        assert kind == ("o" if seat % 2 == seed % 2 else "f")
        assert party == deal.parties[seat]
        said = [a.word.value for a in deal.announcements if a.seat == seat]
        assert words == ("+".join(said) or "-")
        assert int(entry) == deal.score.score.entries[seat]
    summary = freedoko_match.summarize([log])
    assert summary.values == []
    speakers = {a.seat for a in deal.announcements}
    assert sum(summary.said.values()) == len(speakers)
    assert sum(summary.won.values()) == sum(deal.score.score.entries[s] > 0 for s in speakers)


def test_the_words_are_counted_by_side_party_word_and_kind(tmp_path: Path) -> None:
    """`summarize` counts each seat's highest word, won when its entry is above 0."""
    log = tmp_path / "log"
    log.write_text(
        "game 1 0 normal - o:re:re+no90:5 f:kontra:-:-5 o:re:-:5 f:kontra:kontra:-5\n"
        "pair 1 2.0\n"
        "game 2 1 clubs_solo 3 f:kontra:-:-3 o:kontra:kontra:-3 f:kontra:-:-3 o:re:re:9\n"
        "game 3 0 normal - o:re:re:-4 f:re:re:-4 o:kontra:-:4 f:kontra:-:4\n"
    )
    summary = freedoko_match.summarize([log])
    assert summary.values == [2.0]
    assert summary.said == {
        ("ours", "re", "no90", "normal"): 1,
        ("FreeDoko", "kontra", "kontra", "normal"): 1,
        ("ours", "kontra", "kontra", "solo"): 1,
        ("ours", "re", "re", "solo"): 1,
        ("ours", "re", "re", "normal"): 1,
        ("FreeDoko", "re", "re", "normal"): 1,
    }
    assert +summary.won == {("ours", "re", "no90", "normal"): 1, ("ours", "re", "re", "solo"): 1}
