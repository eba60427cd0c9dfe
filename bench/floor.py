"""The framework floor: the thinnest litestar + asyncpg service that does one durable insert
per request, for `bench_service` to load as it loads doko.

    .venv/bin/python bench/floor.py --database-url URL --port PORT

One route, ``POST /streams/{stream_id}/events``: the body ``{"version": N, "payload": {...}}``
is decoded by litestar into a msgspec Struct, written as one row of an ``events``-shaped table
by part 1's statement (`bench_service.RAW_SCHEMA`, ``RAW_INSERT``) in its own transaction
(autocommit: fsync and synchronous_commit as the server has them), and answered with
``{"stream_id": ..., "version": N}``. Served as doko is served: uvicorn on uvloop with
httptools, a listening socket with TCP_NODELAY (`service.tools.cli.serve.listening_socket`), no
access log, an asyncpg pool of 10 without a reset on release. No middleware, no
authorization, no rate limit, no hash chain, no projection: what doko does per command
beyond this is doko's own.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import asyncpg
import msgspec
import uvicorn
from bench_service import RAW_INSERT, RAW_SCHEMA
from litestar import Litestar, post

from service.tools.cli.serve import listening_socket

HASH = bytes(32)


class Append(msgspec.Struct, frozen=True):
    """A request's body."""

    version: int
    payload: dict[str, Any]


class Appended(msgspec.Struct, frozen=True):
    """The answer."""

    stream_id: str
    version: int


async def _keep_session(_connection: asyncpg.Connection) -> None:
    """No reset on release (as doko's pool)."""


def create_app(database_url: str) -> Litestar:
    """The floor service on ``database_url``."""
    pools: list[asyncpg.Pool] = []
    positions = itertools.count(time.time_ns() // 1000)

    @asynccontextmanager
    async def lifespan(_app: Litestar) -> AsyncIterator[None]:
        pool = await asyncpg.create_pool(
            database_url, min_size=10, max_size=10, reset=_keep_session
        )
        await pool.execute(RAW_SCHEMA)
        pools.append(pool)
        try:
            yield
        finally:
            await pool.close()

    @post("/streams/{stream_id:str}/events", status_code=200)
    async def append(stream_id: str, data: Append) -> Appended:
        payload = msgspec.json.encode(data.payload).decode()
        await pools[0].execute(
            RAW_INSERT, next(positions), stream_id, data.version, "card_played", 1, payload, HASH
        )
        return Appended(stream_id, data.version)

    return Litestar(route_handlers=[append], lifespan=[lifespan], logging_config=None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    config = uvicorn.Config(
        create_app(args.database_url),
        loop="uvloop",
        http="httptools",
        access_log=False,
        log_level="warning",
        timeout_keep_alive=300,
    )
    uvicorn.Server(config).run(sockets=[listening_socket("127.0.0.1", args.port)])


if __name__ == "__main__":
    main()
