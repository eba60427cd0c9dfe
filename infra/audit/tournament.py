"""Audit of a tournament: its own stream and every table of every round (E1-E6).

`verify_tournament_streams` checks a tournament's stored events and its tables' (pure; no database),
in this order, and names the first thing that differs:

``decode``     every event of the tournament's stream decodes;
``chain``      the tournament stream's SHA-256 hash chain is intact (`infra.hash_chain`);
``replay``     the rules, re-deciding every command (`domain.replay.replay` over
               `domain.tournament.TOURNAMENT`), produce exactly the stored events: the commitments
               are the SHA-256 of the seeds (E1.2), every seating drawn is the one the
               seating seed and the rule give (E3.1, E3.2), a hand-made one seats every
               player once (E3.3), the rounds start and end as E4 says;
``tables``     every table of every round started is there, opened as the tournament says
               (`domain.tournament_tables.table_commands`: the round's shared seeds, seat 0 dealing
               first, the tournament's clock, the seating's players and bots, E5.1, E5.2), and
               passes the table audit (`infra.audit.table.verify_events`: chain, replay, every
               deal's seed, hands and score);
``ends``       every end the tournament recorded is its table's: finished after 12 deals, or
               abandoned after the deals it scored (E4.2);
``standings``  (given the standings to check, such as the stored projection) they are
               the ones recomputed from the tables' logs (`domain.standings`, E6).

`verify_tournament` reads all of it from the database; a `TournamentReport` is ``ok`` when every
check passed, and `tournament_summary` prints it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from domain import table, tournament_tables
from domain.events import DealDealt
from domain.replay import replay
from domain.standings import Standings, TableSheet, standings
from domain.table import TableEvent, TableState
from domain.tournament import TableEnded, TournamentCreated, TournamentEvent, TournamentState
from infra.audit import table as table_audit
from infra.audit import tournament_disclosure
from infra.audit.disclosure import replay_start
from infra.audit.report import Check, TableReport
from infra.command_ids import table_id
from infra.event_store import StoredEvent
from infra.hash_chain import seal, sealed, verify_chain
from infra.tables import CODEC as TABLE_CODEC
from infra.tournaments import CODEC, FILL_BOT, Tournaments


class TournamentReport(msgspec.Struct, frozen=True):
    """The audit of a tournament: its checks in order and the audit of each of its tables."""

    tournament_id: str
    name: str | None
    events: int
    checks: tuple[Check, ...]
    tables: tuple[TableReport, ...] = ()

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def first_failure(self) -> Check | None:
        """The first check that failed: the first thing that differs."""
        return next((c for c in self.checks if not c.ok), None)


def decode_events(stored: Sequence[StoredEvent]) -> tuple[list[TournamentEvent], Check]:
    """Decode a tournament's stored events up to the first that does not; the ``decode`` check."""
    events: list[TournamentEvent] = []
    for record in stored:
        try:
            events.append(CODEC.from_stored(record))
        except Exception as error:
            detail = f"version {record.version} ({record.type}) does not decode: {error}"
            return events, Check("decode", False, detail, record.version)
    return events, Check("decode", True, f"{len(events)} events")


def _chain(stored: Sequence[StoredEvent]) -> Check:
    broken = verify_chain(stored)
    if broken is None:
        return Check("chain", True, f"{len(stored)} hashes chained")
    return Check("chain", False, f"hash chain broken at version {broken}", broken)


def _replay(
    stored: Sequence[StoredEvent], events: Sequence[TournamentEvent]
) -> tuple[TournamentState, Check]:
    result = tournament_disclosure.replay(events)
    if result.bad is not None:
        version = stored[result.bad].version if result.bad < len(stored) else None
        return result.state, Check("replay", False, result.why, version)
    undrawn = ", ".join(map(str, result.undrawn))
    unseen = f"; the seating seed is sealed: round {undrawn} not re-drawn" if undrawn else ""
    return result.state, Check("replay", True, f"{len(events)} events re-decided{unseen}")


