"""``doko match``: its options, and the duplicate match started with them (it is
`service.tools.match`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from service.tools.cli.shared import Subparsers, add_database_options, against_service


def run_match(args: argparse.Namespace) -> int:
    """Play a duplicate match between two bot kinds and print the interval."""
    from service.tools.match import match

    return against_service(
        args,
        lambda url, database: match(
            url,
            database,
            a=args.a,
            b=args.b,
            deals=args.deals,
            seed=args.seed,
            json_file=args.json,
        ),
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
