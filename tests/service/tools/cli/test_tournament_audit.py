"""``doko verify --tournament ID``, ``doko export --tournament ID`` and ``doko verify --file`` of
a tournament export: the same tournament verified on the database and offline."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest

from infra.event_store import StoredEvent
from infra.tournaments import Tournaments
from service.tools.cli import main
from tests.infra.audit.test_tournament import Logs, played
from tests.infra.audit.test_tournament_export import recorded
from tests.service.tools.cli.test_audit import doko, saved_keys

__all__ = ["played"]

Played = tuple[Tournaments, str, list[StoredEvent], Logs]


async def test_a_tournament_verified_on_the_database_and_offline_and_witnessed(
    db_url: str, played: Played, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, tournament_id, _, _ = played
    status, out = await doko(
        capsys, "verify", "--tournament", tournament_id, "--database-url", db_url
    )
    assert status == 0, out
    assert out.splitlines()[-1] == f"{tournament_id}: ok, 2 tables (Club night)"
    assert f"{tournament_id} standings: ok" in out

    export = tmp_path / "tournament.json"
    options = ("--database-url", db_url)
    status, out = await doko(
        capsys, "export", "--tournament", tournament_id, "-o", str(export), *options
    )
    assert status == 0 and f"of tournament {tournament_id!r} to {export}, signed by key" in out
    keys = await saved_keys(capsys, db_url, tmp_path / "keys.json")
    offline = ["verify", "--file", str(export), "--public-key", str(keys)]
    status, out = await doko(capsys, *offline, "--tournament", tournament_id)
    assert status == 0, out
    assert out.splitlines()[-1] == f"{tournament_id}: ok, 2 tables (Club night)"
    assert "NOT PINNED" not in capsys.readouterr().err
    assert await asyncio.to_thread(main, offline) == 0
    assert (
        "NOT PINNED: nothing says this file is of the tournament you mean"
        in capsys.readouterr().err
    )
    archive = tmp_path / "event-stream.txt"
    archive.write_bytes(await recorded(played))
    status, out = await doko(
        capsys, *offline, "--tournament", tournament_id, "--witness", str(archive)
    )
    assert status == 0 and f"{tournament_id} witness: ok " in out, out
    archive.write_text("{not json")
    assert await asyncio.to_thread(main, [*offline, "--witness", str(archive)]) == 2
    assert capsys.readouterr().err.startswith(f"--witness {archive}: message 1 is not JSON")
    assert await asyncio.to_thread(main, [*offline, "--table", "x"]) == 2
    assert "--table goes with a table's export" in capsys.readouterr().err
    status, out = await doko(capsys, *offline, "--tournament", "another")
    assert status == 1 and out.splitlines()[-1] == (
        f"{tournament_id}: FAILED tournament: the file is of tournament {tournament_id}, "
        "not of another"
    )

    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "doko-tournament-export"}')
    assert await asyncio.to_thread(main, ["verify", "--file", str(broken), "--allow-unsigned"]) == 2
    assert capsys.readouterr().err.startswith(f"{broken}: not a doko tournament export")

    document = msgspec.json.decode(export.read_bytes())
    document["standings"]["lines"][0]["total"] += 1
    export.write_bytes(msgspec.json.encode(document))
    status, out = await doko(capsys, *offline, "--tournament", tournament_id)
    assert status == 1
    assert out.splitlines()[-1].startswith(
        f"{tournament_id}: FAILED signature: the signature of key"
    )


async def test_an_unknown_tournament_or_a_mixed_request_is_refused(
    db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    verify = ["verify", "--tournament", "nope", "--database-url", db_url]
    assert await asyncio.to_thread(main, verify) == 2
    assert "no tournament 'nope'" in capsys.readouterr().err
    export = ["export", "--tournament", "nope", "--database-url", db_url]
    assert await asyncio.to_thread(main, export) == 2
    assert "no tournament 'nope'" in capsys.readouterr().err
    both = ["export", "a-table", "--tournament", "nope", "--database-url", db_url]
    assert await asyncio.to_thread(main, both) == 2
    assert "give a TABLE or --tournament ID" in capsys.readouterr().err
