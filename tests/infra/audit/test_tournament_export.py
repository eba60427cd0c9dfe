"""The signed export of a whole tournament, verified offline: an honest file says
ok; a changed card, a changed seating draw, a dropped table and a changed standing, each
re-signed with the service's key, are each named as the first thing that differs; a key
the verifier does not trust fails on the signature; the file holds no credential hash and
no seed of a deal no table scored."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import msgspec
import pytest

from infra.audit.export import SecretsError
from infra.audit.tournament import tournament_summary
from infra.audit.tournament_export import (
    TournamentFileReport,
    TournamentLogs,
    export_tournament,
    is_tournament_export,
    read_tournament,
    verify_tournament_file,
)
from infra.audit.witness import Witnessed, read_archive
from infra.event_store import StoredEvent
from infra.signing import PublicKey, Signer
from infra.tournaments import Tournaments
from service.streams.tournaments import TournamentFeed
from tests.infra.audit.forgery import Document, encoded, rechain, resign
from tests.infra.audit.test_tournament import Logs, played
from tests.infra.test_tournaments import new_tournament, tournaments_of

__all__ = ["played"]

SIGNER, STRANGER = Signer.generate(), Signer.generate()
NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
KEYS = {SIGNER.kid: PublicKey(SIGNER.kid, SIGNER.public, NOW)}

Played = tuple[Tournaments, str, list[StoredEvent], Logs]


@pytest.fixture(scope="module")
async def logs(played: Played) -> TournamentLogs:
    events, tournament_id, _, _ = played
    return await read_tournament(events, tournament_id)


def exported(logs: TournamentLogs, signer: Signer = SIGNER) -> Document:
    data = export_tournament(logs.stored, logs.logs, logs.standings, signer=signer, signed_at=NOW)
    document: Document = msgspec.json.decode(data)
    return document


def verified(document: Document) -> TournamentFileReport:
    return verify_tournament_file(encoded(document), KEYS)


def first(report: TournamentFileReport) -> tuple[str, str]:
    failure = report.report.first_failure
    assert failure is not None, tournament_summary(report.report)
    return failure.name, failure.detail


def resigned_table(document: Document, index: int, change: Any) -> Document:
    """Table ``index``'s export with ``change`` applied to its events, its chain recomputed
    and signed again, and the whole file signed again: only the content checks remain."""
    table = document["tables"][index]["export"]
    change(table["events"])
    document["tables"][index]["export"] = resign(rechain(table), SIGNER, NOW)
    return resign(document, SIGNER, NOW)


def test_an_honest_export_verifies(logs: TournamentLogs) -> None:
    data = export_tournament(logs.stored, logs.logs, logs.standings, signer=SIGNER, signed_at=NOW)
    assert is_tournament_export(data)
    report = verify_tournament_file(data, KEYS)
    assert report.ok, tournament_summary(report.report)
    assert [c.name for c in report.report.checks] == [
        "signature",
        "strict",
        "copies",
        "places",
        "decode",
        "chain",
        "replay",
        "tables",
        "ends",
        "standings",
    ]
    assert len(report.report.tables) == 2 and not report.warnings


def test_a_key_the_verifier_does_not_trust_fails_on_the_signature(logs: TournamentLogs) -> None:
    name, detail = first(verified(exported(logs, STRANGER)))
    assert name == "signature" and f"signed by key {STRANGER.kid}, which is not one" in detail


def test_a_changed_card_in_one_tables_log(logs: TournamentLogs) -> None:
    def other_card(events: list[dict[str, Any]]) -> None:
        played = next(e for e in events if e["type"] == "card_played")
        played["payload"]["card"] = "AC" if played["payload"]["card"] != "AC" else "KS"

    document = resigned_table(exported(logs), 1, other_card)
    name, detail = first(verified(document))
    assert name == "tables" and detail.startswith("round 1 table 2 deal 1: replay:")


def test_a_changed_seating_draw(logs: TournamentLogs) -> None:
    document = exported(logs)
    started = next(e for e in document["events"] if e["type"] == "round_started")
    first_table, second_table = started["payload"]["seating"]
    first_table[0], second_table[0] = second_table[0], first_table[0]
    rechain({"stream_id": document["tournament_id"], "events": document["events"]})
    report = verified(resign(document, SIGNER, NOW))
    assert first(report)[0] == "replay"
    assert report.report.first_failure is not None
    assert report.report.first_failure.version == started["version"]


def test_a_dropped_table(logs: TournamentLogs) -> None:
    document = exported(logs)
    document["tables"] = document["tables"][:1]
    assert first(verified(resign(document, SIGNER, NOW))) == (
        "tables",
        "round 1 table 2 is missing",
    )


def test_a_changed_standing(logs: TournamentLogs) -> None:
    document = exported(logs)
    document["standings"]["lines"][0]["total"] += 1
    name, detail = first(verified(resign(document, SIGNER, NOW)))
    assert name == "standings" and detail.startswith("line 1 is")


def test_a_table_in_another_place_or_twice(logs: TournamentLogs) -> None:
    document = exported(logs)
    document["tables"][1]["table_no"] = 3
    assert first(verified(resign(document, SIGNER, NOW))) == (
        "places",
        "the file holds round 1 table 3, which the tournament has not",
    )
    document["tables"][1] = document["tables"][0]
    assert first(verified(resign(document, SIGNER, NOW))) == (
        "places",
        "the file holds round 1 table 1 twice",
    )


def test_the_export_holds_no_credential_hash_and_no_unscored_seed(
    logs: TournamentLogs, played: Played
) -> None:
    """The tournament of `played` was created by ``director`` with the host token hash
    ``director``, players' ``token n``; both tables scored deal 1 only, so round 1's deals
    2-12 stay sealed."""
    data = export_tournament(logs.stored, logs.logs, logs.standings, signer=SIGNER, signed_at=NOW)
    created = msgspec.json.decode(played[2][0].payload)
    seeds = created["round_seeds"][0]
    assert seeds[0] in data.decode()
    assert not [s for s in seeds[1:] if s in data.decode()]
    assert data.count(b'"director"') == data.count(b'"actor": "director"')  # who acted
    assert b"token 0" not in data
    assert created["seating_seed"] in data.decode()  # revealed: the tournament is finished


async def test_a_tournament_in_play_is_exported_only_when_asked(pool: asyncpg.Pool) -> None:
    """Its seating seed then stays sealed: round 1's draw is not re-drawn, and says so;
    the seating is still checked to seat every player once. (Eight players: the stand-in seed
    re-draws their 8! seatings, four players' 4! = 24 matched the real draw one run in 24.)"""
    tournaments = tournaments_of(pool)
    tournament_id, create = await new_tournament(tournaments, 8, rounds=1)
    await tournaments.start_round(tournament_id, 1)
    logs = await read_tournament(tournaments, tournament_id)
    with pytest.raises(SecretsError):
        export_tournament(logs.stored, logs.logs, logs.standings)
    data = export_tournament(logs.stored, logs.logs, logs.standings, unfinished=True, signer=SIGNER)
    assert create.seating_seed.hex().encode() not in data
    report = verify_tournament_file(data, KEYS)
    assert report.ok, "\n".join(tournament_summary(report.report))
    replayed = next(c for c in report.report.checks if c.name == "replay")
    assert replayed.detail.endswith("the seating seed is sealed: round 1 not re-drawn")
    document: Document = msgspec.json.decode(data)
    started = next(e for e in document["events"] if e["type"] == "round_started")
    started["payload"]["seating"][0][1] = started["payload"]["seating"][0][0]
    rechain({"stream_id": tournament_id, "events": document["events"]})
    name, _ = first(verified(resign(document, SIGNER, NOW)))
    assert name == "replay"  # E3.3: a seating that seats a player twice is no draw


async def recorded(played: Played) -> bytes:
    """The tournament's stream as a spectator records it (text/event-stream), from the start."""
    events, tournament_id, _, _ = played
    messages, _ = await TournamentFeed(events, tournament_id).resume(0)
    return "".join(f"id: {m.id}\nevent: {m.event}\ndata: {m.data}\n\n" for m in messages).encode()


async def test_the_tournaments_published_chain_heads_witness_the_export(
    logs: TournamentLogs, played: Played
) -> None:
    """The tournament's own heads (one per event of its stream) and its tables' (each table
    opened, scored deal 1 and was abandoned: one ``table_opened`` and one ``table_scored``
    each) agree with the file."""
    heads = read_archive(await recorded(played))
    report = verify_tournament_file(encoded(exported(logs)), KEYS, witnessed=heads)
    assert report.ok, tournament_summary(report.report)
    witness = report.report.checks[-1]
    assert witness.name == "witness"
    assert witness.detail == (
        f"{len(logs.stored)} published chain heads of the tournament and 4 of its tables agree"
    )
    nothing = verify_tournament_file(encoded(exported(logs)), KEYS, witnessed=[])
    assert first(nothing) == (
        "witness",
        f"the archive holds no chain head of tournament {played[1]}",
    )


async def test_a_key_holder_who_shifts_the_tournaments_times_is_caught_by_the_witness(
    logs: TournamentLogs, played: Played
) -> None:
    """Every time of the tournament's stream a second later, the chain recomputed (version 2
    covers the times), the file signed again: only what was published tells."""
    document = exported(logs)
    for item in document["events"]:
        at = datetime.fromisoformat(item["recorded_at"]) + timedelta(seconds=1)
        item["recorded_at"] = at.isoformat().replace("+00:00", "Z")
    rechain({"stream_id": document["tournament_id"], "events": document["events"]})
    forged = resign(document, SIGNER, NOW)
    assert verified(forged).ok
    report = verify_tournament_file(
        encoded(forged), KEYS, witnessed=read_archive(await recorded(played))
    )
    name, detail = first(report)
    assert name == "witness"
    assert detail.startswith(
        "the export differs at the tournament's published head 1 (a event_created)"
    )


async def test_a_published_head_the_file_does_not_have(
    logs: TournamentLogs, played: Played
) -> None:
    """A table's head, a tournament's head of another type, and heads out of their order."""
    heads = read_archive(await recorded(played))
    data = encoded(exported(logs))
    table = next(i for i, h in enumerate(heads) if h.type == "deal_scored")
    other = [*heads[:table], msgspec.structs.replace(heads[table], chain_head="0" * 64)]
    name, detail = first(verify_tournament_file(data, KEYS, witnessed=other))
    assert name == "witness" and detail.startswith(f"round 1 table {table_no(heads[table])}: ")
    own = [h for h in heads if h.tournament_stream]
    retyped = [msgspec.structs.replace(own[0], type="round_started")]
    assert first(verify_tournament_file(data, KEYS, witnessed=retyped))[1].endswith(
        "its chain head is of the export's version 1, a event_created"
    )
    assert first(verify_tournament_file(data, KEYS, witnessed=[own[1], own[0]]))[1].endswith(
        "its chain head is of the export's version 1, not after 2"
    )


def table_no(head: Witnessed) -> int:
    assert head.table_id is not None
    return int(head.table_id.rsplit("t", 1)[1])


@pytest.mark.parametrize(
    ("member", "value", "said"),
    [
        ("commitments", [["00" * 32]], "the rules do not create it so"),
        ("name", " ", "the rules do not create this tournament: a tournament has a name"),
    ],
)
def test_a_creation_the_rules_do_not_make(
    logs: TournamentLogs, member: str, value: Any, said: str
) -> None:
    """E1.2: the commitments of the revealed seeds are their SHA-256; E1.1: a name."""
    document = exported(logs)
    payload = document["events"][0]["payload"]
    if member == "commitments":
        payload["commitments"] = [value[0] + payload["commitments"][0][1:]]
    else:
        payload[member] = document[member] = value
    rechain({"stream_id": document["tournament_id"], "events": document["events"]})
    report = verified(resign(document, SIGNER, NOW))
    name, detail = first(report)
    assert name == "replay" and said in detail
    assert not is_tournament_export(b"not json") and not is_tournament_export(b"[]")