def _opened(
    state: TournamentState, shown: TournamentCreated, round_no: int, table_no: int
) -> list[Comparable]:
    """The events that open and seat the table as the tournament says (E5.1, E5.2), up to its
    first deal, as they compare with a log whose secrets may be sealed (`comparable`):
    the table's seeds and their commitments are the round's as the tournament shows them
    (``shown``). The deals are the table audit's: dealt from the table's seeds, the
    tournament's."""
    create, seats = tournament_tables.table_commands(state, round_no, table_no, FILL_BOT)
    at, opened = TableState(), list[TableEvent]()
    commands: list[table.TableCommand] = [create, *seats]
    for command in commands:
        done = table.decide(at, command)
        opened += done
        at = table.fold(done, at)
    dealt = next((i for i, e in enumerate(opened) if isinstance(e, DealDealt)), len(opened))
    found = [_comparable_event(e) for e in opened[:dealt]]
    if shown.round_seeds:
        seeds = [seal(s) for s in shown.round_seeds[round_no - 1]]
        commitments = list(shown.commitments[round_no - 1])
        found[0] = (
            "table_created",
            {**found[0][1], "server_seeds": seeds, "commitments": commitments},
        )
    return found


Comparable = tuple[str, Any]
"""An event's type and its payload with every secret sealed."""


def comparable(type: str, payload: Any) -> Comparable:
    """An event as it compares whether its secrets are shown or sealed (`infra.hash_chain`:
    sealing is idempotent, and a shown secret seals to the seal an export shows)."""
    return type, sealed(type, payload)


def _comparable_event(done: TableEvent) -> Comparable:
    new = TABLE_CODEC.to_new_event(done)
    return comparable(new.type, msgspec.json.decode(new.payload))


def _logged(stored: Sequence[StoredEvent], count: int) -> list[Comparable]:
    return [comparable(e.type, msgspec.json.decode(e.payload)) for e in stored[:count]]


def _in_deal(report: TableReport, failure: Check) -> str:
    """`` deal n`` if the failure is at a version of deal n of the table, else nothing."""
    version = failure.version
    deals = [
        d.deal_no for d in report.deals if version and d.first_version <= version <= d.last_version
    ]
    return f" deal {deals[0]}" if deals else ""


def _confirmed(decoded: list[TableEvent], report: TableReport) -> TableState:
    """The table as far as the rules confirm its log: all of it, if its audit passed; else
    the replay's valid prefix (from the table's creation, if its seeds are sealed)."""
    if report.ok:
        return table.fold(decoded)
    start, aggregate, refused = replay_start(decoded)
    return TableState() if refused else replay(decoded[start:], aggregate).state


def _ends(state: TournamentState, round_no: int) -> Sequence[TableEnded]:
    """The ends recorded for the tables of round ``round_no`` (started)."""
    if round_no <= len(state.ended):
        return state.ended[round_no - 1]
    return [e for e in state.ends if e is not None]


def _tables(
    state: TournamentState,
    shown: TournamentCreated,
    tournament_id: str,
    logs: Mapping[str, Sequence[StoredEvent]],
    audited: Mapping[str, TableReport],
) -> tuple[Check, Check, list[TableReport], list[TableSheet]]:
    """The ``tables`` and ``ends`` checks, the tables' audits (those ``audited`` already
    as given) and their sheets."""
    reports: list[TableReport] = []
    sheets: list[TableSheet] = []
    tables_check = ends_check = None
    for round_no, seating in enumerate(state.seatings, 1):
        ended = {e.table_no: e for e in _ends(state, round_no)}
        for table_no in range(1, len(seating) + 1):
            where = f"round {round_no} table {table_no}"
            stream = table_id(tournament_id, round_no, table_no)
            stored = logs.get(stream, ())
            if not stored:
                tables_check = tables_check or Check("tables", False, f"{where} is missing")
                continue
            decoded, _ = table_audit.decode_events(stored)
            report = audited.get(stream) or table_audit.verify_events(stored, decoded)
            reports.append(report)
            opened = _opened(state, shown, round_no, table_no)
            if _logged(stored, len(opened)) != opened:
                detail = f"{where} was not opened as the tournament says (E5)"
                tables_check = tables_check or Check("tables", False, detail)
            elif not report.ok:
                failure = report.failures[0]
                at_version = f" (its version {failure.version})" if failure.version else ""
                detail = f"{where}{_in_deal(report, failure)}: {failure.name}: {failure.detail}"
                detail += at_version
                tables_check = tables_check or Check("tables", False, detail)
            at = _confirmed(decoded, report)
            sheets.append(TableSheet(round_no, table_no, at.session.sheet, at.over))
            end = ended.get(table_no)
            if end is not None and (
                not at.over or (end.deals, end.abandoned) != (len(at.session.sheet), at.abandoned)
            ):
                detail = (
                    f"the tournament says {where} ended after {end.deals} deals"
                    f"{' (abandoned)' if end.abandoned else ''}; its log has "
                    f"{len(at.session.sheet)} scored, {at.status.value}"
                )
                ends_check = ends_check or Check("ends", False, detail)
    count = sum(len(s) for s in state.seatings)
    return (
        tables_check or Check("tables", True, f"{count} tables audited"),
        ends_check or Check("ends", True, f"{sum(len(e) for e in state.ended)} ends recorded"),
        reports,
        sheets,
    )


