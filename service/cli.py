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
    """Run the HTTP service: migrate, then serve with uvicorn."""
    import os

    import msgspec
    import uvicorn

    from infra.database import database_url
    from service.app import Settings, app_from_env
    from service.logs import log_config

    settings = Settings(
        database_url=database_url(args.database_url, data_dir=args.data_dir),
        cors_origins=tuple(args.cors_origin),
    )
    os.environ["DOKO_SETTINGS"] = msgspec.json.encode(settings).decode()
    config = log_config(args.log_level)
    print(f"doko serving on http://{args.host}:{args.port} (OpenAPI at /schema)", flush=True)
    if args.workers > 1:
        uvicorn.run(
            "service.app:app_from_env",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            log_config=config,
            access_log=False,
        )
    else:
        uvicorn.run(
            app_from_env(), host=args.host, port=args.port, log_config=config, access_log=False
        )
    return 0


def register_serve(subparsers: Subparsers) -> None:
    """``doko serve``."""
    parser = subparsers.add_parser("serve", help="run the HTTP service")
    add_database_options(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--cors-origin", action="append", default=[], help="allow this browser origin (repeat)"
    )
    parser.add_argument("--log-level", default="info", help="debug, info, warning, error")
    parser.set_defaults(handler=serve)


def export_openapi(args: argparse.Namespace) -> int:
    """Write the OpenAPI document of the app."""
    from service.openapi import write_openapi

    write_openapi(args.output)
    print(f"wrote {args.output}")
    return 0


def register_openapi(subparsers: Subparsers) -> None:
    """``doko openapi [-o openapi/openapi.json]``."""
    parser = subparsers.add_parser("openapi", help="export the OpenAPI document")
    parser.add_argument("-o", "--output", type=Path, default=Path("openapi/openapi.json"))
    parser.set_defaults(handler=export_openapi)


COMMANDS: list[Callable[[Subparsers], None]] = [
    register_db,
    register_serve,
    register_openapi,
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
