"""The streams' hub, the table streams and the feed: Server-Sent Events fed by the event
store's notifications.

One LISTEN connection per service process wakes every subscriber whose table
(or, for the integration feed, any table) got new events; subscribers then
read the log from their last version or position, so several processes sharing
one database all stream every event, without gaps or repeats. The newest events
are read once per commit and shared: a table's by its subscribers, the whole
log's by every feed subscriber (a feed subscriber further behind reads its own
way up to them), and what the subscribers of any other stream share (`Hub.shared`: a
tournament's messages, `service.streams.tournaments`). At most ``readers`` streams read the
log at once (`Hub.reading`). While the database is unavailable a stream waits and tries
again (sending a comment line each time), instead of ending. A table's kept events come
with the table's state after each (folded once for all its subscribers), from which a
table stream tells whose turn it is (`domain.table_view.prompt`).

When the service stops (`Hub.close`, at the start of `doko serve`'s shutdown) every stream
ends at once with a last message that is a comment and a reconnection time, `farewell`:
``: shutdown: …`` and ``retry: N`` (milliseconds, spread over `RECONNECT_MS` so that the
clients of a stopping process do not all come back in the same instant). It carries no id
and no data: an EventSource dispatches nothing, keeps its last event id and reconnects after
``N`` ms with Last-Event-ID (to another process, behind a load balancer), and resumes there
without gaps or repeats. A stream opened while the hub is closed gets the farewell at once.

Every message's data ends with ``server_time``: the service's clock (UTC, RFC 3339) when the
stream read the message for its subscriber, a reference for the turn clock's deadlines that
needs no ``Date`` header. It is the last member, added to data encoded without it (the
feed's, encoded once for all subscribers, get it as they are sent: `Stamped`).
"""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Protocol, TypeVar, cast

import msgspec
from litestar.response.sse import ServerSentEventMessage

from domain.table import TableEvent, TableState, evolve
from domain.table_view import redact
from infra.audit.witness import chain_head
from infra.database import UNAVAILABLE
from infra.event_store import EventStore, StoredEvent
from infra.tables import CODEC
from service.workers.follower import Worker

HEARTBEAT_SECONDS = 15.0
RETRY_SECONDS = 0.5
"""The first wait before a stream reads again after the database failed (it doubles)."""
FEED_PAGE = 500
"""The most events a feed subscriber gets from one read."""
ALL = "*"
RECONNECT_MS = (1000, 3000)
"""The reconnection time a stream's farewell asks of its client (`farewell`): drawn from this
range, in milliseconds."""
FAREWELL = "shutdown: the service is stopping; reconnect with Last-Event-ID"


def farewell() -> ServerSentEventMessage:
    """A stream's last message when the service stops: a comment and ``retry`` (module
    docstring)."""
    return ServerSentEventMessage(data=None, comment=FAREWELL, retry=random.randint(*RECONNECT_MS))


Recorded = tuple[StoredEvent, TableEvent, TableState]
"""A table's stored event, decoded, and the table's state after it."""
Base = tuple[int, TableState]
"""A table's state at a version (as the table cache holds it): where a read may start."""


class FeedItem(msgspec.Struct, omit_defaults=True):
    """One public event of the integration feed."""

    table_id: str
    version: int
    event: TableEvent
    chain_head: Annotated[
        str | None,
        msgspec.Meta(
            description="deal_scored and session_finished: the table's hash chain value at "
            "this version (hex), to hold an export against (`doko verify --witness`)"
        ),
    ] = None
    server_time: Annotated[
        datetime | None,
        msgspec.Meta(description="the service's time (UTC) when the stream sent the message"),
    ] = None


def time_member(now: datetime) -> bytes:
    """The end of a message's data: its last member ``server_time`` (``now``) and the
    closing brace."""
    return b',"server_time":%s}' % msgspec.json.encode(now)


def with_members(data: bytes, more: msgspec.Struct) -> bytes:
    """A message's data (a JSON object) with the members of ``more`` after its own."""
    return data[:-1] + b"," + msgspec.json.encode(more)[1:]


