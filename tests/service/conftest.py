"""A real doko HTTP server (uvicorn, in-process) on a real PostgreSQL database, per module."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, TypeVar

import httpx
import pytest
import uvicorn
from litestar import Litestar

from expert.search import Budget
from service.app import Settings, create_app
from service.edge.http import Config, Edge, HttpProtocol
from service.tools.client import (
    DokoClient,
)

T = TypeVar("T")

UNLIMITED = 1_000_000
"""Rate limits no test reaches (the rate-limit test builds its own app)."""

KEEP_ALIVE = 300
"""Seconds an idle connection stays open: longer than any test leaves a pooled connection
idle. With uvicorn's 5 s a pooled connection could be closed by the server just as a client
sent on it again (httpx.ReadError), which a loaded machine makes likely."""

STALL = 120.0
"""Seconds a test waits for the next sign of progress before it calls the service stuck
(`until`): a bound on a hang, never on the machine's speed (a step takes milliseconds)."""


async def until(
    read: Callable[[], Awaitable[T]],
    done: Callable[[T], bool],
    progress: Callable[[T], object],
    *,
    stall: float = STALL,
    pause: float = 0.1,
) -> T:
    """``read()`` again until ``done`` says so, and its value; fails only when
    ``progress`` (e.g. a table's version) has not changed for ``stall`` seconds."""
    loop = asyncio.get_running_loop()
    last: object = None
    since = loop.time()
    while not done(value := await read()):
        mark = progress(value)
        if mark != last:
            last, since = mark, loop.time()
        elif loop.time() - since > stall:
            raise AssertionError(f"no progress in {stall} s, stuck at {mark!r}")
        await asyncio.sleep(pause)
    return value


class _Server(uvicorn.Server):
    """uvicorn without signal handlers: Ctrl-C still interrupts pytest."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.asynccontextmanager
async def serve(app: Litestar, port: int = 0, edge: Edge | None = None) -> AsyncIterator[str]:
    """Serve ``app`` on ``port`` (0: a free one) of 127.0.0.1 while the block runs (with the
    ``edge`` limits, the defaults if not given); yields the base URL."""
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP,
    # and with Nagle's algorithm on every response waits ~40 ms for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    config = Config(
        app,
        edge=edge or Edge(keep_alive=KEEP_ALIVE),
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
        "rate_creations": UNLIMITED,
        "rate_expensive": UNLIMITED,
        "migrate": False,
        "pool_size": 6,
        # a loaded machine can hold a query past the service's 1.5 s (seen: a 503 in
        # test_security beside two busy processes); the outage tests set their own
        "db_timeout": 10.0,
        "bot_delay": 0.0,  # expert bots act at once (their human pace: test_expert_bots)
        "review_budget": Budget(1, 2, words=2),  # a deal's review in well under a second of CPU
        # the bots here only need to play (their strength: tests/expert, bench/bench_expert.py)
        "bot_budget": Budget(2, 4, words=4),
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(scope="module")
async def base_url(db_url: str) -> AsyncIterator[str]:
    """The base URL of a live doko server on the module's database."""
    async with serve(create_app(settings(db_url))) as url:
        yield url


@pytest.fixture(scope="module")
async def module_http(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the module's server, shared by the module's tests."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as client:
        yield client


@pytest.fixture
async def http(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base_url, timeout=10.0) as client:
        yield client


@pytest.fixture
def api(http: httpx.AsyncClient) -> DokoClient:
    return DokoClient(http)


class Clock:
    """A clock the test moves (give it to `create_app` as ``clock``): the rate limits count
    per second of it, so a test decides when a window ends instead of racing the wall
    clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def next_window(self) -> None:
        """Move to the start of the next second: a fresh window for every limit."""
        self.now = float(int(self.now) + 1)


class Records(logging.Handler):
    """Log records kept in a list while `attached` to some loggers. (Not pytest's caplog:
    the app's start-up configures logging and takes caplog's handler off the root
    logger.)"""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def messages(self, logger: str, level: int = logging.DEBUG) -> list[str]:
        """The messages ``logger`` logged at ``level`` or above, in order."""
        return [r.getMessage() for r in self.records if r.name == logger and r.levelno >= level]

    @contextlib.contextmanager
    def attached(self, *names: str, level: int = logging.INFO) -> Iterator[Records]:
        """Keep what these loggers log at ``level`` or above while the block runs."""
        loggers = [logging.getLogger(name) for name in names]
        levels = [logger.level for logger in loggers]
        for logger in loggers:
            logger.addHandler(self)
            logger.setLevel(level)
        try:
            yield self
        finally:
            for logger, old in zip(loggers, levels, strict=True):
                logger.removeHandler(self)
                logger.setLevel(old)
