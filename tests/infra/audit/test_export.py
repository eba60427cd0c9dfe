"""The checks of an export file: who signed it, its top-level copies, and what was published.

A forger who rewrites events and the whole hash chain passes the chain, the
replay and the seeds; the signature by a key the verifier trusts does not pass, and a
witness of the chain heads published live catches even the holder of the key.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import msgspec
import pytest

from infra.audit.export import Expected, export_session, verify_file
from infra.audit.report import TableReport
from infra.audit.witness import ArchiveError, read_archive
from infra.event_store import EventStore, StoredEvent
from infra.projections import project
from infra.signing import KeyStatus, PublicKey, Signer
from infra.tables import Tables
from tests.infra.audit.forgery import Document, encoded, forge_move, rechain, resign, unsigned
from tests.infra.test_projections import execute_all, play_table

SIGNER, RETIRED, STRANGER = Signer.generate(), Signer.generate(), Signer.generate()
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
KEYS = {
    SIGNER.kid: PublicKey(SIGNER.kid, SIGNER.public, NOW),
    RETIRED.kid: PublicKey(RETIRED.kid, RETIRED.public, NOW, NOW),
}
WITNESSED = ("deal_scored", "session_finished")


@pytest.fixture(scope="module")
async def log(pool: asyncpg.Pool) -> list[StoredEvent]:
    tables = Tables(EventStore(pool), project)
    commands, _ = play_table(random.Random(12), "signed")
    await execute_all(tables, "signed", commands)
    return await tables.store.read_stream("signed")


def export(log: list[StoredEvent], signer: Signer = SIGNER, **options: Any) -> Document:
    from infra.tables import CODEC

    events = [CODEC.from_stored(e) for e in log]
    data = export_session(log, events, signer=signer, signed_at=NOW, **options)
    document: Document = msgspec.json.decode(data)
    return document


def failed(report: TableReport) -> list[str]:
    return [c.name for c in report.failures]


def detail(report: TableReport, name: str) -> str:
    return next(c.detail for c in report.checks if c.name == name)


def feed_lines(log: list[StoredEvent]) -> bytes:
    """The feed items of the witnessed events, one JSON object a line, as published."""
    items = [
        {
            "table_id": e.stream_id,
            "version": e.version,
            "event": msgspec.json.decode(e.payload),
            "chain_head": e.hash.hex(),
        }
        for e in log
        if e.type in WITNESSED
    ]
    return b"\n".join(msgspec.json.encode(i) for i in items) + b"\n"


def table_stream(log: list[StoredEvent]) -> bytes:
    """A table's event stream as received: every event, the witnessed ones with their head."""
    blocks = []
    for e in log:
        data = msgspec.json.decode(e.payload)
        if e.type in WITNESSED:
            data["chain_head"] = e.hash.hex()
        blocks.append(
            f"id: {e.version}\r\nevent: {e.type}\r\ndata: {msgspec.json.encode(data).decode()}\r\n"
        )
    return ("\r\n".join(blocks) + "\r\n: heartbeat\r\n\r\n").encode()


def test_a_signed_export_verifies_and_says_by_which_key(log: list[StoredEvent]) -> None:
    report = verify_file(encoded(export(log)), KEYS)

    assert report.ok, report.failures
    assert (
        detail(report, "signature") == f"signed by key {SIGNER.kid} (current) at {NOW.isoformat()}"
    )
    assert detail(report, "copies") == "name and players as the events say"
    assert report.warnings == ()


def test_a_forged_move_with_its_chain_recomputed_fails(log: list[StoredEvent]) -> None:
    document = export(log)
    version = forge_move(document, lambda e: e["type"] == "card_played" and e["version"] > 300)

    forged = verify_file(encoded(document), KEYS)
    assert failed(forged) == ["signature"], forged.failures  # the chain was rewritten well
    assert "does not match the content" in detail(forged, "signature")

    stripped = verify_file(encoded(unsigned(document)), KEYS)
    assert failed(stripped) == ["signature"]
    assert "not signed" in detail(stripped, "signature")

    # accepted only when unsigned files are allowed, and then with a warning
    allowed = verify_file(encoded(unsigned(document)), KEYS, allow_unsigned=True)
    assert allowed.ok
    assert allowed.warnings and "NOT SIGNED" in allowed.warnings[0]

    resigned = verify_file(encoded(resign(document, STRANGER)), KEYS)
    assert failed(resigned) == ["signature"]
    assert f"signed by key {STRANGER.kid}, which is not one of the trusted keys" in detail(
        resigned, "signature"
    )
    assert next(e for e in document["events"] if e["version"] == version)["actor"] == "seat:1"


