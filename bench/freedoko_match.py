"""A duplicate match of one of our bots against FreeDoko's AI, FreeDoko run as a separate program.

    .venv/bin/python bench/freedoko_match.py DRIVER [--bot expert|greedy] [--pairs N]
        [--workers W] [--level profi|profi_aggressive] [--first-seed S]

``DRIVER`` is the line driver around FreeDoko (GPL): a separate executable that
bench/freedoko/build.py builds, from FreeDoko's source and the driver's (bench/freedoko/,
GPL-2.0-or-later), into a folder outside the repository (bench/README.md, "FreeDoko"). It seats
FreeDoko's AI at its players 0 and 2 and asks us, over a line protocol on its standard
input and output, for everything its players 1 and 3 do, and for the hands of each game.

Every deal (`bench_expert.dealt`: dealer ``seed % 4``, the cards from the seed) is played
twice: our bot at seats 0 and 2 and FreeDoko at 1 and 3, then the other way round. Our
domain is the referee: every card, reservation and announcement of either side is applied
to a `SessionState` by our rules, and the deal is scored by them (R7-R10). A deal pair's
value is `service.tools.match.pair_value` (our bot's mean entry minus FreeDoko's), the
result the mean and 95 % interval of `service.tools.match.interval`, per deal per player.

A game in which FreeDoko does something our rules reject (or rejects what our bot does)
is void; its deal pair is left out and counted by reason. Each worker runs its own driver.

``--log LOG`` appends to ``LOG.<worker>`` each scored game (``game SEED TABLE CONTRACT
DECLARER`` and per seat ``o|f:PARTY:WORDS:ENTRY``), each deal pair's value and each void
game; ``--summarize LOG...`` reports the logs: the figure, the void games, and how often
each side's words were said and won (by party, highest word, and normal, marriage or solo).
"""

from __future__ import annotations

import argparse
import queue
import random
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_expert import dealt
from domain.announcements import Word
from domain.cards import Card
from domain.commands import Announce, DealCommand, Declaration, Declare, NameContract, PlayCard
from domain.errors import DomainError
from domain.game_types import CONTRACTS, GameType
from domain.observations import Observation, observe, options
from domain.players import Chooser, greedy_action
from domain.seats import SEATS, Seat
from domain.session import SessionState
from domain.simulation import Player, apply
from expert.player import DEFAULT_BUDGET, expert_action
from expert.reservations import best_contract, contract_means
from service.tools.match import interval, pair_value

REMOTE = (1, 3)
"""The driver's players whose decisions it asks for; FreeDoko's AI plays 0 and 2."""

QUESTIONS = frozenset({"deal", "reservation?", "announce?", "play?"})
"""The driver's lines that wait for an answer; every other known line only informs."""

NEWS = frozenset({"reserved", "game", "played", "announced", "marriage", "rejected", "end"})


class Message(msgspec.Struct, frozen=True):
    """One line of the driver: its verb, the driver's player it concerns (-1 for none)
    and the rest of its words."""

    verb: str
    player: int = -1
    words: tuple[str, ...] = ()


def parse(line: str) -> Message | None:
    """The protocol message of a driver's line; None for any other output (FreeDoko's own
    diagnostics, which the driver does not silence)."""
    words = line.split()
    if not words or words[0] not in QUESTIONS | NEWS:
        return None
    if len(words) > 1 and words[1].lstrip("-").isdigit():
        return Message(words[0], int(words[1]), tuple(words[2:]))
    return Message(words[0], -1, tuple(words[1:]))


def table_for(start: int, leader: Seat) -> int:
    """The table a game with FreeDoko's start player ``start`` can be: 0 when our bot then
    sits at seats 0 and 2 (our seat ``s`` is the driver's ``(s - leader + start) % 4``,
    the bot's are its players 1 and 3), else 1."""
    return 0 if (start - leader) % 2 == 1 else 1


class Bot(msgspec.Struct, frozen=True):
    """One of our bots: its actions, and the contract it names when it reserves (FreeDoko
    asks for a reservation with its contract at once)."""

    act: Player
    contract: Callable[[Observation, Chooser], GameType | None]


