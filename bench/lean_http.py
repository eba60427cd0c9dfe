"""A lean HTTP/1.1 client of the doko API for the service benchmark's load generator.

`bench_service` plays many tables at once from one client process. With ``httpx`` +
`service.tools.client.DokoClient` the clients used about as much CPU per command as the server
(1.4-1.9 ms, the seat's GET included), so on a small machine the load generator, not the
server, set the measured rate. This client sends the same requests for about a tenth of
that (0.17-0.18 ms per command, see bench/README.md):

- one `asyncio.Protocol` per keep-alive connection (run it on uvloop), one request at a
  time on it, no connection pool;
- request bytes written by hand from per-seat prefixes (request line, Host,
  Authorization), plus If-Match / If-None-Match, Content-Type and Content-Length;
- responses parsed by httptools: only the status, the ETag and the body are kept;
- bodies decoded by msgspec decoders built once, into the types `service.tools.client` decodes
  them into (`domain.table_view.TableView`, `service.tools.client.CommandResult`, ...).

A `Player` is one such connection: a person at a front end, with a source address of
their own. A `LeanSeat` is a player sitting at a table with the seat token; it behaves as
`service.tools.client.SeatClient` does for `view` (a conditional GET on the version held) and
`send` (the command's endpoint and JSON body from `service.tools.client.command_request`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httptools
import msgspec

from domain.commands import DealCommand
from domain.seats import Seat
from domain.table_view import TableView
from service.tools.client import (
    CommandResult,
    _SeatTaken,
    _TableCreated,
    command_request,
)

TIMEOUT = 60.0
"""Seconds a request may take before it fails (as the httpx client's timeout did)."""


class TransportError(Exception):
    """The connection failed, closed, timed out or sent an answer this client cannot read."""


class Problem(Exception):
    """A 4xx/5xx answer: its status and the problem's ``code``."""

    def __init__(self, status: int, code: str | None) -> None:
        super().__init__(f"{status} {code}")
        self.status = status
        self.code = code


class _ProblemBody(msgspec.Struct):
    code: str | None = None


_PROBLEM = msgspec.json.Decoder(_ProblemBody)
_CREATED = msgspec.json.Decoder(_TableCreated)
_SEATED = msgspec.json.Decoder(_SeatTaken)
_VIEW = msgspec.json.Decoder(TableView)
_RESULT = msgspec.json.Decoder(CommandResult)
_encode = msgspec.json.encode


def problem(status: int, body: bytes) -> Problem:
    """The `Problem` of an error answer (code None if the body is not a problem)."""
    try:
        code = _PROBLEM.decode(body).code
    except msgspec.DecodeError:
        code = None
    return Problem(status, code)


class Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection; `request` sends one request and awaits its answer.

    Answers are parsed by httptools (llhttp, as uvicorn uses): about 2 µs per answer here,
    less than parsing the head by hand in Python, and it handles 304s, framing and
    ``Connection: close``. An answer is ``(status, etag, body)``: ``etag`` is the table
    version the ETag names (``"12"`` -> 12), or -1 without one.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop  # kept: asyncio.get_running_loop() costs a getpid() system call
        self.transport: asyncio.Transport | None = None
        self._parser = httptools.HttpResponseParser(self)
        self._waiter: asyncio.Future[tuple[int, int, bytes]] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._etag = -1
        self._parts: list[bytes] = []

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self._fail(TransportError(f"connection lost: {exc or 'closed by the server'}"))

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except (httptools.HttpParserError, ValueError) as error:
            self._fail(TransportError(f"unreadable answer: {error!r}"))
            self.close()

    # httptools callbacks

    def on_header(self, name: bytes, value: bytes) -> None:
        if len(name) == 4 and name.lower() == b"etag":
            self._etag = int(value.strip().removeprefix(b"W/").strip(b'"'))

    def on_body(self, body: bytes) -> None:
        self._parts.append(body)

    def on_message_complete(self) -> None:
        parser = self._parser
        parts = self._parts
        answer = (parser.get_status_code(), self._etag, b"".join(parts) if parts else b"")
        self._parts = []
        self._etag = -1
        if not parser.should_keep_alive():
            self.close()
        self._settle(answer, None)

    def _settle(self, answer: tuple[int, int, bytes] | None, error: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        waiter, self._waiter = self._waiter, None
        if waiter is None or waiter.done():
            return
        if error is not None:
            waiter.set_exception(error)
        else:
            waiter.set_result(answer)  # type: ignore[arg-type]

    def _fail(self, error: Exception) -> None:
        self._parts, self._etag = [], -1
        self._settle(None, error)

    def _timed_out(self) -> None:
        self._timer = None
        self._fail(TransportError(f"no answer in {TIMEOUT:.0f} s"))
        self.close()

    async def request(self, data: bytes) -> tuple[int, int, bytes]:
        """Send one request (head and body, already encoded) and await its answer."""
        transport = self.transport
        if transport is None or transport.is_closing():
            raise TransportError("connection closed")
        waiter: asyncio.Future[tuple[int, int, bytes]] = self.loop.create_future()
        self._waiter = waiter
        self._timer = self.loop.call_later(TIMEOUT, self._timed_out)
        transport.write(data)
        return await waiter

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
            self.transport = None


class Player:
    """A person at a front end: one keep-alive connection from a source address of their own
    (reopened when the server closed it)."""

    def __init__(self, host: str, port: int, source: str | None = None) -> None:
        self.host = host
        self.port = port
        self.source = source
        self.host_header = f"Host: {host}:{port}\r\n".encode()
        self._connection: Connection | None = None

    async def connection(self) -> Connection:
        connection = self._connection
        transport = connection.transport if connection is not None else None
        if transport is None or transport.is_closing():  # closed, or being closed by the server
            loop = asyncio.get_running_loop()
            local = (self.source, 0) if self.source else None
            try:
                _, connection = await loop.create_connection(
                    lambda: Connection(loop), self.host, self.port, local_addr=local
                )
            except OSError as error:
                raise TransportError(f"cannot connect: {error}") from error
            self._connection = connection
        return connection

    async def request(self, data: bytes) -> tuple[int, int, bytes]:
        return await (await self.connection()).request(data)

    async def post_json(self, path: str, body: Any) -> bytes:
        """POST a JSON body without a token; the answer's body (`Problem` for an error)."""
        payload = _encode(body)
        head = (
            f"POST {path} HTTP/1.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n"
        ).encode()
        status, _, answer = await self.request(head + self.host_header + b"\r\n" + payload)
        if status >= 400:
            raise problem(status, answer)
        return answer

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def create_table(self, name: str) -> str:
        """Open a public table (open to anyone: no invitation to pass around); its id."""
        body = {"name": name, "visibility": "public"}
        return _CREATED.decode(await self.post_json("/tables", body)).table_id

    async def take_seat(self, table_id: str, name: str, seat: int) -> LeanSeat:
        """Sit down at ``seat``; this player then acts for it with the seat token."""
        body = {"name": name, "entropy": "", "seat": seat}
        taken = _SEATED.decode(await self.post_json(f"/tables/{table_id}/seats", body))
        return LeanSeat(self, table_id, Seat(taken.seat), taken.token, taken.version, taken.view)


class LeanSeat:
    """A seat played through a `Player`'s connection, knowing only its own token.

    ``version`` and ``held`` are the seat's own view and the table version it shows, as
    `service.tools.client.SeatClient` keeps them.
    """

    def __init__(
        self, player: Player, table_id: str, seat: Seat, token: str, version: int, view: TableView
    ) -> None:
        self.player = player
        self.table_id = table_id
        self.seat = seat
        self.token = token
        self.version = version
        self.held: TableView | None = view
        self._tables = f"/tables/{table_id}/seats/".encode()
        self._headers = player.host_header + f"Authorization: Bearer {token}\r\n".encode()
        self._view_path = self._tables + b"%d" % seat

    async def view(self, min_version: int = 0) -> TableView:
        """The seat's own view: a conditional GET on the version held (304 keeps it), at
        least at ``min_version`` (the table version the client knows of)."""
        held = self.held
        query = b"?min_version=%d" % min_version if min_version else b""
        data = b"GET %s%s HTTP/1.1\r\n%s" % (self._view_path, query, self._headers)
        if held is not None:
            data += b'If-None-Match: "%d"\r\n' % self.version
        status, etag, body = await self.player.request(data + b"\r\n")
        if status == 304 and held is not None:
            return held
        if status >= 400:
            raise problem(status, body)
        view = _VIEW.decode(body)
        self.version, self.held = etag, view
        return view

    async def send(self, command: DealCommand, *, if_match: int | None = None) -> CommandResult:
        """Send a domain command to its endpoint, acting for ``command.seat`` with this token."""
        suffix, body = command_request(command)
        payload = _encode(body)
        data = b"POST %s%d/%s HTTP/1.1\r\n%sContent-Type: application/json\r\n" % (
            self._tables,
            command.seat,
            suffix.encode(),
            self._headers,
        )
        if if_match is not None:
            data += b'If-Match: "%d"\r\n' % if_match
        data += b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload)
        status, _, answer = await self.player.request(data)
        if status >= 400:
            raise problem(status, answer)
        result = _RESULT.decode(answer)
        if command.seat is self.seat:
            self.version, self.held = result.version, result.view
        return result