def test_a_file_signed_by_a_retired_key_still_verifies(log: list[StoredEvent]) -> None:
    report = verify_file(encoded(export(log, RETIRED)), KEYS)

    assert report.ok
    assert KEYS[RETIRED.kid].status is KeyStatus.RETIRED
    assert f"signed by key {RETIRED.kid} (retired)" in detail(report, "signature")


def test_a_changed_recorded_at_fails(log: list[StoredEvent]) -> None:
    document = export(log)
    document["events"][40]["recorded_at"] = "2020-01-01T00:00:00Z"

    report = verify_file(encoded(document), KEYS)

    # the link of version 41 covers its time (chain version 2), so does the deal's check
    assert failed(report) == ["signature", "chain", "chain"]
    assert report.first_bad_version == 41


def test_a_key_holder_who_shifts_every_time_is_caught_by_the_witness(
    log: list[StoredEvent],
) -> None:
    witnessed = read_archive(feed_lines(log))
    document = export(log)
    for event in document["events"]:
        at = datetime.fromisoformat(event["recorded_at"]) + timedelta(days=1)
        event["recorded_at"] = at.isoformat().replace("+00:00", "Z")
    shifted = resign(rechain(document), SIGNER)

    report = verify_file(encoded(shifted), KEYS, witnessed=witnessed)
    assert failed(report) == ["witness"]
    assert report.first_bad_version == min(e.version for e in log if e.type in WITNESSED)
    assert detail(report, "chain") == f"{len(log)} hashes chained (v2 for versions 1-{len(log)})"


@pytest.mark.parametrize(
    ("copy", "value", "said"),
    [
        ("players", ["mallory", "signed-1", "signed-2", "signed-3"], "'signed-0', 'signed-1'"),
        ("name", "another table", "the events say 'signed'"),
    ],
)
def test_changed_copies_fail(log: list[StoredEvent], copy: str, value: Any, said: str) -> None:
    document = export(log)
    assert document[copy] != value
    document[copy] = value

    assert failed(verify_file(encoded(document), KEYS)) == ["signature", "copies"]
    # signed as changed (by a service that wrote wrong copies): the copies check fails
    report = verify_file(encoded(resign(document, SIGNER)), KEYS)
    assert failed(report) == ["copies"]
    assert said in detail(report, "copies")


@pytest.mark.parametrize("archive", [feed_lines, table_stream], ids=["feed lines", "stream"])
def test_the_published_chain_heads_witness_the_export(log: list[StoredEvent], archive: Any) -> None:
    witnessed = read_archive(archive(log))
    heads = [e.version for e in log if e.type in WITNESSED]
    assert len(heads) == 13

    report = verify_file(encoded(export(log)), KEYS, witnessed=witnessed)
    assert report.ok, report.failures
    assert detail(report, "witness") == f"13 published chain heads agree, up to version {heads[-1]}"

    # whoever holds the key rewrites the history, its chain and signs again: the chain
    # heads published live tell
    document = export(log)
    version = forge_move(document, lambda e: e["type"] == "card_played" and e["version"] > 300)
    insider = verify_file(encoded(resign(document, SIGNER)), KEYS, witnessed=witnessed)
    first = min(v for v in heads if v >= version)
    assert failed(insider) == ["witness"]
    assert insider.first_bad_version == first
    last = max(v for v in heads if v < version)
    assert detail(insider, "witness").startswith(f"the export differs at published version {first}")
    assert detail(insider, "witness").endswith(f"versions up to {last} agree")


