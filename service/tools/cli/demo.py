"""``doko demo``: its options, and the demo started with them (it is `service.tools.demo`, a
tournament's `service.tools.tournament_demo`)."""

from __future__ import annotations

import argparse

from service.tools.cli.shared import Subparsers, add_database_options, against_service


def run_demo(args: argparse.Namespace) -> int:
    """Play a whole session through the HTTP API and print it."""
    from service.tools.demo import demo

    return against_service(
        args,
        lambda url, database: demo(
            url,
            database,
            bots=args.bots,
            seed=args.seed,
            turn_seconds=args.turn_seconds,
            tournament=args.tournament,
        ),
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
