"""The ``doko`` command line.

Each top-level command is a function ``register_<name>(subparsers)`` that adds its parser and sets
``handler`` (a :data:`Handler`) as a default; list it in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias, TypeVar

if TYPE_CHECKING:
    import asyncpg

    from domain.table import TableEvent
    from infra.audit import TableReport
    from infra.event_store import StoredEvent
    from infra.signing import Keys
    from infra.witness import Witnessed

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
Handler: TypeAlias = Callable[[argparse.Namespace], int]
T = TypeVar("T")


def add_database_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--database-url`` and ``--data-dir`` (see :func:`infra.database.database_url`)."""
    parser.add_argument(
        "--database-url",
        help="PostgreSQL URL (default: $DATABASE_URL, else the embedded server)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="data folder of the embedded PostgreSQL server (default: user data dir/doko/pgdata)",
    )


KEY_OPTIONS = {
    "--key-dir": (
        "FOLDER",
        "the folder of the private signing keys (default: $DOKO_KEY_DIR, else user data "
        "dir/doko/keys)",
    ),
    "--signing-key": (
        "FILE",
        "sign exports and reports with this PEM Ed25519 private key (default: "
        "$DOKO_SIGNING_KEY_FILE, else the current key of the key folder)",
    ),
}


def add_key_options(parser: argparse.ArgumentParser, *, signing_key: bool = False) -> None:
    """Add ``--key-dir`` (see `infra.key_folder`) and, with ``signing_key``, ``--signing-key
    FILE`` (see `infra.keyring`)."""
    for flag, (metavar, meaning) in KEY_OPTIONS.items():
        if signing_key or flag == "--key-dir":
            parser.add_argument(flag, type=Path, metavar=metavar, help=meaning)


def db_upgrade(args: argparse.Namespace) -> int:
    """Migrate the database to the newest schema (a private key it held moves to the key
    folder)."""
    _connect(args)
    print("database is at the newest schema")
    return 0


def register_db(subparsers: Subparsers) -> None:
    """``doko db upgrade``."""
    db = subparsers.add_parser("db", help="database maintenance")
    actions = db.add_subparsers(dest="action", required=True, metavar="ACTION")
    upgrade = actions.add_parser("upgrade", help="apply pending migrations")
    add_database_options(upgrade)
    add_key_options(upgrade)
    upgrade.set_defaults(handler=db_upgrade)


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket for uvicorn, created with IPPROTO_TCP so that asyncio sets TCP_NODELAY on
    every connection (without it, responses written in two parts wait ~40 ms for delayed ACKs)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def serve(args: argparse.Namespace) -> int:
    """Run the HTTP service: migrate, then serve with uvicorn (several workers if asked).

    When the service started the embedded PostgreSQL itself, it stops it again on the way
    out, also when ended by SIGTERM (uvicorn re-raises the signal once it has shut down:
    here it ends the process as an exception, so that the way out is taken).
    """
    import os
    import signal
    import sys

    import msgspec
    import uvicorn
    from uvicorn.supervisors.multiprocess import Multiprocess

    from infra.database import database_url, embedded_data_dir, stop_embedded
    from infra.key_folder import key_dir
    from infra.signing import KeyFileError
    from service.app import Settings
    from service.edge.http import Config, Edge, HttpProtocol
    from service.edge.keys import key_file, load_signer
    from service.edge.logs import log_config

    signing_key = key_file(args.signing_key)
    try:
        load_signer(signing_key)
    except KeyFileError as error:
        print(f"--signing-key: {error}", file=sys.stderr)
        return 2
    pgdata = embedded_data_dir(args.database_url, data_dir=args.data_dir)
    settings = Settings(
        database_url=database_url(args.database_url, data_dir=args.data_dir),
        cors_origins=tuple(args.cors_origin),
        signing_key=str(signing_key) if signing_key is not None else None,
        key_dir=str(key_dir(args.key_dir).absolute()),
        db_timeout=args.db_timeout,
        rate_per_token=args.rate_per_token,
        rate_per_address=args.rate_per_address,
        rate_expensive=args.rate_expensive,
        max_streams_per_address=args.max_streams_per_address,
        embedded_data_dir=str(pgdata) if pgdata is not None else None,
        bot_delay=args.bot_delay,
        bot_workers=args.bot_workers,
    )
    edge = Edge(
        max_header_bytes=args.max_header_bytes,
        max_headers=args.max_headers,
        read_timeout=args.read_timeout,
        keep_alive=args.keep_alive,
        max_connections=args.max_connections,
        max_connections_per_address=args.max_connections_per_address,
    )
    os.environ["DOKO_SETTINGS"] = msgspec.json.encode(settings).decode()
    config = Config(
        "service.app:app_from_env",
        edge=edge,
        factory=True,
        http=HttpProtocol,
        workers=args.workers,
        log_config=log_config(args.log_level),
        access_log=False,
    )
    sock = listening_socket(args.host, args.port)
    print(f"doko serving on http://{args.host}:{args.port} (OpenAPI at /schema)", flush=True)

    def terminated(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminated)
    try:
        if args.workers > 1:
            Multiprocess(config, sockets=[sock]).run()
        else:
            uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn has shut down gracefully already
        pass
    finally:
        if pgdata is not None:
            stop_embedded(pgdata)
    return 0


