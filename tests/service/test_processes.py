"""Two service processes on one database: commands through either, streams from the other.

Each app has its own table cache and its own LISTEN connection, as separate processes do;
commands alternate between them, so each decides on a cache the other has made stale.
"""

from __future__ import annotations

import asyncio
import contextlib

import asyncpg
import httpx

from domain.replay import TABLE, replay
from infra.event_store import EventStore
from infra.tables import Tables
from service.app import create_app
from service.tools.client import (
    DokoClient,
    SseMessage,
)
from service.tools.play import (
    play_session,
    random_players,
)
from tests.service.conftest import serve, settings


async def _collect(stream: object, into: list[SseMessage], ready: asyncio.Event) -> None:
    async with stream as messages:  # type: ignore[attr-defined]
        ready.set()
        async for message in messages:
            into.append(message)


async def test_two_processes_share_one_database(db_url: str, pool: asyncpg.Pool) -> None:
    async with (
        serve(create_app(settings(db_url))) as first_url,
        serve(create_app(settings(db_url))) as second_url,
        httpx.AsyncClient(base_url=first_url, timeout=20) as first_http,
        httpx.AsyncClient(base_url=second_url, timeout=20) as second_http,
    ):
        first, second = DokoClient(first_http), DokoClient(second_http)
        table = await first.create_table("two processes")
        tokens = {}
        for seat in range(4):
            api = first if seat % 2 == 0 else second
            invited = api.table(table.table_id, invitation=table.invitation)
            taken = await invited.take_seat(f"p{seat}", seat=seat)
            tokens[seat] = taken.token
        # Seats 0 and 2 act through the first process, 1 and 3 through the second.
        seats = [
            (first if s % 2 == 0 else second).table(table.table_id).seat(s, tokens[s])
            for s in range(4)
        ]
        heard: list[SseMessage] = []
        ready = asyncio.Event()
        listener = asyncio.create_task(
            _collect(
                second.table(table.table_id, invitation=table.invitation).events(), heard, ready
            )
        )
        await asyncio.wait_for(ready.wait(), 10)
        final = await play_session(seats, random_players(21), deals=2)
        version = seats[0].version
        async with asyncio.timeout(20):
            while not heard or int(heard[-1].id or 0) < version:
                await asyncio.sleep(0.05)
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listener

    assert len(final.scoresheet) >= 2
    ids = [int(m.id) for m in heard if m.id is not None]
    assert ids == sorted(set(ids)), "the second process streams every event once, in order"
    assert ids[-1] >= version
    events = [event for _, event in await Tables(EventStore(pool)).events(table.table_id)]
    assert replay(events, TABLE).ok


async def test_two_processes_drive_the_same_bots_with_one_write_per_action(
    db_url: str, pool: asyncpg.Pool
) -> None:
    """Four bots, seated through two processes, so that both drive them (each is woken by
    every append): each bot action is written once, decided on the version it follows
    (its command id names that version), and the log replays by the rules."""
    async with (
        serve(create_app(settings(db_url))) as first_url,
        serve(create_app(settings(db_url))) as second_url,
        httpx.AsyncClient(base_url=first_url, timeout=20) as first_http,
        httpx.AsyncClient(base_url=second_url, timeout=20) as second_http,
    ):
        table = await DokoClient(first_http).create_table("bots in two processes")
        other = DokoClient(second_http).table(table.table_id)
        other.host_token = table.host_token
        for seat in range(4):
            await (table if seat % 2 == 0 else other).seat_bot("random", seat=seat)
        async with asyncio.timeout(120):
            while await _scored_deals(pool, table.table_id) < 2:
                await asyncio.sleep(0.05)

    rows = await pool.fetch(
        "SELECT version, command_id, actor FROM events WHERE stream_id = $1 ORDER BY version",
        table.table_id,
    )
    appends: dict[str, list[int]] = {}
    for version, command_id, actor in rows:
        if actor is not None and actor.startswith("bot:"):
            appends.setdefault(command_id, []).append(version)
    assert len(appends) > 2 * 48, "the bots played two deals"
    decided_on = []
    for command_id, versions in appends.items():
        seat, _, after = command_id.partition(":v")
        assert seat.startswith("bot") and versions == list(range(versions[0], versions[-1] + 1))
        assert versions[0] == int(after) + 1, (command_id, versions)
        decided_on.append(int(after))
    assert len(decided_on) == len(set(decided_on)), "one write per bot action"
    commands = await pool.fetchval(
        "SELECT count(*) FROM commands WHERE stream_id = $1 AND command_id LIKE 'bot%'",
        table.table_id,
    )
    assert commands == len(appends)
    events = [event for _, event in await Tables(EventStore(pool)).events(table.table_id)]
    assert replay(events, TABLE).ok


async def _scored_deals(pool: asyncpg.Pool, table_id: str) -> int:
    count: int = await pool.fetchval(
        "SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'deal_scored'", table_id
    )
    return count
