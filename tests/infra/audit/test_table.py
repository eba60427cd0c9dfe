"""The audit: hash chain, replay by the rules, seeds and scores, live and from an export file."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import asyncpg
import msgspec
import pytest

from domain.cards import Card
from domain.events import CardPlayed, DealDealt, DealScored
from domain.table import (
    AbandonSession,
    CreateTable,
    InvitationRotated,
    RotateInvitation,
    SeatAway,
    SessionAbandoned,
    TableCreated,
    TableEvent,
    TimeOut,
    TurnTimedOut,
    Visibility,
)
from domain.turn_clock import turn_of
from infra.audit.deals import render_deal
from infra.audit.export import ExportError, SecretsError, export_session, read_export, verify_file
from infra.audit.report import TableReport, summary
from infra.audit.table import verify_events, verify_stored, verify_table
from infra.event_store import EventStore, StoredEvent
from infra.hash_chain import GENESIS, record_hash
from infra.projections import project
from infra.signing import PublicKey, Signer
from infra.tables import CODEC, Tables
from tests.infra.test_projections import execute_all, play_table, preset_hands

SIGNER = Signer.generate()
KEYS = {SIGNER.kid: PublicKey(SIGNER.kid, SIGNER.public)}
"""The deployment's key, as the verifier knows it."""


@pytest.fixture(scope="module")
async def tables(pool: asyncpg.Pool) -> Tables:
    return Tables(EventStore(pool), project)


@pytest.fixture(scope="module")
async def seeded(tables: Tables) -> str:
    """A whole seeded session, written command by command."""
    commands, _ = play_table(random.Random(42), "audited")
    await execute_all(tables, "audited", commands)
    return "audited"


