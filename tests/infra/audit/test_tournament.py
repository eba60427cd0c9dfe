"""The audit of a whole tournament (real PostgreSQL): an honest tournament verifies; a changed card,
a changed seating draw, a dropped table, a changed end and a changed standing are each
named as the first thing that differs."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import asyncpg
import msgspec
import pytest

from domain.table import AbandonSession
from infra.audit.tournament import (
    TournamentReport,
    tournament_summary,
    verify_tournament,
    verify_tournament_streams,
)
from infra.command_ids import table_id
from infra.event_store import StoredEvent
from infra.hash_chain import GENESIS, event_hash
from infra.tournaments import Tournaments
from tests.infra.test_tournaments import new_tournament, play_deals, tournaments_of

Logs = dict[str, list[StoredEvent]]


@pytest.fixture(scope="module")
async def played(pool: asyncpg.Pool) -> tuple[Tournaments, str, list[StoredEvent], Logs]:
    """A tournament of five (two tables, three bots) over one round, both tables abandoned
    after one deal; its standings projected."""
    tournaments = tournaments_of(pool)
    tournament_id, _ = await new_tournament(tournaments, 5, rounds=1)
    await tournaments.start_round(tournament_id, 1)
    for table_no in (1, 2):
        stream = table_id(tournament_id, 1, table_no)
        await play_deals(tournaments.tables, stream, 1, random.Random(table_no))
        await tournaments.tables.execute(stream, AbandonSession())
    assert (await tournaments.notice_ends(tournament_id)).state.finished
    await tournaments.project_standings(tournament_id)
    stored = await tournaments.store.read_stream(tournament_id)
    logs = {
        table_id(tournament_id, 1, t): await tournaments.store.read_stream(
            table_id(tournament_id, 1, t)
        )
        for t in (1, 2)
    }
    return tournaments, tournament_id, stored, logs


def rechained(stored: Sequence[StoredEvent]) -> list[StoredEvent]:
    """The forger's step: every hash recomputed, so the chain alone catches nothing."""
    out, previous = [], GENESIS
    for e in stored:
        previous = event_hash(
            previous,
            e.stream_id,
            e.version,
            e.type,
            e.schema_version,
            e.payload,
            actor=e.actor,
            causation=e.causation,
            command_id=e.command_id,
            chain=e.chain,
            recorded_at=e.recorded_at,
        )
        out.append(msgspec.structs.replace(e, hash=previous))
    return out


def edited(
    stored: Sequence[StoredEvent], kind: str, change: Callable[[dict[str, Any]], None]
) -> list[StoredEvent]:
    """The first event of type ``kind`` with its payload changed, the chain recomputed."""
    out = list(stored)
    index = next(i for i, e in enumerate(out) if e.type == kind)
    payload = msgspec.json.decode(out[index].payload)
    change(payload)
    out[index] = msgspec.structs.replace(out[index], payload=msgspec.json.encode(payload))
    return rechained(out)


def failure(report: TournamentReport) -> tuple[str, str]:
    first = report.first_failure
    assert first is not None, tournament_summary(report)
    return first.name, first.detail


