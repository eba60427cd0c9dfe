"""A stream that a client can follow alone: typed, resumed by itself, never a spent ticket.

`FollowedStream` reads a Server-Sent Events stream of the service (a table's, as
`service.tools.client.SeatClient.follow` and `TableClient.follow` open it) and yields each
message decoded (a table's: `service.tools.messages.TableMessage`, its version, its event as
the viewer may see it and what the table asks then: whose turn, its clock, the seat's
options). A stream read with a credential (a seat token, the host token, an invitation)
opens each connection with a fresh single-use **stream ticket** (``POST …/stream-tickets``
with the credential as the Bearer token, then ``GET …/events?ticket=…&after=<last id>``), so
the credential never goes in a URL and a reconnection never reuses a spent ticket.

When the connection drops, the service ends it (its shutdown's farewell included), or nothing
(not even a heartbeat: the service sends one every 15 s) arrives for ``idle`` seconds, it
connects again after the last message it yielded, so no message is lost or repeated. It waits
a back-off (``delay`` doubling with each failure in a row, up to ``max_delay``), or longer
when the answer's ``Retry-After`` asks for it, after ``429`` (``too_many_streams``,
``rate_limited``), any ``5xx`` (``database_unavailable``, …), ``408`` and a spent or late
ticket (``401 ticket_invalid``, ``ticket_expired``: it gets a new one). Any other answer of
400 or more ends it (``refused``: an unknown table, a seat token that stopped working once
its player left, T2.2), as do ``attempts`` failures in a row or a message it cannot decode
(``failed``); the iteration then stops and `FollowedStream.end` says why. This is what the
TypeScript client's `openStream` does (clients/typescript/src/stream.ts).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, Literal, TypeVar

import httpx
import msgspec

from infra.sse import SseMessage, SseParser
from service.tools.retry import MAX_DELAY, backoff, retry_after

T = TypeVar("T")

TICKET_SPENT = frozenset({"ticket_invalid", "ticket_expired"})
IDLE = 45.0
"""Seconds without a byte (three of the service's heartbeats) after which it reconnects."""


class StreamEnd(msgspec.Struct, frozen=True):
    """How a followed stream ended: ``closed`` (`FollowedStream.close`), ``refused`` (the
    service's answer ``status`` with its ``problem``) or ``failed`` (the last failure's
    ``problem``: ``network_error``, ``invalid_answer``, a transient one)."""

    reason: Literal["closed", "refused", "failed"]
    status: int | None = None
    problem: dict[str, Any] | None = None


class _Answer(Exception):
    """An answer other than the stream (or the ticket) asked for."""

    def __init__(self, response: httpx.Response) -> None:
        try:
            problem = response.json()
        except ValueError:
            problem = None
        self.status = response.status_code
        self.problem = problem if isinstance(problem, dict) else {"detail": response.text}
        self.wait = retry_after(response.headers)
        super().__init__(f"{self.status} {self.problem.get('code')}")

    @property
    def transient(self) -> bool:
        spent = self.status == 401 and self.problem.get("code") in TICKET_SPENT
        return self.status >= 500 or self.status in (408, 429) or spent


async def read_sse(lines: AsyncIterator[str]) -> AsyncIterator[SseMessage]:
    """Parse a text/event-stream (lines without their ends) into messages, as an
    EventSource does (`infra.sse.SseParser`)."""
    parser = SseParser()
    async for line in lines:
        message = parser.line(line)
        if message is not None:
            yield message


class FollowedStream(Generic[T]):
    """``async for message in stream``: the stream's messages, decoded by ``decode``, across
    reconnections (the module's comment); ``end`` once the iteration stopped,
    ``last_event_id`` the id to resume after."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        path: str,
        decode: Callable[[SseMessage], T],
        *,
        credential: str | None = None,
        after: str | int | None = None,
        delay: float = 0.5,
        max_delay: float = MAX_DELAY,
        attempts: int | None = None,
        idle: float = IDLE,
    ) -> None:
        self.http = http
        self.path = path
        self.decode = decode
        self.credential = credential
        self.last_event_id = None if after is None else str(after)
        self.delay, self.max_delay, self.attempts, self.idle = delay, max_delay, attempts, idle
        self.end: StreamEnd | None = None
        self.failures = 0
        self._closed = False

    def close(self) -> None:
        """Stop after the message being handled (the end: ``closed``)."""
        self._closed = True

    def __aiter__(self) -> AsyncIterator[T]:
        return self._follow()

    async def _ticket(self) -> str:
        """A fresh single-use ticket for one connection (the credential in a header)."""
        headers = {"authorization": f"Bearer {self.credential}"}
        response = await self.http.post(
            f"{self.path.rsplit('/', 1)[0]}/stream-tickets", headers=headers
        )
        if response.status_code not in (200, 201):
            raise _Answer(response)
        ticket: str = response.json()["ticket"]
        return ticket

    async def _connection(self) -> AsyncIterator[T]:
        """The messages of one connection, until it ends (`_Answer`: it did not open)."""
        params: dict[str, str] = {}
        if self.last_event_id is not None:
            params["after"] = self.last_event_id
        if self.credential is not None:
            params["ticket"] = await self._ticket()
        timeout = httpx.Timeout(10.0, read=None)  # quiet between events: `idle` bounds waits
        async with self.http.stream("GET", self.path, params=params, timeout=timeout) as response:
            if response.status_code != 200:
                await response.aread()
                raise _Answer(response)
            async for message in read_sse(_idle(response.aiter_lines(), self.idle)):
                self.failures = 0  # a healthy connection resets the back-off
                decoded = self.decode(message)
                if message.id is not None:
                    self.last_event_id = message.id
                yield decoded

    async def _follow(self) -> AsyncIterator[T]:
        while not self._closed:
            wait: float | None = None
            try:
                async for message in self._connection():
                    yield message
                    if self._closed:
                        break
                problem: dict[str, Any] = {"code": "network_error", "detail": "the stream ended"}
            except _Answer as answer:
                if not answer.transient:
                    self.end = StreamEnd("refused", answer.status, answer.problem)
                    return
                problem, wait = answer.problem, answer.wait
            except (httpx.TransportError, TimeoutError) as error:
                problem = {"code": "network_error", "detail": repr(error)}
            except (msgspec.ValidationError, msgspec.DecodeError) as error:
                self.end = StreamEnd(
                    "failed", None, {"code": "invalid_answer", "detail": str(error)}
                )
                return
            if self._closed:
                break
            self.failures += 1
            if self.attempts is not None and self.failures >= self.attempts:
                self.end = StreamEnd("failed", None, problem)
                return
            await asyncio.sleep(
                max(wait or 0.0, backoff(self.failures, self.delay, self.max_delay))
            )
        self.end = StreamEnd("closed")


async def _idle(lines: AsyncIterator[str], seconds: float) -> AsyncIterator[str]:
    """``lines``, failing with `TimeoutError` when none arrives for ``seconds``."""
    iterator = aiter(lines)
    while True:
        async with asyncio.timeout(seconds):
            line = await anext(iterator, None)
        if line is None:
            return
        yield line
