"""Server-side bots: seats the host filled with a `random`, `greedy` or `expert` player.

Bots are driven from the event log, not from memory: after every committed
append (the event store's notifications) the driver loads the table and lets
each bot seat act on its own seat's observation only. At start-up, and every
few seconds when nothing happens, it looks at every table with bots whose
session is not over, so bots carry on after a restart or a lost notification. A bot's choice is a
pure function of (table, version, seat), and its command id is derived from
them too, so several service processes driving the same bot agree and write
once.

Tables take turns: the driver takes the table that has waited longest, lets one bot
act once, and puts the table back at the end of the line, so a table of four bots
playing a whole session does not keep a human's bots waiting. Several tables take their
turn at once (a table only one at a time): an `expert` decision is a search that runs in
the process pool of `service.workers.thinking`, off the event loop, while other tables go on. At
a table with people an `expert` bot acts at a human pace, ``delay`` seconds after it was
asked (`pace`); at an all-bot table at once. `random` and `greedy` never wait. What the driver keeps
is bounded by the tables with bots whose session is not over: a finished table is
forgotten, and the rescan does not bring it back. A database error ends `Bots.run`
(its supervisor starts it again, with a fresh scan); any other error with one table
is logged and that table waits for its next notification.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from enum import StrEnum

import asyncpg

from domain.commands import DealCommand
from domain.errors import DomainError
from domain.observations import Observation, observe
from domain.players import Chooser, greedy_action, random_action
from domain.seats import SEATS
from domain.table import TableState
from expert.player import acts_now
from infra import command_ids as ids
from infra.database import UNAVAILABLE
from infra.event_store import ConcurrencyConflict
from infra.streams import VersionMismatch
from infra.tables import Tables
from service.workers.follower import Worker
from service.workers.thinking import Thinking

log = logging.getLogger("doko.bots")

RESCAN_SECONDS = 5.0


class BotKind(StrEnum):
    """The bots a host can seat, weakest first: the last one is the strongest (clients that
    offer a default take the last of the API schema's ``BotKind`` enum)."""

    RANDOM = "random"
    GREEDY = "greedy"
    EXPERT = "expert"


PLAYERS: dict[str, Callable[[Observation, Chooser], DealCommand | None]] = {
    BotKind.RANDOM: random_action,
    BotKind.GREEDY: greedy_action,
}
"""The bots that decide at once, on the event loop; `BotKind.EXPERT` searches in the pool."""

HUMAN_PACE = 0.8
"""Seconds an `expert` bot takes before it acts at a table with people (`Settings`)."""


def pace(state: TableState, delay: float) -> float:
    """How long a searching bot of the table waits before acting: ``delay`` at a table
    where a person holds a seat, none at an all-bot table."""
    people = any(p is not None and not p.bot for p in state.players)
    return delay if people else 0.0


class Bots(Worker):
    """Runs the bots of every table that has some, woken by the event store's notifications."""

    def __init__(
        self,
        tables: Tables,
        pool: asyncpg.Pool,
        *,
        delay: float = HUMAN_PACE,
        thinking: Thinking | None = None,
    ) -> None:
        self._tables = tables
        self._pool = pool
        self._delay = delay
        self.thinking = thinking or Thinking()
        self._parallel = 2 * self.thinking.workers + 2  # keeps the pool busy, and some
        self._known: set[str] = set()
        self._line: dict[str, None] = {}  # the tables waiting for their turn, in order
        self._busy: set[str] = set()  # the tables taking their turn now
        self._turns: set[asyncio.Task[None]] = set()
        self._failure: BaseException | None = None
        self._waiting = asyncio.Event()

    def watch(self, stream_id: str) -> None:
        """Drive the bots of this table from now on."""
        self._known.add(stream_id)
        self._queue(stream_id)

    def notify(self, stream_id: str) -> None:
        """Called for each committed append."""
        if stream_id in self._known:
            self._queue(stream_id)

    def wake_all(self) -> None:
        """Look at every table with bots again (appends may have gone unheard)."""
        for stream_id in self._known:
            self._queue(stream_id)

    def _queue(self, stream_id: str) -> None:
        """Line the table up for a turn (once: a table already in line keeps its place)."""
        self._line.setdefault(stream_id, None)
        self._waiting.set()

    async def _scan(self) -> None:
        """Look at every table with bots whose session is not over: finds the tables seated
        elsewhere, and catches up if a notification was lost."""
        rows = await self._pool.fetch(
            "SELECT DISTINCT e.stream_id FROM events e"
            " LEFT JOIN table_views v ON v.stream_id = e.stream_id"
            " WHERE e.type = 'seat_taken' AND coalesce(e.payload->>'bot', '') <> ''"
            " AND coalesce(v.view->>'winners', 'null') = 'null'"
        )
        for row in rows:
            self.watch(row[0])

    async def run(self) -> None:
        """Drive bots until cancelled (or until the database fails: see the module docstring)."""
        self._failure = None
        try:
            await self._scan()
            while True:
                if self._failure is not None:
                    raise self._failure
                ready = next((t for t in self._line if t not in self._busy), None)
                if ready is None or len(self._busy) >= self._parallel:
                    self._waiting.clear()
                    try:
                        async with asyncio.timeout(RESCAN_SECONDS):
                            await self._waiting.wait()
                    except TimeoutError:
                        if not self._busy:
                            await self._scan()
                    continue
                del self._line[ready]
                self._busy.add(ready)
                turn = asyncio.create_task(self._turn(ready))
                self._turns.add(turn)
                turn.add_done_callback(self._turns.discard)
        finally:
            for turn in list(self._turns):
                turn.cancel()
            self._busy.clear()

    async def _turn(self, stream_id: str) -> None:
        """One table's turn, beside the other tables'."""
        try:
            if await self.step(stream_id):
                self._queue(stream_id)  # its next turn, after the others in line
        except UNAVAILABLE as error:
            self._queue(stream_id)
            self._failure = error
        except Exception:
            log.exception("bots of table %s failed", stream_id)
        finally:
            self._busy.discard(stream_id)
            self._waiting.set()

    async def act(self, stream_id: str) -> None:
        """Let the table's bots act until none has anything to do."""
        while await self.step(stream_id):
            pass

    async def command(
        self, stream_id: str, state: TableState, version: int
    ) -> tuple[DealCommand | None, bool]:
        """The first action any bot seat of the table takes at this version, if any, and
        whether a search chose it. Each seat decides on its own observation, with chance
        seeded by (table, version, seat)."""
        current = state.session.deal
        if current is None:
            return None, False
        for seat in SEATS:
            player = state.players[seat]
            if player is None or not player.bot:
                continue
            observation = observe(current, seat)
            seed = f"{stream_id}:{version}:{int(seat)}"
            if player.bot == BotKind.EXPERT:
                if acts_now(observation):
                    action = await self.thinking.decide(observation, seed)
                    if action is not None:
                        return action, True
                continue
            action = PLAYERS[player.bot](observation, random.Random(seed))
            if action is not None:
                return action, False
        return None, False

    async def step(self, stream_id: str) -> bool:
        """Let one of the table's bots act once; whether a bot may have more to do."""
        loaded = await self._tables.load(stream_id)
        if loaded.state.over:
            self._known.discard(stream_id)
            self._line.pop(stream_id, None)
            return False
        command, searched = await self.command(stream_id, loaded.state, loaded.version)
        if command is None:
            return False
        if searched:
            await asyncio.sleep(pace(loaded.state, self._delay))
        try:
            await self._tables.execute(
                stream_id,
                command,
                command_id=ids.bot_action(int(command.seat), loaded.version),
                actor=f"bot:{int(command.seat)}",
                expected_version=loaded.version,
            )
        except (VersionMismatch, ConcurrencyConflict):
            return True
        except DomainError as error:  # logged without its message: it may name a card
            log.error(
                "a bot of table %s chose an action the rules reject: %s (%s)",
                stream_id,
                error.code,
                error.rule,
            )
            return False
        return True
