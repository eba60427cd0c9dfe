"""``doko db upgrade`` and ``doko projections rebuild``: the database's schema and its read
models."""

from __future__ import annotations

import argparse
import asyncio

from service.tools.cli.shared import Subparsers, add_database_options, add_key_options, connect


def db_upgrade(args: argparse.Namespace) -> int:
    """Migrate the database to the newest schema (a private key it held moves to the key
    folder)."""
    connect(args)
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


def projections_rebuild(args: argparse.Namespace) -> int:
    """Rebuild the read models from the event log."""
    import asyncpg

    from infra.projections import rebuild

    url = connect(args)

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
