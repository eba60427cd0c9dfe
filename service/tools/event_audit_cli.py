"""The event's audit on the command line: ``doko export --event ID``, ``doko verify --event
ID`` (with the database) and ``doko verify --file EVENT_EXPORT`` (offline), for
`service.tools.cli` (issue 19)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncpg

    from domain.standings import Standings
    from infra.event_audit import EventReport
    from infra.event_export import Place
    from infra.event_store import StoredEvent
    from infra.events import Events
    from infra.signing import Keys
    from infra.witness import Witnessed

    EventLog = tuple[list[StoredEvent], dict[Place, list[StoredEvent]], Standings]
    """What `infra.event_export.export_event` takes: the stream, the tables' logs, the
    standings."""

NOT_PINNED = (
    "NOT PINNED: nothing says this file is of the event you mean. It is of event {event} "
    "({name!r}); a look-alike event's export is genuinely signed too: give --event ID"
)


def _events(pool: asyncpg.Pool) -> Events:
    from infra.event_store import EventStore
    from infra.events import Events
    from infra.tables import Tables

    return Events(pool, Tables(EventStore(pool)))


async def event_log(url: str, event_id: str) -> EventLog | None:
    """The event's stream, its tables' logs and its standings; None if there is no such
    event."""
    import asyncpg

    from infra.event_export import read_event
    from infra.events import EventNotFound

    async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
        try:
            read = await read_event(_events(pool), event_id)
        except EventNotFound:
            return None
    return read.stored, read.logs, read.standings


def _report(report: EventReport, warnings: tuple[str, ...] = (), flagged: bool = False) -> int:
    """Print the warnings loudly, the report's lines; the exit code: 1 when a check failed,
    3 when it verified but is flagged (a key revoked after the signature's date)."""
    from infra.event_audit import event_summary

    for warning in warnings:
        print(f"{'!' * 78}\nWARNING: {warning}\n{'!' * 78}", file=sys.stderr)
    for line in event_summary(report):
        print(line)
    return 1 if not report.ok else 3 if flagged else 0


def verify_database(url: str, event_id: str) -> int:
    """``doko verify --event ID``: `infra.event_audit.verify_event` on the database."""
    import asyncpg

    from infra.event_audit import verify_event
    from infra.events import EventNotFound

    async def run() -> EventReport | None:
        async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
            try:
                return await verify_event(_events(pool), event_id)
            except EventNotFound:
                return None

    report = asyncio.run(run())
    if report is None:
        print(f"no event {event_id!r}", file=sys.stderr)
        return 2
    return _report(report)


def verify_file(
    args: argparse.Namespace, keys: Keys | None, witnessed: Sequence[Witnessed] | None
) -> int:
    """``doko verify --file EVENT_EXPORT``: `infra.event_export.verify_event_file` with the
    keys the verifier trusts, pinned to ``--event ID`` if given (else with a loud warning),
    held against the ``--witness`` archive's chain heads if given."""
    from infra.audit import ExportError
    from infra.event_export import verify_event_file

    if args.pinned is not None:
        print(
            f"{args.file} is an event export: --table goes with a table's export (pin the "
            "event with --event ID)",
            file=sys.stderr,
        )
        return 2
    try:
        checked = verify_event_file(
            args.file,
            keys,
            allow_unsigned=args.allow_unsigned,
            expected=args.event,
            witnessed=witnessed,
        )
    except (OSError, ExportError) as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return 2
    warnings = checked.warnings
    if args.event is None:
        report = checked.report
        warnings += (NOT_PINNED.format(event=report.event_id, name=report.name),)
    return _report(checked.report, warnings, checked.flagged)
