"""``doko demo --tournament N``: a tournament of N players over two rounds, played through the HTTP
API as front ends would.

Creates a tournament, registers N players (each an HTTP client playing random legal moves
on its own seat's view, with its tournament credential), starts round after round (the service
seats them, E3, and fills missing seats with its bots, E3.4), plays every table of the
round side by side, prints the standings after each round and, at the end, the tournament's
verification (`verifyTournament`: the tournament's stream and every table re-run); a failed
verification makes the exit status non-zero.
"""

from __future__ import annotations

import asyncio

import httpx
from rich.console import Console
from rich.table import Table

from domain.standings import Standings
from service.tools.client import (
    DokoClient,
    SeatClient,
    TournamentClient,
)
from service.tools.play import (
    play_session,
    random_players,
)

ROUNDS = 2
WAIT_SECONDS = 30.0
"""The bound of the wait for the service to notice a round's last table's end."""


def print_standings(console: Console, standings: Standings, title: str) -> None:
    table = Table(title=f"{title} (ranked by {standings.method.value}, E6)")
    for column in ("rank", "player", "total", "placement", "duplicate", "deals"):
        table.add_column(column, justify="right" if column != "player" else "left")
    for line in standings.lines:
        table.add_row(
            str(line.rank),
            line.name,
            str(line.total),
            f"{line.placement:+d}",
            f"{line.duplicate:+.2f}",
            str(line.deals),
        )
    console.print(table)


async def _play_round(seats: list[SeatClient], seed: int) -> None:
    """Every table of the round at once, each seat on its own view."""
    by_table: dict[str, list[SeatClient]] = {}
    for seat in seats:
        by_table.setdefault(seat.table.table_id, []).append(seat)
    await asyncio.gather(
        *(
            play_session(table, random_players(seed * 100 + n)[: len(table)])
            for n, table in enumerate(by_table.values())
        )
    )


async def _until_ended(tournament: TournamentClient, round_no: int) -> None:
    """The service notices the round's last table's end by itself (its rounds worker)."""
    async with asyncio.timeout(WAIT_SECONDS):
        while not (await tournament.view()).tournament.played[round_no - 1].ended:
            await asyncio.sleep(0.05)


async def play_tournament(base_url: str, *, players: int, seed: int, console: Console) -> int:
    """Play a tournament of ``players`` players over two rounds; return the exit status."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        api = DokoClient(http)
        tournament = await api.create_tournament(f"demo tournament of {players}", rounds=ROUNDS)
        registered = [await tournament.register(f"player {n + 1}") for n in range(players)]
        console.print(
            f"tournament [bold]{tournament.tournament_id}[/]: {players} players, {ROUNDS} rounds"
        )
        for round_no in range(1, ROUNDS + 1):
            started = await tournament.start_round(round_no)
            tables = started.tournament.tournament.played[round_no - 1].tables
            for table in tables:
                names = ", ".join(name or "bot" for name in table.seats)
                console.print(f"round {round_no}, table {table.table_no}: {names}")
            seats = [await player.seat() for player in registered]
            await _play_round(seats, seed * ROUNDS + round_no)
            await _until_ended(tournament, round_no)
            print_standings(
                console, await tournament.standings(), f"Standings after round {round_no}"
            )
        verified = await tournament.verify()
        for line in verified.summary:
            console.print(line)
        return 0 if verified.ok else 1