async def test_an_honest_tournament_verifies(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    tournaments, tournament_id, _, _ = played
    report = await verify_tournament(tournaments, tournament_id)
    assert report.ok, tournament_summary(report)
    assert [c.name for c in report.checks] == [
        "decode",
        "chain",
        "replay",
        "tables",
        "ends",
        "standings",
    ]
    assert len(report.tables) == 2 and all(t.ok for t in report.tables)
    assert tournament_summary(report)[-1].endswith("ok, 2 tables (Club night)")


def test_a_changed_card_is_the_tables(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    _, tournament_id, stored, logs = played
    stream = table_id(tournament_id, 1, 2)

    def other_card(payload: dict[str, Any]) -> None:
        payload["card"] = "AC" if payload["card"] != "AC" else "KS"

    forged = {**logs, stream: edited(logs[stream], "card_played", other_card)}
    name, detail = failure(verify_tournament_streams(stored, forged))
    assert name == "tables" and detail.startswith("round 1 table 2 deal 1: replay")


def test_a_changed_seating_draw_is_the_replays(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    _, _, stored, logs = played

    def swap(payload: dict[str, Any]) -> None:
        first, second = payload["seating"]
        first[0], second[0] = second[0], first[0]

    report = verify_tournament_streams(edited(stored, "round_started", swap), logs)
    assert report.first_failure is not None and report.first_failure.name == "replay"
    assert report.first_failure.version == next(
        e.version for e in stored if e.type == "round_started"
    )
    assert report.checks[1].ok  # the chain was recomputed: only the rules catch it


def test_a_dropped_table_is_missing(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    _, tournament_id, stored, logs = played
    kept = {table_id(tournament_id, 1, 1): logs[table_id(tournament_id, 1, 1)]}
    assert failure(verify_tournament_streams(stored, kept)) == (
        "tables",
        "round 1 table 2 is missing",
    )


def test_a_changed_end_is_not_the_tables(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    _, _, stored, logs = played

    def none_scored(payload: dict[str, Any]) -> None:
        payload["deals"] = 0

    name, detail = failure(
        verify_tournament_streams(edited(stored, "table_ended", none_scored), logs)
    )
    assert name == "ends" and "ended after 0 deals (abandoned)" in detail


async def test_a_changed_standing_differs_from_the_recomputed(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    tournaments, tournament_id, stored, logs = played
    honest = await tournaments.stored_standings(tournament_id)
    assert honest is not None
    line = honest.lines[0]
    changed = msgspec.structs.replace(
        honest, lines=(msgspec.structs.replace(line, total=line.total + 1), *honest.lines[1:])
    )
    name, detail = failure(verify_tournament_streams(stored, logs, changed))
    assert name == "standings" and detail.startswith("line 1 is")


def test_a_tournament_in_progress_verifies(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    """The log as it was while round 1 ran: no end recorded yet, nothing to differ."""
    _, _, stored, logs = played
    upto = next(i for i, e in enumerate(stored) if e.type == "table_ended")
    report = verify_tournament_streams(stored[:upto], logs)
    assert report.ok, tournament_summary(report)


def test_a_table_not_opened_as_the_tournament_says(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    """A table of its own, consistent in itself, with another turn clock than the tournament's."""
    _, tournament_id, stored, logs = played
    stream = table_id(tournament_id, 1, 1)

    def slower(payload: dict[str, Any]) -> None:
        payload["turn_seconds"] = 600

    forged = {**logs, stream: edited(logs[stream], "table_created", slower)}
    report = verify_tournament_streams(stored, forged)
    assert failure(report) == (
        "tables",
        "round 1 table 1 was not opened as the tournament says (E5)",
    )
    assert report.tables[0].ok  # the table's own audit finds nothing
    assert tournament_summary(report)[-1].endswith("FAILED tables: " + failure(report)[1])


def test_the_tournament_streams_own_faults(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    """A payload changed without the chain, an event that does not decode, no tournament."""
    _, _, stored, logs = played
    index = next(i for i, e in enumerate(stored) if e.type == "player_registered")
    renamed = msgspec.structs.replace(
        stored[index], payload=stored[index].payload.replace(b"player 0", b"player 9")
    )
    broken = verify_tournament_streams([*stored[:index], renamed, *stored[index + 1 :]], logs)
    assert failure(broken) == ("chain", f"hash chain broken at version {index + 1}")
    alien = renamed.payload.replace(b'"player_registered"', b'"x"')
    unknown = rechained([*stored[:index], msgspec.structs.replace(renamed, payload=alien)])
    assert failure(verify_tournament_streams(unknown, logs))[0] == "decode"
    assert failure(verify_tournament_streams([], {})) == ("replay", "the log creates no tournament")


async def test_standings_that_differ_in_what_they_count(
    played: tuple[Tournaments, str, list[StoredEvent], Logs],
) -> None:
    tournaments, tournament_id, stored, logs = played
    honest = await tournaments.stored_standings(tournament_id)
    assert honest is not None
    changed = msgspec.structs.replace(honest, public_deals=(12,))
    assert failure(verify_tournament_streams(stored, logs, changed)) == (
        "standings",
        "the standings differ from those recomputed",
    )
