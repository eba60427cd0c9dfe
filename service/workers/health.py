"""Health: does the database answer, is every background task running?

`DatabaseWatch` turns database errors into one log line per outage: the first error
that says the database cannot be reached or refuses writes (`infra.database.UNAVAILABLE`),
or a round trip that finds it read-only, is logged with its cause; from then on
`DatabaseWatch.run` (a supervised task) asks the database every ``interval`` seconds
until it answers and accepts writes, and logs once that the outage is over and how long
it lasted. A full disk (or another shortage of SQLSTATE class 53 or 58) shows only in a
write that needs what is short, never in a round trip: after such a refusal the outage
lasts until a commit is heard (`DatabaseWatch.committed`) or ``hold`` seconds pass without
another refusal. Requests meanwhile get 503 ``database_unavailable`` with ``Retry-After``
(`service.edge.problems`), without a log line each.

`readiness` is what ``/health/ready`` reports: a database round trip that finds the
database accepting writes (not read-only, not a standby in recovery), the LISTEN
connection, and every supervised task (bots, listener, ...). ``/health/live`` only says
that the process answers.

`keep_embedded` (supervised, when the service started the embedded PostgreSQL itself)
starts that server again when it is not running any more.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import asyncpg
import msgspec

from infra.database import UNAVAILABLE, embedded_running, revive_embedded
from service.workers.supervisor import Supervisor, cause_of

log = logging.getLogger("doko.health")

WRITABLE = "SELECT NOT (pg_is_in_recovery() OR current_setting('transaction_read_only')::boolean)"
"""Whether a transaction begun now may write: not a standby (or a primary still
recovering), not read-only (``default_transaction_read_only``)."""

READ_ONLY = "the database accepts no writes (read-only, or a standby in recovery)"

SHORTAGES = ("53", "58")
"""SQLSTATE classes of a shortage that only a write shows: insufficient resources (disk
full, out of memory, too many connections) and system errors (I/O)."""


class DatabaseWatch:
    """Whether the database answers; logs each outage once (see the module docstring)."""

    def __init__(
        self, pool: asyncpg.Pool, *, timeout: float, interval: float = 0.5, hold: float = 10.0
    ) -> None:
        self._pool = pool
        self._timeout = timeout
        self._interval = interval
        self._hold = hold
        self._down_since: float | None = None
        self._refused: tuple[float, str] | None = None  # the last shortage: when, and why
        self._outage = asyncio.Event()

    @property
    def down(self) -> bool:
        """Whether an outage was noticed and has not ended yet."""
        return self._down_since is not None

    def failed(self, error: BaseException) -> None:
        """A database operation failed with ``error`` (one of `UNAVAILABLE`)."""
        cause = cause_of(error)
        if (getattr(error, "sqlstate", None) or "")[:2] in SHORTAGES:
            self._refused = (time.monotonic(), cause)
        self._went_down(cause)

    def committed(self) -> None:
        """A commit was heard: the database takes writes (a shortage is over)."""
        if self._refused is not None:
            self._refused = None
            self.answered()

    def heard(self, _stream_id: str, _position: int, _version: int) -> None:
        """A follower of the log (`service.workers.follower`): every commit heard is one."""
        self.committed()

    def listening(self, up: bool) -> None:
        """Whether notifications are heard tells nothing of the database's health."""

    def _went_down(self, cause: str) -> None:
        if self._down_since is None:
            self._down_since = time.monotonic()
            log.warning("database unavailable: %s", cause)
            self._outage.set()

    def answered(self) -> None:
        """The database answered: an outage, if one was noticed, is over."""
        if self._down_since is not None:
            lasted = time.monotonic() - self._down_since
            self._down_since = None
            log.warning("database available again after %.1f s", lasted)

    async def ping(self) -> str | None:
        """One round trip: None if the database answered in time and accepts writes, else
        why not."""
        try:
            async with asyncio.timeout(self._timeout * 2):  # acquiring, then the command
                writable = await self._pool.fetchval(WRITABLE)
        except UNAVAILABLE as error:
            self.failed(error)
            return cause_of(error)
        if not writable:
            self._went_down(READ_ONLY)
            return READ_ONLY
        if self._refused is not None:
            ago = time.monotonic() - self._refused[0]
            if ago < self._hold:
                return f"a write was refused {ago:.1f} s ago: {self._refused[1]}"
            self._refused = None
        self.answered()
        return None

    async def run(self) -> None:
        """Ask the database every ``interval`` seconds during an outage, until it answers
        and accepts writes."""
        while True:
            await self._outage.wait()
            self._outage.clear()
            while self.down:
                await asyncio.sleep(self._interval)
                await self.ping()


class ReadinessCheck(msgspec.Struct, frozen=True):
    """One readiness check: what was checked, whether it passed, and why not."""

    name: str
    ok: bool
    detail: str | None = None


async def readiness(
    watch: DatabaseWatch, supervisor: Supervisor, listening: bool
) -> list[ReadinessCheck]:
    """The checks of ``/health/ready``: a database round trip that finds it writable, the
    LISTEN connection, the tasks."""
    failure = await watch.ping()
    checks = [
        ReadinessCheck("database", failure is None, failure),
        ReadinessCheck("listening", listening, None if listening else "commits are not heard"),
    ]
    for task in supervisor.report():
        detail = None if task.healthy else f"{task.state} after {task.failures} failure(s)"
        checks.append(ReadinessCheck(task.name, task.healthy, detail))
    return checks


async def keep_embedded(pgdata: Path, interval: float = 1.0) -> None:
    """Start the embedded PostgreSQL of ``pgdata`` again whenever it is not running: one
    log line each time (a failure to start it is the supervisor's line)."""
    while True:
        if not embedded_running(pgdata):
            started = time.monotonic()
            await asyncio.to_thread(revive_embedded, pgdata)
            log.warning(
                "the embedded PostgreSQL in %s had stopped: running again (started in %.1f s)",
                pgdata,
                time.monotonic() - started,
            )
        await asyncio.sleep(interval)
