"""Limits at the edge (`service.edge.http.Edge`, `service.edge.auth`): slow clients, idle and
excess connections, and bearer tokens too large to be tokens.

Timeouts are configured tiny here (the service's defaults are seconds); each test waits
for the server's answer with a generous safety net, so a slow machine only takes longer.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import tracemalloc
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import httpx
import msgspec
import pytest

from service.app import create_app
from service.edge.auth import new_token, token_hash
from service.edge.http import HEALTH_RESERVE, Edge
from service.edge.limits import HEALTH_PATHS
from tests.service.conftest import serve, settings
from tests.service.serving import doko_serve, free_port, logged, wait_ready

SAFETY = 30.0
"""Seconds after which a test gives up waiting (not a bound on the service)."""


async def connect(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    parsed = httpx.URL(url)
    return await asyncio.open_connection(parsed.host, parsed.port)


async def answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """The response on a connection the server then closes: status, headers, body."""
    async with asyncio.timeout(SAFETY):
        data = await reader.read()  # until the server closes the connection
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split(" ")[1]), headers, body


def assert_refusal(response: tuple[int, dict[str, str], bytes], status: int, code: str) -> None:
    got, headers, body = response
    assert got == status, body
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert msgspec.json.decode(body)["code"] == code


@pytest.fixture(scope="module")
async def strict(db_url: str) -> AsyncIterator[str]:
    """A server with a 0.2 s read timeout and a 0.2 s keep-alive."""
    edge = Edge(read_timeout=0.2, keep_alive=0.2)
    async with serve(create_app(settings(db_url)), edge=edge) as url:
        yield url


async def test_a_client_that_sends_nothing_is_answered_408_and_closed(strict: str) -> None:
    reader, writer = await connect(strict)
    try:
        assert_refusal(await answer(reader), 408, "request_timeout")
    finally:
        writer.close()


async def test_a_request_sent_too_slowly_is_answered_408_and_closed(strict: str) -> None:
    """A request whose headers never end (a byte now and then: the read timeout counts
    from its first byte, not from the last)."""
    reader, writer = await connect(strict)
    try:
        writer.write(b"GET /health HTTP/1.1\r\n")
        for _ in range(3):
            writer.write(b"x-slow: 1\r\n")
            await asyncio.sleep(0.1)
        assert_refusal(await answer(reader), 408, "request_timeout")
    finally:
        writer.close()


async def test_a_body_sent_too_slowly_is_refused_and_nothing_is_written(
    strict: str, pool: asyncpg.Pool
) -> None:
    before = await pool.fetchval("SELECT count(*) FROM events")
    reader, writer = await connect(strict)
    try:
        writer.write(
            b"POST /tables HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"content-length: 20\r\n\r\n{"
        )
        assert_refusal(await answer(reader), 408, "request_timeout")
    finally:
        writer.close()
    assert await pool.fetchval("SELECT count(*) FROM events") == before


async def test_an_idle_kept_alive_connection_is_closed(strict: str) -> None:
    reader, writer = await connect(strict)
    try:
        writer.write(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
        async with asyncio.timeout(SAFETY):
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 ")
            await reader.read()  # the body, then the end: the server closed it
        assert reader.at_eof()
    finally:
        writer.close()


async def test_connections_beyond_the_cap_serve_health_alone_then_are_refused(
    db_url: str,
) -> None:
    """Four connections may be open (here). The next `HEALTH_RESERVE` are served for the
    health paths alone, one answer each (any other path: 503 ``too_many_connections`` with
    Retry-After); one more is refused at once. Once the four close, all is served again."""
    async with serve(create_app(settings(db_url)), edge=Edge(max_connections=4)) as url:
        opened = [await connect(url) for _ in range(4)]
        reserve = [await connect(url) for _ in range(HEALTH_RESERVE)]
        try:
            for reader, writer in opened:  # each is served (and kept open)
                writer.write(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
                async with asyncio.timeout(SAFETY):
                    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200 ")
            reader, writer = await connect(url)
            beyond = await answer(reader)
            writer.close()
            for (reader, writer), path in zip(reserve, ["/tables", *HEALTH_PATHS], strict=False):
                writer.write(b"GET " + path.encode() + b" HTTP/1.1\r\nhost: x\r\n\r\n")
                status, headers, body = await answer(reader)  # one answer, then closed
                if path == "/tables":
                    assert_refusal((status, headers, body), 503, "too_many_connections")
                    assert headers["retry-after"] == "1"
                else:
                    assert (status, headers["connection"]) == (200, "close"), (path, body)
        finally:
            for _, writer in [*opened, *reserve]:
                writer.close()
        assert_refusal(beyond, 503, "too_many_connections")
        assert beyond[1]["retry-after"] == "1"
        async with asyncio.timeout(SAFETY):
            while True:  # the server sees the others close in its own time
                reader, writer = await connect(url)
                writer.write(b"GET /tables/x HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
                status, _, _ = await answer(reader)
                writer.close()
                if status == 404:
                    break
                await asyncio.sleep(0.01)


async def _open_stream(port: int, source: str) -> tuple[asyncio.StreamWriter, bytes]:
    """``GET /feed`` on a new connection from ``source``: the writer and the answer's head."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(b"GET /feed HTTP/1.1\r\nhost: x\r\naccept: text/event-stream\r\n\r\n")
    async with asyncio.timeout(SAFETY):
        return writer, await reader.readuntil(b"\r\n\r\n")