def register_serve(subparsers: Subparsers) -> None:
    """``doko serve``."""
    from service.app import Settings
    from service.edge.http import Edge

    defaults, edge = Settings(database_url=""), Edge()
    parser = subparsers.add_parser("serve", help="run the HTTP service")
    add_database_options(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--cors-origin", action="append", default=[], help="allow this browser origin (repeat)"
    )
    parser.add_argument("--log-level", default="info", help="debug, info, warning, error")
    add_key_options(parser, signing_key=True)
    limits = parser.add_argument_group(
        "limits", "what clients may send and hold (README: Operations)"
    )
    options: list[tuple[str, type, object, str]] = [
        ("--db-timeout", float, defaults.db_timeout, "seconds a database wait may take (503)"),
        ("--rate-per-token", int, defaults.rate_per_token, "requests a second per token"),
        ("--rate-per-address", int, defaults.rate_per_address, "requests a second per address"),
        ("--rate-expensive", int, defaults.rate_expensive, "replays a second per address"),
        ("--max-header-bytes", int, edge.max_header_bytes, "bytes of request line and headers"),
        ("--max-headers", int, edge.max_headers, "header fields a request (431)"),
        ("--read-timeout", float, edge.read_timeout, "seconds to send a whole request (408)"),
        ("--keep-alive", float, edge.keep_alive, "seconds an idle connection stays open"),
        ("--max-connections", int, edge.max_connections, "open connections (503 beyond)"),
        (
            "--max-connections-per-address",
            int,
            edge.max_connections_per_address,
            "open connections per client address (429 beyond)",
        ),
        (
            "--max-streams-per-address",
            int,
            defaults.max_streams_per_address,
            "open event streams per client address (429 beyond)",
        ),
        ("--bot-delay", float, defaults.bot_delay, "seconds an expert bot waits near people"),
        (
            "--bot-workers",
            int,
            defaults.bot_workers,
            "processes bots search in (None: a core each)",
        ),
    ]
    for flag, kind, default, meaning in options:
        limits.add_argument(flag, type=kind, default=default, help=f"{meaning} (default {default})")
    parser.set_defaults(handler=serve)


def export_openapi(args: argparse.Namespace) -> int:
    """Write the OpenAPI document of the app."""
    from service.openapi.document import write_openapi

    write_openapi(args.output)
    print(f"wrote {args.output}")
    return 0


def register_openapi(subparsers: Subparsers) -> None:
    """``doko openapi [-o openapi/openapi.json]``."""
    parser = subparsers.add_parser("openapi", help="export the OpenAPI document")
    parser.add_argument("-o", "--output", type=Path, default=Path("openapi/openapi.json"))
    parser.set_defaults(handler=export_openapi)


def _connect(args: argparse.Namespace) -> str:
    """The database URL of a command's options, migrated to the newest schema (a command
    with ``--key-dir`` moves a private key the database held there; another exits)."""
    import sys

    from infra.database import database_url
    from infra.key_folder import KeyFolder
    from infra.keyring import PrivateKeyInDatabase
    from infra.migrate import upgrade

    url = database_url(args.database_url, data_dir=args.data_dir)
    folder = KeyFolder(args.key_dir) if "key_dir" in args else None
    try:
        asyncio.run(upgrade(url, folder))
    except PrivateKeyInDatabase as error:
        print(error, file=sys.stderr)
        raise SystemExit(2) from error
    return url


