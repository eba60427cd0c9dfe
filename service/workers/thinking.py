"""Where searching bots think: a process pool, off the event loop.

The `expert` bot's search takes tens of milliseconds of CPU a decision; run on the event
loop it would delay every request of the process. Its decisions go to a pool of worker
processes instead, one per core by default (`os.cpu_count`), started on first use with
the ``spawn`` method (no copy of the running loop's state) and shut down with the
service. A worker receives the seat's observation and the decision's seed only; the review of a
scored deal (`expert.review`) runs there too, on the deal's events.

The workers ignore SIGINT and SIGTERM: a Ctrl-C in a terminal (sent to the whole process
group) or a stop sent to every process of a service (systemd's default) is the service
process's to act on, which stops its workers in order (`Thinking.close`: a worker still
searching is killed) or, when it must stop at once, kills them (`service.edge.shutdown`).

However the service process dies (``kill -9`` included), its workers end with it
(`service.workers.lifeline.watch_parent`). multiprocessing's resource tracker, which the
service process started for the pool, then ends by itself: it ends when every process that
holds its pipe (the service process and its workers) is gone.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from domain.commands import DealCommand
from domain.events import DealEvent
from domain.observations import Observation
from domain.rule_set import DEFAULT, RuleSet
from expert.player import DEFAULT_BUDGET, decide
from expert.review import Decision, review_deal
from expert.search import Budget
from service.workers.lifeline import watch_parent

STOP_SECONDS = 2.0
"""How long `Thinking.close` lets a worker finish its search before it kills it."""


def machine_workers() -> int:
    """One worker per core of the machine."""
    return os.cpu_count() or 1


def _start_worker(parent: int) -> None:
    """A worker's start: SIGINT and SIGTERM are the service process's, and the worker ends
    with it (module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    watch_parent(parent)


class Thinking:
    """The pool the searching bots' decisions run in (``workers`` processes), each search
    with ``budget`` (`expert.search.Budget`)."""

    def __init__(self, workers: int | None = None, budget: Budget = DEFAULT_BUDGET) -> None:
        self.workers = workers or machine_workers()
        self.budget = budget
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(os.getpid(),),
            )
        return self._pool

    async def decide(self, observation: Observation, seed: str) -> DealCommand | None:
        """The expert's decision for the observation, computed in a worker process."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor(), decide, observation, seed, self.budget)

    async def review(
        self, events: Sequence[DealEvent], seed: str, budget: Budget, rules: RuleSet = DEFAULT
    ) -> tuple[Decision, ...]:
        """`expert.review.review_deal` of a scored deal's events played by ``rules``, in a
        worker process."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor(), review_deal, events, seed, budget, rules
        )

    def close(self, timeout: float = STOP_SECONDS) -> None:
        """Stop the workers (pending decisions are dropped: the log drives the bots again);
        one still searching after ``timeout`` seconds is killed. Blocks until they ended."""
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        workers = list(pool._processes.values())  # the pool forgets them on shutdown
        pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + timeout
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
            if worker.exitcode is None:
                worker.kill()
                worker.join()
