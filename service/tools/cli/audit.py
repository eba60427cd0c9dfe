"""``doko replay``, ``doko verify`` and ``doko export``: a table's deals shown, tables
audited (on the database or an export file offline) and exported, signed; for a tournament these
commands hand over to `service.tools.cli.tournament_audit`."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from service.tools.cli import tournament_audit
from service.tools.cli.shared import (
    Subparsers,
    add_database_options,
    add_key_options,
    connect,
    on_pool,
    print_warnings,
)

if TYPE_CHECKING:
    from domain.table import TableEvent
    from infra.audit.report import TableReport
    from infra.audit.witness import Witnessed
    from infra.event_store import StoredEvent
    from infra.signing import Keys


async def _table_log(url: str, table: str) -> tuple[list[StoredEvent], list[TableEvent]] | None:
    """A table's stored events and those of them that decode (all, unless tampered with);
    None if there is no such table."""
    import asyncpg

    from infra.audit.table import decode_events
    from infra.event_store import EventStore

    async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
        stored = await EventStore(pool).read_stream(table)
    if not stored:
        return None
    events, _ = decode_events(stored)
    return stored, events


def replay_table(args: argparse.Namespace) -> int:
    """Print a table's deals step by step."""
    import sys

    from infra.audit.deals import dealt_numbers, render_deal, scored_numbers

    log = asyncio.run(_table_log(connect(args), args.table))
    if log is None:
        print(f"no table {args.table!r}", file=sys.stderr)
        return 2
    _, events = log
    numbers = dealt_numbers(events)
    scored = set(scored_numbers(events))
    if args.deal is not None:
        if args.deal not in numbers:
            print(f"table {args.table!r} has no deal {args.deal}", file=sys.stderr)
            return 2
        if args.deal not in scored and not args.show_open:
            print(
                f"deal {args.deal} is in play: its hands are secret (--show-open shows them)",
                file=sys.stderr,
            )
            return 2
        numbers = [args.deal]
    shown = [n for n in numbers if n in scored or args.show_open]
    print("\n".join(render_deal(events, n) for n in shown), end="")
    for n in numbers:
        if n not in shown:
            print(f"(deal {n} is in play and not shown; --show-open shows it)")
    return 0


def register_replay(subparsers: Subparsers) -> None:
    """``doko replay TABLE [DEAL]``."""
    parser = subparsers.add_parser("replay", help="print a table's deals step by step")
    parser.add_argument("table", help="the table's id (its stream id)")
    parser.add_argument("deal", nargs="?", type=int, help="only this deal (1-12)")
    parser.add_argument(
        "--show-open",
        action="store_true",
        help="also show a deal still in play, with its secret hands and seed",
    )
    add_database_options(parser)
    parser.set_defaults(handler=replay_table)


def verify(args: argparse.Namespace) -> int:
    """Audit tables: exit 1 on any mismatch, naming the event version."""
    import sys

    from infra.audit.report import summary

    reports: list[TableReport] = []
    if args.tournament is not None and args.file is None:
        if args.table is not None or args.public_key or args.witness or args.pinned:
            print("--tournament ID alone verifies a tournament on the database", file=sys.stderr)
            return 2
        return tournament_audit.verify_database(connect(args), args.tournament)
    if args.file is not None:
        if args.table is not None:
            print("give a TABLE or --file, not both", file=sys.stderr)
            return 2
        if args.public_key is None and not args.allow_unsigned:
            print(
                "--file needs --public-key KEYS to check who signed the file: the key set "
                "saved from GET /.well-known/doko-keys (or one key), or the service's URL "
                "(--allow-unsigned checks an old unsigned file without proof of its origin)",
                file=sys.stderr,
            )
            return 2
        if args.created_at is not None and args.pinned is None:
            print("--created-at goes with --table", file=sys.stderr)
            return 2
        if _is_tournament_export(args.file):
            return _verify_tournament_file(args)
        if args.tournament is not None:
            print(f"{args.file} is a table's export: pin it with --table ID", file=sys.stderr)
            return 2
        report = _verify_file(args)
        if report is None:
            return 2
        reports.append(report)
    else:
        if args.public_key or args.witness or args.allow_unsigned or args.pinned:
            print(
                "--public-key, --witness, --allow-unsigned and --table go with --file",
                file=sys.stderr,
            )
            return 2
        found = asyncio.run(_verify_database(connect(args), args.table))
        if found is None:
            print(f"no table {args.table!r}", file=sys.stderr)
            return 2
        reports = found
    for report in reports:
        print_warnings(report.warnings)
        for line in summary(report):
            print(line)
    bad = [r for r in reports if not r.ok]
    flagged = [r for r in reports if r.ok and r.flagged]
    print(
        f"{len(reports) - len(bad)} of {len(reports)} tables verified"
        + (f"; FLAGGED: {', '.join(r.stream_id for r in flagged)}" if flagged else "")
        + (f"; FAILED: {', '.join(r.stream_id for r in bad)}" if bad else "")
    )
    return 1 if bad else 3 if flagged else 0


