"""Live streams: Server-Sent Events fed by the event store's notifications.

One LISTEN connection per service process wakes every subscriber whose table
(or, for the integration feed, any table) got new events; subscribers then
read the log from their last version (a table's newest events are read once
and shared by its subscribers), so several processes sharing one database all
stream every event, without gaps or repeats.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from litestar.response.sse import ServerSentEventMessage

from domain.table import TableEvent
from infra.event_store import EventStore, StoredEvent
from infra.tables import CODEC

HEARTBEAT_SECONDS = 15.0
ALL = "*"


Recorded = tuple[StoredEvent, TableEvent]


class Hub:
    """Wakes the subscribers of a stream (or of all streams) when events are committed, and
    keeps the newest events of each watched table so that the log is read once per commit,
    not once per subscriber."""

    def __init__(self, store: EventStore, keep: int = 256) -> None:
        self._store = store
        self._keep = keep
        self._waiters: defaultdict[str, set[asyncio.Event]] = defaultdict(set)
        self._tails: dict[str, list[Recorded]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._stale: set[str] = set()

    def notify(self, stream_id: str) -> None:
        """Called for each committed append (from the LISTEN connection)."""
        self.expire(stream_id)
        for key in (stream_id, ALL):
            for waiter in self._waiters.get(key, ()):
                waiter.set()

    def wake_all(self) -> None:
        """Every subscriber reads the log again (appends may have gone unheard)."""
        for key, waiters in self._waiters.items():
            self.expire(key)
            for waiter in waiters:
                waiter.set()

    def expire(self, stream_id: str) -> None:
        """Read the table's tail from the log again on the next call (a notification is
        only a hint: one lost with a dropped connection must not stall a stream)."""
        if stream_id in self._locks:
            self._stale.add(stream_id)

    @asynccontextmanager
    async def subscription(self, key: str) -> AsyncIterator[asyncio.Event]:
        """An event that is set whenever ``key`` (a stream id, or `ALL`) gets new events."""
        waiter = asyncio.Event()
        self._waiters[key].add(waiter)
        try:
            yield waiter
        finally:
            self._waiters[key].discard(waiter)
            if not self._waiters[key]:
                del self._waiters[key]
                self._tails.pop(key, None)
                self._locks.pop(key, None)
                self._stale.discard(key)

    async def events_after(self, stream_id: str, version: int) -> list[Recorded]:
        """The table's stored (and decoded) events after ``version``.

        Served from the kept tail when it reaches back far enough and no commit was
        announced since it was read; otherwise read from the log (only what is new).
        """
        lock = self._locks.setdefault(stream_id, asyncio.Lock())
        async with lock:
            tail = self._tails.get(stream_id, [])
            covered = bool(tail) and version >= tail[0][0].version - 1
            if covered and stream_id not in self._stale:
                return [r for r in tail if r[0].version > version]
            self._stale.discard(stream_id)
            start = tail[-1][0].version if covered else version
            read = [
                (e, CODEC.from_stored(e))
                for e in await self._store.read_stream(stream_id, start + 1)
            ]
            recorded = [*tail, *read] if covered else read
            self._tails[stream_id] = recorded[-self._keep :]
            return [r for r in recorded if r[0].version > version]


Fetch = Callable[[int], Awaitable[tuple[list[ServerSentEventMessage], int]]]
"""``fetch(after)`` returns the messages after a cursor and the new cursor."""


async def sse_messages(
    hub: Hub, key: str, after: int, fetch: Fetch, heartbeat: float = HEARTBEAT_SECONDS
) -> AsyncIterator[ServerSentEventMessage]:
    """Every message after ``after``, then each new one as it is committed, with heartbeats."""
    async with hub.subscription(key) as waiter:
        while True:
            waiter.clear()
            messages, after = await fetch(after)
            for message in messages:
                yield message
            if messages:
                continue
            try:
                await asyncio.wait_for(waiter.wait(), heartbeat)
            except TimeoutError:
                hub.expire(key)
                # data=None: a comment line only; with litestar's default data "" the
                # message would carry an empty `data:` line, which an EventSource
                # dispatches as a `message` event.
                yield ServerSentEventMessage(comment="heartbeat", data=None)
