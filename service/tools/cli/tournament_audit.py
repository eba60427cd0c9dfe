"""The tournament's audit on the command line: ``doko export --tournament ID``, ``doko verify
--tournament ID`` (with the database) and ``doko verify --file TOURNAMENT_EXPORT`` (offline), for
`service.tools.cli.audit`."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from service.tools.cli.shared import print_warnings

if TYPE_CHECKING:
    import asyncpg

    from domain.standings import Standings
    from infra.audit.tournament import TournamentReport
    from infra.audit.tournament_export import Place
    from infra.audit.witness import Witnessed
    from infra.event_store import StoredEvent
    from infra.signing import Keys
    from infra.tournaments import Tournaments

    TournamentLog = tuple[list[StoredEvent], dict[Place, list[StoredEvent]], Standings]
    """What `infra.audit.tournament_export.export_tournament` takes: the stream, the tables'
    logs, the standings."""

NOT_PINNED = (
    "NOT PINNED: nothing says this file is of the tournament you mean. It is of tournament "
    "{tournament} ({name!r}); a look-alike tournament's export is genuinely signed too: give "
    "--tournament ID"
)


def _tournaments(pool: asyncpg.Pool) -> Tournaments:
    from infra.event_store import EventStore
    from infra.tables import Tables
    from infra.tournaments import Tournaments

    return Tournaments(pool, Tables(EventStore(pool)))


async def tournament_log(url: str, tournament_id: str) -> TournamentLog | None:
    """The tournament's stream, its tables' logs and its standings; None if there is no such
    tournament."""
    import asyncpg

    from infra.audit.tournament_export import read_tournament
    from infra.tournaments import TournamentNotFound

    async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
        try:
            read = await read_tournament(_tournaments(pool), tournament_id)
        except TournamentNotFound:
            return None
    return read.stored, read.logs, read.standings


def _report(report: TournamentReport, warnings: tuple[str, ...] = (), flagged: bool = False) -> int:
    """Print the warnings loudly, the report's lines; the exit code: 1 when a check failed,
    3 when it verified but is flagged (a key revoked after the signature's date)."""
    from infra.audit.tournament import tournament_summary

    print_warnings(warnings)
    for line in tournament_summary(report):
        print(line)
    return 1 if not report.ok else 3 if flagged else 0


def verify_database(url: str, tournament_id: str) -> int:
    """``doko verify --tournament ID``: `infra.audit.tournament.verify_tournament` on the
    database."""
    import asyncpg

    from infra.audit.tournament import verify_tournament
    from infra.tournaments import TournamentNotFound

    async def run() -> TournamentReport | None:
        async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
            try:
                return await verify_tournament(_tournaments(pool), tournament_id)
            except TournamentNotFound:
                return None

    report = asyncio.run(run())
    if report is None:
        print(f"no tournament {tournament_id!r}", file=sys.stderr)
        return 2
    return _report(report)


def verify_file(
    args: argparse.Namespace, keys: Keys | None, witnessed: Sequence[Witnessed] | None
) -> int:
    """``doko verify --file TOURNAMENT_EXPORT``:
    `infra.audit.tournament_export.verify_tournament_file` with the keys the verifier trusts,
    pinned to ``--tournament ID`` if given (else with a loud warning), held against the
    ``--witness`` archive's chain heads if given."""
    from infra.audit.export import ExportError
    from infra.audit.tournament_export import verify_tournament_file

    if args.pinned is not None:
        print(
            f"{args.file} is a tournament export: --table goes with a table's export (pin the "
            "tournament with --tournament ID)",
            file=sys.stderr,
        )
        return 2
    try:
        checked = verify_tournament_file(
            args.file,
            keys,
            allow_unsigned=args.allow_unsigned,
            expected=args.tournament,
            witnessed=witnessed,
        )
    except (OSError, ExportError) as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return 2
    warnings = checked.warnings
    if args.tournament is None:
        report = checked.report
        warnings += (NOT_PINNED.format(tournament=report.tournament_id, name=report.name),)
    return _report(checked.report, warnings, checked.flagged)
