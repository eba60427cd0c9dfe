"""`service.edge.http`: each response's header block goes out with its body, in one write.

`_HeldWrites` is checked on a transport that records its writes; `HttpProtocol` through a
live server (the tests' `serve` runs it): raw keep-alive HTTP/1.1 over a socket, the
writes the server makes, and a stream whose headers must not wait for its first event.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
import pytest

from service.app import create_app
from service.edge.http import HttpProtocol, _HeldWrites
from tests.service import conftest
from tests.service.conftest import serve, settings

HEADER = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 15\r\n\r\n"
BODY = b'{"status":"ok"}'
WAIT = 5.0


class Recorder:
    """A transport that records what is written to it."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after close"
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.9", 4242)}.get(name, default)

    def is_closing(self) -> bool:
        return self.closed


def held() -> tuple[_HeldWrites, Recorder]:
    recorder = Recorder()
    return _HeldWrites(recorder, asyncio.get_running_loop()), recorder  # type: ignore[arg-type]


async def next_turn() -> None:
    """Let the event loop run what was scheduled with ``call_soon`` so far."""
    await asyncio.sleep(0)


# -- _HeldWrites --------------------------------------------------------------------------


async def test_a_header_block_and_its_body_are_one_write() -> None:
    """A header block is held; the body that follows goes out with it, bytes unchanged."""
    writes, recorder = held()
    writes.write(HEADER)
    assert recorder.writes == []
    writes.write(BODY)
    assert recorder.writes == [HEADER + BODY]
    await next_turn()
    assert recorder.writes == [HEADER + BODY], "the scheduled flush finds nothing held"


async def test_a_header_block_alone_goes_out_on_the_next_turn_of_the_loop() -> None:
    """A response whose body does not follow at once (a stream) sends its headers on the
    loop's next turn, without waiting for the body."""
    writes, recorder = held()
    writes.write(HEADER)
    assert recorder.writes == []
    await next_turn()
    assert recorder.writes == [HEADER]
    writes.write(b"5\r\nhello\r\n")
    assert recorder.writes == [HEADER, b"5\r\nhello\r\n"], "later chunks are not held"


async def test_order_and_bytes_are_kept_across_responses() -> None:
    """Several responses and chunks on one connection: the bytes written are exactly those
    given, in order; each header block is joined to the write after it, and nothing else
    is held (a whole response in one write, or a body chunk, passes at once)."""
    writes, recorder = held()
    whole = HEADER + BODY
    chunked = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
    given = [HEADER, BODY, whole, chunked, b"3\r\nabc\r\n", b"0\r\n\r\n", HEADER, BODY]
    for data in given:
        writes.write(data)
    await next_turn()
    assert recorder.writes == [
        HEADER + BODY,
        whole,
        chunked + b"3\r\nabc\r\n",
        b"0\r\n\r\n",
        HEADER + BODY,
    ]
    assert b"".join(recorder.writes) == b"".join(given)


async def test_close_writes_what_is_held_first() -> None:
    """Closing the connection sends a held header block before the transport closes."""
    writes, recorder = held()
    writes.write(HEADER)
    writes.close()
    assert recorder.writes == [HEADER] and recorder.closed
    await next_turn()  # the scheduled flush must not write to the closed transport
    assert recorder.writes == [HEADER]


async def test_everything_else_is_the_real_transport() -> None:
    """Other attributes are the wrapped transport's."""
    writes, recorder = held()
    assert writes.get_extra_info("peername") == ("127.0.0.9", 4242)
    assert not writes.is_closing()
    recorder.close()
    assert writes.is_closing()


# -- through a live server ----------------------------------------------------------------


class Response(msgspec.Struct):
    status: int
    headers: dict[str, str]
    body: bytes


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    version, status, _ = lines[0].split(" ", 2)
    assert version == "HTTP/1.1"
    headers = {}
    for line in lines[1:]:
        if line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return int(status), headers


async def read_response(reader: asyncio.StreamReader) -> Response:
    """One response with a ``content-length`` body, read off a raw connection."""
    status, headers = await read_head(reader)
    body = await reader.readexactly(int(headers["content-length"]))
    return Response(status, headers, body)