def _expert_contract(observation: Observation, chooser: Chooser) -> GameType | None:
    """The contract the expert reserves for (its `expert_action` at the declaration)."""
    rng = random.Random(chooser.randrange(1 << 30))
    return best_contract(contract_means(observation, rng, DEFAULT_BUDGET))


def _never(observation: Observation, chooser: Chooser) -> GameType | None:
    """`greedy` never reserves."""
    return None


BOTS = {"expert": Bot(expert_action, _expert_contract), "greedy": Bot(greedy_action, _never)}


class Game:
    """One game at the driver, refereed by our domain: the deal of ``seed`` at ``table``."""

    def __init__(self, seed: int, table: int, start: int, bot: Bot) -> None:
        self.seed, self.table = seed, table
        self.state: SessionState = dealt(seed)
        deal = self.state.deal
        assert deal is not None
        self.leader = deal.first
        self.start = start
        self.bot = bot
        self.bot_seats = {Seat(s) for s in SEATS if s % 2 == table}
        assert {self.player(s) for s in self.bot_seats} == set(REMOTE), "table_for"
        self.chooser = random.Random(2 * seed + table)
        self.contracts: dict[Seat, GameType] = {}
        self.void: str | None = None
        self.moves = 0
        self.ready: tuple[Seat, int, DealCommand] | None = None

    def seat(self, player: int) -> Seat:
        """Our seat of the driver's player."""
        return Seat((player - self.start + self.leader) % 4)

    def player(self, seat: Seat) -> int:
        """The driver's player at our seat."""
        return (seat - self.leader + self.start) % 4

    def hands(self) -> str:
        """The answer to ``deal``: the hands of the driver's players 0-3."""
        deal = self.state.deal
        assert deal is not None
        return "hands " + " ".join(
            ",".join(card.value for card in deal.hands[self.seat(p)]) for p in range(4)
        )

    def entries(self) -> tuple[int, ...] | None:
        """The scoresheet entries by our seat once the deal is scored (R10)."""
        deal = self.state.deal
        assert deal is not None
        return None if deal.score is None else deal.score.score.entries

    def summary(self) -> str:
        """A scored game's ``game`` line: seed, table, contract, then per seat (0-3) who
        played it (``o`` our bot, ``f`` FreeDoko), its party, its words and its entry."""
        deal = self.state.deal
        assert deal is not None and deal.score is not None and deal.game_type is not None
        words: dict[Seat, list[str]] = {s: [] for s in SEATS}
        for a in deal.announcements:
            words[a.seat].append(a.word.value)
        seats = " ".join(
            f"{'o' if s in self.bot_seats else 'f'}:{party.value if party else '-'}"
            f":{'+'.join(words[s]) or '-'}:{deal.score.score.entries[s]}"
            for s, party in zip(SEATS, deal.parties, strict=True)
        )
        declarer = "-" if deal.declarer is None else int(deal.declarer)
        return f"game {self.seed} {self.table} {deal.game_type.value} {declarer} {seats}"

    def _apply(self, command: DealCommand) -> None:
        """Apply a command by our rules; one they reject voids the game, naming whose it was."""
        if self.void is not None:
            return
        try:
            self.state = apply(self.state, command).after
        except DomainError as error:
            side = "ours" if command.seat in self.bot_seats else "FreeDoko's"
            self.void = f"{side} {type(command).__name__} rejected: {type(error).__name__}"
        self.moves += 1

    def _name_contracts(self) -> None:
        """R4.2: once all four declared, each reserving seat names its contract."""
        deal = self.state.deal
        assert deal is not None
        naming = [s for s in SEATS if options(deal, s).contracts]
        while naming and self.void is None:
            seat = naming[0]
            if seat not in self.contracts:
                self.void = "a reservation without a contract of ours"
                return
            self._apply(NameContract(seat, self.contracts[seat]))
            deal = self.state.deal
            assert deal is not None
            naming = [s for s in SEATS if options(deal, s).contracts]

    def hear(self, message: Message) -> None:
        """Apply what the driver reports; a difference from our rules voids the game."""
        if message.verb == "rejected":
            self.void = self.void or "FreeDoko rejected our bot's move"
        elif message.verb == "reserved":
            seat, said = self.seat(message.player), message.words[0]
            if said != GameType.NORMAL.value and seat not in self.bot_seats:
                contract = next((g for g in CONTRACTS if g.value == said), None)
                if contract is None:  # R4.2: e.g. FreeDoko's poverty, not played here
                    self.void = self.void or f"FreeDoko reserved for {said}"
                else:
                    self.contracts[seat] = contract
            healthy = said == GameType.NORMAL.value
            self._apply(Declare(seat, Declaration.HEALTHY if healthy else Declaration.RESERVATION))
            self._name_contracts()
        elif message.verb == "game":
            self._check_game(message.words[0])
        elif message.verb == "played":
            self._apply(PlayCard(self.seat(message.player), Card.parse(message.words[0])))
        elif message.verb == "announced":
            try:
                word = Word(message.words[0])
            except ValueError:
                self.void = self.void or f"FreeDoko announced {message.words[0]}"
                return
            self._apply(Announce(self.seat(message.player), word))

    def _check_game(self, theirs: str) -> None:
        """R4.3-R4.5: the game FreeDoko starts is the one our rules made of the same
        reservations (a silent solo looks normal to FreeDoko until played)."""
        deal = self.state.deal
        assert deal is not None
        ours = deal.game_type.value if deal.game_type is not None else None
        silent = {GameType.NORMAL.value, GameType.SILENT_SOLO.value}
        if self.void is None and theirs != ours and {theirs, ours} != silent:
            self.void = f"game type {theirs} at FreeDoko, {ours} here"

    def _action(self, seat: Seat) -> DealCommand | None:
        """Our bot's action at ``seat`` now; a card chosen when FreeDoko asked for
        announcements is kept for its question for the card (nothing happened between)."""
        if self.ready is not None and self.ready[:2] == (seat, self.moves):
            return self.ready[2]
        deal = self.state.deal
        assert deal is not None
        action = self.bot.act(observe(deal, seat), self.chooser)
        if isinstance(action, PlayCard):
            self.ready = (seat, self.moves, action)
        return action

    def answer(self, message: Message) -> str:
        """The answer to one of the driver's questions about our bot's seats; "ai" hands a
        void game's rest to FreeDoko's AI."""
        if self.void is not None:
            return "ai"
        seat = self.seat(message.player)
        deal = self.state.deal
        assert deal is not None
        if message.verb == "reservation?":
            contract = self.bot.contract(observe(deal, seat), self.chooser)
            if contract is None:
                return GameType.NORMAL.value
            self.contracts[seat] = contract
            return contract.value
        action = self._action(seat)
        if isinstance(action, Announce):
            return action.word.value if message.verb == "announce?" else f"announce {action.word}"
        if message.verb == "announce?":
            return "none"
        if isinstance(action, PlayCard):
            return action.card.value
        self.void = "our bot did not play when FreeDoko asked"
        return "ai"