async def tamper(pool: asyncpg.Pool, stream_id: str, version: int, payload: str) -> None:
    """Overwrite one stored payload behind the append-only trigger's back."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        await conn.execute(
            "UPDATE events SET payload = $3::jsonb WHERE stream_id = $1 AND version = $2",
            stream_id,
            version,
            payload,
        )
        await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")


def rehash(stored: list[StoredEvent]) -> list[StoredEvent]:
    """The events with their hash chain recomputed: a forger who rewrites the chain."""
    previous, out = GENESIS, []
    for e in stored:
        previous = record_hash(previous, e)
        out.append(msgspec.structs.replace(e, hash=previous))
    return out


def forge(
    stored: list[StoredEvent], find: Callable[[TableEvent], TableEvent | None]
) -> tuple[list[StoredEvent], int]:
    """Replace the first event ``find`` rewrites, re-chain everything; the forged version."""
    out = list(stored)
    for i, record in enumerate(stored):
        changed = find(CODEC.from_stored(record))
        if changed is not None:
            out[i] = msgspec.structs.replace(record, payload=msgspec.json.encode(changed))
            return rehash(out), record.version
    raise AssertionError("nothing to forge")


def check(report: TableReport, name: str) -> list[int | None]:
    """The versions named by the failed checks called ``name``."""
    return [c.version for c in report.failures if c.name == name]


async def test_an_honest_table_verifies(tables: Tables, seeded: str) -> None:
    report = await verify_table(tables, seeded)

    assert report.ok, summary(report)
    assert report.name == "audited"
    assert [d.deal_no for d in report.deals] == list(range(1, 13))
    for deal in report.deals:
        assert not deal.preset
        assert {c.name for c in deal.checks} == {"commitment", "hands", "replay", "score", "chain"}
    assert report.deals[-1].last_version == report.events - 1  # then SessionFinished
    lines = summary(report)
    assert len(lines) == 14
    n = report.events
    assert lines[-2] == f"audited chain: {n} hashes chained (v2 for versions 1-{n})"
    assert lines[-1].startswith("audited: ok, 12 deals")


async def test_a_tampered_event_is_named_by_its_version(pool: asyncpg.Pool, tables: Tables) -> None:
    commands, _ = play_table(random.Random(5), "tampered")
    await execute_all(tables, "tampered", commands)
    stored = await tables.store.read_stream("tampered")
    decoded = [CODEC.from_stored(e) for e in stored]
    index = [i for i, e in enumerate(decoded) if isinstance(e, CardPlayed)][100]
    played = decoded[index]
    assert isinstance(played, CardPlayed)
    other = Card.AC if played.card is not Card.AC else Card.AS
    version = stored[index].version
    forged = msgspec.structs.replace(played, card=other)

    await tamper(pool, "tampered", version, msgspec.json.encode(forged).decode())
    report = await verify_table(tables, "tampered")

    assert not report.ok
    assert report.first_bad_version == version
    assert check(report, "chain") == [version, version]  # the table's and the deal's
    assert check(report, "replay")[0] == version
    bad_deals = [d for d in report.deals if not d.ok]
    assert bad_deals[0].first_version <= version <= bad_deals[0].last_version
    assert f"version {version}" in summary(report)[-1]


async def test_an_undecodable_payload_is_named(pool: asyncpg.Pool, tables: Tables) -> None:
    commands, _ = play_table(random.Random(6), "garbled", stop=60)
    await execute_all(tables, "garbled", commands)
    await tamper(pool, "garbled", 30, '{"type": "card_played", "seat": 9}')

    report = await verify_table(tables, "garbled")

    assert not report.ok
    assert report.first_bad_version == 30
    assert check(report, "decode") == [30]


async def test_export_verifies_offline_and_tampering_shows(
    tables: Tables, seeded: str, tmp_path: Path
) -> None:
    pairs = await tables.events(seeded)
    data = export_session([s for s, _ in pairs], [e for _, e in pairs], signer=SIGNER)
    path = tmp_path / "audited.json"
    path.write_bytes(data)

    assert verify_file(data, KEYS).ok
    from_file = verify_file(path, KEYS)
    assert from_file.ok and len(from_file.deals) == 12
    assert from_file == verify_file(str(path), KEYS)
    assert [c.name for c in from_file.checks] == [
        "signature",
        "strict",
        "decode",
        "chain",
        "replay",
        "clock",
        "copies",
    ]
    assert from_file.checks[2:6] == (await verify_table(tables, seeded)).checks

    document = msgspec.json.decode(data)
    target = next(e for e in document["events"] if e["type"] == "deal_scored")
    target["payload"]["score"]["value"] += 1
    tampered = verify_file(msgspec.json.encode(document), KEYS, allow_unsigned=True)
    assert not tampered.ok
    assert tampered.first_bad_version == target["version"]
    assert check(tampered, "signature") == [None]
    assert check(tampered, "score") == [target["version"]]

    with pytest.raises(ExportError):
        verify_file(b'{"format": "something else"}', KEYS)
    with pytest.raises(ExportError):
        read_export(b"not json")


async def test_a_preset_table_verifies_with_its_deals_marked_preset(tables: Tables) -> None:
    rng = random.Random(9)
    commands, _ = play_table(rng, "preset", presets=preset_hands(rng))
    await execute_all(tables, "preset", commands)

    report = await verify_table(tables, "preset")

    assert report.ok, summary(report)
    assert len(report.deals) == 12
    assert all(d.preset for d in report.deals)
    assert all("commitment" not in {c.name for c in d.checks} for d in report.deals)
    assert "(preset," in summary(report)[0]


async def test_a_table_in_play_verifies(tables: Tables) -> None:
    commands, _ = play_table(random.Random(10), "open", stop=150)
    await execute_all(tables, "open", commands)

    report = await verify_table(tables, "open")

    assert report.ok, summary(report)
    last = report.deals[-1]
    assert [c.detail for c in last.checks if c.name == "score"] == ["deal in progress"]

    pairs = await tables.events("open")
    stored, events = [s for s, _ in pairs], [e for _, e in pairs]
    with pytest.raises(SecretsError):
        export_session(stored, events)
    from_file = verify_file(export_session(stored, events, unfinished=True, signer=SIGNER), KEYS)
    assert from_file.ok
    assert from_file.deals[:-1] == report.deals[:-1]
    # the deal in play: its seed stays in the service (R2.2), so its hands are not checked
    assert [(c.name, c.detail) for c in from_file.deals[-1].checks][1] == (
        "hands",
        "not checked: the deal was not scored, its seed is withheld",
    )
    assert from_file.checks[2:6] == report.checks


# A forger who also rewrites the hash chain is caught by the rules, the seeds and the scores.


@pytest.fixture(scope="module")
async def honest(tables: Tables, seeded: str) -> list[StoredEvent]:
    return await tables.store.read_stream(seeded)


def test_a_forged_score_with_a_rewritten_chain_fails_the_score_check(
    honest: list[StoredEvent],
) -> None:
    def richer(event: TableEvent) -> TableEvent | None:
        if isinstance(event, DealScored) and event.deal_no == 4:
            entries = tuple(e + 1 if i == 0 else e for i, e in enumerate(event.score.entries))
            return msgspec.structs.replace(
                event, score=msgspec.structs.replace(event.score, entries=entries)
            )
        return None

    stored, version = forge(honest, richer)
    report = verify_stored(stored)

    assert not report.ok
    assert check(report, "chain") == []
    assert check(report, "score") == [version]
    assert check(report, "replay")[0] == version
    assert [d.deal_no for d in report.deals if not d.ok] == list(range(4, 13))


def test_forged_hands_fail_the_seed_check(honest: list[StoredEvent]) -> None:
    def swapped(event: TableEvent) -> TableEvent | None:
        if isinstance(event, DealDealt) and event.deal_no == 2:
            a, b, *rest = event.hands
            return msgspec.structs.replace(event, hands=(b, a, *rest))
        return None

    stored, version = forge(honest, swapped)
    report = verify_stored(stored)

    assert check(report, "hands") == [version]
    assert check(report, "replay")[0] == version
    assert report.first_bad_version == version


def test_a_forged_commitment_fails_the_commitment_check(honest: list[StoredEvent]) -> None:
    def recommitted(event: TableEvent) -> TableEvent | None:
        if isinstance(event, TableCreated):
            commitments = list(event.commitments)
            commitments[6] = "0" * 64
            return msgspec.structs.replace(event, commitments=tuple(commitments))
        return None

    stored, version = forge(honest, recommitted)
    report = verify_stored(stored)

    assert version == 1
    assert check(report, "replay")[0] == 1
    bad = [d.deal_no for d in report.deals if any(c.name == "commitment" for c in d.failures)]
    assert bad == [7]


def test_an_event_the_rules_cannot_read_is_named(honest: list[StoredEvent]) -> None:
    def unreadable(event: TableEvent) -> TableEvent | None:
        if isinstance(event, TableCreated):
            return msgspec.structs.replace(event, server_seeds=("not hex", *event.server_seeds[1:]))
        return None

    stored, version = forge(honest, unreadable)
    report = verify_stored(stored)

    assert check(report, "replay")[0] == version == report.first_bad_version
    assert "cannot apply" in report.checks[2].detail


def test_a_deleted_event_breaks_the_chain_at_its_version(honest: list[StoredEvent]) -> None:
    stored = honest[:50] + honest[51:]
    events = [CODEC.from_stored(e) for e in stored]

    report = verify_events(stored, events)

    assert not report.ok
    assert check(report, "chain")[0] == 51


async def test_render_deal_reuses_the_domain_renderer(tables: Tables, seeded: str) -> None:
    events = [e for _, e in await tables.events(seeded)]

    text = render_deal(events, 5)

    assert text.startswith("Table audited: seat 0 audited-0, seat 1 audited-1")
    assert "Deal 5: dealer seat" in text
    assert "Trick 12" in text
    assert "R8.1" in text
    with pytest.raises(LookupError):
        render_deal(events, 13)


@pytest.fixture(scope="module")
async def timed(tables: Tables) -> list[StoredEvent]:
    """A clocked table (T3) whose turns all time out, each at the deadline its log implies,
    for two deals, the session then abandoned (T4.2)."""
    rng = random.Random(8)
    commands, _ = play_table(rng, "timed", stop=5)
    clocked = msgspec.structs.replace(commands[0], turn_seconds=5)
    await execute_all(tables, "timed", [clocked, *commands[1:]])
    while True:
        loaded = await tables.load("timed")
        if len(loaded.state.session.sheet) == 2:
            break
        turn = turn_of(loaded.state, loaded.recorded_at)
        assert turn is not None and turn.deadline is not None
        await tables.execute("timed", TimeOut(turn.seat, turn.deadline, turn.deadline))
    await tables.execute("timed", AbandonSession())
    return await tables.store.read_stream("timed")


def test_every_timeout_is_at_the_deadline_its_log_implies(timed: list[StoredEvent]) -> None:
    """T3.2, T3.3: `doko verify` recomputes each timeout's deadline from the time recorded
    for the event before it (no grace for an away seat); a timeout before its deadline,
    or a deadline that is not the log's, fails the ``clock`` check at its version."""
    report = verify_stored(timed)
    assert report.ok, report.failures
    events = [CODEC.from_stored(e) for e in timed]
    assert any(isinstance(e, SeatAway) for e in events)
    timeouts = [i for i, e in enumerate(events) if isinstance(e, TurnTimedOut)]
    clock = next(c for c in report.checks if c.name == "clock")
    assert clock.ok and clock.detail == f"{len(timeouts)} timeouts, each at its deadline"
    assert [d.deal_no for d in report.deals] == [1, 2, 3] and all(d.ok for d in report.deals)

    late = timeouts[5]  # the event before it is said to have been recorded a second later
    shifted = list(timed)
    shifted[late - 1] = msgspec.structs.replace(
        timed[late - 1], recorded_at=timed[late - 1].recorded_at + timedelta(seconds=1)
    )
    assert check(verify_stored(shifted), "clock") == [timed[late].version]

    def earlier(event: TableEvent) -> TableEvent | None:
        if isinstance(event, TurnTimedOut):
            return msgspec.structs.replace(event, deadline=event.deadline - timedelta(seconds=4))
        return None

    forged, version = forge(timed, earlier)
    report = verify_stored(forged)
    assert check(report, "clock") == [version]
    assert check(report, "replay") == [], "the rules alone cannot tell"


