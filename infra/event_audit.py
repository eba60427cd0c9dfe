"""Audit of an event: its own stream and every table of every round (E1-E6).

`verify_event_streams` checks an event's stored events and its tables' (pure; no database),
in this order, and names the first thing that differs:

``decode``     every event of the event's stream decodes;
``chain``      the event stream's SHA-256 hash chain is intact (`infra.hash_chain`);
``replay``     the rules, re-deciding every command (`domain.replay.replay` over
               `domain.event.EVENT`), produce exactly the stored events: the commitments
               are the SHA-256 of the seeds (E1.2), every seating drawn is the one the
               seating seed and the rule give (E3.1, E3.2), a hand-made one seats every
               player once (E3.3), the rounds start and end as E4 says;
``tables``     every table of every round started is there, opened as the event says
               (`domain.event.table_commands`: the round's shared seeds, seat 0 dealing
               first, the event's clock, the seating's players and bots, E5.1, E5.2), and
               passes the table audit (`infra.audit.verify_events`: chain, replay, every
               deal's seed, hands and score);
``ends``       every end the event recorded is its table's: finished after 12 deals, or
               abandoned after the deals it scored (E4.2);
``standings``  (given the standings to check, such as the stored projection) they are
               the ones recomputed from the tables' logs (`domain.standings`, E6).

`verify_event` reads all of it from the database; an `EventReport` is ``ok`` when every
check passed, and `event_summary` prints it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from domain import event, table
from domain.event import EVENT, EventEvent, EventState, TableEnded
from domain.replay import TABLE, replay
from domain.standings import Standings, TableSheet, standings
from domain.table import TableEvent, TableState
from infra import audit
from infra.audit import Check, TableReport
from infra.event_store import StoredEvent
from infra.events import CODEC, FILL_BOT, Events, table_id
from infra.hash_chain import verify_chain


class EventReport(msgspec.Struct, frozen=True):
    """The audit of an event: its checks in order and the audit of each of its tables."""

    event_id: str
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


def _decode(stored: Sequence[StoredEvent]) -> tuple[list[EventEvent], Check]:
    events: list[EventEvent] = []
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
    stored: Sequence[StoredEvent], events: Sequence[EventEvent]
) -> tuple[EventState, Check]:
    result = replay(events, EVENT)
    if result.error is None:
        return result.state, Check("replay", True, f"{len(events)} events re-decided")
    version = stored[result.valid].version if result.valid < len(stored) else None
    return result.state, Check("replay", False, result.error.message, version)


def _opened(state: EventState, round_no: int, table_no: int) -> list[TableEvent]:
    """The events that open and seat the table as the event says (E5.1, E5.2)."""
    create, seats = event.table_commands(state, round_no, table_no, FILL_BOT)
    at, opened = TableState(), list[TableEvent]()
    commands: list[table.TableCommand] = [create, *seats]
    for command in commands:
        done = table.decide(at, command)
        opened += done
        at = table.fold(done, at)
    return opened


def _ends(state: EventState, round_no: int) -> Sequence[TableEnded]:
    """The ends recorded for the tables of round ``round_no`` (started)."""
    if round_no <= len(state.ended):
        return state.ended[round_no - 1]
    return [e for e in state.ends if e is not None]


def _tables(
    state: EventState, event_id: str, logs: Mapping[str, Sequence[StoredEvent]]
) -> tuple[Check, Check, list[TableReport], list[TableSheet]]:
    """The ``tables`` and ``ends`` checks, the tables' audits and their sheets."""
    reports: list[TableReport] = []
    sheets: list[TableSheet] = []
    tables_check = ends_check = None
    for round_no, seating in enumerate(state.seatings, 1):
        ended = {e.table_no: e for e in _ends(state, round_no)}
        for table_no in range(1, len(seating) + 1):
            where = f"round {round_no} table {table_no}"
            stored = logs.get(table_id(event_id, round_no, table_no), ())
            if not stored:
                tables_check = tables_check or Check("tables", False, f"{where} is missing")
                continue
            decoded, _ = audit.decode_events(stored)
            report = audit.verify_events(stored, decoded)
            reports.append(report)
            opened = _opened(state, round_no, table_no)
            if decoded[: len(opened)] != opened:
                detail = f"{where} was not opened as the event says (E5)"
                tables_check = tables_check or Check("tables", False, detail)
            elif not report.ok:
                failure = report.failures[0]
                at_version = f" (its version {failure.version})" if failure.version else ""
                detail = f"{where}: {failure.name}: {failure.detail}{at_version}"
                tables_check = tables_check or Check("tables", False, detail)
            # the table as far as the rules confirm its log (all of it, if its audit passed)
            at = table.fold(decoded) if report.ok else replay(decoded, TABLE).state
            sheets.append(TableSheet(round_no, table_no, at.session.sheet, at.over))
            end = ended.get(table_no)
            if end is not None and (
                not at.over or (end.deals, end.abandoned) != (len(at.session.sheet), at.abandoned)
            ):
                detail = (
                    f"the event says {where} ended after {end.deals} deals"
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


def _standings_check(state: EventState, sheets: Sequence[TableSheet], given: Standings) -> Check:
    recomputed = standings(state, sheets)
    if recomputed == given:
        return Check("standings", True, f"{len(given.lines)} lines recomputed")
    for want, got in zip(recomputed.lines, given.lines, strict=False):
        if want != got:
            return Check("standings", False, f"line {want.rank} is {got!r}; recomputed {want!r}")
    return Check("standings", False, "the standings differ from those recomputed")


def verify_event_streams(
    stored: Sequence[StoredEvent],
    logs: Mapping[str, Sequence[StoredEvent]],
    given: Standings | None = None,
) -> EventReport:
    """Audit an event from its stored events and its tables' (by stream id); see the module
    docstring for the checks. ``given``: standings to check against the recomputed ones."""
    event_id = stored[0].stream_id if stored else ""
    events, decoded = _decode(stored)
    state, replayed = _replay(stored, events)
    created = state.created
    if created is None and replayed.ok:
        replayed = Check("replay", False, "the log creates no event")
    checks = [decoded, _chain(stored), replayed]
    tables: list[TableReport] = []
    if created is not None:
        tables_check, ends_check, tables, sheets = _tables(state, event_id, logs)
        checks += [tables_check, ends_check]
        if given is not None:
            checks.append(_standings_check(state, sheets, given))
    return EventReport(
        event_id, created.name if created else None, len(stored), tuple(checks), tuple(tables)
    )


async def verify_event(events: Events, event_id: str) -> EventReport:
    """Audit an event of the database, and, once it is finished, the standings stored for
    it (`infra.events.Events.project_standings`) if any; raises
    `infra.events.EventNotFound`."""
    loaded = await events.load(event_id)
    stored = await events.store.read_stream(event_id)
    logs: dict[str, Sequence[StoredEvent]] = {}
    for round_no, seating in enumerate(loaded.state.seatings, 1):
        for table_no in range(1, len(seating) + 1):
            stream = table_id(event_id, round_no, table_no)
            logs[stream] = await events.store.read_stream(stream)
    given = await events.stored_standings(event_id) if loaded.state.finished else None
    return verify_event_streams(stored, logs, given)


def event_summary(report: EventReport) -> list[str]:
    """One line per check, then the verdict naming the first thing that differs."""
    lines = [
        f"{report.event_id} {c.name}: {'ok' if c.ok else 'FAILED'} {c.detail}"
        for c in report.checks
    ]
    failure = report.first_failure
    if failure is None:
        lines.append(f"{report.event_id}: ok, {len(report.tables)} tables ({report.name})")
    else:
        at = f" (event version {failure.version})" if failure.version is not None else ""
        lines.append(f"{report.event_id}: FAILED {failure.name}: {failure.detail}{at}")
    return lines
