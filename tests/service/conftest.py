"""A real doko HTTP server (uvicorn, in-process) on a real PostgreSQL database, per module."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from litestar import Litestar

from service.app import Settings, create_app
from service.client import DokoClient
from service.http import Config, Edge, HttpProtocol

UNLIMITED = 1_000_000
"""Rate limits no test reaches (the rate-limit test builds its own app)."""


class _Server(uvicorn.Server):
    """uvicorn without signal handlers: Ctrl-C still interrupts pytest."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.asynccontextmanager
async def serve(app: Litestar, edge: Edge | None = None) -> AsyncIterator[str]:
    """Serve ``app`` on a free port of 127.0.0.1 while the block runs (with the ``edge``
    limits, the defaults if not given); yields the base URL."""
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP,
    # and with Nagle's algorithm on every response waits ~40 ms for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = Config(
        app,
        edge=edge,
        http=HttpProtocol,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=1,
        access_log=False,
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(30):
            while not server.started:
                if task.done():
                    task.result()
                    raise RuntimeError("uvicorn stopped before it started")
                await asyncio.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        try:
            async with asyncio.timeout(15):
                await task
        finally:
            sock.close()


def settings(db_url: str, **overrides: Any) -> Settings:
    """Settings for tests: the module's (already migrated) database, no rate limits."""
    values: dict[str, Any] = {
        "database_url": db_url,
        "rate_per_token": UNLIMITED,
        "rate_per_address": UNLIMITED,
        "migrate": False,
        "pool_size": 6,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(scope="module")
async def base_url(db_url: str) -> AsyncIterator[str]:
    """The base URL of a live doko server on the module's database."""
    async with serve(create_app(settings(db_url))) as url:
        yield url


@pytest.fixture
async def http(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base_url, timeout=10.0) as client:
        yield client


@pytest.fixture
def api(http: httpx.AsyncClient) -> DokoClient:
    return DokoClient(http)


async def next_window() -> None:
    """Sleep until just after the next second of ``time.monotonic()`` begins."""
    await asyncio.sleep(1.0 - time.monotonic() % 1.0 + 0.005)


async def one_window(room: float = 0.4) -> None:
    """Return at once if ``room`` seconds of the current second are left, else at the next."""
    if 1.0 - time.monotonic() % 1.0 < room:
        await next_window()