async def test_one_address_is_capped_while_others_and_health_are_served(
    db_url: str, tmp_path: Path
) -> None:
    """``doko serve`` with 2 streams and 4 connections per address: a third
    stream of 127.0.0.1 is 429 ``too_many_streams``, a fifth connection 429
    ``too_many_connections_from_address`` at once; 127.0.0.2 streams and reads meanwhile,
    and the health endpoints answer 127.0.0.1. The refusals are counted in one log line,
    not one each."""
    log, port = tmp_path / "serve.log", free_port()
    caps = ["--max-streams-per-address", "2", "--max-connections-per-address", "4"]
    process = doko_serve(port, "--database-url", db_url, "--read-timeout", "300", *caps, log=log)
    held: list[asyncio.StreamWriter] = []
    try:
        await wait_ready(port, process)
        for _ in range(2):
            writer, head = await _open_stream(port, "127.0.0.1")
            held.append(writer)
            assert head.startswith(b"HTTP/1.1 200 "), head
        base = f"http://127.0.0.1:{port}"
        other = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with (
            httpx.AsyncClient(base_url=base, timeout=SAFETY) as first,
            httpx.AsyncClient(base_url=base, timeout=SAFETY, transport=other) as second,
        ):
            refused = [await first.get("/feed") for _ in range(4)]
            for response in refused:
                assert response.status_code == 429, response.text
                assert response.json()["code"] == "too_many_streams"
                assert response.headers["retry-after"] == "1"
            assert (await first.get("/health/live")).status_code == 200
            assert (await first.get("/health/ready")).status_code == 200
            writer, head = await _open_stream(port, "127.0.0.2")
            held.append(writer)
            assert head.startswith(b"HTTP/1.1 200 "), head
            assert (await second.get("/tables")).status_code == 200
            held.append((await asyncio.open_connection("127.0.0.1", port))[1])  # the 4th
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            fifth = await answer(reader)
            writer.close()
        assert_refusal(fifth, 429, "too_many_connections_from_address")
        assert fifth[1]["retry-after"] == "1"
    finally:
        for writer in held:
            writer.close()
        process.terminate()
        await asyncio.to_thread(process.wait, SAFETY)
    counted = [line for line in logged(log) if line["logger"] == "doko.edge"]
    totals: Counter[str] = Counter()
    for line in counted:
        totals.update(line["refused"])  # type: ignore[arg-type]
    assert totals == {"too_many_streams": 4, "too_many_connections_from_address": 1}
    assert len(counted) < 5, "counted, not a line per refusal"


def held() -> int:
    """The bytes the process's Python objects hold now (`tracemalloc`, which must be on):
    what a cache or a buffer keeps, and not what the allocator keeps of freed memory,
    which depends on how the requests' buffers happened to interleave."""
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


async def _send_tokens(url: str, tokens: list[bytes]) -> list[int]:
    """Each token as a bearer token on a connection of its own; the statuses."""
    statuses = []
    for token in tokens:
        reader, writer = await connect(url)
        writer.write(b"GET /tables/x/seats/0 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n")
        writer.write(b"authorization: Bearer " + token + b"\r\n\r\n")
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        async with asyncio.timeout(SAFETY):
            status_line = await reader.readline()
            with contextlib.suppress(ConnectionError):
                await reader.read()
        writer.close()
        statuses.append(int(status_line.split(b" ")[1]))
    return statuses


MEGABYTE = 1_000_000


async def test_300_distinct_1_mb_tokens_leave_memory_as_it_was(db_url: str) -> None:
    """With the default limits a 1 MB token does not fit the 16 KiB of headers (431).
    Even a server that takes 2 MB of headers refuses it as a token (401: longer than any
    issued) without hashing or remembering it: 300 of them, all different, grow what the
    process's objects hold by less than 20 MB (they would have kept 300 MB in the token
    cache)."""
    roomy = Edge(max_header_bytes=2 * MEGABYTE)
    async with (
        serve(create_app(settings(db_url))) as default_url,
        serve(create_app(settings(db_url)), edge=roomy) as roomy_url,
    ):
        token_hash.cache_clear()
        warm = [b"%d" % n + b"t" * MEGABYTE for n in range(5)]
        assert await _send_tokens(default_url, warm) == [431] * 5
        assert await _send_tokens(roomy_url, warm) == [401] * 5
        tracemalloc.start()
        try:
            before = held()
            for batch in range(6):
                tokens = [b"%d-%d" % (batch, n) + b"t" * MEGABYTE for n in range(50)]
                assert await _send_tokens(roomy_url, tokens) == [401] * 50
                del tokens
            grown = held() - before
        finally:
            tracemalloc.stop()
    assert token_hash.cache_info().currsize == 0, "nothing was hashed"
    assert grown < 20 * MEGABYTE, f"the objects held grew by {grown / MEGABYTE:.1f} MB"


async def test_a_real_token_is_still_served(base_url: str) -> None:
    """The length check lets every issued token through (they are all 43 characters)."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        table = (await http.post("/tables", json={"name": "t", "visibility": "public"})).json()
        seat = (await http.post(f"/tables/{table['table_id']}/seats", json={"name": "a"})).json()
        assert len(seat["token"]) == len(new_token()) == 43
        response = await http.get(
            f"/tables/{table['table_id']}/seats/{seat['seat']}",
            headers={"authorization": f"Bearer {seat['token']}"},
        )
        assert response.status_code == 200, response.text