def projections_rebuild(args: argparse.Namespace) -> int:
    """Rebuild the read models from the event log."""
    import asyncpg

    from infra.projections import rebuild

    url = _connect(args)

    async def run() -> None:
        async with asyncpg.create_pool(url, min_size=2, max_size=2) as pool:
            result = await rebuild(pool, progress=not args.no_progress)
        print(
            f"rebuilt projections from {result.events} events: "
            f"{result.tables} tables, {result.deals} archived deals"
        )

    asyncio.run(run())
    return 0


def register_projections(subparsers: Subparsers) -> None:
    """``doko projections rebuild``."""
    projections = subparsers.add_parser("projections", help="read models of the tables")
    actions = projections.add_subparsers(dest="action", required=True, metavar="ACTION")
    rebuild = actions.add_parser(
        "rebuild", help="empty the projections and recompute them from the event log"
    )
    rebuild.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_database_options(rebuild)
    rebuild.set_defaults(handler=projections_rebuild)


async def _table_log(url: str, table: str) -> tuple[list[StoredEvent], list[TableEvent]] | None:
    """A table's stored events and those of them that decode (all, unless tampered with);
    None if there is no such table."""
    import asyncpg

    from infra.audit import decode_events
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

    from infra.audit import dealt_numbers, render_deal, scored_numbers

    log = asyncio.run(_table_log(_connect(args), args.table))
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

    from infra.audit import summary
    from service.tools import tournament_audit_cli

    reports: list[TableReport] = []
    if args.tournament is not None and args.file is None:
        if args.table is not None or args.public_key or args.witness or args.pinned:
            print("--tournament ID alone verifies a tournament on the database", file=sys.stderr)
            return 2
        return tournament_audit_cli.verify_database(_connect(args), args.tournament)
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
        found = asyncio.run(_verify_database(_connect(args), args.table))
        if found is None:
            print(f"no table {args.table!r}", file=sys.stderr)
            return 2
        reports = found
    for report in reports:
        for warning in report.warnings:
            print(f"{'!' * 78}\nWARNING: {warning}\n{'!' * 78}", file=sys.stderr)
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
    from infra.tournament_export import is_tournament_export

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

    from infra.signing import KeyFileError
    from infra.witness import ArchiveError, read_archive
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
    from service.tools import tournament_audit_cli

    given = _given(args)
    return tournament_audit_cli.verify_file(args, *given) if given is not None else 2


def _verify_file(args: argparse.Namespace) -> TableReport | None:
    """`infra.audit.verify_file` with the keys and the archive the options name; None (and
    the reason on standard error) when one of them cannot be read."""
    import sys

    import msgspec

    from infra.audit import Expected, ExportError, verify_file

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

    from infra.audit import table_ids, verify_table
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

    from infra.audit import SecretsError, export_session
    from infra.key_folder import KeyFolder
    from infra.keyring import Keyring, NoSigningKey
    from infra.signing import KeyFileError
    from infra.tournament_export import export_tournament
    from service.edge.keys import key_file, load_signer
    from service.tools.tournament_audit_cli import tournament_log

    if (args.table is None) == (args.tournament is None):
        print("give a TABLE or --tournament ID", file=sys.stderr)
        return 2
    try:
        configured = load_signer(key_file(args.signing_key))
    except KeyFileError as error:
        print(f"--signing-key: {error}", file=sys.stderr)
        return 2
    url = _connect(args)
    what = f"table {args.table!r}" if args.table is not None else f"tournament {args.tournament!r}"
    log: Sequence[Any] | None = asyncio.run(
        _table_log(url, args.table)
        if args.table is not None
        else tournament_log(url, args.tournament)
    )
    if log is None:
        print(f"no {what}", file=sys.stderr)
        return 2
    make: Callable[..., bytes] = export_session if args.table is not None else export_tournament
    try:
        folder = KeyFolder(args.key_dir)
        signer = _on_pool(url, lambda pool: Keyring(pool, configured, folder).signer())
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


