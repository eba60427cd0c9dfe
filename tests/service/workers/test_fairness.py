"""Bots take turns across tables (`service.workers.bots`): while eight tables of four bots play,
the bots at a human's table answer the human within a bounded number of moves made
elsewhere, not after some other table's whole session.

The bound is counted in events, not in seconds: between the human's command and the
human's next turn, the all-bot tables may append at most ``ELSEWHERE`` events. Taking
turns, the human's (at most three) bots each wait for one move of each of the other
tables (up to four events a move: a card that ends a deal also scores it and deals the
next one): about a hundred. Before, the driver played one table until its bots had
nothing left to do: a whole session, over 500 events.
"""

from __future__ import annotations

import asyncio
import random

import asyncpg
import httpx

from service.app import create_app
from service.tools.client import (
    DokoClient,
    ProblemError,
    SeatClient,
)
from service.tools.play import (
    random_player,
)
from tests.service.conftest import serve, settings
from tests.service.sessions import all_bot_tables, human_with_bots

ALL_BOT_TABLES = 8
HUMAN_TURNS = 6
ELSEWHERE = 300
SAFETY = 120.0


async def _humans_turn(human: SeatClient) -> bool:
    """Whether the human may act (its view offers some action)."""
    deal = (await human.view()).deal
    return deal is not None and random_player(random.Random(0))(deal) is not None


async def test_a_humans_bots_answer_while_eight_all_bot_tables_play(
    db_url: str, pool: asyncpg.Pool
) -> None:
    async with (
        serve(create_app(settings(db_url))) as url,
        httpx.AsyncClient(base_url=url, timeout=20) as http,
    ):
        api = DokoClient(http)
        busy = await all_bot_tables(api, ALL_BOT_TABLES)
        human = await human_with_bots(api, first_dealer=3)
        player = random_player(random.Random(5))
        waits: list[int] = []
        async with asyncio.timeout(SAFETY):
            while len(waits) < HUMAN_TURNS:
                view = await human.view()
                command = player(view.deal) if view.deal is not None else None
                if command is None:
                    await asyncio.sleep(0.005)
                    continue
                try:
                    await human.send(command, if_match=human.version)
                except ProblemError:  # a bot acted first: look again
                    continue
                sent = await pool.fetchval("SELECT max(position) FROM events")
                while not await _humans_turn(human):
                    await asyncio.sleep(0.005)
                answered = await pool.fetchval("SELECT max(position) FROM events")
                elsewhere = await pool.fetchval(
                    "SELECT count(*) FROM events WHERE position > $1 AND position <= $2"
                    " AND stream_id = ANY($3)",
                    sent,
                    answered,
                    busy,
                )
                waits.append(elsewhere)
        progress = await pool.fetchval(
            "SELECT count(*) FROM events WHERE stream_id = ANY($1)", busy
        )
    assert progress > 0, "the all-bot tables were playing meanwhile"
    assert max(waits) <= ELSEWHERE, waits
