"""``doko db upgrade`` and ``doko projections rebuild`` (the latter on the two sessions that
`tests.service.tools.cli.test_audit` plays, played on this module's database)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from infra.migrate import head_revision
from service.tools.cli import main
from tests.service.tools.cli.test_audit import doko, played

__all__ = ["played"]


async def test_db_upgrade_with_a_url(empty_db_url: str) -> None:
    # main() runs its own event loop, so give it a thread of its own.
    status = await asyncio.to_thread(main, ["db", "upgrade", "--database-url", empty_db_url])

    assert status == 0
    connection = await asyncpg.connect(empty_db_url)
    try:
        revision = await connection.fetchval("SELECT version_num FROM alembic_version")
    finally:
        await connection.close()
    assert revision == head_revision()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run Python in a fresh process without DATABASE_URL."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=60, check=True
    )


def test_db_upgrade_on_the_embedded_server_persists_and_stops(tmp_path: Path) -> None:
    pgdata = tmp_path / "pgdata"

    upgraded = run("-m", "service.tools.cli", "db", "upgrade", "--data-dir", str(pgdata))
    assert "newest schema" in upgraded.stdout
    assert not (pgdata / "postmaster.pid").exists(), "server left running"

    check = (
        "import asyncio, asyncpg, sys\n"
        "from infra.database import database_url\n"
        "async def revision(url):\n"
        "    connection = await asyncpg.connect(url)\n"
        "    print(await connection.fetchval('SELECT version_num FROM alembic_version'))\n"
        "    await connection.close()\n"
        "asyncio.run(revision(database_url(data_dir=sys.argv[1])))\n"
    )
    assert run("-c", check, str(pgdata)).stdout.strip() == head_revision()
    assert not (pgdata / "postmaster.pid").exists(), "server left running"


async def test_projections_rebuild(
    db_url: str, pool: asyncpg.Pool, played: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = await pool.fetch("SELECT stream_id, view::text FROM table_views ORDER BY stream_id")
    await pool.execute("TRUNCATE table_views")

    status, out = await doko(capsys, "projections", "rebuild", "--database-url", db_url)

    assert status == 0
    assert "2 tables, 24 archived deals" in out
    after = await pool.fetch("SELECT stream_id, view::text FROM table_views ORDER BY stream_id")
    assert after == before
