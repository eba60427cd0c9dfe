"""The ``doko`` command line.

Each top-level command is a function ``register_<name>(subparsers)`` that adds its parser and sets
``handler`` (a :data:`Handler`) as a default; list it in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeAlias

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
Handler: TypeAlias = Callable[[argparse.Namespace], int]


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


def db_upgrade(args: argparse.Namespace) -> int:
    """Migrate the database to the newest schema."""
    from infra.database import database_url
    from infra.migrate import upgrade

    asyncio.run(upgrade(database_url(args.database_url, data_dir=args.data_dir)))
    print("database is at the newest schema")
    return 0


def register_db(subparsers: Subparsers) -> None:
    """``doko db upgrade``."""
    db = subparsers.add_parser("db", help="database maintenance")
    actions = db.add_subparsers(dest="action", required=True, metavar="ACTION")
    upgrade = actions.add_parser("upgrade", help="apply pending migrations")
    add_database_options(upgrade)
    upgrade.set_defaults(handler=db_upgrade)


def serve(args: argparse.Namespace) -> int:
    """Run the HTTP service (placeholder)."""
    print("not yet")
    return 0


def register_serve(subparsers: Subparsers) -> None:
    """``doko serve``."""
    subparsers.add_parser("serve", help="run the HTTP service").set_defaults(handler=serve)


COMMANDS: list[Callable[[Subparsers], None]] = [
    register_db,
    register_serve,
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
