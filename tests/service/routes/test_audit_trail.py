"""Audit records anyone can trust without trusting whoever hands them over.

A session is played by four server-side bots while a spectator saves the integration
feed and the table's event stream as received (raw text/event-stream). The export is
fetched over HTTP and checked offline by ``doko verify --file`` with nothing but the
service's published keys (fetched from the service, or saved from it) and the saved
streams: it verifies, and each forgery fails with its reason.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from infra.key_folder import KeyFolder
from infra.signing import KeyFileError, KeyStatus, Signer, b64url, check_signature, read_keys
from infra.sse import SseMessage, SseParser
from service.app import create_app
from service.tools.cli import main
from service.tools.client import (
    DokoClient,
)
from tests.infra.audit.forgery import Document, encoded, forge_move, resign, unsigned
from tests.service.conftest import serve, settings

pytestmark = pytest.mark.xdist_group("audit_trail")
"""Its tests share fixtures that play whole sessions: one worker runs them all
(`--dist loadgroup`, README), so that they are played once."""

WITNESSED = ("deal_scored", "session_finished")
DAY = timedelta(days=1)
SESSION_TIMEOUT = 300.0


class Session(msgspec.Struct):
    """A finished bot session: its table, the export, the streams a spectator saved and the
    id of the key the service published as current when the export was made (other tests
    of this module rotate the keys)."""

    table_id: str
    export: bytes
    feed: str
    stream: str
    current_kid: str


async def record_raw(
    http: httpx.AsyncClient, path: str, done: Callable[[SseMessage], bool], ready: asyncio.Event
) -> str:
    """The text of an event stream as received, until a message ``done`` accepts."""
    received: list[str] = []
    parser, pending = SseParser(), ""
    async with http.stream("GET", path, timeout=httpx.Timeout(10.0, read=None)) as response:
        assert response.status_code == 200
        ready.set()
        async for chunk in response.aiter_text():
            received.append(chunk)
            *lines, pending = (pending + chunk).split("\n")
            for line in lines:
                message = parser.line(line.removesuffix("\r"))
                if message is not None and done(message):
                    return "".join(received)
    raise AssertionError(f"{path} ended before its last message")


async def recording(
    http: httpx.AsyncClient, path: str, done: Callable[[SseMessage], bool]
) -> asyncio.Task[str]:
    ready = asyncio.Event()
    task = asyncio.create_task(record_raw(http, path, done, ready))
    await asyncio.wait_for(ready.wait(), 10)
    return task


async def bots_play(http: httpx.AsyncClient, name: str) -> str:
    """A public table with four bots (their moves are the bots'); its id."""
    table = await DokoClient(http).create_table(name, visibility="public")
    for kind in ("random", "greedy", "random", "greedy"):
        await table.seat_bot(kind)
    return table.table_id


@pytest.fixture(scope="module")
async def session(base_url: str) -> AsyncIterator[Session]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as http:
        table: dict[str, str] = {}
        feed = await recording(
            http,
            "/feed",
            lambda m: m.event == "session_finished" and m.json()["table_id"] == table.get("id"),
        )
        table["id"] = await bots_play(http, "audited by bots")
        stream = await recording(
            http, f"/tables/{table['id']}/events", lambda m: m.event == "session_finished"
        )
        async with asyncio.timeout(SESSION_TIMEOUT):
            feed_text, stream_text = await asyncio.gather(feed, stream)
        response = await http.get(f"/tables/{table['id']}/export")
        assert response.status_code == 200, response.text
        keys = (await http.get("/.well-known/doko-keys")).json()
        current = next(k["kid"] for k in keys["keys"] if k["status"] == "current")
        yield Session(table["id"], response.content, feed_text, stream_text, current)


async def doko(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``doko`` in a thread (it runs its own event loop): status, output, errors."""
    status = await asyncio.to_thread(main, list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def document_of(session: Session) -> Document:
    document: Document = msgspec.json.decode(session.export)
    return document


def saved(tmp_path: Path, name: str, data: bytes | str) -> str:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data)
    else:
        path.write_bytes(data)
    return str(path)


async def witnessed_versions(pool: asyncpg.Pool, table_id: str) -> list[int]:
    rows = await pool.fetch(
        "SELECT version FROM events WHERE stream_id = $1 AND type = ANY($2::text[])"
        " ORDER BY version",
        table_id,
        list(WITNESSED),
    )
    return [row[0] for row in rows]


async def deployment_key(pool: asyncpg.Pool) -> Signer:
    """The service's own current key, as an insider holding the key folder has it."""
    kid = await pool.fetchval("SELECT kid FROM signing_keys WHERE retired IS NULL")
    signer = KeyFolder().read(kid)
    assert signer is not None
    return signer


async def private_keys(pool: asyncpg.Pool) -> list[Signer]:
    """The private keys of the deployment's keys that the key folder holds."""
    kids = [row[0] for row in await pool.fetch("SELECT kid FROM signing_keys")]
    return [signer for kid in kids if (signer := KeyFolder().read(kid)) is not None]


def raw(signer: Signer) -> bytes:
    """The 32 bytes of a private key (RFC 8032's "private key"; PKCS #8 wraps them)."""
    key = serialization.load_pem_private_key(signer.pem(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    return key.private_bytes_raw()


def now() -> datetime:
    return datetime.now(UTC)


def is_bot_move(event: Document) -> bool:
    return event["type"] == "card_played" and str(event["actor"]).startswith("bot:")


async def test_the_http_export_verifies_offline_with_the_service_keys_and_the_feed(
    session: Session,
    base_url: str,
    http: httpx.AsyncClient,
    pool: asyncpg.Pool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    export = saved(tmp_path, "export.json", session.export)
    feed = saved(tmp_path, "feed.txt", session.feed)
    stream = saved(tmp_path, "stream.txt", session.stream)
    heads = await witnessed_versions(pool, session.table_id)
    assert len(heads) == 13  # 12 deals scored, the session finished
    assert document_of(session)["signature"]["kid"] == session.current_kid
    keys = (await http.get("/.well-known/doko-keys")).json()
    key_status = next(k["status"] for k in keys["keys"] if k["kid"] == session.current_kid)

    for archive in (feed, stream):
        status, out, err = await doko(
            capsys, "verify", "--file", export, "--public-key", base_url, "--witness", archive
        )
        assert status == 0, out + err
        assert f"{session.table_id}: ok, 12 deals" in out
        assert f"signature: signed by key {session.current_kid} ({key_status})" in out
        assert f"witness: 13 published chain heads agree, up to version {heads[-1]}" in out
        assert "1 of 1 tables verified" in out


async def test_a_forged_bot_move_fails(
    session: Session,
    http: httpx.AsyncClient,
    pool: asyncpg.Pool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    keys = saved(tmp_path, "keys.json", (await http.get("/.well-known/doko-keys")).content)
    feed = saved(tmp_path, "feed.txt", session.feed)
    document = document_of(session)
    version = forge_move(document, is_bot_move)
    forged = saved(tmp_path, "forged.json", encoded(document))

    status, out, _ = await doko(capsys, "verify", "--file", forged, "--public-key", keys)
    assert status == 1
    assert "signature: the signature of key" in out and "does not match the content" in out

    stripped = saved(tmp_path, "stripped.json", encoded(unsigned(document)))
    status, out, _ = await doko(capsys, "verify", "--file", stripped, "--public-key", keys)
    assert status == 1
    assert "signature: the file is not signed" in out
    # what `doko verify --file` said before: every other check passes, and now loudly so
    status, out, err = await doko(
        capsys, "verify", "--file", stripped, "--public-key", keys, "--allow-unsigned"
    )
    assert status == 0
    assert "1 of 1 tables verified" in out
    assert "WARNING: NOT SIGNED" in err and "WARNING: NOT SIGNED" in out
    # ... except against the chain heads published live
    status, out, _ = await doko(
        capsys, "verify", "--file", stripped, "--allow-unsigned", "--witness", feed
    )
    first = min(v for v in await witnessed_versions(pool, session.table_id) if v >= version)
    assert status == 1
    assert f"FAILED at event version {first}" in out

    stranger = saved(tmp_path, "stranger.json", encoded(resign(document, Signer.generate())))
    status, out, _ = await doko(capsys, "verify", "--file", stranger, "--public-key", keys)
    assert status == 1
    assert "which is not one of the trusted keys" in out


async def test_a_changed_recorded_at_or_players_copy_fails(
    session: Session,
    base_url: str,
    pool: asyncpg.Pool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    document = document_of(session)
    document["events"][100]["recorded_at"] = "2020-01-01T00:00:00Z"
    changed = saved(tmp_path, "recorded_at.json", encoded(document))
    status, out, _ = await doko(capsys, "verify", "--file", changed, "--public-key", base_url)
    assert status == 1
    assert "signature: the signature of key" in out

    document = document_of(session)
    assert document["players"] == ["random bot", "greedy bot", "random bot", "greedy bot"]
    document["players"][2] = "seat:1"
    changed = saved(tmp_path, "players.json", encoded(document))
    status, out, _ = await doko(capsys, "verify", "--file", changed, "--public-key", base_url)
    assert status == 1
    assert "signature: the signature of key" in out
    assert "copies: players ['random bot', 'greedy bot', 'seat:1', 'greedy bot']" in out

    # signed as it is, with the deployment's own key: the copies still do not pass
    resigned = saved(
        tmp_path, "resigned.json", encoded(resign(document, await deployment_key(pool)))
    )
    status, out, _ = await doko(capsys, "verify", "--file", resigned, "--public-key", base_url)
    assert status == 1
    (failed,) = [line for line in out.splitlines() if line.startswith(f"{session.table_id}: F")]
    assert failed.startswith(f"{session.table_id}: FAILED: copies: players [")
    assert "signature" not in failed


async def test_whoever_holds_the_key_is_caught_by_the_published_chain_heads(
    session: Session,
    base_url: str,
    pool: asyncpg.Pool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    document = document_of(session)
    version = forge_move(document, lambda e: is_bot_move(e) and e["version"] > 300)
    rewritten = saved(
        tmp_path, "rewritten.json", encoded(resign(document, await deployment_key(pool)))
    )

    status, out, _ = await doko(capsys, "verify", "--file", rewritten, "--public-key", base_url)
    assert status == 0, out  # the key proves the origin, not the history

    heads = await witnessed_versions(pool, session.table_id)
    first = min(v for v in heads if v >= version)
    last = max(v for v in heads if v < version)
    feed = saved(tmp_path, "feed.txt", session.feed)
    status, out, _ = await doko(
        capsys, "verify", "--file", rewritten, "--public-key", base_url, "--witness", feed
    )
    assert status == 1
    assert f"FAILED at event version {first}: witness: the export differs at published " in out
    assert f"versions up to {last} agree" in out


async def test_a_file_signed_by_a_retired_key_still_verifies(
    session: Session,
    db_url: str,
    base_url: str,
    http: httpx.AsyncClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    old = saved(tmp_path, "old.json", session.export)
    old_kid = document_of(session)["signature"]["kid"]

    status, out, _ = await doko(capsys, "keys", "rotate", "--database-url", db_url)
    assert status == 0
    new_kid = out.split("current ")[1].split()[0]
    assert f"retired {old_kid}" in out and new_kid != old_kid

    published = (await http.get("/.well-known/doko-keys")).json()["keys"]
    again = await http.get(f"/tables/{session.table_id}/export")
    statuses = {k["kid"]: k["status"] for k in published}
    assert statuses[old_kid] == "retired" and statuses[new_kid] == "current"
    assert msgspec.json.decode(again.content)["signature"]["kid"] == new_kid
    new = saved(tmp_path, "new.json", again.content)

    status, out, _ = await doko(capsys, "verify", "--file", old, "--public-key", base_url)
    assert status == 0, out
    assert f"signed by key {old_kid} (retired)" in out
    status, out, _ = await doko(capsys, "verify", "--file", new, "--public-key", base_url)
    assert status == 0, out
    assert f"signed by key {new_kid} (current)" in out

    status, out, _ = await doko(capsys, "keys", "list", "--database-url", db_url)
    assert status == 0
    assert f"{old_kid}  retired" in out and f"{new_kid}  current" in out


async def test_no_private_key_is_ever_published(
    session: Session,
    db_url: str,
    http: httpx.AsyncClient,
    pool: asyncpg.Pool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    response = await http.get("/.well-known/doko-keys")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/jwk-set+json")
    keys = response.json()["keys"]
    assert keys
    for key in keys:
        assert set(key) == {
            *("kty", "crv", "x", "kid", "alg", "use"),
            *("status", "created", "retired", "revoked_from"),
        }
        assert (key["kty"], key["crv"], key["alg"], key["use"]) == (
            "OKP",
            "Ed25519",
            "EdDSA",
            "sig",
        )
    assert read_keys(response.content).keys() == {k["kid"] for k in keys}
    _, listed, _ = await doko(capsys, "keys", "list", "--jwks", "--database-url", db_url)
    privates = [raw(signer) for signer in await private_keys(pool)]
    assert privates
    for private in privates:
        for shown in (private.hex(), base64.b64encode(private).decode().rstrip("=")):
            for text in (response.text, listed, session.export.decode()):
                assert shown not in text
        assert base64.urlsafe_b64encode(private).decode().rstrip("=") not in response.text


async def test_the_verification_report_is_signed_and_names_its_chain_head(
    session: Session, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    keys = read_keys((await http.get("/.well-known/doko-keys")).content)
    report = (await http.get(f"/tables/{session.table_id}/deals/3/verification")).json()
    scored = await pool.fetchval(
        "SELECT version FROM events WHERE stream_id = $1 AND type = 'deal_scored'"
        " AND (payload->>'deal_no')::int = 3",
        session.table_id,
    )
    # verified up to the end of the command that scored deal 3, which also dealt deal 4
    head = await pool.fetchrow(
        "SELECT version, hash, type FROM events WHERE stream_id = $1 AND version = $2",
        session.table_id,
        scored + 1,
    )
    assert head["type"] == "deal_dealt"

    assert report["ok"] is True and report["deal"]["deal_no"] == 3
    assert (report["table_id"], report["version"]) == (session.table_id, head[0])
    assert report["chain_head"] == bytes(head[1]).hex()
    assert check_signature(report, "doko-deal-verification", keys, allow_unsigned=False).ok
    report["ok"] = False
    assert not check_signature(report, "doko-deal-verification", keys, allow_unsigned=False).ok
    as_export = {**report, "ok": True}
    assert not check_signature(as_export, "doko-table-export", keys, allow_unsigned=False).ok


async def test_the_scoresheet_carries_each_deals_chain_head(
    session: Session, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    sheet = (await http.get(f"/tables/{session.table_id}/scoresheet")).json()
    rows = await pool.fetch(
        "SELECT version, hash, payload FROM events WHERE stream_id = $1 AND type = 'deal_scored'",
        session.table_id,
    )
    scored = {msgspec.json.decode(r[2])["deal_no"]: (r[0], bytes(r[1]).hex()) for r in rows}

    assert len(sheet["rows"]) == 12
    for row in sheet["rows"]:
        assert (row["scored_version"], row["chain_head"]) == scored[row["deal_no"]]


async def test_a_configured_key_signs_and_is_rotated_by_configuration(
    empty_db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "doko.pem"
    status, out, _ = await doko(capsys, "keys", "generate", "-o", str(key))
    assert status == 0
    assert key.stat().st_mode & 0o077 == 0
    configured = Signer.from_pem(key.read_bytes())
    assert configured.kid in out
    assert await asyncio.to_thread(main, ["keys", "generate", "-o", str(key)]) == 2

    db = ("--database-url", empty_db_url)
    assert await asyncio.to_thread(main, ["db", "upgrade", *db]) == 0
    app = create_app(settings(empty_db_url, signing_key=str(key)))
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=30.0) as own:
        keys: Any = (await own.get("/.well-known/doko-keys")).json()["keys"]
        assert [(k["kid"], k["status"]) for k in keys] == [(configured.kid, KeyStatus.CURRENT)]
        table_id = await bots_play(own, "configured")
        async with asyncio.timeout(SESSION_TIMEOUT):
            while not (await own.get(f"/tables/{table_id}/scoresheet")).json()["rows"]:
                await asyncio.sleep(0.05)
        report = (await own.get(f"/tables/{table_id}/deals/1/verification")).json()
    assert report["signature"]["kid"] == configured.kid
    capsys.readouterr()
    status, _, err = await doko(capsys, "keys", "rotate", *db)
    assert status == 2
    assert "given to the service by configuration" in err


def key_material(value: object) -> list[bytes]:
    """The 32-byte strings a database value could spell a private key with: itself if it
    is 32 bytes, and a text read as hex, base64 or base64url, or as a PEM private key."""
    if isinstance(value, bytes | bytearray | memoryview):
        return [bytes(value)] if len(value) == 32 else []
    if not isinstance(value, str):
        return []
    found = []
    text = value.strip().strip('"')
    if len(text) == 64:
        with contextlib.suppress(ValueError):
            found.append(bytes.fromhex(text))
    if len(text) in (43, 44):
        for altchars in (b"+/", b"-_"):
            with contextlib.suppress(ValueError, binascii.Error):
                found.append(base64.b64decode(text.rstrip("=") + "=", altchars, validate=True))
    if "PRIVATE KEY-----" in text:
        with contextlib.suppress(KeyFileError):
            found.append(raw(Signer.from_pem(text.encode())))
    return [candidate for candidate in found if len(candidate) == 32]


async def test_a_database_reader_finds_no_private_key_material(
    session: Session, db_url: str, http: httpx.AsyncClient, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whoever can select every table cannot sign."""
    status, _, _ = await doko(capsys, "keys", "rotate", "--database-url", db_url)
    assert status == 0  # a retired key and a current one
    published = set(read_keys((await http.get("/.well-known/doko-keys")).content))
    connection = await asyncpg.connect(db_url)
    try:
        tables = await connection.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        )
        cells = [
            value
            for (name,) in tables
            for row in await connection.fetch(f'SELECT * FROM "{name}"')
            for value in row.values()
        ]
        current = await connection.fetchval("SELECT kid FROM signing_keys WHERE retired IS NULL")
    finally:
        await connection.close()
    assert len(published) >= 2 and len(cells) > 1000
    signing = [
        candidate
        for value in cells
        for candidate in key_material(value)
        if Signer.from_raw(candidate).kid in published
    ]
    assert signing == []
    # nor, spelled in any other way, the current private key of the key folder
    signer = KeyFolder().read(current)
    assert signer is not None
    known = raw(signer)
    spelled = (known.hex(), base64.b64encode(known).decode()[:40], b64url(known)[:40])
    assert not [v for v in cells if isinstance(v, str) and any(k in v for k in spelled)]
    assert not [v for v in cells if isinstance(v, bytes) and known in v]


async def test_a_retired_or_revoked_key_signs_nothing_valid_after_its_time(
    session: Session, own_db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Retirement and revocation are enforced by `doko verify --file`
    against the key set the service publishes (its own database, so that the module's
    keys are not revoked)."""
    db = ("--database-url", own_db_url)
    async with (
        serve(create_app(settings(own_db_url))) as url,
        httpx.AsyncClient(base_url=url, timeout=30.0) as own,
    ):
        (first,) = (await own.get("/.well-known/doko-keys")).json()["keys"]
        old = KeyFolder().read(first["kid"])
        assert old is not None
        signed_before = resign(document_of(session), old)
        before = saved(tmp_path, "before.json", encoded(signed_before))

        status, out, _ = await doko(capsys, "keys", "rotate", *db)
        assert status == 0 and f"retired {old.kid}" in out
        assert KeyFolder().read(old.kid) is None  # the retired private key is gone
        keys = {k["kid"]: k for k in (await own.get("/.well-known/doko-keys")).json()["keys"]}
        retired = datetime.fromisoformat(keys[old.kid]["retired"])
        (new_kid,) = set(keys) - {old.kid}
        new = KeyFolder().read(new_kid)
        assert new is not None

        async def verify(name: str, document: Document) -> tuple[int, str, str]:
            path = saved(tmp_path, name, encoded(document))
            return await doko(capsys, "verify", "--file", path, "--public-key", url)

        status, out, _ = await doko(capsys, "verify", "--file", before, "--public-key", url)
        assert status == 0, out
        assert f"signed by key {old.kid} (retired)" in out
        # a retired key's forgery: a day after its retirement
        status, out, _ = await verify("after.json", resign(signed_before, old, retired + DAY))
        assert status == 1
        assert f"refused: the key was retired at {retired.isoformat()}" in out
        status, out, _ = await verify("future.json", resign(signed_before, new, now() + DAY))
        assert status == 1
        assert "refused: that is in the future" in out

        # compromised from the time the genuine file was signed on
        since = signed_before["signature"]["signed_at"]
        status, out, _ = await doko(capsys, "keys", "revoke", "--from", since, *db, "--", old.kid)
        assert status == 0 and f"revoked {old.kid} from " in out
        status, out, err = await doko(capsys, "verify", "--file", before, "--public-key", url)
        assert status == 1
        assert f"signed by key {old.kid} (revoked) at " in out and "the key is revoked" in out
        earlier = datetime.fromisoformat(since) - timedelta(minutes=1)
        status, out, err = await verify("earlier.json", resign(signed_before, old, earlier))
        assert status == 3, out + err
        assert "WARNING: FLAGGED: signed by key" in err and "WARNING: FLAGGED" in out
        assert f"{session.table_id}: FLAGGED (verified, signed by a key revoked later)" in out
        assert f"1 of 1 tables verified; FLAGGED: {session.table_id}" in out

        listed = {k["kid"]: k for k in (await own.get("/.well-known/doko-keys")).json()["keys"]}
    _, jwks, _ = await doko(capsys, "keys", "list", "--jwks", *db)
    assert {k["kid"]: k for k in msgspec.json.decode(jwks)["keys"]} == listed
    assert (listed[old.kid]["status"], listed[old.kid]["revoked_from"]) == ("revoked", since)
    assert listed[old.kid]["retired"] == keys[old.kid]["retired"]
    assert (listed[new.kid]["status"], listed[new.kid]["retired"]) == ("current", None)
    status, out, _ = await doko(capsys, "keys", "revoke", "--from", since, *db, "--", new.kid)
    assert status == 0 and f"revoked {new.kid} from " in out
    assert "current " in out and KeyFolder().read(new.kid) is None  # replaced at once
    status, out, _ = await doko(capsys, "keys", "list", *db)
    assert f"{old.kid}  revoked  created " in out and f", REVOKED from {since[:10]}" in out
    # a key id may begin with "-" (base64url): it goes last, after "--"
    for (kid, given), reason in (
        ((old.kid, "tomorrow"), "not an ISO 8601 time"),
        ((old.kid, "2026-11-01T00:00:00"), "give its time zone"),
        ((old.kid, (now() + DAY).isoformat()), "not revoked: 20"),
        (("no-such-key", since), "not revoked: no key no-such-key"),
    ):
        status, _, err = await doko(capsys, "keys", "revoke", "--from", given, *db, "--", kid)
        assert (status, reason in err) == (2, True), err
