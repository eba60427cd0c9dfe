"""Where searching bots think: a process pool, off the event loop.

The `expert` bot's search takes tens of milliseconds of CPU a decision; run on the event
loop it would delay every request of the process. Its decisions go to a pool of worker
processes instead, one per core by default (`os.cpu_count`), started on first use with
the ``spawn`` method (no copy of the running loop's state) and shut down with the
service. A worker receives the seat's observation and the decision's seed only.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from domain.commands import DealCommand
from domain.observations import Observation
from expert.player import decide


def machine_workers() -> int:
    """One worker per core of the machine."""
    return os.cpu_count() or 1


class Thinking:
    """The pool the searching bots' decisions run in (``workers`` processes)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or machine_workers()
        self._pool: ProcessPoolExecutor | None = None

    async def decide(self, observation: Observation, seed: str) -> DealCommand | None:
        """The expert's decision for the observation, computed in a worker process."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, decide, observation, seed)

    def close(self) -> None:
        """Stop the workers (pending decisions are dropped: the log drives the bots again)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