def with_server_time(data: bytes, now: datetime) -> bytes:
    """A message's data (a JSON object) with ``now`` as its last member ``server_time``."""
    return data[:-1] + time_member(now)


def message(record: StoredEvent, event_id: int, data: bytes) -> ServerSentEventMessage:
    """A stored event's message: its type, the id (a version or a position), the data."""
    return ServerSentEventMessage(data=data.decode(), event=record.type, id=event_id)


@dataclass
class SharedMessage(ServerSentEventMessage):
    """A message that many subscribers are sent (the feed's): encoded once."""

    encoded: bytes | None = field(default=None, init=False, repr=False, compare=False)

    def encode(self) -> bytes:
        if self.encoded is None:
            self.encoded = super().encode()
        return self.encoded


@dataclass
class Stamped(ServerSentEventMessage):
    """A message (a `SharedMessage`: encoded once) as one subscriber is sent it: with the
    ``server_time`` member (`time_member`) spliced in before its data's closing brace (its
    data, a JSON object on one line, is the last field of the encoding: no ``retry``)."""

    shared: ServerSentEventMessage | None = None
    stamp: bytes = b"}"

    def encode(self) -> bytes:
        assert self.shared is not None
        whole = self.shared.encode()
        end = 2 * len(self.shared.sep)  # the data line's end and the message's
        return whole[: -end - 1] + self.stamp + whole[-end:]


def stamped(shared: ServerSentEventMessage, now: datetime) -> Stamped:
    """``shared`` as sent at ``now``."""
    return Stamped(
        data=None, event=shared.event, id=shared.id, shared=shared, stamp=time_member(now)
    )


def feed_message(record: StoredEvent, event: TableEvent) -> ServerSentEventMessage | None:
    """An event as the feed shows it (as a spectator sees it, R4.3, R4.5)."""
    data = msgspec.json.encode(
        FeedItem(record.stream_id, record.version, redact(event, None), chain_head(record))
    )
    return SharedMessage(data=data.decode(), event=record.type, id=record.position)


Message = ServerSentEventMessage | None
"""An event as a stream shows it (None: nothing of it is shown)."""
Render = Callable[[StoredEvent, TableEvent], Message]
Public = Callable[[set[str]], Awaitable[set[str]]]
"""``public(stream_ids)``: those of the tables whose events the feed shows (T1.1)."""


async def everyone(stream_ids: set[str]) -> set[str]:
    """Every table is shown (a hub without a visibility lookup)."""
    return stream_ids


class _Feed:
    """The newest events of the whole log, kept from the moment the first feed subscriber
    asked (the log's head then) on, read and rendered once per commit for all feed
    subscribers, and forgotten when the last one leaves."""

    def __init__(
        self, store: EventStore, render: Render, public: Public, keep: int, page: int
    ) -> None:
        self._store = store
        self._render = render
        self._public = public
        self._keep = keep
        self._page = page
        self._kept: list[tuple[int, Message]] = []
        self._end: int | None = None  # every position up to this one has been read
        self._stale = False
        self._lock = asyncio.Lock()

    def expire(self) -> None:
        """Something was committed: read what is new on the next call."""
        self._stale = True

    def forget(self) -> None:
        """No one follows the feed any more: keep nothing (start at the head next time)."""
        self._kept, self._end, self._stale = [], None, False

    async def after(self, position: int) -> list[tuple[int, Message]]:
        """Up to a page of the (rendered) events after ``position``, in position order."""
        async with self._lock:
            if self._end is None:
                self._stale = False  # a commit heard during the read marks it again
                self._end = await self._store.head_position()
            elif self._stale:
                self._stale = False  # a commit heard during the reads marks it again
                read = await self._read(self._end)
                while read:
                    self._kept = [*self._kept, *read][-self._keep :]
                    self._end = read[-1][0]
                    full = len(read) == self._page  # more than a page was new
                    read = await self._read(self._end) if full else []
            floor = self._kept[0][0] - 1 if self._kept else self._end
        if position < floor:  # further behind than what is kept: its own read
            return await self._read(position)
        return [r for r in self._kept if r[0] > position][: self._page]

    async def _read(self, position: int) -> list[tuple[int, Message]]:
        stored = await self._store.read_all(position, limit=self._page)
        shown = await self._public({e.stream_id for e in stored})
        return [
            (e.position, self._render(e, CODEC.from_stored(e)) if e.stream_id in shown else None)
            for e in stored
        ]


