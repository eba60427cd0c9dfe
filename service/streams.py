"""Live streams: Server-Sent Events fed by the event store's notifications.

One LISTEN connection per service process wakes every subscriber whose table
(or, for the integration feed, any table) got new events; subscribers then
read the log from their last version, so several processes sharing one
database all stream every event, without gaps or repeats.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from litestar.response.sse import ServerSentEventMessage

HEARTBEAT_SECONDS = 15.0
ALL = "*"


class Hub:
    """Wakes the subscribers of a stream (or of all streams) when events are committed."""

    def __init__(self) -> None:
        self._waiters: defaultdict[str, set[asyncio.Event]] = defaultdict(set)

    def notify(self, stream_id: str, _position: int) -> None:
        """Called for each committed append (from the LISTEN connection)."""
        for key in (stream_id, ALL):
            for waiter in self._waiters.get(key, ()):
                waiter.set()

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
                # data=None: a comment line only; with litestar's default data "" the
                # message would carry an empty `data:` line, which an EventSource
                # dispatches as a `message` event.
                yield ServerSentEventMessage(comment="heartbeat", data=None)