def _is_tournament_export(path: Path) -> bool:
    from infra.audit.tournament_export import is_tournament_export

    try:
        return is_tournament_export(path)
    except OSError:
        return False  # the table export's reading says why


class _Given(NamedTuple):
    """What ``--public-key`` and ``--witness`` name, read (None: not given)."""

    keys: Keys | None
    witnessed: list[Witnessed] | None


def _given(args: argparse.Namespace) -> _Given | None:
    """The keys and the archive the options name; None (and the reason on standard error)
    when one of them cannot be read."""
    import sys

    import httpx

    from infra.audit.witness import ArchiveError, read_archive
    from infra.signing import KeyFileError
    from service.edge.keys import trusted_keys

    try:
        keys = trusted_keys(args.public_key) if args.public_key is not None else None
    except (OSError, KeyFileError, httpx.HTTPError) as error:
        print(f"--public-key {args.public_key}: {error}", file=sys.stderr)
        return None
    try:
        witnessed = read_archive(args.witness.read_bytes()) if args.witness else None
    except (OSError, ArchiveError) as error:
        print(f"--witness {args.witness}: {error}", file=sys.stderr)
        return None
    return _Given(keys, witnessed)


def _verify_tournament_file(args: argparse.Namespace) -> int:
    given = _given(args)
    return tournament_audit.verify_file(args, *given) if given is not None else 2


def _verify_file(args: argparse.Namespace) -> TableReport | None:
    """`infra.audit.export.verify_file` with the keys and the archive the options name; None (and
    the reason on standard error) when one of them cannot be read."""
    import sys

    import msgspec

    from infra.audit.export import Expected, ExportError, verify_file

    given = _given(args)
    if given is None:
        return None
    keys, witnessed = given
    expected = Expected(args.pinned, args.created_at) if args.pinned else None
    try:
        report = verify_file(
            args.file,
            keys,
            allow_unsigned=args.allow_unsigned,
            witnessed=witnessed,
            expected=expected,
        )
    except (OSError, ExportError) as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return None
    if expected is not None:
        return report
    unpinned = NOT_PINNED.format(table=report.stream_id, name=report.name)
    return msgspec.structs.replace(report, warnings=(*report.warnings, unpinned))


NOT_PINNED = (
    "NOT PINNED: nothing says this file is of the table you mean. It is of table {table} "
    "({name!r}); a look-alike table's export is genuinely signed too: give --table ID"
)


async def _verify_database(url: str, table: str | None) -> list[TableReport] | None:
    import asyncpg

    from infra.audit.table import table_ids, verify_table
    from infra.event_store import EventStore
    from infra.tables import TableNotFound, Tables

    async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
        tables = Tables(EventStore(pool))
        ids = [table] if table is not None else await table_ids(pool)
        reports = []
        for stream_id in ids:
            try:
                reports.append(await verify_table(tables, stream_id))
            except TableNotFound:
                return None
        return reports


def _instant(text: str) -> datetime:
    """An ISO 8601 time with its offset (``Z`` for UTC)."""
    at = datetime.fromisoformat(text)
    if at.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no offset (say Z for UTC)")
    return at


