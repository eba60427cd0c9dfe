"""Benchmark of a tournament in the event store: play, verify, standings.

    nice -n 19 .venv/bin/python bench/bench_tournament.py [--players 64] [--rounds 3] [--deals 12]

A fresh database on the tests' PostgreSQL server (`infra.database.server_url_for_tests`:
``DOKO_TEST_DATABASE_URL``, Docker, or embedded). One tournament of ``--players`` players
(tables of four; bots fill the rest) over ``--rounds`` rounds, its tables opened through
`infra.tournaments.Tournaments.start_round`; every seat of every table is played by the domain's
random legal player (`domain.simulation.next_command`) through `infra.tables.Tables
.execute`, the tables of a round side by side (one task each), ``--deals`` deals per table
(fewer than 12: the director abandons the table then, T4.2). Prints, wall-clock:

- ``play``: the seconds to play the whole tournament, commands per second;
- ``verify``: `infra.audit.tournament.verify_tournament` of the whole tournament, deals per second;
- ``standings``: `infra.tournaments.Tournaments.standings` recomputed from the logs, seconds.

No HTTP: the service's own cost per command is `bench/bench_service.py`'s.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import sys
import time
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.simulation import next_command
from domain.table import AbandonSession
from domain.tournament import CreateTournament, RegisterPlayer
from infra.audit.tournament import tournament_summary, verify_tournament
from infra.command_ids import table_id
from infra.database import server_url_for_tests, with_database
from infra.event_store import EventStore
from infra.migrate import upgrade
from infra.projections import project
from infra.tables import Tables
from infra.tournaments import Tournaments


async def play_table(tables: Tables, stream: str, deals: int, rng: random.Random) -> int:
    """Play the table's first ``deals`` deals at random (then abandon it, if fewer than 12);
    the commands it took."""
    commands = 0
    while True:
        state = (await tables.load(stream)).state
        if state.over or len(state.session.sheet) >= deals:
            break
        deal = state.session.deal
        assert deal is not None
        command = next_command(deal, rng)
        assert command is not None
        await tables.execute(stream, command)
        commands += 1
    if not state.over:
        await tables.execute(stream, AbandonSession())
        commands += 1
    return commands


async def bench(url: str, players: int, rounds: int, deals: int) -> None:
    async with asyncpg.create_pool(url, min_size=2, max_size=8) as pool:
        tournaments = Tournaments(pool, Tables(EventStore(pool), project))
        tournament_id = secrets.token_hex(16)
        seeds = tuple(tuple(secrets.token_bytes(32) for _ in range(12)) for _ in range(rounds))
        create = CreateTournament("Bench", rounds, "director", secrets.token_bytes(32), seeds)
        start = time.perf_counter()
        await tournaments.execute(tournament_id, create)
        for n in range(players):
            await tournaments.execute(tournament_id, RegisterPlayer(f"player {n}", f"token {n}"))
        commands = 0
        rng = random.Random(0)
        for round_no in range(1, rounds + 1):
            state = (await tournaments.start_round(tournament_id, round_no)).state
            streams = [table_id(tournament_id, round_no, t) for t in range(1, len(state.ends) + 1)]
            played = await asyncio.gather(
                *(
                    play_table(tournaments.tables, s, deals, random.Random(rng.random()))
                    for s in streams
                )
            )
            commands += sum(played)
            await tournaments.notice_ends(tournament_id)
        play = time.perf_counter() - start
        tables = players // 4 + (players % 4 > 0)
        print(
            f"tournament: {players} players, {tables} tables, {rounds} rounds, {deals} deals each"
        )
        print(f"play       {play:8.1f} s   {commands / play:8.0f} commands/s ({commands} commands)")
        start = time.perf_counter()
        report = await verify_tournament(tournaments, tournament_id)
        verify = time.perf_counter() - start
        assert report.ok, tournament_summary(report)
        all_deals = sum(len(t.deals) for t in report.tables)
        print(f"verify     {verify:8.2f} s   {all_deals / verify:8.0f} deals/s ({all_deals} deals)")
        start = time.perf_counter()
        _, result = await tournaments.standings(tournament_id)
        print(f"standings  {time.perf_counter() - start:8.2f} s   ({len(result.lines)} lines)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--deals", type=int, default=12)
    args = parser.parse_args()
    with server_url_for_tests() as server:
        name = f"doko_bench_tournament_{secrets.token_hex(4)}"
        admin = await asyncpg.connect(server)
        await admin.execute(f'CREATE DATABASE "{name}"')
        try:
            url = with_database(server, name)
            await upgrade(url)
            await bench(url, args.players, args.rounds, args.deals)
        finally:
            await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