def _on_pool(url: str, work: Callable[[asyncpg.Pool], Awaitable[T]]) -> T:
    """Run ``work`` with a small pool on the database."""
    import asyncpg

    async def run() -> T:
        async with asyncpg.create_pool(url, min_size=1, max_size=1) as pool:
            return await work(pool)

    return asyncio.run(run())


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


def keys_list(args: argparse.Namespace) -> int:
    """Print the deployment's public keys (or their JWK set)."""
    import msgspec

    from infra.keyring import Keyring
    from infra.signing import key_set

    keys = _on_pool(_connect(args), lambda pool: Keyring(pool).keys())
    if args.jwks:
        print(msgspec.json.format(msgspec.json.encode(key_set(keys)), indent=2).decode())
        return 0
    for key in keys:
        retired = f", retired {key.retired:%Y-%m-%d %H:%M:%S %Z}" if key.retired else ""
        if key.revoked_from is not None:
            retired += f", REVOKED from {key.revoked_from:%Y-%m-%d %H:%M:%S %Z}"
        print(f"{key.kid}  {key.status:<7}  created {key.created:%Y-%m-%d %H:%M:%S %Z}{retired}")
    if not keys:
        print("no signing keys yet (the service makes one when it first starts)")
    return 0


def keys_rotate(args: argparse.Namespace) -> int:
    """Retire the current key and make a new one."""
    import sys

    from infra.key_folder import KeyFolder
    from infra.keyring import KeyConfigured, rotate

    folder = KeyFolder(args.key_dir)
    try:
        old, new = _on_pool(_connect(args), lambda pool: rotate(pool, folder))
    except KeyConfigured as error:
        print(f"not rotated: {error}", file=sys.stderr)
        return 2
    if old is not None:
        print(f"retired {old.kid}")
    print(f"current {new.kid} (its private key in {folder.path})")
    return 0


def keys_revoke(args: argparse.Namespace) -> int:
    """Mark a key compromised from a time on; a current key is replaced."""
    import sys
    from datetime import datetime

    from infra.key_folder import KeyFolder
    from infra.keyring import UnknownKey, revoke

    try:
        since = datetime.fromisoformat(args.since)
    except ValueError as error:
        print(f"--from {args.since!r}: not an ISO 8601 time ({error})", file=sys.stderr)
        return 2
    if since.tzinfo is None:
        print(f"--from {args.since!r}: give its time zone (e.g. Z)", file=sys.stderr)
        return 2
    folder = KeyFolder(args.key_dir)
    try:
        revoked, new = _on_pool(_connect(args), lambda pool: revoke(pool, folder, args.kid, since))
    except (UnknownKey, ValueError) as error:
        print(f"not revoked: {error}", file=sys.stderr)
        return 2
    assert revoked.revoked_from is not None
    print(f"revoked {revoked.kid} from {revoked.revoked_from.isoformat()}")
    if new is not None:
        print(f"current {new.kid} (its private key in {folder.path})")
    return 0


def keys_generate(args: argparse.Namespace) -> int:
    """Write a new Ed25519 private key as a PEM file readable by its owner only."""
    import os
    import sys

    from infra.signing import Signer

    signer = Signer.generate()
    try:
        descriptor = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        print(f"{args.output} exists: not overwritten", file=sys.stderr)
        return 2
    with os.fdopen(descriptor, "wb") as file:
        file.write(signer.pem())
    print(f"wrote key {signer.kid} to {args.output} (give it to `doko serve --signing-key`)")
    return 0


def register_keys(subparsers: Subparsers) -> None:
    """``doko keys list|rotate|revoke|generate``."""
    keys = subparsers.add_parser("keys", help="the keys that sign exports and reports")
    actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the public keys, current, retired and revoked")
    listing.add_argument("--jwks", action="store_true", help="as the JWK set the service serves")
    add_database_options(listing)
    listing.set_defaults(handler=keys_list)
    rotate = actions.add_parser(
        "rotate", help="retire the current key (it keeps verifying) and make a new one"
    )
    add_database_options(rotate)
    add_key_options(rotate)
    rotate.set_defaults(handler=keys_rotate)
    revoking = actions.add_parser(
        "revoke",
        help="mark a key compromised from a time on: what it signed from then is refused, "
        "what it signed before is flagged",
    )
    revoking.add_argument("kid", help="the key's id")
    revoking.add_argument(
        "--from",
        dest="since",
        required=True,
        metavar="TIME",
        help="since when the key may be in other hands (ISO 8601 with time zone, not later "
        "than now)",
    )
    add_database_options(revoking)
    add_key_options(revoking)
    revoking.set_defaults(handler=keys_revoke)
    generate = actions.add_parser(
        "generate", help="write a new private key file, for services sharing one key"
    )
    generate.add_argument("-o", "--output", type=Path, required=True, help="the PEM file")
    generate.set_defaults(handler=keys_generate)


