"""Streams share their reads of the log (`service.streams.hub.Hub`): 100 feed subscribers cost
one read of the log per commit, not one each, and so do a tournament's stream's subscribers;
every subscriber still gets every event.

The reads are counted on the running service's own event store (its ``read_all``,
wrapped to count its calls before calling it), on the real database.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import httpx
import pytest

from infra.event_store import EventStore
from service.app import create_app
from service.streams.hub import FEED_PAGE
from service.streams.tournaments import TournamentFeed
from service.tools.client import (
    DokoClient,
    SseMessage,
    TournamentClient,
    read_sse,
)
from service.tools.play import Stuck, play_session, random_players
from tests.service.conftest import serve, settings
from tests.service.sessions import all_bot_tables

SUBSCRIBERS = 100
COMMITS = 12
SAFETY = 60.0


class Counted:
    """A method wrapped to count its calls."""

    def __init__(self, method: Callable[..., Awaitable[Any]]) -> None:
        self.method = method
        self.calls = 0

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return await self.method(*args, **kwargs)


async def ended(readers: list[asyncio.Task[None]]) -> None:
    """Every reader cancelled, and ended."""
    for reader in readers:
        reader.cancel()
    for reader in readers:
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await reader


async def _subscribe(
    http: httpx.AsyncClient,
    after: int,
    into: list[SseMessage],
    ready: asyncio.Event,
    path: str = "/feed",
) -> None:
    headers = {"last-event-id": str(after)}
    async with http.stream(
        "GET", path, headers=headers, timeout=httpx.Timeout(10, read=None)
    ) as response:
        assert response.status_code == 200
        ready.set()
        async for message in read_sse(response.aiter_lines()):
            if message.id is not None:
                into.append(message)


async def test_a_hundred_feed_subscribers_cost_one_read_per_commit(
    db_url: str, pool: asyncpg.Pool
) -> None:
    app = create_app(settings(db_url))
    limits = httpx.Limits(max_connections=SUBSCRIBERS + 10)
    async with (
        serve(app) as url,
        httpx.AsyncClient(base_url=url, timeout=10, limits=limits) as http,
    ):
        # a heartbeat (after 15 s of silence, which a busy machine may take between two
        # commits) reads the log again too: only the commits' reads are counted here
        app.state.services.hub.heartbeat = 3600.0
        head = await pool.fetchval("SELECT coalesce(max(position), 0) FROM events")
        received: list[list[SseMessage]] = [[] for _ in range(SUBSCRIBERS)]
        ready = [asyncio.Event() for _ in range(SUBSCRIBERS)]
        readers = [
            asyncio.create_task(_subscribe(http, head, into, up))
            for into, up in zip(received, ready, strict=True)
        ]
        try:
            async with asyncio.timeout(SAFETY):
                await asyncio.gather(*(up.wait() for up in ready))
            store = app.state.services.store
            counted = Counted(store.read_all)
            store.read_all = counted
            for n in range(COMMITS):  # one commit each, one after the other
                created = await http.post(
                    "/tables", json={"name": f"feed {n}", "visibility": "public"}
                )
                assert created.status_code == 201
                async with asyncio.timeout(SAFETY):  # every subscriber has it
                    while min(len(r) for r in received) < n + 1:
                        await asyncio.sleep(0.005)
        finally:
            await ended(readers)
    positions = await pool.fetch(
        "SELECT position FROM events WHERE position > $1 ORDER BY position", head
    )
    expected = [str(row[0]) for row in positions]
    assert len(expected) == COMMITS
    for messages in received:
        assert [m.id for m in messages] == expected, "every subscriber got every event once"
    assert 1 <= counted.calls <= COMMITS, f"{counted.calls} reads for {COMMITS} commits"


async def test_a_feed_subscriber_far_behind_gets_every_event_once(
    base_url: str, pool: asyncpg.Pool
) -> None:
    """A subscriber from position 0, behind what the feed keeps by more than a page (a
    whole session of bots: hundreds of events), reads its own way up to the newest, then
    follows them: every public event once, in order, the newest included."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        [table_id] = await all_bot_tables(DokoClient(http), 1)
        async with asyncio.timeout(SAFETY):
            while (await http.get(f"/tables/{table_id}")).json()["winners"] is None:
                await asyncio.sleep(0.05)
        last = await pool.fetchval("SELECT max(position) FROM events")
        assert last > FEED_PAGE
        received: list[SseMessage] = []
        ready = asyncio.Event()
        reader = asyncio.create_task(_subscribe(http, 0, received, ready))
        try:
            async with asyncio.timeout(SAFETY):
                while not received or int(received[-1].id or 0) < last:
                    await asyncio.sleep(0.01)
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await reader
    store, expected, after = EventStore(pool), [], 0
    while batch := await store.read_all(after, 1000):  # the whole log, read another way
        expected += [e.position for e in batch]  # every event reaches the feed (R4.3)
        after = batch[-1].position
    assert [int(m.id or 0) for m in received] == expected, "each public event once, in order"


TOURNAMENT_SUBSCRIBERS = 40
REGISTRATIONS = 6
PLAYED = 20
"""Actions at a table that cannot end its deal (4 declarations and 48 cards do)."""