class Shared(Protocol):
    """What a stream's subscribers share (`Hub.shared`): it reads the log again once told
    that something was committed."""

    def expire(self) -> None:
        """Something was committed: read what is new on the next call."""


S = TypeVar("S", bound=Shared)


class Hub(Worker):
    """Wakes the subscribers of a stream (or of all streams) when events are committed, and
    keeps the newest events of each watched table, and of the whole log for the feed
    (each rendered once by ``feed``, the events of the tables ``public`` names), and what
    the subscribers of another stream share (`shared`: a tournament's messages), so that
    the log is read once per commit, not once per subscriber. At most ``readers`` streams
    read the log at once (`reading`): a burst of subscribers queues for the pool's
    connections instead of taking them all."""

    def __init__(
        self,
        store: EventStore,
        feed: Render = feed_message,
        public: Public = everyone,
        keep: int = 256,
        feed_keep: int = 2048,
        feed_page: int = FEED_PAGE,
        readers: int = 4,
        heartbeat: float = HEARTBEAT_SECONDS,
    ) -> None:
        self._store = store
        self.heartbeat = heartbeat
        """Seconds of silence after which a stream sends a heartbeat and reads the log again
        (`sse_messages`)."""
        self.reading = asyncio.Semaphore(readers)
        """A turn to read for a stream: at most ``readers`` streams read the log at once."""
        self._shared: dict[str, Shared] = {}
        self._keep = keep
        self._waiters: defaultdict[str, set[asyncio.Event]] = defaultdict(set)
        self._tails: dict[str, list[Recorded]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._stale: set[str] = set()
        self._feed = _Feed(store, feed, public, feed_keep, feed_page)
        self._closed = asyncio.Event()
        self._talk: dict[str, int] = {}

    @property
    def closed(self) -> bool:
        """Whether the service is stopping: every stream ends (`close`)."""
        return self._closed.is_set()

    def close(self) -> None:
        """The service is stopping: every subscriber is woken and its stream ends with the
        `farewell`; a stream opened from now on ends with it at once."""
        self._closed.set()
        for waiters in self._waiters.values():
            for waiter in waiters:
                waiter.set()

    async def rest(self, seconds: float) -> None:
        """Sleep ``seconds``, or less if the hub is closed meanwhile."""
        with suppress(TimeoutError):
            await asyncio.wait_for(self._closed.wait(), seconds)

    def notify(self, stream_id: str) -> None:
        """Called for each committed append (from the LISTEN connection)."""
        self.expire(stream_id)
        self._feed.expire()
        for key in (stream_id, ALL):
            for waiter in self._waiters.get(key, ()):
                waiter.set()

    def talked(self, payload: str) -> None:
        """Table talk was kept (``<stream_id>:<talk_id>``, from the LISTEN connection, or
        from the route that kept it): the table's subscribers read it (`talk_head`)."""
        stream_id, _, talk_id = payload.rpartition(":")
        self._talk[stream_id] = max(self._talk.get(stream_id, 0), int(talk_id))
        for waiter in self._waiters.get(stream_id, ()):
            waiter.set()

    def talk_head(self, stream_id: str) -> int:
        """The newest talk id this process heard of at the table (0: none since it
        started)."""
        return self._talk.get(stream_id, 0)

    def wake_all(self) -> None:
        """Every subscriber reads the log again (appends may have gone unheard)."""
        self._feed.expire()
        for key, waiters in self._waiters.items():
            self.expire(key)
            for waiter in waiters:
                waiter.set()

    def expire(self, stream_id: str) -> None:
        """Read the table's tail (or, for `ALL`, the feed's) from the log again on the next
        call (a notification is only a hint: one lost with a dropped connection must not
        stall a stream)."""
        if stream_id == ALL:
            self._feed.expire()
        elif stream_id in self._locks:
            self._stale.add(stream_id)
        shared = self._shared.get(stream_id)
        if shared is not None:
            shared.expire()

    def shared(self, key: str, make: Callable[[], S]) -> S:
        """What the subscribers of ``key`` share (made by ``make`` for the first; it is told
        of every commit `expire` hears of, and forgotten when the last subscriber leaves).
        Only for a subscriber (within `subscription`)."""
        shared = self._shared.get(key)
        if shared is None:
            shared = self._shared[key] = make()
        return cast(S, shared)

    async def feed_after(self, position: int) -> list[tuple[int, Message]]:
        """Up to a page of the events of all tables after global ``position``, with their
        positions, each as ``feed`` (given to the hub) renders it: the newest are read and
        rendered once per commit for all feed subscribers."""
        return await self._feed.after(position)

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
                self._shared.pop(key, None)
                if key == ALL:
                    self._feed.forget()

    async def events_after(
        self, stream_id: str, version: int, base: Base | None = None
    ) -> list[Recorded]:
        """The table's stored (and decoded) events after ``version``, each with the table's
        state after it.

        Served from the kept tail when it reaches back far enough and no commit was
        announced since it was read; otherwise read from the log (only what is new), folded
        on from the tail's last state, or from ``base`` (the table's state at a version no
        later than ``version``), or else from the table's first event.
        """
        lock = self._locks.setdefault(stream_id, asyncio.Lock())
        async with lock:
            tail = self._tails.get(stream_id, [])
            covered = bool(tail) and version >= tail[0][0].version - 1
            if covered and stream_id not in self._stale:
                return [r for r in tail if r[0].version > version]
            self._stale.discard(stream_id)
            if covered:
                start, state = tail[-1][0].version, tail[-1][2]
            else:
                start, state = (
                    base if base is not None and base[0] <= version else (0, TableState())
                )
            read = []
            for stored in await self._store.read_stream(stream_id, start + 1):
                event = CODEC.from_stored(stored)
                state = evolve(state, event)
                read.append((stored, event, state))
            recorded = [*tail, *read] if covered else read
            self._tails[stream_id] = recorded[-self._keep :]
            return [r for r in recorded if r[0].version > version]


Fetch = Callable[[int], Awaitable[tuple[list[ServerSentEventMessage], int]]]
"""``fetch(after)`` returns the messages after a cursor and the new cursor."""


async def sse_messages(
    hub: Hub, key: str, after: int, fetch: Fetch
) -> AsyncIterator[ServerSentEventMessage]:
    """Every message after ``after``, then each new one as it is committed, with heartbeats;
    while the database is unavailable, a comment line and another try after a pause; once
    the hub is closed, the `farewell`, and the end.

    A heartbeat comes ``hub.heartbeat`` seconds after what was sent last, however often the
    stream was woken meanwhile: when it comes tells nothing of commits that sent nothing
    (another table's, in the feed; a deal not yet public, in a tournament's stream, E5.3)."""
    loop = asyncio.get_running_loop()
    heartbeat = hub.heartbeat
    async with hub.subscription(key) as waiter:
        pause = RETRY_SECONDS
        beat = loop.time() + heartbeat
        while not hub.closed:
            waiter.clear()
            try:
                async with hub.reading:
                    messages, after = await fetch(after)
            except UNAVAILABLE:
                yield ServerSentEventMessage(comment="database unavailable: retrying", data=None)
                await hub.rest(pause)
                pause = min(pause * 2, heartbeat)
                beat = loop.time() + heartbeat
                continue
            pause = RETRY_SECONDS
            for message in messages:
                yield message
            if messages:
                beat = loop.time() + heartbeat
                continue
            try:
                async with asyncio.timeout(max(beat - loop.time(), 0)):
                    await waiter.wait()
            except TimeoutError:
                hub.expire(key)
                beat = loop.time() + heartbeat
                # data=None: a comment line only; with litestar's default data "" the
                # message would carry an empty `data:` line, which an EventSource
                # dispatches as a `message` event.
                yield ServerSentEventMessage(comment="heartbeat", data=None)
        yield farewell()
