"""The ``doko`` command line: a module per command group.

Each top-level command is a function ``register_<name>(subparsers)`` of its group's module that
adds its parser and sets ``handler`` (a `service.tools.cli.shared.Handler`) as a default; list it
in :data:`COMMANDS`. What several groups use is in `service.tools.cli.shared`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from service.tools.cli import audit, database, demo, keys, match, openapi, serve
from service.tools.cli.shared import Handler, Subparsers

COMMANDS: list[Callable[[Subparsers], None]] = [
    database.register_db,
    serve.register_serve,
    openapi.register_openapi,
    demo.register_demo,
    match.register_match,
    database.register_projections,
    audit.register_replay,
    audit.register_verify,
    audit.register_export,
    keys.register_keys,
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
