"""Health: does the database answer, is every background task running?

`DatabaseWatch` turns database errors into one log line per outage: the first error
that says the database cannot be reached (`infra.database.UNAVAILABLE`) is logged with
its cause; from then on `DatabaseWatch.run` (a supervised task) asks the database every
``interval`` seconds until it answers, and logs once that the outage is over and how
long it lasted. Requests meanwhile get 503 ``database_unavailable`` with ``Retry-After``
(`service.problems`), without a log line each.

`readiness` is what ``/health/ready`` reports: a database round trip, the LISTEN
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
from service.supervisor import Supervisor, cause_of

log = logging.getLogger("doko.health")


class DatabaseWatch:
    """Whether the database answers; logs each outage once (see the module docstring)."""

    def __init__(self, pool: asyncpg.Pool, *, timeout: float, interval: float = 0.5) -> None:
        self._pool = pool
        self._timeout = timeout
        self._interval = interval
        self._down_since: float | None = None
        self._outage = asyncio.Event()

    @property
    def down(self) -> bool:
        """Whether an outage was noticed and has not ended yet."""
        return self._down_since is not None

    def failed(self, error: BaseException) -> None:
        """A database operation failed with ``error`` (one of `UNAVAILABLE`)."""
        if self._down_since is None:
            self._down_since = time.monotonic()
            log.warning("database unavailable: %s", cause_of(error))
            self._outage.set()

    def answered(self) -> None:
        """The database answered: an outage, if one was noticed, is over."""
        if self._down_since is not None:
            lasted = time.monotonic() - self._down_since
            self._down_since = None
            log.warning("database available again after %.1f s", lasted)

    async def ping(self) -> str | None:
        """One round trip: None if the database answered in time, else why not."""
        try:
            async with asyncio.timeout(self._timeout * 2):  # acquiring, then the command
                await self._pool.fetchval("SELECT 1")
        except UNAVAILABLE as error:
            self.failed(error)
            return cause_of(error)
        self.answered()
        return None

    async def run(self) -> None:
        """Ask the database every ``interval`` seconds during an outage, until it answers."""
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
    """The checks of ``/health/ready``: database round trip, LISTEN connection, tasks."""
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
    """Start the embedded PostgreSQL of ``pgdata`` again whenever it is not running."""
    while True:
        if not embedded_running(pgdata):
            log.warning("the embedded PostgreSQL in %s is not running: starting it", pgdata)
            await asyncio.to_thread(revive_embedded, pgdata)
            log.warning("the embedded PostgreSQL in %s is running again", pgdata)
        await asyncio.sleep(interval)
