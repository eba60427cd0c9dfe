"""The Python client follows a table's stream alone (`service.tools.stream`): typed messages,
every version once and in order across reconnections, a fresh stream ticket for each
connection, the wait a 429's ``Retry-After`` asks for, and an end that says why; its
requests are retried as the service asks (`service.tools.retry`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from domain.events import DealDealt
from service.app import create_app
from service.tools.client import DokoClient, SeatClient
from service.tools.retry import RetryingTransport, backoff, retry_after
from tests.service.conftest import serve, settings

pytestmark = pytest.mark.xdist_group("client_stream")
"""The module's tests share a live service: one worker runs them."""


class Asked:
    """The requests an httpx client sent, by method and the path's last part."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, request: httpx.Request) -> None:
        self.paths.append(f"{request.method} {request.url.path.rsplit('/', 1)[-1]}")


@pytest.fixture(scope="module")
async def limited(db_url: str) -> AsyncIterator[str]:
    """A live service whose client address may hold one stream open at once."""
    async with serve(create_app(settings(db_url, max_streams_per_address=1))) as url:
        yield url


async def seated(http: httpx.AsyncClient) -> list[SeatClient]:
    table = await DokoClient(http).create_table("follow", first_dealer=0)
    return [await table.take_seat(f"p{n}", seat=n) for n in range(4)]


async def test_a_quiet_stream_reconnects_with_a_fresh_ticket_and_loses_nothing(
    limited: str,
) -> None:
    """With ``idle`` shorter than the service's heartbeat the seat's stream reconnects again
    and again: each connection has a ticket of its own (a spent one is refused, 401), the
    messages are every table version once, in order; once the seat's player left its token
    opens nothing (T2.2: at a private table, as for anyone without a credential, 404) and
    the stream ends ``refused``."""
    asked = Asked()
    async with httpx.AsyncClient(base_url=limited, event_hooks={"request": [asked]}) as http:
        seats = await seated(http)
        stream = seats[3].follow(idle=0.3, delay=0.05, max_delay=0.2)

        async def leave() -> None:  # deal 1's turn is seat 1's (seat 0 dealt, T2.3)
            while asked.paths.count("GET events") < 3:
                await asyncio.sleep(0.05)
            await seats[3].leave()

        leaving = asyncio.create_task(leave())
        versions = [message.version async for message in stream]
        await leaving
        assert stream.end is not None and stream.end.reason == "refused", stream.end
        assert (stream.end.status, (stream.end.problem or {}).get("code")) == (
            404,
            "table_not_found",
        )
    assert versions == list(range(1, len(versions) + 1)), versions
    # a ticket of its own before each connection; the refusal ends the stream at a ticket (the
    # seat had left when it was asked for) or at the connection after it (left in between)
    opening = [p for p in asked.paths if p in ("POST stream-tickets", "GET events")]
    assert opening.count("GET events") >= 3, asked.paths
    alternating = (["POST stream-tickets", "GET events"] * len(opening))[: len(opening)]
    assert opening == alternating, asked.paths


async def test_too_many_streams_is_waited_out_as_retry_after_asks(limited: str) -> None:
    """A 429 ``too_many_streams`` (the address holds its one stream) is not an end: the
    follower waits what its ``Retry-After`` asks for (longer than its own back-off here)
    and opens the stream once the other one is closed, from the first message."""
    loop = asyncio.get_running_loop()
    seen: list[tuple[str, int, float]] = []

    async def sent(request: httpx.Request) -> None:
        if request.url.path.endswith("/events"):
            seen.append(("GET", 0, loop.time()))

    async def answered(response: httpx.Response) -> None:
        if response.status_code == 429:
            seen.append(("429", int(response.headers["retry-after"]), loop.time()))

    hooks = {"request": [sent], "response": [answered]}
    async with httpx.AsyncClient(base_url=limited, event_hooks=hooks) as http:
        seats = await seated(http)
        async with seats[0].events() as holding:
            first = await anext(aiter(holding))
            stream = seats[2].follow(delay=0.01, max_delay=0.01)
            messages = aiter(stream)  # one connection at a time: the address may hold one
            reading = asyncio.create_task(anext(messages))
            while stream.failures == 0:
                await asyncio.sleep(0.01)
            assert not reading.done()
        message = await reading
        assert (first.id, message.version) == ("1", 1)
        async for later in messages:
            if isinstance(later.event, DealDealt):
                assert later.prompt.options is not None  # the seat's own options
                break
    refused = next(i for i, (kind, _, _) in enumerate(seen) if kind == "429")
    _, wait, at = seen[refused]
    following = next(t for kind, _, t in seen[refused + 1 :] if kind == "GET")
    assert wait >= 1 and following - at >= wait * 0.99, seen


def test_retry_after_reads_seconds_and_dates() -> None:
    """RFC 9110 10.2.3: delay-seconds or an HTTP date; anything else is no wait."""
    now = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=7), usegmt=True)
    assert retry_after(httpx.Headers({"retry-after": "3"}), now) == 3.0
    assert retry_after(httpx.Headers({"retry-after": date}), now) == 7.0
    assert retry_after(httpx.Headers({"retry-after": "soon"}), now) is None
    assert retry_after(httpx.Headers({}), now) is None
    assert 0.45 <= backoff(1, 0.5, 30.0) <= 0.55  # doubling, give or take a tenth
    assert 1.8 <= backoff(3, 0.5, 30.0) <= 2.2
    assert 27.0 <= backoff(20, 0.5, 30.0) <= 33.0


async def test_the_retrying_transport_sends_a_command_once_with_one_idempotency_key(
    limited: str,
) -> None:
    """Every POST gets an ``Idempotency-Key``, the same on a retry, so the command sent twice
    is written once: a second sending with the key answers what the first did."""
    keys: list[str | None] = []

    class Noting(httpx.AsyncHTTPTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            keys.append(request.headers.get("idempotency-key"))
            return await super().handle_async_request(request)

    async with httpx.AsyncClient(base_url=limited, transport=RetryingTransport(Noting())) as http:
        table = await DokoClient(http).create_table("keys")
        assert keys[-1] is not None and len(keys[-1]) == 32
        response = await http.post(
            f"{table.path}/seats",
            json={"name": "Anna", "invitation": table.invitation},
            headers={"idempotency-key": "k" * 32},
        )
        again = await http.post(
            f"{table.path}/seats",
            json={"name": "Anna", "invitation": table.invitation},
            headers={"idempotency-key": "k" * 32},
        )
    assert response.status_code == again.status_code == 201
    assert response.json()["seat"] == again.json()["seat"] == 0
