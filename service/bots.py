"""Server-side bots: seats the host filled with a `random` or `greedy` player.

Bots are driven from the event log, not from memory: after every committed
append (the event store's notifications) the driver loads the table and lets
each bot seat act on its own seat's observation only. At start-up, and every
few seconds when nothing happens, it looks at every table with bots whose
session is not over, so bots carry on after a restart or a lost notification. A bot's choice is a
pure function of (table, version, seat), and its command id is derived from
them too, so several service processes driving the same bot agree and write
once.
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
from infra.event_store import ConcurrencyConflict
from infra.tables import Tables, VersionMismatch

log = logging.getLogger("doko.bots")

RESCAN_SECONDS = 5.0


class BotKind(StrEnum):
    """The bots a host can seat."""

    RANDOM = "random"
    GREEDY = "greedy"


PLAYERS: dict[str, Callable[[Observation, Chooser], DealCommand | None]] = {
    BotKind.RANDOM: random_action,
    BotKind.GREEDY: greedy_action,
}


def bot_command(stream_id: str, state: TableState, version: int) -> DealCommand | None:
    """The first action any bot seat of the table takes at this version, if any."""
    current = state.session.deal
    if current is None:
        return None
    for seat in SEATS:
        player = state.players[seat]
        if player is None or not player.bot:
            continue
        chooser = random.Random(f"{stream_id}:{version}:{int(seat)}")
        action = PLAYERS[player.bot](observe(current, seat), chooser)
        if action is not None:
            return action
    return None


class Bots:
    """Runs the bots of every table that has some, woken by the event store's notifications."""

    def __init__(self, tables: Tables, pool: asyncpg.Pool) -> None:
        self._tables = tables
        self._pool = pool
        self._known: set[str] = set()
        self._done: set[str] = set()
        self._queue: asyncio.Queue[str] = asyncio.Queue()

    def watch(self, stream_id: str) -> None:
        """Drive the bots of this table from now on."""
        self._known.add(stream_id)
        self._queue.put_nowait(stream_id)

    def notify(self, stream_id: str) -> None:
        """Called for each committed append."""
        if stream_id in self._known:
            self._queue.put_nowait(stream_id)

    def wake_all(self) -> None:
        """Look at every table with bots again (appends may have gone unheard)."""
        for stream_id in self._known:
            self._queue.put_nowait(stream_id)

    async def _scan(self) -> None:
        """Look at every table with bots whose session is not known to be over: finds the
        tables seated elsewhere, and catches up if a notification was lost."""
        rows = await self._pool.fetch(
            "SELECT DISTINCT stream_id FROM events"
            " WHERE type = 'seat_taken' AND coalesce(payload->>'bot', '') <> ''"
        )
        for row in rows:
            if row[0] not in self._done:
                self.watch(row[0])

    async def run(self) -> None:
        """Drive bots until cancelled."""
        await self._scan()
        while True:
            try:
                stream_id = await asyncio.wait_for(self._queue.get(), RESCAN_SECONDS)
            except TimeoutError:
                await self._scan()
                continue
            try:
                await self.act(stream_id)
            except Exception:
                log.exception("bots of table %s failed", stream_id)

    async def act(self, stream_id: str) -> None:
        """Let the table's bots act until none has anything to do."""
        while True:
            loaded = await self._tables.load(stream_id)
            if loaded.state.over:
                self._known.discard(stream_id)
                self._done.add(stream_id)
                return
            command = bot_command(stream_id, loaded.state, loaded.version)
            if command is None:
                return
            try:
                await self._tables.execute(
                    stream_id,
                    command,
                    command_id=f"bot{int(command.seat)}:v{loaded.version}",
                    actor=f"bot:{int(command.seat)}",
                    expected_version=loaded.version,
                )
            except (VersionMismatch, ConcurrencyConflict):
                continue
            except DomainError as error:  # logged without its message: it may name a card
                log.error(
                    "a bot of table %s chose an action the rules reject: %s (%s)",
                    stream_id,
                    error.code,
                    error.rule,
                )
                return