class FeedReads:
    """The reads of the log that make a tournament stream's messages (`TournamentFeed._read`,
    wrapped to count its calls), counted from `start` on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        self._monkeypatch = monkeypatch

    def start(self) -> None:
        read = TournamentFeed._read

        async def counted(feed: TournamentFeed, position: int) -> Any:
            self.calls += 1
            return await read(feed, position)

        self._monkeypatch.setattr(TournamentFeed, "_read", counted)


@contextlib.asynccontextmanager
async def quiet_service(db_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A service with room for the subscribers, whose streams read the log only when told of
    a commit (no heartbeat's read: only the commits' reads are counted)."""
    app = create_app(settings(db_url))
    limits = httpx.Limits(max_connections=TOURNAMENT_SUBSCRIBERS + 10)
    async with (
        serve(app) as url,
        httpx.AsyncClient(base_url=url, timeout=10, limits=limits) as http,
    ):
        app.state.services.hub.heartbeat = 3600.0
        yield http


@contextlib.asynccontextmanager
async def subscribed(
    http: httpx.AsyncClient, tournament: TournamentClient
) -> AsyncIterator[list[list[SseMessage]]]:
    """`TOURNAMENT_SUBSCRIBERS` subscribers of the tournament's stream from its start, each
    with the messages it received, once every one has the first."""
    path = f"/tournaments/{tournament.tournament_id}/events"
    received: list[list[SseMessage]] = [[] for _ in range(TOURNAMENT_SUBSCRIBERS)]
    ready = [asyncio.Event() for _ in range(TOURNAMENT_SUBSCRIBERS)]
    readers = [
        asyncio.create_task(_subscribe(http, 0, into, up, path))
        for into, up in zip(received, ready, strict=True)
    ]
    try:
        async with asyncio.timeout(SAFETY):
            await asyncio.gather(*(up.wait() for up in ready))
            while min(len(r) for r in received) < 1:  # the tournament's creation
                await asyncio.sleep(0.005)
        yield received
    finally:
        await ended(readers)


async def everyone_has(received: list[list[SseMessage]], kind: str, count: int) -> None:
    """Until every subscriber has ``count`` messages of ``kind``."""
    async with asyncio.timeout(SAFETY):
        while min(sum(m.event == kind for m in r) for r in received) < count:
            await asyncio.sleep(0.005)


async def test_a_tournament_streams_subscribers_cost_one_read_per_commit(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 subscribers of a tournament's stream: each registration (a commit) is read from
    the log, and the tournament folded, a bounded number of times (one read, and one more
    to check that the standings read are current: 3 a commit at most, where one each would
    be 40), counted on the reader of the stream's messages (`FeedReads`); every subscriber
    gets every message once, the same ones in the same order."""
    reads = FeedReads(monkeypatch)
    async with quiet_service(db_url) as http:
        tournament = await DokoClient(http).create_tournament("shared", visibility="public")
        async with subscribed(http, tournament) as received:
            reads.start()
            for n in range(REGISTRATIONS):  # one commit each, one after the other
                await tournament.register(f"player {n}")
                await everyone_has(received, "player_registered", n + 1)
    first = [(m.id, m.event, m.data) for m in received[0]]
    for messages in received:
        assert [(m.id, m.event, m.data) for m in messages] == first, "the same messages"
    names = [m.json()["name"] for m in received[0] if m.event == "player_registered"]
    assert names == [f"player {n}" for n in range(REGISTRATIONS)], "each once, in order"
    assert 1 <= reads.calls <= 3 * REGISTRATIONS, f"{reads.calls} reads, {REGISTRATIONS} commits"


async def test_a_tournaments_subscribers_sleep_through_the_cards_of_a_deal(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream of a tournament shows of its tables only that they opened, scored a deal or
    ended (`service.streams.tournaments`): 20 actions at its table (declarations, cards,
    perhaps words), none of which ends the deal, make its 40 subscribers read the log no time
    at all (`FeedReads`), and send them nothing; the deal's end then reaches every one of
    them (`table_progress`)."""
    reads = FeedReads(monkeypatch)
    async with quiet_service(db_url) as http:
        tournament = await DokoClient(http).create_tournament("quiet", visibility="public")
        players = [await tournament.register(name) for name in ("A", "B", "C", "D")]
        await tournament.start_round(1)
        seats = [await p.seat() for p in players]
        async with subscribed(http, tournament) as received:
            await everyone_has(received, "table_opened", 1)
            before = [len(r) for r in received]
            reads.start()
            with pytest.raises(Stuck):  # PLAYED actions, then it stops
                await play_session(seats, random_players(7), max_actions=PLAYED)
            quiet = reads.calls
            await play_session(seats, random_players(8), deals=1)
            await everyone_has(received, "table_progress", 1)
    assert quiet == 0, f"{quiet} reads for {PLAYED} actions that end no deal"
    assert reads.calls >= 1, "the deal's end was read"
    for messages, seen in zip(received, before, strict=True):
        progress = [m.json() for m in messages[seen:] if m.event == "table_progress"]
        assert [p["deals"] for p in progress] == [1], "the deal's end once"
