"""``doko verify --event ID``, ``doko export --event ID`` and ``doko verify --file`` of an
event export (issue 19): the same event verified on the database and offline."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest

from infra.event_store import StoredEvent
from infra.events import Events
from service.tools.cli import main
from tests.infra.test_cli_audit import doko, saved_keys
from tests.infra.test_event_audit import Logs, played
from tests.infra.test_event_export import recorded

__all__ = ["played"]

Played = tuple[Events, str, list[StoredEvent], Logs]


async def test_an_event_verified_on_the_database_and_offline_and_witnessed(
    db_url: str, played: Played, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, event_id, _, _ = played
    status, out = await doko(capsys, "verify", "--event", event_id, "--database-url", db_url)
    assert status == 0, out
    assert out.splitlines()[-1] == f"{event_id}: ok, 2 tables (Club night)"
    assert f"{event_id} standings: ok" in out

    export = tmp_path / "event.json"
    options = ("--database-url", db_url)
    status, out = await doko(capsys, "export", "--event", event_id, "-o", str(export), *options)
    assert status == 0 and f"of event {event_id!r} to {export}, signed by key" in out
    keys = await saved_keys(capsys, db_url, tmp_path / "keys.json")
    offline = ["verify", "--file", str(export), "--public-key", str(keys)]
    status, out = await doko(capsys, *offline, "--event", event_id)
    assert status == 0, out
    assert out.splitlines()[-1] == f"{event_id}: ok, 2 tables (Club night)"
    assert "NOT PINNED" not in capsys.readouterr().err
    assert await asyncio.to_thread(main, offline) == 0
    assert "NOT PINNED: nothing says this file is of the event you mean" in capsys.readouterr().err
    archive = tmp_path / "event-stream.txt"
    archive.write_bytes(await recorded(played))
    status, out = await doko(capsys, *offline, "--event", event_id, "--witness", str(archive))
    assert status == 0 and f"{event_id} witness: ok " in out, out
    archive.write_text("{not json")
    assert await asyncio.to_thread(main, [*offline, "--witness", str(archive)]) == 2
    assert capsys.readouterr().err.startswith(f"--witness {archive}: message 1 is not JSON")
    assert await asyncio.to_thread(main, [*offline, "--table", "x"]) == 2
    assert "--table goes with a table's export" in capsys.readouterr().err
    status, out = await doko(capsys, *offline, "--event", "another")
    assert status == 1 and out.splitlines()[-1] == (
        f"{event_id}: FAILED event: the file is of event {event_id}, not of another"
    )

    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "doko-event-export"}')
    assert await asyncio.to_thread(main, ["verify", "--file", str(broken), "--allow-unsigned"]) == 2
    assert capsys.readouterr().err.startswith(f"{broken}: not a doko event export")

    document = msgspec.json.decode(export.read_bytes())
    document["standings"]["lines"][0]["total"] += 1
    export.write_bytes(msgspec.json.encode(document))
    status, out = await doko(capsys, *offline, "--event", event_id)
    assert status == 1
    assert out.splitlines()[-1].startswith(f"{event_id}: FAILED signature: the signature of key")


async def test_an_unknown_event_or_a_mixed_request_is_refused(
    db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    verify = ["verify", "--event", "nope", "--database-url", db_url]
    assert await asyncio.to_thread(main, verify) == 2
    assert "no event 'nope'" in capsys.readouterr().err
    export = ["export", "--event", "nope", "--database-url", db_url]
    assert await asyncio.to_thread(main, export) == 2
    assert "no event 'nope'" in capsys.readouterr().err
    both = ["export", "a-table", "--event", "nope", "--database-url", db_url]
    assert await asyncio.to_thread(main, both) == 2
    assert "give a TABLE or --event ID" in capsys.readouterr().err