def test_a_witness_of_nothing_or_of_more_fails(log: list[StoredEvent]) -> None:
    heads = [e.version for e in log if e.type in WITNESSED]
    other = [msgspec.structs.replace(e, stream_id="elsewhere") for e in log]
    report = verify_file(encoded(export(log)), KEYS, witnessed=read_archive(feed_lines(other)))
    assert failed(report) == ["witness"]
    assert detail(report, "witness") == "the archive holds no chain head of table signed"

    # an export cut short before what was published (after the deal dealt with a score)
    cut = heads[5] + 1
    shorter = export(log[:cut], unfinished=True)
    report = verify_file(encoded(shorter), KEYS, witnessed=read_archive(feed_lines(log)))
    assert failed(report) == ["witness"]
    assert report.first_bad_version == heads[6]
    assert f"the export has no version {heads[6]} (it ends at {cut})" in detail(report, "witness")


@pytest.mark.parametrize("data", [b'{"table_id": "t"}\nnot json\n', b"\xff\xfe"])
def test_an_unreadable_archive_is_refused(data: bytes) -> None:
    with pytest.raises(ArchiveError):
        read_archive(data)


def test_a_file_that_names_a_member_twice_is_refused(log: list[StoredEvent]) -> None:
    genuine = encoded(export(log))
    forged = export(log)
    forge_move(forged, lambda e: e["type"] == "card_played" and e["version"] > 300)
    # a member twice: a forged "events" first (chain recomputed), then the genuine
    # document, whose signature covers the last "events" only
    first = b'{"events":' + msgspec.json.encode(forged["events"]) + b","
    report = verify_file(first + genuine[1:], KEYS)
    assert failed(report) == ["strict"]
    assert detail(report, "strict") == (
        "the file has no single reading: the member 'events' appears twice in one object"
    )

    nested = genuine.replace(b'"type":"card_played"', b'"type":"x","type":"card_played"', 1)
    assert failed(verify_file(nested, KEYS)) == ["strict"]


def test_a_member_the_format_does_not_know_is_refused(log: list[StoredEvent]) -> None:
    document = export(log)
    document["events"][40]["shown"] = {"card": "9S"}
    report = verify_file(encoded(resign(document, SIGNER)), KEYS)

    assert failed(report) == ["strict"]
    assert detail(report, "strict") == (
        "the file is not in its canonical form: $.events[40].shown is not part of the format"
    )
    assert detail(verify_file(encoded(export(log)), KEYS), "strict") == (
        "one reading, in the canonical form"
    )


def test_a_file_is_checked_against_the_table_the_auditor_expects(log: list[StoredEvent]) -> None:
    data = encoded(export(log))
    created = log[0].recorded_at

    pinned = verify_file(data, KEYS, expected=Expected("signed", created.replace(microsecond=0)))
    assert pinned.ok, pinned.failures
    assert detail(pinned, "table") == "the file is of table signed, as expected"

    lookalike = verify_file(data, KEYS, expected=Expected("friday-league-3"))
    assert failed(lookalike) == ["table"]
    assert detail(lookalike, "table") == "the file is of table signed, not of friday-league-3"

    later = created.replace(microsecond=0) + timedelta(seconds=1)
    report = verify_file(data, KEYS, expected=Expected("signed", later))
    assert failed(report) == ["table"]
    assert detail(report, "table").endswith(f"not at {later.isoformat()}")


def test_a_log_begun_in_chain_version_1_verifies_and_says_so(log: list[StoredEvent]) -> None:
    n = len(log)
    document = export(log)
    for event in document["events"][:7]:  # as written before chain version 2
        event["chain"] = 1
    report = verify_file(encoded(resign(rechain(document), SIGNER)), KEYS)
    assert report.ok, report.failures
    assert (
        detail(report, "chain")
        == f"{n} hashes chained (v1 for versions 1-7, v2 for versions 8-{n})"
    )

    document["events"][20]["chain"] = 1  # back to the version that does not cover the time
    report = verify_file(encoded(resign(rechain(document), SIGNER)), KEYS)
    assert failed(report) == ["chain", "chain"]
    assert report.first_bad_version == 21