def _standings_check(
    state: TournamentState, sheets: Sequence[TableSheet], given: Standings
) -> Check:
    recomputed = standings(state, sheets)
    if recomputed == given:
        return Check("standings", True, f"{len(given.lines)} lines recomputed")
    for want, got in zip(recomputed.lines, given.lines, strict=False):
        if want != got:
            return Check("standings", False, f"line {want.rank} is {got!r}; recomputed {want!r}")
    return Check("standings", False, "the standings differ from those recomputed")


def verify_tournament_streams(
    stored: Sequence[StoredEvent],
    logs: Mapping[str, Sequence[StoredEvent]],
    given: Standings | None = None,
    audited: Mapping[str, TableReport] | None = None,
) -> TournamentReport:
    """Audit a tournament from its stored events and its tables' (by stream id); see the module
    docstring for the checks. ``given``: standings to check against the recomputed ones;
    ``audited``: reports of tables audited already (by stream id), such as those of an
    export's table files (`infra.audit.export.verify_file`), taken as they are."""
    tournament_id = stored[0].stream_id if stored else ""
    events, decoded = decode_events(stored)
    state, replayed = _replay(stored, events)
    created = state.created
    if created is None and replayed.ok:
        replayed = Check("replay", False, "the log creates no tournament")
    checks = [decoded, _chain(stored), replayed]
    tables: list[TableReport] = []
    if created is not None:
        shown = events[0]
        assert isinstance(shown, TournamentCreated)  # the replay created the tournament from it
        tables_check, ends_check, tables, sheets = _tables(
            state, shown, tournament_id, logs, audited or {}
        )
        checks += [tables_check, ends_check]
        if given is not None:
            checks.append(_standings_check(state, sheets, given))
    return TournamentReport(
        tournament_id, created.name if created else None, len(stored), tuple(checks), tuple(tables)
    )


async def verify_tournament(tournaments: Tournaments, tournament_id: str) -> TournamentReport:
    """Audit a tournament of the database, and, once it is finished, the standings stored for
    it (`infra.tournaments.Tournaments.project_standings`) if any; raises
    `infra.tournaments.TournamentNotFound`."""
    loaded = await tournaments.load(tournament_id)
    stored = await tournaments.store.read_stream(tournament_id)
    logs: dict[str, Sequence[StoredEvent]] = {}
    for round_no, seating in enumerate(loaded.state.seatings, 1):
        for table_no in range(1, len(seating) + 1):
            stream = table_id(tournament_id, round_no, table_no)
            logs[stream] = await tournaments.store.read_stream(stream)
    given = await tournaments.stored_standings(tournament_id) if loaded.state.finished else None
    return verify_tournament_streams(stored, logs, given)


def tournament_summary(report: TournamentReport) -> list[str]:
    """One line per check, then the verdict naming the first thing that differs."""
    lines = [
        f"{report.tournament_id} {c.name}: {'ok' if c.ok else 'FAILED'} {c.detail}"
        for c in report.checks
    ]
    failure = report.first_failure
    if failure is None:
        lines.append(f"{report.tournament_id}: ok, {len(report.tables)} tables ({report.name})")
    else:
        at = f" (tournament version {failure.version})" if failure.version is not None else ""
        lines.append(f"{report.tournament_id}: FAILED {failure.name}: {failure.detail}{at}")
    return lines
