"""Searching bots never delay people: a human table's command latency, with and without
16 all-`expert` tables playing.

    .venv/bin/python bench/bench_expert_service.py [--tables 16] [--deals 3] [--url URL]

Starts the service in this process on an embedded PostgreSQL in the system's temporary
folder (or uses ``--url``).
A "human" table of four HTTP clients (random legal moves, each from its own seat's
view) plays ``--deals`` deals while every command's round trip is timed; first with no
bots running, then again (a new table, the same seed) while ``--tables`` tables of four
`expert` bots play, whose searches run in the service's process pool. Prints the
median and p99 of both and their ratio (target: p99 with bots <= 2 x without), and the
deals the bot tables scored meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from domain.commands import DealCommand
from service.tools.client import (
    CommandResult,
    DokoClient,
    SeatClient,
)
from service.tools.demo import QUIET_LOGGERS, local_service
from service.tools.play import (
    play_session,
    random_players,
)


class TimedSeat(SeatClient):
    """A seat client that keeps the seconds of every command it sends."""

    def __init__(self, seat: SeatClient, timings: list[float]) -> None:
        super().__init__(seat.table, seat.seat, seat.token)
        self.version = seat.version
        self.timings = timings

    async def send(self, command: DealCommand, **kwargs: Any) -> CommandResult:
        start = time.perf_counter()
        result = await super().send(command, **kwargs)
        self.timings.append(time.perf_counter() - start)
        return result


async def _human_table(api: DokoClient, deals: int, seed: int) -> list[float]:
    """Play ``deals`` deals at a table of four HTTP clients; each command's seconds."""
    table = await api.create_table("people")
    timings: list[float] = []
    seats = [TimedSeat(await table.take_seat(f"person {n}"), timings) for n in range(4)]
    await play_session(seats, random_players(seed), deals=deals)
    await table.abandon()
    return timings


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def _line(name: str, values: list[float]) -> str:
    return (
        f"{name}: {len(values)} commands, median {1000 * statistics.median(values):.1f} ms, "
        f"p99 {1000 * _p99(values):.1f} ms"
    )


async def bench(base_url: str, tables: int, deals: int) -> None:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        api = DokoClient(http)
        quiet = await _human_table(api, deals, seed=1)
        print(_line("no bots", quiet), flush=True)
        bots = []
        for n in range(tables):
            table = await api.create_table(f"experts {n}")
            for _ in range(4):
                await table.seat_bot("expert")
            bots.append(table)
        busy = await _human_table(api, deals, seed=1)
        scored = sum([len((await t.view()).scoresheet) for t in bots])
        print(_line(f"{tables} expert tables", busy), flush=True)
        print(
            f"p99 ratio {_p99(busy) / _p99(quiet):.2f} (target <= 2); "
            f"the bot tables scored {scored} deals meanwhile"
        )
        for table in bots:
            await table.abandon()


async def main() -> None:
    import logging

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--url")
    args = parser.parse_args()
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    if args.url:
        await bench(args.url, args.tables, args.deals)
        return
    from infra.database import database_url

    data = Path(tempfile.gettempdir()) / "doko-bench-expert"
    async with local_service(database_url(None, data_dir=data)) as url:
        await bench(url, args.tables, args.deals)


if __name__ == "__main__":
    asyncio.run(main())