class Schedule:
    """Which deal and table each game at the driver plays. FreeDoko picks the start
    player (one to the left each game); whichever table of a pending deal fits it is
    played, else the next seed's. Both tables of a deal usually follow each other."""

    def __init__(self, seeds: Iterator[int]) -> None:
        self.seeds = seeds
        self.pending: list[tuple[int, int, Seat]] = []

    def take(self, start: int) -> tuple[int, int]:
        """The seed and table of the next game, given FreeDoko's start player."""
        for i, (seed, table, leader) in enumerate(self.pending):
            if table_for(start, leader) == table:
                del self.pending[i]
                return seed, table
        seed = next(self.seeds)
        deal = dealt(seed).deal
        assert deal is not None
        table = table_for(start, deal.first)
        self.pending.append((seed, 1 - table, deal.first))
        return seed, table


class Outcome(msgspec.Struct):
    """A worker's result: each complete deal pair's value and the void games by reason;
    from a log's ``game`` lines (`summarize`), how many seats said each word (`said`) and
    how many of them won (`won`), keyed as `_words` keys them."""

    values: list[float] = msgspec.field(default_factory=list)
    void: Counter[str] = msgspec.field(default_factory=Counter)
    said: Counter[tuple[str, str, str, str]] = msgspec.field(default_factory=Counter)
    won: Counter[tuple[str, str, str, str]] = msgspec.field(default_factory=Counter)