def run_demo(args: argparse.Namespace) -> int:
    """Play a whole session through the HTTP API and print it."""
    from infra.database import database_url
    from service.tools.demo import demo

    url = None if args.url else database_url(args.database_url, data_dir=args.data_dir)
    return asyncio.run(
        demo(
            args.url,
            url,
            bots=args.bots,
            seed=args.seed,
            turn_seconds=args.turn_seconds,
            tournament=args.tournament,
        )
    )


def register_demo(subparsers: Subparsers) -> None:
    """``doko demo [--url URL] [--bots N] [--seed S] [--turn-seconds N] [--tournament PLAYERS]``."""
    from domain.table import TURN_SECONDS

    parser = subparsers.add_parser("demo", help="play a whole session through the API")
    add_database_options(parser)
    parser.add_argument("--url", help="use a running service instead of starting one")
    parser.add_argument("--bots", type=int, default=0, choices=range(4), help="bot seats (0-3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random HTTP players")
    parser.add_argument(
        "--turn-seconds",
        type=int,
        choices=range(TURN_SECONDS[0], TURN_SECONDS[1] + 1),
        metavar=f"{TURN_SECONDS[0]}-{TURN_SECONDS[1]}",
        help="a turn clock of N seconds; the first HTTP player then never acts (T3)",
    )
    parser.add_argument(
        "--tournament",
        type=int,
        choices=range(1, 65),
        metavar="PLAYERS",
        help="a tournament of PLAYERS HTTP players (1-64) over two rounds instead of one table: "
        "prints the standings and the tournament's verification",
    )
    parser.set_defaults(handler=run_demo)


def run_match(args: argparse.Namespace) -> int:
    """Play a duplicate match between two bot kinds and print the interval."""
    from infra.database import database_url
    from service.tools.match import match

    url = None if args.url else database_url(args.database_url, data_dir=args.data_dir)
    return asyncio.run(
        match(
            args.url,
            url,
            a=args.a,
            b=args.b,
            deals=args.deals,
            seed=args.seed,
            json_file=args.json,
        )
    )


def _positive(text: str) -> int:
    """A whole number of at least 1 (an argparse type)."""
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text} is not at least 1")
    return number


def register_match(subparsers: Subparsers) -> None:
    """``doko match --a KIND --b KIND --deals N [--seed S] [--url URL] [--json FILE]``."""
    from service.workers.bots import BotKind

    kinds = [k.value for k in BotKind]
    parser = subparsers.add_parser("match", help="a duplicate match between two bot kinds")
    add_database_options(parser)
    parser.add_argument("--a", required=True, choices=kinds, help="the first bot kind")
    parser.add_argument("--b", required=True, choices=kinds, help="the second bot kind")
    parser.add_argument("--deals", type=_positive, required=True, help="deal pairs to play")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals")
    parser.add_argument("--url", help="use a running service instead of starting one")
    parser.add_argument("--json", type=Path, help="write the result to this file")
    parser.set_defaults(handler=run_match)


COMMANDS: list[Callable[[Subparsers], None]] = [
    register_db,
    register_serve,
    register_openapi,
    register_demo,
    register_match,
    register_projections,
    register_replay,
    register_verify,
    register_export,
    register_keys,
]


def build_parser() -> argparse.ArgumentParser:
    """Return the ``doko`` argument parser with every command in :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(prog="doko", description="Doppelkopf table service")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in COMMANDS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``doko`` with *argv* (default: the process arguments); return the exit status."""
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    return handler(args)


if __name__ == "__main__":
    raise SystemExit(main())