async def read_chunk(reader: asyncio.StreamReader) -> bytes:
    """One chunk of a ``transfer-encoding: chunked`` body."""
    size = int((await reader.readuntil(b"\r\n")).strip(), 16)
    data = await reader.readexactly(size + 2)
    assert data.endswith(b"\r\n")
    return data[:-2]


@pytest.fixture
async def connection(base_url: str) -> AsyncIterator[tuple[asyncio.StreamReader, Any]]:
    host, port = httpx.URL(base_url).host, httpx.URL(base_url).port
    reader, writer = await asyncio.open_connection(host, port)
    try:
        yield reader, writer
    finally:
        writer.close()
        await writer.wait_closed()


async def test_keep_alive_requests_get_complete_responses(
    connection: tuple[asyncio.StreamReader, Any],
) -> None:
    """Two requests on one kept-alive connection, one after the other and then two sent
    together (pipelined): each gets its whole, correct response, in order."""
    reader, writer = connection
    request = b"GET /health HTTP/1.1\r\nhost: test\r\n\r\n"
    for sent in (request, request, request * 2):
        writer.write(sent)
        await writer.drain()
        for _ in range(sent.count(b"GET ")):
            async with asyncio.timeout(WAIT):
                response = await read_response(reader)
            assert response.status == 200
            assert response.headers["content-type"] == "application/json"
            assert msgspec.json.decode(response.body) == {"status": "ok"}
    assert reader.at_eof() is False and not reader._buffer  # type: ignore[attr-defined]


async def test_every_response_is_one_write(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through uvicorn and the app, a response (headers and body) is one transport write:
    a JSON view, a 404 problem, a 304 without a body, and a created table."""
    writes: list[bytes] = []

    class Spy:
        def __init__(self, transport: asyncio.Transport) -> None:
            self._transport = transport

        def write(self, data: bytes) -> None:
            writes.append(bytes(data))
            self._transport.write(data)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._transport, name)

    class Recording(HttpProtocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(Spy(transport))  # type: ignore[arg-type]

    monkeypatch.setattr(conftest, "HttpProtocol", Recording)
    async with (
        serve(create_app(settings(db_url))) as url,
        httpx.AsyncClient(base_url=url, timeout=WAIT) as http,
    ):
        created = await http.post("/tables", json={"name": "one write", "visibility": "public"})
        table = created.json()["table_id"]
        view = await http.get(f"/tables/{table}")
        missing = await http.get("/tables/none-such")
        same = await http.get(f"/tables/{table}", headers={"if-none-match": view.headers["etag"]})
        responses = [created, view, missing, same]
        assert [r.status_code for r in responses] == [201, 200, 404, 304]
        assert len(writes) == len(responses), [w[:40] for w in writes]
        for write, response in zip(writes, responses, strict=True):
            assert write.startswith(f"HTTP/1.1 {response.status_code} ".encode())
            assert write.endswith(b"\r\n\r\n" + response.content)


async def test_a_stream_sends_its_headers_before_any_event(
    connection: tuple[asyncio.StreamReader, Any], http: httpx.AsyncClient
) -> None:
    """A table stream with nothing to send yet gets its headers at once (the held header
    block goes out on the loop's next turn, not with the first event or heartbeat); the
    first event then follows on the same connection."""
    created = (await http.post("/tables", json={"name": "stream", "visibility": "public"})).json()
    reader, writer = connection
    writer.write(
        f"GET /tables/{created['table_id']}/events?after={created['version']} HTTP/1.1\r\n"
        "host: test\r\naccept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    async with asyncio.timeout(2.0):  # the first heartbeat would come after 15 s
        status, headers = await read_head(reader)
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    assert headers["transfer-encoding"] == "chunked"
    assert not reader._buffer, "nothing but the headers yet"  # type: ignore[attr-defined]
    taken = await http.post(f"/tables/{created['table_id']}/seats", json={"name": "north"})
    assert taken.status_code == 201
    async with asyncio.timeout(WAIT):
        message = b""
        while not message.endswith(b"\r\n\r\n"):  # an event ends with an empty line
            message += await read_chunk(reader)
    fields = dict(line.split(": ", 1) for line in message.decode().split("\r\n") if line)
    assert (fields["event"], fields["id"]) == ("seat_taken", str(taken.json()["version"]))
    assert msgspec.json.decode(fields["data"])["name"] == "north"
