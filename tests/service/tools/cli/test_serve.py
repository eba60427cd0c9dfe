"""``doko serve``: the service as users start it, its logs, its workers, its database."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import httpx


def _serve_until_healthy(*options: str, errors: Path | None = None) -> None:
    """Start `doko serve` as users do, wait until /health answers, then stop it with SIGINT
    (its standard error into the file ``errors`` if given)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    doko = Path(sys.executable).with_name("doko")
    stderr = errors.open("wb") if errors is not None else None
    server = subprocess.Popen([str(doko), "serve", "--port", str(port), *options], stderr=stderr)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, "doko serve exited early"
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
            except httpx.TransportError:
                assert time.monotonic() < deadline, "doko serve did not answer within 60 s"
                time.sleep(0.2)
                continue
            assert answer.json() == {"status": "ok"}
            break
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0
        if stderr is not None:
            stderr.close()


def test_serve_answers_on_a_database_url(db_url: str) -> None:
    _serve_until_healthy("--database-url", db_url)


async def test_every_line_serve_logs_is_a_json_object(empty_db_url: str, tmp_path: Path) -> None:
    """Structured logs (service.edge.logs): the libraries' records too, such as alembic's while
    it migrates a new database, are JSON objects, one a line, with their logger's name."""
    errors = tmp_path / "stderr"
    await asyncio.to_thread(_serve_until_healthy, "--database-url", empty_db_url, errors=errors)
    lines = errors.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert all(isinstance(r, dict) for r in records), lines
    assert any(str(r.get("logger", "")).startswith("alembic") for r in records), lines


async def test_the_workers_of_one_service_share_one_key_of_its_key_folder(
    empty_db_url: str, tmp_path: Path
) -> None:
    """``doko serve --workers 2``: both workers started (uvicorn logs each start), one key
    was made, its private key is a file of the key folder only, and no worker says that it
    cannot sign."""
    keys, errors = tmp_path / "keys", tmp_path / "stderr"
    doko = Path(sys.executable).with_name("doko")
    options = ["--database-url", empty_db_url, "--workers", "2", "--key-dir", str(keys)]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with errors.open("wb") as stderr:
        server = subprocess.Popen(
            [str(doko), "serve", "--port", str(port), *options], stderr=stderr
        )
        try:
            async with asyncio.timeout(60):
                while errors.read_text().count("Application startup complete") < 2:
                    assert server.poll() is None, errors.read_text()
                    await asyncio.sleep(0.2)
        finally:
            server.send_signal(signal.SIGINT)
            assert await asyncio.to_thread(server.wait, 30) == 0
    connection = await asyncpg.connect(empty_db_url)
    try:
        current = await connection.fetch("SELECT kid, configured FROM signing_keys")
    finally:
        await connection.close()
    assert [tuple(r) for r in current] == [(current[0][0], False)]
    assert [f.name for f in keys.iterdir()] == [f"{current[0][0]}.pem"]
    assert "cannot sign" not in errors.read_text()


def test_serve_starts_the_embedded_database(tmp_path: Path) -> None:
    """The README's run command: no URL, so an embedded PostgreSQL in the data folder."""
    _serve_until_healthy("--data-dir", str(tmp_path / "pgdata"))
    assert (tmp_path / "pgdata" / "PG_VERSION").exists()
