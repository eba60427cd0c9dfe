"""Whole sessions played through the API: players that choose from their own seat's view.

`play_session` lets `SeatClient`s act, each on its own view only, until the session is over;
`random_players` are four independent seeded random players (`domain.players.random_action`).
Used by the demo, the benchmarks and the tests.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence

from domain.commands import DealCommand
from domain.observations import Observation
from domain.players import Chooser, random_action
from domain.table_view import TableView
from service.tools.client import ProblemError, SeatClient

Player = Callable[[Observation], DealCommand | None]
"""Picks the viewing seat's command from its observation, or None to pass."""


def random_player(chooser: Chooser) -> Player:
    """`domain.players.random_action` with its own source of chance."""
    return lambda observation: random_action(observation, chooser)


def random_players(seed: int) -> list[Player]:
    """Four independent seeded random players, one per seat."""
    return [random_player(random.Random(seed * 4 + s)) for s in range(4)]


class Stuck(RuntimeError):
    """Nobody acted for ``patience`` seconds although the session is not over."""


async def play_session(
    seats: Sequence[SeatClient],
    players: Sequence[Player],
    *,
    deals: int | None = None,
    max_actions: int = 5000,
    idle: float = 0.01,
    patience: float = 10.0,
) -> TableView:
    """Let the seats act, each on its own view only, until the session (or ``deals``) is over.

    Seats are asked in turn, round after round; a seat acts when its player returns a
    command, sent with If-Match on the version it decided on (a command that lost a race,
    e.g. against a server-side bot, is dropped and the seat decides again). When nobody
    acts, it waits ``idle`` seconds for others (bots) and gives up after ``patience``.
    Returns the last view seen.
    """
    actions = 0
    loop = asyncio.get_running_loop()
    waiting_since: float | None = None
    while actions < max_actions:
        acted = False
        for seat, player in zip(seats, players, strict=True):
            view = await seat.view(max(s.version for s in seats))  # seen by any seat
            scored = len(view.scoresheet)
            if view.winners is not None or (deals is not None and scored >= deals):
                return view
            if view.deal is None:
                continue
            command = player(view.deal)
            if command is None:
                continue
            try:
                await seat.send(command, if_match=seat.version)
            except ProblemError as error:
                if error.code != "version_mismatch":
                    raise
                continue
            acted = True
            actions += 1
        if acted:
            waiting_since = None
            continue
        now = loop.time()
        waiting_since = now if waiting_since is None else waiting_since
        if now - waiting_since > patience:
            raise Stuck(f"nobody acted for {patience} s at version {seats[0].version}")
        await asyncio.sleep(idle)
    raise Stuck(f"no end after {max_actions} actions")