def _contract(game_type: str) -> str:
    """A game's kind for the words' table: normal, marriage or solo (silent included)."""
    plain = (GameType.NORMAL.value, GameType.MARRIAGE.value)
    return game_type if game_type in plain else "solo"


def _words(outcome: Outcome, game: list[str]) -> None:
    """Count a ``game`` line's words: per seat that said any, keyed by who played it
    (ours, FreeDoko), its party, its highest word and the game's kind; won if its
    entry is above 0."""
    contract = _contract(game[2])
    for field in game[4:]:
        kind, party, words, entry = field.split(":")
        if words == "-":
            continue
        key = ("ours" if kind == "o" else "FreeDoko", party, words.split("+")[-1], contract)
        outcome.said[key] += 1
        outcome.won[key] += int(entry) > 0


STALL_SECONDS = 900.0
"""A game whose driver says nothing this long (wall time, on a loaded machine) is given
up and the driver started afresh: FreeDoko's AI can loop for ever (in its
`Heuristics::best_jabbing_card`: about one deal in 400). ``--stall-seconds`` sets it for a
run (a game takes well under a second on a machine that is not overloaded)."""


class Driver:
    """One driver process, and a thread that reads its lines (so that a stall is seen)."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def line(self, playing: bool, stall: float) -> str | None:
        """The driver's next line, None once it ended; `queue.Empty` after a stall: a game
        (``playing``) without a word for ``stall`` seconds. Between games (a driver starting)
        it waits as long as the driver takes: a slow start is no stall."""
        return self.lines.get(timeout=stall if playing else None)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        """End the driver: the end of its input ends it, a stalled one is killed."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Tally:
    """A worker's finished games: the tables of each deal so far, and the outcome."""

    def __init__(self, log: Path | None) -> None:
        self.log = log
        self.outcome = Outcome()
        self.tables: dict[int, dict[int, tuple[int, ...] | None]] = {}

    def _note(self, line: str) -> None:
        if self.log is not None:
            with self.log.open("a") as out:
                print(line, file=out)

    def add(self, game: Game) -> None:
        """Record a finished game (void: its entries None); a deal with both tables
        scored becomes a deal pair."""
        entries = game.entries()
        if game.void is None and entries is None:
            game.void = "not scored by our rules"
        if game.void is not None:
            self.outcome.void[game.void] += 1
            self._note(f"void {game.seed} {game.void}")
            entries = None
        else:
            self._note(game.summary())
        tables = self.tables.setdefault(game.seed, {})
        tables[game.table] = entries
        if len(tables) == 2:
            first, second = tables[0], tables[1]
            if first is not None and second is not None:
                self.outcome.values.append(pair_value(first, second))
                self._note(f"pair {game.seed} {self.outcome.values[-1]}")
            del self.tables[game.seed]