def test_an_abandoned_session_exports_and_verifies_offline(
    timed: list[StoredEvent], tmp_path: Path
) -> None:
    """T4.2: an abandoned session is over: it exports without ``unfinished`` and the file
    verifies offline, the deal it was abandoned in included as far as it went."""
    events = [CODEC.from_stored(e) for e in timed]
    assert isinstance(events[-1], SessionAbandoned)
    path = tmp_path / "abandoned.json"
    path.write_bytes(export_session(timed, events, signer=SIGNER))
    report = verify_file(path, KEYS)
    assert report.ok, report.failures
    assert [d.deal_no for d in report.deals] == [1, 2, 3]


async def test_a_finished_session_exports_after_a_new_invitation(
    tables: Tables, tmp_path: Path
) -> None:
    """T1.2 leaves a finished session's table open to a new invitation code; its log then
    ends with `InvitationRotated`, yet the session is over (R1.2: 12 deals): it exports
    without ``unfinished`` and verifies offline."""
    commands, _ = play_table(random.Random(5), "rotated")
    created = commands[0]
    assert isinstance(created, CreateTable)
    private = msgspec.structs.replace(
        created, visibility=Visibility.PRIVATE, invitation_hash="a" * 64
    )
    await execute_all(tables, "rotated", [private, *commands[1:]])
    await tables.execute("rotated", RotateInvitation("b" * 64))
    pairs = await tables.events("rotated")
    assert isinstance(pairs[-1][1], InvitationRotated)
    data = export_session([s for s, _ in pairs], [e for _, e in pairs], signer=SIGNER)
    (tmp_path / "rotated.json").write_bytes(data)
    report = verify_file(tmp_path / "rotated.json", KEYS)
    assert report.ok, report.failures
    assert len(report.deals) == 12
