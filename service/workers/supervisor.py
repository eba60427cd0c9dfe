"""One supervisor for the service's background tasks (bot driver, LISTEN connection, access
log, database watch, embedded PostgreSQL keeper, and whatever else registers with `start`).

A task is a coroutine function run until the service stops. When it raises, the
supervisor logs the exception once, with its traceback, and runs the task again after a
pause that doubles with each failure in a row (``first_delay`` up to ``max_delay``); the
same exception again in the same streak is not logged again. A task that returns is run
again too (after ``first_delay``; a LISTEN connection that was lost returns). Once a
restarted task has run ``stable`` seconds without failing, the streak ends: that is
logged once, and the next failure starts from ``first_delay`` again.

Failures that are ``expected`` (the database being unavailable, in the service) are not
bugs: each is handed to ``on_expected`` (the service's database watch, which logs the
outage once for everyone) and logged as one line, without a traceback.

`Supervisor.report` says how each task is (for ``/health/ready``): ``running``, or
``restarting`` (waiting to run again after a failure) with the failure's cause.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import msgspec

log = logging.getLogger("doko.supervisor")
STOP_SECONDS = 5.0
"""How long `Supervisor.stop` waits for a cancelled task to end before leaving it behind."""

Task = Callable[[], Awaitable[None]]


class TaskState(msgspec.Struct, frozen=True):
    """How a supervised task is: ``running`` or ``restarting``; its failures in a row and
    the last one's cause (type and message)."""

    name: str
    state: str
    failures: int = 0
    cause: str | None = None

    @property
    def healthy(self) -> bool:
        return self.state == "running"


def cause_of(error: BaseException) -> str:
    """``Type: message`` of an exception, and of the exception that caused it, if any."""
    text = f"{type(error).__name__}: {error}".rstrip(": ")
    inner = error.__cause__ or error.__context__
    if inner is not None and inner is not error:
        text += f" (caused by {type(inner).__name__}: {inner})".replace(": )", ")")
    return text


class Supervisor:
    """Runs registered tasks, restarting each with backoff when it fails (module docstring)."""

    def __init__(
        self,
        *,
        first_delay: float = 0.1,
        max_delay: float = 5.0,
        stable: float = 2.0,
        expected: tuple[type[BaseException], ...] = (),
        on_expected: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.first_delay = first_delay
        self.max_delay = max_delay
        self.stable = stable
        self.expected = expected
        self.on_expected = on_expected
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._states: dict[str, TaskState] = {}

    def start(self, name: str, run: Task) -> None:
        """Run ``run()`` under supervision from now on, as ``name`` (unique)."""
        if name in self._tasks:
            raise ValueError(f"a task named {name!r} is supervised already")
        self._states[name] = TaskState(name, "running")
        self._tasks[name] = asyncio.create_task(self._keep(name, run), name=f"doko:{name}")

    def report(self) -> list[TaskState]:
        """Every supervised task's state, in the order they were started."""
        return list(self._states.values())

    async def stop(self, *names: str) -> None:
        """Cancel these tasks (all, if none is named) at once, wait for them to end (at most
        `STOP_SECONDS` in all), forget them."""
        stopping: dict[asyncio.Task[None], str] = {}
        for name in names or list(self._tasks):
            task = self._tasks.pop(name)
            del self._states[name]
            task.cancel()
            stopping[task] = name
        if not stopping:
            return
        _, pending = await asyncio.wait(stopping, timeout=STOP_SECONDS)
        for task in pending:
            log.warning("%s did not stop within %s s: left behind", stopping[task], STOP_SECONDS)

    async def _keep(self, name: str, run: Task) -> None:
        loop = asyncio.get_running_loop()
        delay = self.first_delay
        failures = 0
        last: str | None = None
        settled: asyncio.TimerHandle | None = None

        def settle() -> None:
            nonlocal failures, delay, last
            if failures:
                log.info("%s is running again after %d failure(s)", name, failures)
            failures, delay, last = 0, self.first_delay, None
            self._states[name] = TaskState(name, "running")

        while True:
            self._states[name] = TaskState(name, "running", failures, last)
            if failures:
                settled = loop.call_later(self.stable, settle)
            try:
                await run()
                error: Exception | None = None
            except Exception as raised:
                error = raised
            finally:
                if settled is not None:
                    settled.cancel()
                    settled = None
            if error is None:
                log.info("%s ended; starting it again", name)
                await asyncio.sleep(self.first_delay)
                continue
            failures += 1
            cause = cause_of(error)
            if isinstance(error, self.expected):
                if self.on_expected is not None:
                    self.on_expected(error)
                if cause != last:
                    log.warning("%s stopped: %s; restarting in %.1f s", name, cause, delay)
            elif cause != last:
                log.error(
                    "%s failed: %s; restarting in %.1f s",
                    name,
                    cause,
                    delay,
                    exc_info=(type(error), error, error.__traceback__),
                )
            last = cause
            self._states[name] = TaskState(name, "restarting", failures, cause)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.max_delay)