def play(
    driver: str,
    level: str,
    bot_name: str,
    seeds: list[int],
    pairs: int,
    log: Path | None = None,
    stall: float | None = None,
) -> Outcome:
    """Play deal pairs at one driver process until ``pairs`` are complete (or the seeds
    run out); void games leave their pair out. Each pair's seed and value is appended to
    ``log`` as it completes, and each void game's seed and reason (`summarize` reads the
    logs of an interrupted match). A game silent for ``stall`` seconds (`STALL_SECONDS`
    unless given) is void."""
    bot = BOTS[bot_name]
    stall = STALL_SECONDS if stall is None else stall
    command = [driver, level, "".join(map(str, REMOTE))]
    tally = Tally(log)
    schedule = Schedule(iter(seeds))
    process = Driver(command)
    game: Game | None = None
    try:
        while len(tally.outcome.values) < pairs:
            try:
                line = process.line(game is not None, stall)
            except queue.Empty:
                process.process.kill()
                process.close()
                if game is not None:
                    game.void = f"FreeDoko's AI stalled ({stall:.0f} s without a word)"
                    tally.add(game)
                    game = None
                process = Driver(command)
                continue
            if line is None:
                break
            message = parse(line)
            if message is None:
                continue
            if message.verb == "deal":
                try:
                    seed, table = schedule.take(message.player)
                except StopIteration:
                    break
                game = Game(seed, table, message.player, bot)
                process.send(game.hands())
            elif game is None:
                raise RuntimeError(f"driver spoke before a deal: {line!r}")
            elif message.verb in QUESTIONS:
                process.send(game.answer(message))
            elif message.verb == "end":
                tally.add(game)
                game = None
            else:
                game.hear(message)
    finally:
        process.close()
    return tally.outcome


def summarize(logs: list[Path]) -> Outcome:
    """The outcome the workers' logs hold (``pair SEED VALUE``, ``void SEED REASON`` and
    the ``game`` lines' words)."""
    outcome = Outcome()
    for log in logs:
        for line in log.read_text().splitlines():
            kind, _, rest = line.partition(" ")
            if kind == "pair":
                outcome.values.append(float(rest.split()[1]))
            elif kind == "void":
                outcome.void[rest.partition(" ")[2]] += 1
            elif kind == "game":
                _words(outcome, rest.split())
    return outcome


def report(name: str, outcome: Outcome) -> None:
    """Print the mean and 95 % interval per deal per player, and the void games."""
    mean, low, high = interval(outcome.values)
    print(
        f"{name}: {mean:+.2f} points per deal per player, "
        f"95 % CI [{low:+.2f}, {high:+.2f}], {len(outcome.values)} deal pairs"
    )
    for reason, games in outcome.void.most_common():
        print(f"  void games (their pairs left out): {games} x {reason}")
    for key in sorted(outcome.said):
        said, won = outcome.said[key], outcome.won[key]
        print(f"  {' '.join(key)}: said by {said} seats, won {won} ({won / said:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("driver", type=Path, nargs="?", help="the built FreeDoko line driver")
    parser.add_argument("--bot", choices=sorted(BOTS), default="expert")
    parser.add_argument("--pairs", type=int, default=1200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--level", choices=["profi", "profi_aggressive"], default="profi")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--log", type=Path, help="append each pair and void game to LOG.<worker>")
    parser.add_argument("--summarize", type=Path, nargs="+", help="only report these logs")
    parser.add_argument(
        "--stall-seconds",
        type=float,
        default=STALL_SECONDS,
        help="a game silent this long is given up, void (FreeDoko's AI can loop for ever)",
    )
    args = parser.parse_args()
    name = f"{args.bot} - FreeDoko {args.level}"
    if args.summarize:
        report(name, summarize(args.summarize))
        return
    if args.driver is None:
        parser.error("the driver is needed to play")
    driver = str(args.driver.resolve())
    shares = [
        args.pairs // args.workers + (w < args.pairs % args.workers) for w in range(args.workers)
    ]
    span = 4 * args.pairs + 100
    with ProcessPoolExecutor(args.workers) as pool:
        jobs = [
            pool.submit(
                play,
                driver,
                args.level,
                args.bot,
                list(range(args.first_seed + w, args.first_seed + span, args.workers)),
                share,
                None if args.log is None else args.log.with_suffix(f".{w}"),
                args.stall_seconds,
            )
            for w, share in enumerate(shares)
        ]
        outcomes = [job.result() for job in jobs]
    report(
        name,
        Outcome(
            [v for o in outcomes for v in o.values], sum((o.void for o in outcomes), Counter[str]())
        ),
    )


if __name__ == "__main__":
    main()
