"""What the command groups share: the parser's types, the database and key options, the
database a command's options name (migrated to the newest schema), a pool on it, the service a
command plays against, and the loud warnings of a report."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

if TYPE_CHECKING:
    import asyncpg

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


def database_url_of(args: argparse.Namespace) -> str:
    """The URL of the database that ``--database-url`` and ``--data-dir`` name (see
    :func:`add_database_options`), the embedded server started if it is the one."""
    from infra.database import database_url

    return database_url(args.database_url, data_dir=args.data_dir)


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


def connect(args: argparse.Namespace) -> str:
    """The database URL of a command's options, migrated to the newest schema (a command
    with ``--key-dir`` moves a private key the database held there; another exits)."""
    from infra.key_folder import KeyFolder
    from infra.keyring import PrivateKeyInDatabase
    from infra.migrate import upgrade

    url = database_url_of(args)
    folder = KeyFolder(args.key_dir) if "key_dir" in args else None
    try:
        asyncio.run(upgrade(url, folder))
    except PrivateKeyInDatabase as error:
        print(error, file=sys.stderr)
        raise SystemExit(2) from error
    return url


def on_pool(url: str, work: Callable[[asyncpg.Pool], Awaitable[T]]) -> T:
    """Run ``work`` with a small pool on the database."""
    import asyncpg

    async def run() -> T:
        async with asyncpg.create_pool(url, min_size=1, max_size=1) as pool:
            return await work(pool)

    return asyncio.run(run())


def against_service(
    args: argparse.Namespace, work: Callable[[str | None, str | None], Coroutine[Any, Any, T]]
) -> T:
    """Run ``work(url, database_url)``: with ``--url``, against that running service (and no
    database); else against a service it starts on the database the options name."""
    database = None if args.url else database_url_of(args)
    return asyncio.run(work(args.url, database))


def print_warnings(warnings: Iterable[str]) -> None:
    """Print each of a report's warnings loudly on standard error, between rows of ``!``."""
    for warning in warnings:
        print(f"{'!' * 78}\nWARNING: {warning}\n{'!' * 78}", file=sys.stderr)
