"""``doko replay``, ``doko verify`` and ``doko export``.

The module's database holds two finished sessions that its tests only read; a test that
tampers with the log or adds a table works on a database of its own, so that every test
holds in any order.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from pathlib import Path

import asyncpg
import msgspec
import pytest

from domain.events import CardPlayed
from infra.event_store import EventStore
from infra.projections import project
from infra.tables import CODEC, Tables
from service.tools.cli import main
from tests.infra.audit.test_table import tamper
from tests.infra.test_projections import execute_all, play_table

pytestmark = pytest.mark.xdist_group("cli_audit")
"""Its tests share fixtures that play whole sessions: one worker runs them all
(`--dist loadgroup`, README), so that they are played once."""


async def play_two(pool: asyncpg.Pool) -> list[str]:
    """Two whole seeded sessions, written through `Tables.execute` with the projector."""
    tables = Tables(EventStore(pool), project)
    rng = random.Random(1)
    for name in ("cli-a", "cli-b"):
        commands, _ = play_table(rng, name)
        await execute_all(tables, name, commands)
    return ["cli-a", "cli-b"]


@pytest.fixture(scope="module")
async def played(pool: asyncpg.Pool) -> list[str]:
    """The module's two sessions: read, never changed."""
    return await play_two(pool)


async def doko(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run ``doko`` in a thread (it runs its own event loop); its status and output."""
    status = await asyncio.to_thread(main, list(args))
    return status, capsys.readouterr().out


async def test_replay_prints_a_deal_step_by_step(
    db_url: str, played: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = await doko(capsys, "replay", "cli-a", "3", "--database-url", db_url)

    assert status == 0
    assert out.startswith("Table cli-a: seat 0 cli-a-0")
    assert "Deal 3: dealer seat" in out and "Deal 4" not in out
    assert "Trick 12" in out
    assert "R8.1" in out and "won" in out

    status, out = await doko(capsys, "replay", "cli-a", "--database-url", db_url)
    assert status == 0
    assert all(f"Deal {n}: dealer" in out for n in range(1, 13))

    assert await asyncio.to_thread(main, ["replay", "nope", "--database-url", db_url]) == 2
    assert await asyncio.to_thread(main, ["replay", "cli-a", "13", "--database-url", db_url]) == 2


async def saved_keys(capsys: pytest.CaptureFixture[str], db_url: str, path: Path) -> Path:
    """The deployment's public keys as ``doko keys list --jwks`` prints them, in a file."""
    status, out = await doko(capsys, "keys", "list", "--jwks", "--database-url", db_url)
    assert status == 0
    path.write_text(out)
    return path


async def test_verify_all_tables_and_export_round_trip(
    db_url: str, played: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out = await doko(capsys, "verify", "--database-url", db_url)
    assert status == 0, out
    assert "cli-a: ok, 12 deals" in out and "cli-b: ok, 12 deals" in out
    assert out.count(" deal ") >= 24

    export = tmp_path / "cli-a.json"
    status, out = await doko(capsys, "export", "cli-a", "-o", str(export), "--database-url", db_url)
    assert status == 0
    keys = await saved_keys(capsys, db_url, tmp_path / "keys.json")
    (kid,) = [k["kid"] for k in msgspec.json.decode(keys.read_bytes())["keys"]]
    assert f"signed by key {kid}" in out
    status, out = await doko(capsys, "verify", "--file", str(export), "--public-key", str(keys))
    assert status == 0, out
    assert "cli-a: ok, 12 deals" in out
    assert f"cli-a signature: signed by key {kid} (current)" in out
    # a file is checked only against a key given apart from it
    assert await asyncio.to_thread(main, ["verify", "--file", str(export)]) == 2
    assert capsys.readouterr().err.startswith("--file needs --public-key")

    document = msgspec.json.decode(export.read_bytes())
    target = next(e for e in document["events"] if e["type"] == "card_played")
    target["payload"]["card"] = "9S" if target["payload"]["card"] != "9S" else "9C"
    export.write_bytes(msgspec.json.encode(document))
    status, out = await doko(capsys, "verify", "--file", str(export), "--public-key", str(keys))
    assert status == 1
    assert f"FAILED at event version {target['version']}" in out
    assert "signature: the signature of key" in out

    export.write_text("{}")
    verify = ["verify", "--file", str(export), "--public-key", str(keys)]
    assert await asyncio.to_thread(main, verify) == 2


async def test_verify_file_takes_the_table_the_auditor_expects(
    db_url: str, played: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    export = tmp_path / "cli-b.json"
    status, _ = await doko(capsys, "export", "cli-b", "-o", str(export), "--database-url", db_url)
    assert status == 0
    keys = await saved_keys(capsys, db_url, tmp_path / "keys.json")
    verify = ["verify", "--file", str(export), "--public-key", str(keys)]

    # a genuinely signed file of another table (a look-alike of cli-a)
    status, out = await doko(capsys, *verify, "--table", "cli-a")
    assert status == 1
    assert "cli-b: FAILED: table: the file is of table cli-b, not of cli-a" in out
    status, out = await doko(capsys, *verify, "--table", "cli-b")
    assert status == 0, out
    assert "cli-b table: the file is of table cli-b, as expected" in out

    status = await asyncio.to_thread(main, verify)
    err = capsys.readouterr().err
    assert status == 0
    assert "WARNING: NOT PINNED: nothing says this file is of the table you mean" in err
    assert await asyncio.to_thread(main, [*verify, "--created-at", "2026-12-01T10:00Z"]) == 2
    assert capsys.readouterr().err.startswith("--created-at goes with --table")
    with pytest.raises(SystemExit):
        main([*verify, "--table", "cli-b", "--created-at", "2026-12-01T10:00"])
    assert "has no offset (say Z for UTC)" in capsys.readouterr().err


def doko_process(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m service.tools.cli`` in a fresh process without DATABASE_URL."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, "-m", "service.tools.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_verify_in_a_subprocess_fails_on_a_tampered_event(own_db_url: str) -> None:
    async with asyncpg.create_pool(own_db_url, min_size=1, max_size=2) as pool:
        await play_two(pool)
        stored = await EventStore(pool).read_stream("cli-b")
        record = next(e for e in stored[200:] if isinstance(CODEC.from_stored(e), CardPlayed))
        event = CODEC.from_stored(record)
        assert isinstance(event, CardPlayed)
        forged = msgspec.structs.replace(event, seat=event.seat.left())
        await tamper(pool, "cli-b", record.version, msgspec.json.encode(forged).decode())

    url = own_db_url
    one = await asyncio.to_thread(doko_process, "verify", "cli-b", "--database-url", url)
    assert one.returncode == 1, one.stdout + one.stderr
    assert f"cli-b: FAILED at event version {record.version}" in one.stdout

    every = await asyncio.to_thread(doko_process, "verify", "--database-url", url)
    assert every.returncode == 1
    assert "cli-a: ok" in every.stdout
    assert "FAILED: cli-b" in every.stdout


async def test_a_table_in_play_keeps_its_secrets(
    own_db_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    commands, _ = play_table(random.Random(2), "cli-open", stop=100)
    async with asyncpg.create_pool(own_db_url, min_size=1, max_size=2) as pool:
        await execute_all(Tables(EventStore(pool), project), "cli-open", commands)
    url = ("--database-url", own_db_url)

    status, out = await doko(capsys, "replay", "cli-open", *url)
    assert status == 0
    assert "Deal 1: dealer" in out
    assert "(deal 2 is in play and not shown; --show-open shows it)" in out
    assert await asyncio.to_thread(main, ["replay", "cli-open", "2", *url]) == 2
    status, out = await doko(capsys, "replay", "cli-open", "2", "--show-open", *url)
    assert status == 0
    assert "deal in progress" in out

    target = tmp_path / "open.json"
    assert await asyncio.to_thread(main, ["export", "cli-open", "-o", str(target), *url]) == 2
    assert not target.exists()
    status, _ = await doko(capsys, "export", "cli-open", "-o", str(target), "--unfinished", *url)
    assert status == 0
    keys = await saved_keys(capsys, own_db_url, tmp_path / "keys.json")
    status, out = await doko(capsys, "verify", "--file", str(target), "--public-key", str(keys))
    assert status == 0
    assert "cli-open: ok, 2 deals" in out
