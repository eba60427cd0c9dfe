"""``doko serve`` as a process of its own, for the tests that need the real thing."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import msgspec

SAFETY = 300.0
"""Seconds after which a wait gives up (a safety net, not a bound on the service)."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that is free now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def doko_serve(port: int, *options: str, log: Path | None = None) -> subprocess.Popen[bytes]:
    """``doko serve`` on ``port`` with ``options``; its log (at info) in ``log`` if given."""
    environment = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    command = [sys.executable, "-m", "service.tools.cli", "serve", "--port", str(port), *options]
    if log is None:
        return subprocess.Popen(
            [*command, "--log-level", "warning"],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    with log.open("wb") as stderr:
        return subprocess.Popen(
            [*command, "--log-level", "info"],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def logged(log: Path) -> list[dict[str, object]]:
    """The JSON lines ``doko serve`` wrote to ``log``."""
    return [msgspec.json.decode(line) for line in log.read_bytes().splitlines()]


async def wait_ready(port: int, process: subprocess.Popen[bytes]) -> None:
    """Wait until the ``doko serve`` on ``port`` is ready."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=5) as http:
        async with asyncio.timeout(SAFETY):
            while True:
                assert process.poll() is None, "doko serve ended"
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/health/ready")).status_code == 200:
                        return
                await asyncio.sleep(0.1)
