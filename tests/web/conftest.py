"""Browser tests: the system Chromium driven by Playwright, against a doko server run
in-process on the module's PostgreSQL database (restartable on the same port).

Playwright cannot download browsers here, so it drives the Debian ``chromium`` package
through ``executable_path``; each launch gets a fresh temporary profile from Playwright.
Without a browser the tests skip with one line saying how to get one, except under CI
(``CI=true``), where they fail: CI must run them (``.ci/run`` installs Chromium).
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import AsyncIterator
from datetime import datetime

import httpx
import pytest
from playwright.async_api import Browser, async_playwright

from expert.player import DEFAULT_BUDGET
from service.app import create_app
from service.tools.client import (
    DokoClient,
)
from service.workers.clock import system_now
from tests.service.conftest import serve, settings

CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
NO_BROWSER = "browser tests skipped: no Chromium found; install it with `apt-get install chromium`"


def chromium_path() -> str | None:
    """The Chromium to drive: ``DOKO_CHROMIUM`` if set, else the first one installed."""
    candidates = (os.environ.get("DOKO_CHROMIUM"), *CHROMIUM_PATHS)
    return next((p for p in candidates if p and os.access(p, os.X_OK)), None)


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="session")
def chromium() -> str:
    path = chromium_path()
    if path is None:
        if in_ci():
            pytest.fail(f"CI=true but no Chromium at {', '.join(CHROMIUM_PATHS)}")
        pytest.skip(NO_BROWSER)
    return path


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say once, in the summary, why the browser tests did not run."""
    skipped = terminalreporter.stats.get("skipped", [])
    if any(NO_BROWSER in str(getattr(report, "longrepr", "")) for report in skipped):
        terminalreporter.write_line(NO_BROWSER)


@pytest.fixture(scope="module")
async def browser(chromium: str) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=chromium, args=list(LAUNCH_ARGS), headless=True
        )
        try:
            yield launched
        finally:
            await launched.close()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class TurnClockTime:
    """The turn clock's time source (`service.app.create_app`'s ``now``): the real time, or
    a reading a test pins (``pinned``), as when the test decides which deadline has passed."""

    def __init__(self) -> None:
        self.pinned: datetime | None = None

    def __call__(self) -> datetime:
        return self.pinned or system_now()


class Service:
    """A doko server on one port of 127.0.0.1 and one database, which a test may restart;
    ``clock`` is its turn clock's time source."""

    def __init__(self, db_url: str, port: int) -> None:
        self.db_url = db_url
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.clock = TurnClockTime()
        self._running: contextlib.AsyncExitStack | None = None

    async def start(self) -> None:
        running = contextlib.AsyncExitStack()
        # the bots search as in a served table: what they say (badges at the seats) shapes
        # the board whose fit in the window the browser tests check at every move
        app = create_app(
            settings(self.db_url, turn_clock_tick=0.1, bot_budget=DEFAULT_BUDGET), now=self.clock
        )
        await running.enter_async_context(serve(app, self.port))
        self._running = running

    async def stop(self) -> None:
        running, self._running = self._running, None
        if running is not None:
            await running.aclose()

    async def restart(self) -> None:
        """Stop the service (its open streams end) and start a new one on the same port."""
        await self.stop()
        await self.start()


@pytest.fixture(scope="module")
async def service(db_url: str) -> AsyncIterator[Service]:
    running = Service(db_url, free_port())
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


@pytest.fixture
async def api(service: Service) -> AsyncIterator[DokoClient]:
    async with httpx.AsyncClient(base_url=service.url, timeout=10.0) as http:
        yield DokoClient(http)
