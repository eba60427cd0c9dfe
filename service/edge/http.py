"""uvicorn's HTTP/1.1 protocol (httptools), with limits at the edge, sending each response
in one write.

Limits (`Edge`, set on ``doko serve``; uvicorn's httptools protocol has none of its own
but the keep-alive timeout): a request's line and headers may take ``max_header_bytes``
and ``max_headers`` fields (else 431, and the connection is closed); a client has
``read_timeout`` seconds to send a whole request from its first byte, or from the moment
it connected (else 408, closed: a slow client cannot hold a socket for ever); an idle
kept-alive connection is closed after ``keep_alive`` seconds. A client address may hold
``max_connections_per_address`` open connections: one more is answered 429
``too_many_connections_from_address`` and closed at once. Beyond ``max_connections`` open
ones, `HEALTH_RESERVE` more are taken for the health probes alone (their requests carry
`HEALTH_ONLY` in the scope: the application's guard answers any other path 503
``too_many_connections``, and the connection is closed after one answer); past those, a
connection is answered 503 ``too_many_connections`` and closed at once. So a liveness or
readiness probe is answered while clients hold every other slot. Every such answer, and
uvicorn's own 400 for a request it cannot parse, is problem+json like the application's,
and counted in `service.edge.refusals.REFUSALS` (logged once an interval, not once a refusal).
After such an answer the connection is closed for writing at once, and for good after
``LINGER`` seconds, while what the client still sends is read and dropped: closed with
unread data, the connection would be reset, and a client still sending (a 1 MB header)
might lose the answer.

uvicorn writes a response's status line and headers as soon as the application starts
the response, and the body in a second write: two ``send`` system calls, and two
wake-ups of the client, per response. `HttpProtocol` holds the header block back until
the body comes (a JSON response starts and ends in the same step), or until the event
loop's next turn when it does not (a stream), so that both go out together. The bytes
and their order are unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import msgspec
import uvicorn
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from service.edge.problems import PROBLEM_JSON, problem_of
from service.edge.refusals import REFUSALS
from service.edge.shutdown import drain_seconds

HEALTH_RESERVE = 10
"""Connections beyond ``max_connections`` taken for the health probes alone."""

HEALTH_ONLY = "doko.health_only"
"""The scope key of a request on a connection of the `HEALTH_RESERVE`."""


class Edge(msgspec.Struct, frozen=True):
    """Limits on what a client may send and hold (see the module docstring)."""

    max_header_bytes: int = 16 * 1024
    max_headers: int = 100
    read_timeout: float = 10.0
    keep_alive: float = 5.0
    max_connections: int = 1000
    max_connections_per_address: int = 200


class Config(uvicorn.Config):
    """uvicorn's configuration, with the `Edge` limits that `HttpProtocol` applies (and
    ``timeout_keep_alive`` taken from them), and ``shutdown_seconds``, the bound on a stop
    (`service.edge.shutdown`; given, the share of it that requests in flight may take is
    ``timeout_graceful_shutdown``)."""

    def __init__(
        self,
        app: Any,
        *,
        edge: Edge | None = None,
        shutdown_seconds: float | None = None,
        **options: Any,
    ) -> None:
        self.edge = edge or Edge()
        self.shutdown_seconds = shutdown_seconds
        if shutdown_seconds is not None:
            options["timeout_graceful_shutdown"] = drain_seconds(shutdown_seconds)
        super().__init__(app, timeout_keep_alive=self.edge.keep_alive, **options)  # type: ignore[arg-type]


class _HeldWrites:
    """A transport that keeps a written header block until the next write (or the next
    turn of the loop), and hands everything else to the real transport."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        if self._held is not None:
            data, self._held = self._held + data, None
            self._transport.write(data)
        elif data.startswith(b"HTTP/1.1 ") and data.endswith(b"\r\n\r\n"):
            self._held = data
            self._loop.call_soon(self.flush)
        else:
            self._transport.write(data)

    def flush(self) -> None:
        """Write what is held, if anything."""
        if self._held is not None:
            held, self._held = self._held, None
            self._transport.write(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


LINGER = 1.0
"""Seconds a refused connection is kept half-closed, dropping what the client sends."""


class _Refused(Exception):
    """Stops the parser: the request broke a limit (its answer is already chosen)."""


def refusal(status: int, code: str, detail: str, retry_after: int | None = None) -> bytes:
    """A whole problem+json response that closes the connection."""
    body = msgspec.json.encode(problem_of(status, code, detail, ""))
    head = [
        STATUS_LINE[status],
        b"content-type: " + PROBLEM_JSON.encode() + b"\r\n",
        b"content-length: " + str(len(body)).encode() + b"\r\n",
        b"connection: close\r\n",
        b"x-content-type-options: nosniff\r\n",
        *([b"retry-after: " + str(retry_after).encode() + b"\r\n"] if retry_after else []),
        b"\r\n",
    ]
    return b"".join(head) + body


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the `Edge` limits (from a `Config`; the defaults
    with a plain ``uvicorn.Config``), on a `_HeldWrites` transport (give it as ``http=``)."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.edge: Edge = getattr(config, "edge", None) or Edge()
        self._head_bytes: int | None = 0  # bytes of the request head so far; None: body
        self._headers_seen = 0
        self._refusal: tuple[int, str, str] | None = None
        self._reading: asyncio.TimerHandle | None = None
        self._lingering: asyncio.TimerHandle | None = None
        self._health_only = False

    @property
    def address(self) -> str:
        """The client's address (its IP, without the port)."""
        return self.client[0] if self.client else ""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(cast(asyncio.Transport, _HeldWrites(transport, self.loop)))
        address = self.address
        held = sum(1 for c in self.connections if getattr(c, "address", None) == address)
        if held > self.edge.max_connections_per_address:
            detail = "too many open connections from this address"
            self._refuse_at_once(429, "too_many_connections_from_address", detail)
        elif len(self.connections) > self.edge.max_connections + HEALTH_RESERVE:
            self._refuse_at_once(503, "too_many_connections", "too many open connections")
        else:
            self._health_only = len(self.connections) > self.edge.max_connections
            self._start_reading()

    def _refuse_at_once(self, status: int, code: str, detail: str) -> None:
        REFUSALS.count(code, self.address)
        self._close_with(refusal(status, code, detail, retry_after=1))

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_reading()
        if self._lingering is not None:
            self._lingering.cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._lingering is not None:  # refused: drop what still comes
            return
        if self._head_bytes is not None:
            room = self.edge.max_header_bytes - self._head_bytes
            if len(data) > room:  # what fits may end the head; the rest is then body
                super().data_received(data[:room])
                if self._head_bytes is not None and self._lingering is None:
                    self._refuse(431, "headers_too_large", "the request's headers are too large")
                    return
                data = data[room:]
                if not data or self._lingering is not None:
                    return
            else:
                self._head_bytes += len(data)
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._headers_seen = 0
        self._start_reading()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers_seen += 1
        if self._headers_seen > self.edge.max_headers:
            self._refusal = (431, "headers_too_large", "the request has too many header fields")
            raise _Refused
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._head_bytes = None
        if self._health_only:
            self.scope[HEALTH_ONLY] = True  # type: ignore[literal-required]
        super().on_headers_complete()
        if self._health_only and self.cycle is not None:
            self.cycle.keep_alive = False  # one answer, then the slot is free again

    def on_message_complete(self) -> None:
        self._stop_reading()
        self._head_bytes = 0
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request it cannot parse, as problem+json (or the answer
        to a request that broke a limit)."""
        status, code, detail = self._refusal or (400, "malformed_request", msg)
        REFUSALS.count(code, self.address)
        self._close_with(refusal(status, code, detail))

    def _refuse(self, status: int, code: str, detail: str) -> None:
        self._refusal = (status, code, detail)
        self.send_400_response(detail)

    def _close_with(self, response: bytes) -> None:
        """Send ``response``, close for writing, drop what comes for ``LINGER`` seconds."""
        self._stop_reading()
        if self._lingering is not None or self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True  # the application's request is over: as if lost
            self.cycle.message_event.set()
        self.transport.write(response)
        self._lingering = self.loop.call_later(LINGER, self.transport.close)
        if self.transport.can_write_eof():
            self.transport.write_eof()

    def _start_reading(self) -> None:
        if self._reading is None:
            self._reading = self.loop.call_later(self.edge.read_timeout, self._read_too_slowly)

    def _stop_reading(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
            self._reading = None

    def _read_too_slowly(self) -> None:
        self._reading = None
        if self.cycle is None or not self.cycle.response_started:
            self._refuse(408, "request_timeout", "the request was not sent in time")
        elif not self.transport.is_closing():
            self.transport.close()  # the answer has begun: it cannot be a 408 any more