def register_verify(subparsers: Subparsers) -> None:
    """``doko verify [TABLE]``, ``doko verify --file export.json``."""
    parser = subparsers.add_parser(
        "verify",
        help="audit tables: hash chain, replay by the rules, seeds, scores",
        description="Audit one table, every table (no TABLE), a tournament (--tournament ID), "
        "or an export file offline (--file, no database; a table's or a tournament's): its "
        "signature by a key you trust, its hash chain, the rules "
        "replayed, seeds, scores, its top-level copies and, with --witness, the chain heads "
        "published live. Exits 1 if anything does not match, 3 if it verified but is "
        "flagged (signed by a key revoked after the signature's date).",
    )
    parser.add_argument("table", nargs="?", help="the table's id (default: every table)")
    parser.add_argument("--file", type=Path, help="verify an export file, without a database")
    parser.add_argument(
        "--tournament",
        metavar="ID",
        help="audit the tournament ID on the database: its stream and every table of every round; "
        "with --file: the id of the tournament you mean to check (a tournament export of any other "
        "fails; without it the report warns loudly)",
    )
    parser.add_argument(
        "--public-key",
        metavar="KEYS",
        help="with --file: the keys to trust, a file (the JWK set of GET "
        "/.well-known/doko-keys, one JWK, or a PEM public key) or the service's URL to fetch "
        "them from; never a key inside the file",
    )
    parser.add_argument(
        "--allow-unsigned",
        action="store_true",
        help="with --file: accept an unsigned file (or no --public-key) with a loud warning: "
        "nothing then proves where the file came from",
    )
    parser.add_argument(
        "--table",
        dest="pinned",
        metavar="ID",
        help="with --file: the id of the table you mean to check; a file of any other table "
        "fails (without it the report warns loudly: a look-alike table's file is signed too)",
    )
    parser.add_argument(
        "--created-at",
        type=_instant,
        metavar="TIME",
        help="with --table: when that table was created (ISO 8601 with its offset, e.g. "
        "2026-12-01T10:00:00Z; without fractions it matches that second)",
    )
    parser.add_argument(
        "--witness",
        type=Path,
        metavar="ARCHIVE",
        help="with --file: hold the export against the chain heads published live, as "
        "saved from GET /feed (the event stream as received, or JSON lines of feed items) "
        "or from a table's event stream (a tournament's export: from the tournament's stream)",
    )
    add_database_options(parser)
    parser.set_defaults(handler=verify)


def export(args: argparse.Namespace) -> int:
    """Write a table's (or with ``--tournament``, a tournament's) whole log as one portable JSON
    file, signed."""
    import sys
    from datetime import UTC

    from infra.audit.export import SecretsError, export_session
    from infra.audit.tournament_export import export_tournament
    from infra.key_folder import KeyFolder
    from infra.keyring import Keyring, NoSigningKey
    from infra.signing import KeyFileError
    from service.edge.keys import key_file, load_signer

    if (args.table is None) == (args.tournament is None):
        print("give a TABLE or --tournament ID", file=sys.stderr)
        return 2
    try:
        configured = load_signer(key_file(args.signing_key))
    except KeyFileError as error:
        print(f"--signing-key: {error}", file=sys.stderr)
        return 2
    url = connect(args)
    what = f"table {args.table!r}" if args.table is not None else f"tournament {args.tournament!r}"
    log: Sequence[Any] | None = asyncio.run(
        _table_log(url, args.table)
        if args.table is not None
        else tournament_audit.tournament_log(url, args.tournament)
    )
    if log is None:
        print(f"no {what}", file=sys.stderr)
        return 2
    make: Callable[..., bytes] = export_session if args.table is not None else export_tournament
    try:
        folder = KeyFolder(args.key_dir)
        signer = on_pool(url, lambda pool: Keyring(pool, configured, folder).signer())
        data = make(*log, unfinished=args.unfinished, signer=signer, signed_at=datetime.now(UTC))
    except SecretsError as error:
        print(f"{what}: {error} (--unfinished exports it anyway)", file=sys.stderr)
        return 2
    except NoSigningKey as error:
        print(f"cannot sign the export: {error} (--signing-key FILE)", file=sys.stderr)
        return 2
    if args.output is None or str(args.output) == "-":
        sys.stdout.buffer.write(data + b"\n")
    else:
        args.output.write_bytes(data + b"\n")
        print(f"wrote {len(log[0])} events of {what} to {args.output}, signed by key {signer.kid}")
    return 0


def register_export(subparsers: Subparsers) -> None:
    """``doko export TABLE -o file.json``, ``doko export --tournament ID -o file.json``."""
    parser = subparsers.add_parser(
        "export",
        help="write a table's (or a tournament's) whole log as JSON, for `doko verify --file`",
    )
    parser.add_argument("table", nargs="?", help="the table's id (its stream id)")
    parser.add_argument(
        "--tournament",
        metavar="ID",
        help="export the tournament ID instead: its stream, every table's export, the standings",
    )
    parser.add_argument("-o", "--output", type=Path, help="the file (default: standard output)")
    parser.add_argument(
        "--unfinished",
        action="store_true",
        help="export a table (or tournament) still in play (the file then holds the hands of the "
        "deals in play)",
    )
    add_key_options(parser, signing_key=True)
    add_database_options(parser)
    parser.set_defaults(handler=export)
