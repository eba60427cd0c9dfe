"""The turn clock (T3): the stand-in acts for a seat whose time ran out, once, whichever
service process notices first.

The clock is the service's, never the domain's. A running turn's deadline derives from the
log: ``turn_seconds`` after the time the database recorded for the table's last event, or
that moment itself for an away seat (`domain.turn_clock.turn_of`). So a restarted process, or
another one, finds every deadline again; nothing is kept in memory but a list of tables to
look at. When the deadline has passed, the clock executes `domain.table.TimeOut` with the
deadline and its reading of the time (``now``, injectable: tests pass a fake one) as data;
the domain checks it and chooses the stand-in's action (`domain.players.stand_in_action`),
so the audit replay re-decides it exactly.

Exactly once: the timeout is appended with the version the deadline was derived from as
its expected version and ``timeout:v<version>`` as its command id. When several processes
time out the same turn, one append wins; the others find the command id taken (and write
nothing) or the table moved on (`VersionMismatch`): one `TurnTimedOut` per expired turn.

Which tables: those this process created with a clock (`TurnClock.watch`), and every
clocked table not over that the lobby projection lists, looked up at start-up and every
``rescan`` seconds (tables created by other processes). Every ``tick`` seconds, and when a
watched table changes (the event store's notifications), the clock looks at its tables.

A seat's own turn action after its deadline is refused (`TurnClock.require_in_time`,
`domain.table.TurnExpired`): from then on the turn is the stand-in's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime

import asyncpg
import msgspec

from domain.errors import DomainError, TurnExpired
from domain.table import (
    TableCommand,
    TimeOut,
)
from domain.turn_clock import require_in_time, turn_of
from infra import command_ids as ids
from infra.event_store import ConcurrencyConflict
from infra.streams import VersionMismatch
from infra.tables import Loaded, Tables
from service.workers.follower import Worker

log = logging.getLogger("doko.clock")

Now = Callable[[], datetime]
"""The clock's reading of the time (UTC)."""

TICK_SECONDS = 0.5
RESCAN_SECONDS = 5.0

_CLOCKED = """
    SELECT stream_id FROM lobby
    WHERE status IN ('open', 'playing') AND entry->'options'->>'turn_seconds' IS NOT NULL
"""


def system_now() -> datetime:
    """The host's clock, in UTC (it must agree with the database's, as NTP keeps it)."""
    return datetime.now(UTC)


class ClockStats(msgspec.Struct):
    """What this process's clock did: timeouts it wrote, and timeouts another writer
    (another process, or the seat itself) got in first."""

    written: int = 0
    lost: int = 0


class TurnClock(Worker):
    """Times out the expired turns of the clocked tables (see the module docstring)."""

    def __init__(
        self,
        tables: Tables,
        pool: asyncpg.Pool,
        now: Now = system_now,
        *,
        tick: float = TICK_SECONDS,
        rescan: float = RESCAN_SECONDS,
    ) -> None:
        self._tables = tables
        self._pool = pool
        self._now = now
        self._tick = tick
        self._rescan = rescan
        self._known: set[str] = set()
        self._changed: set[str] = set()
        self._woken = asyncio.Event()
        self.stats = ClockStats()

    def watch(self, stream_id: str) -> None:
        """Keep the clock of this table from now on."""
        self._known.add(stream_id)
        self.notify(stream_id)

    def notify(self, stream_id: str) -> None:
        """Called for each committed append: a watched table's turn may have changed."""
        if stream_id in self._known:
            self._changed.add(stream_id)
            self._woken.set()

    def wake_all(self) -> None:
        """Look at every watched table again (appends may have gone unheard)."""
        self._changed |= self._known
        self._woken.set()

    async def _scan(self) -> None:
        for row in await self._pool.fetch(_CLOCKED):
            self._known.add(row[0])

    async def run(self) -> None:
        """Keep the clocks until cancelled."""
        loop = asyncio.get_running_loop()
        await self._scan()
        scanned = ticked = loop.time()
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._tick):
                    await self._woken.wait()
            self._woken.clear()
            due, self._changed = self._changed, set()
            if loop.time() - scanned >= self._rescan:
                await self._scan()
                scanned = loop.time()
            if loop.time() - ticked >= self._tick:
                due |= self._known
                ticked = loop.time()
            for stream_id in due:
                try:
                    await self.expire(stream_id)
                except Exception:
                    log.exception("the clock of table %s failed", stream_id)

    async def _loaded(self, stream_id: str, *, fresh: bool | None = None) -> Loaded:
        """The table, with the time of its last event."""
        loaded = await self._tables.load(stream_id, fresh=fresh)
        if loaded.recorded_at is None and loaded.version:
            at = await self._tables.store.recorded_at(stream_id, loaded.version)
            loaded = msgspec.structs.replace(loaded, recorded_at=at)
        return loaded

    async def expire(self, stream_id: str) -> None:
        """Time out the table's running turn if its deadline has passed. One turn a look:
        the append's notification brings the table back for the next (an away seat's come
        one after another), so that no table keeps the clock from the others."""
        loaded = await self._loaded(stream_id)
        if loaded.state.over:
            self._known.discard(stream_id)
            return
        turn = turn_of(loaded.state, loaded.recorded_at)
        if turn is None or turn.deadline is None:
            return
        now = self._now()
        if now < turn.deadline:
            return
        try:
            done = await self._tables.execute(
                stream_id,
                TimeOut(turn.seat, turn.deadline, now),
                command_id=ids.timeout(loaded.version),
                actor="clock",
                expected_version=loaded.version,
            )
        except (VersionMismatch, ConcurrencyConflict):  # the winner's append wakes us
            self.stats.lost += 1
            return
        except DomainError as error:  # logged without its message: it may name a card
            log.error("the clock of table %s was refused: %s", stream_id, error.code)
            return
        if done.duplicate:
            self.stats.lost += 1
        else:
            self.stats.written += 1

    async def require_in_time(self, stream_id: str, loaded: Loaded, command: TableCommand) -> None:
        """T3.2: refuse a seat's own turn action after its deadline (`TurnExpired`), judged
        on the newest table (a cached one may be behind), and let the stand-in act now."""
        created = loaded.state.created
        if created is None or created.turn_seconds is None:
            return
        try:
            require_in_time(loaded.state, command, loaded.recorded_at, self._now())
        except TurnExpired:
            fresh = await self._loaded(stream_id, fresh=True)
            self.notify(stream_id)
            require_in_time(fresh.state, command, fresh.recorded_at, self._now())
