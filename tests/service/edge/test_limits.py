"""Rate limits and the access log (`service.edge.limits`): the counter's window, the limits per
token (header or query) and per client address through the live app, the lower limit of
the routes that replay a log, /schema limited like every route, one access line per request without
its query string.

The window is a second of the app's clock, which these tests own (`Clock`): a burst
stays in one window however slow the machine is, and the next window starts when the
test moves the clock. Each test's client has an address of its own (127.0.0.2,
127.0.0.3, ...: loopback), so that tests do not share the address's count.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import msgspec
import pytest

from service.app import create_app
from service.edge.auth import new_token
from service.edge.limits import Counter
from service.edge.logs import AccessLine, AccessLog, JsonFormatter
from service.tools.client import DokoClient
from tests.service.conftest import UNLIMITED, Clock, Records, serve, settings
from tests.service.edge.test_errors import assert_problem

PER_TOKEN = 3
PER_ADDRESS = 6
EXPENSIVE = 2
STREAMS = 3
CREATIONS = 2


_addresses = itertools.count(2)


def new_address() -> str:
    """A loopback address no other test uses."""
    return f"127.0.0.{next(_addresses)}"


def client_at(url: str, address: str | None = None) -> httpx.AsyncClient:
    """A client of ``url`` connecting from ``address`` (default: one no other test uses)."""
    address = address or new_address()
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=url, timeout=10.0, transport=transport)


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
async def limited(db_url: str, clock: Clock) -> AsyncIterator[str]:
    """A live server allowing 3 requests a second per token, 6 per address and 2 of the
    routes that replay a log per address, 3 open streams and 2 creations a minute per
    address, its seconds counted on ``clock``."""
    limits = settings(
        db_url,
        rate_per_token=PER_TOKEN,
        rate_per_address=PER_ADDRESS,
        rate_expensive=EXPENSIVE,
        max_streams_per_address=STREAMS,
        rate_creations=CREATIONS,
    )
    async with serve(create_app(limits, rate_clock=clock)) as url:
        yield url


@pytest.fixture
async def client(limited: str, clock: Clock) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the limited server, at an address of its own, in a fresh window."""
    clock.next_window()
    async with client_at(limited) as http:
        yield http


# -- the counter --------------------------------------------------------------------------


def test_counter_admits_the_limit_per_key_and_second() -> None:
    """Each key gets ``limit`` requests in a second; refused requests count too."""
    counter = Counter(2)
    assert [counter.admit("a", 100) for _ in range(4)] == [True, True, False, False]
    assert [counter.admit("b", 100) for _ in range(3)] == [True, True, False]


def test_counter_starts_over_in_a_new_second() -> None:
    """A new window (any other second) forgets every count of the old one."""
    counter = Counter(1)
    assert (counter.admit("a", 7), counter.admit("a", 7)) == (True, False)
    assert counter.admit("b", 7)
    assert (counter.admit("a", 8), counter.admit("a", 8)) == (True, False)
    assert counter.admit("b", 8), "b's count of second 7 is gone"
    assert counter.admit("a", 7), "not an ordered clock: a changed second is a new window"


def test_a_counter_of_a_minute_counts_the_whole_minute_and_says_when_it_ends() -> None:
    """A window of 60 s: seconds 60-119 are one window, 120 starts the next; the seconds
    left are rounded up (at least 1)."""
    counter = Counter(2, 60)
    assert [counter.admit("a", at) for at in (60.0, 90.5, 119.9)] == [True, True, False]
    assert [counter.left(at) for at in (60.0, 90.5, 119.9)] == [60, 30, 1]
    assert counter.admit("a", 120.0), "a new minute"
    assert counter.remaining("a") == 1


# -- the limits through the live app ------------------------------------------------------


async def test_a_token_over_its_limit_is_429_other_tokens_are_not(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """Each bearer token may send 3 requests a second (here): the 4th is 429 ``rate_limited``
    with ``Retry-After: 1``; another token in the same second is served, and the token is
    served again in the next second."""
    statuses = [(await client.get("/health", headers=bearer("t1"))).status_code for _ in range(3)]
    assert statuses == [200] * PER_TOKEN
    limited = await client.get("/health", headers=bearer("t1"))
    assert_problem(limited, 429, "rate_limited")
    assert limited.headers["retry-after"] == "1"
    other = await client.get("/health", headers=bearer("t2"))
    assert other.status_code == 200, other.text
    clock.next_window()
    again = await client.get("/health", headers=bearer("t1"))
    assert again.status_code == 200, again.text


async def test_an_address_over_its_limit_is_429_whatever_its_tokens(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """Each client address may send 6 requests a second (here), counting all its requests,
    with or without a token: the 7th is 429, even with a token that has sent nothing."""
    headers = [bearer("a1"), bearer("a2"), {}, bearer("a3"), {}, bearer("a1")]
    statuses = [(await client.get("/health", headers=h)).status_code for h in headers]
    assert statuses == [200] * PER_ADDRESS
    for h in ({}, bearer("fresh")):
        limited = await client.get("/health", headers=h)
        assert_problem(limited, 429, "rate_limited")
        assert limited.headers["retry-after"] == "1"
    clock.next_window()
    assert (await client.get("/health")).status_code == 200


async def test_limits_apply_to_every_route_and_method(client: httpx.AsyncClient) -> None:
    """Not just /health: a POST and an unknown table's GET count and are refused alike."""
    for _ in range(PER_TOKEN):
        response = await client.get("/tables/none-such", headers=bearer("r1"))
        assert_problem(response, 404, "table_not_found")
    refused = await client.post("/tables", json={"name": "x"}, headers=bearer("r1"))
    assert_problem(refused, 429, "rate_limited")


async def test_the_schema_is_limited_like_every_route(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """No path is left out of the address's limit: the OpenAPI document and its page count
    with the address's other requests, and the 7th request in a second (here) is 429 with
    ``Retry-After``; a conditional request (304) counts too."""
    document = await client.get("/schema/openapi.json")
    tag = document.headers["etag"]
    statuses = [
        document.status_code,
        (await client.get("/schema")).status_code,
        (await client.get("/schema/openapi.json", headers={"If-None-Match": tag})).status_code,
        *[(await client.get("/schema/openapi.json")).status_code for _ in range(3)],
    ]
    assert statuses == [200, 200, 304, 200, 200, 200]
    for path in ("/schema/openapi.json", "/schema", "/health"):
        limited = await client.get(path)
        assert_problem(limited, 429, "rate_limited")
        assert limited.headers["retry-after"] == "1"
    clock.next_window()
    assert (await client.get("/schema/openapi.json")).status_code == 200


async def test_a_token_is_one_key_in_the_header_or_the_query(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """A token sent as ``?token=`` counts with the same token sent as a header (it cannot
    get past its limit by changing where it is sent); what cannot be a token (longer than
    an issued one) shares one key, so endless made-up tokens do not make endless keys."""
    token = new_token()
    statuses = [
        (await client.get(f"/health?token={token}")).status_code,
        (await client.get("/health", headers=bearer(token))).status_code,
        (await client.get(f"/health?token={token}")).status_code,
    ]
    assert statuses == [200] * PER_TOKEN
    assert_problem(await client.get("/health", headers=bearer(token)), 429, "rate_limited")
    assert_problem(await client.get(f"/health?token={token}"), 429, "rate_limited")
    clock.next_window()
    made_up = ["x" * 44 + str(n) for n in range(PER_TOKEN)]
    statuses = [(await client.get("/health", headers=bearer(t))).status_code for t in made_up]
    assert statuses == [200] * PER_TOKEN
    assert_problem(await client.get("/health", headers=bearer("y" * 50)), 429, "rate_limited")


async def test_the_routes_that_replay_a_log_have_a_lower_limit(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """Each address may ask for 2 verifications, replays or exports a second (here), besides
    its 6 requests of any kind; other routes are still served meanwhile."""
    paths = ["/tables/x/deals/1/verification", "/tables/x/deals/1/replay", "/tables/x/export"]
    for path in paths:
        clock.next_window()
        first = [(await client.get(path)).status_code for _ in range(EXPENSIVE)]
        assert first == [404] * EXPENSIVE, path
        assert_problem(await client.get(path), 429, "rate_limited")
        assert (await client.get("/tables/x")).status_code == 404, "other routes are served"


@contextlib.asynccontextmanager
async def held_open(client: httpx.AsyncClient, path: str) -> AsyncIterator[None]:
    """The stream at ``path``, open (its answer's head received: 200) while the block runs."""
    timeout = httpx.Timeout(10.0, read=None)
    async with client.stream("GET", path, timeout=timeout) as response:
        assert response.status_code == 200, path
        yield


async def test_a_tournament_stream_counts_under_the_streams_cap_with_the_others(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """The feed, a table's and a tournament's stream are all streams (the routes say so):
    with 3 open from one address, a 4th, a tournament's, is 429 ``too_many_streams`` with
    ``Retry-After``, while ``/health/live`` answers that address."""
    api = DokoClient(client)
    table = await api.create_table("capped", visibility="public")
    tournament = await api.create_tournament("capped", visibility="public")
    clock.next_window()
    events = f"/tournaments/{tournament.tournament_id}/events"
    async with (
        held_open(client, "/feed"),
        held_open(client, f"/tables/{table.table_id}/events"),
        held_open(client, events),
    ):
        clock.next_window()
        refused = await client.get(events)
        assert_problem(refused, 429, "too_many_streams")
        assert refused.headers["retry-after"] == "1"
        assert (await client.get("/health/live")).status_code == 200


async def test_creations_are_limited_per_address_and_minute(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """A table, a stream ticket and a tournament registration count in one quota of 2 a
    minute (here) per address: the 3rd is 429 ``rate_limited`` with ``Retry-After`` the
    seconds until the minute ends, ``"creations";q=2;w=60`` in ``RateLimit-Policy``; other
    requests are served meanwhile; the next minute it is served."""
    clock.now = (clock.now // 60 + 1) * 60 + 15  # 15 s into a minute of its own
    api = DokoClient(client)
    tournament = await api.create_tournament("creations", visibility="public")  # not one
    created = await client.post("/tables", json={"name": "one", "visibility": "public"})
    assert created.status_code == 201
    assert _items(created.headers["ratelimit-policy"])["creations"] == {"q": CREATIONS, "w": 60}
    assert _items(created.headers["ratelimit"])["creations"] == {"r": CREATIONS - 1, "t": 45}
    table_id = created.json()["table_id"]
    token = created.json()["host_token"]
    ticket = await client.post(f"/tables/{table_id}/stream-tickets", headers=bearer(token))
    assert ticket.status_code == 201
    clock.next_window()
    refused = await client.post(
        f"/tournaments/{tournament.tournament_id}/players", json={"name": "Anna"}
    )
    assert_problem(refused, 429, "rate_limited")
    assert refused.headers["retry-after"] == "44"
    assert _items(refused.headers["ratelimit"])["creations"] == {"r": 0, "t": 44}
    assert (await client.get(f"/tables/{table_id}")).status_code == 200, "others are served"
    clock.now += 60
    await tournament.register("Anna")


def _items(field: str) -> dict[str, dict[str, int]]:
    """A RateLimit or RateLimit-Policy field (a Structured Fields list of strings with
    integer parameters) as {name: {parameter: value}}."""
    found: dict[str, dict[str, int]] = {}
    for member in field.split(","):
        name, *parameters = member.strip().split(";")
        assert name.startswith('"') and name.endswith('"'), field
        found[name.strip('"')] = {k: int(v) for k, v in (p.split("=") for p in parameters)}
    return found


async def test_every_answer_says_what_is_left_of_its_quotas(
    client: httpx.AsyncClient, clock: Clock
) -> None:
    """draft-ietf-httpapi-ratelimit-headers: ``RateLimit-Policy`` names the quotas that
    counted the request (per address; per token when it sent one; on the routes that replay
    a log), ``RateLimit`` what is left of each in this one-second window; the 429 has them
    too, the quota it broke at 0, beside ``Retry-After``."""
    first = await client.get("/health")
    assert _items(first.headers["ratelimit-policy"]) == {"address": {"q": PER_ADDRESS, "w": 1}}
    assert _items(first.headers["ratelimit"]) == {"address": {"r": PER_ADDRESS - 1, "t": 1}}
    token = await client.get("/tables/none-such", headers=bearer("q1"))
    assert _items(token.headers["ratelimit-policy"]) == {
        "address": {"q": PER_ADDRESS, "w": 1},
        "token": {"q": PER_TOKEN, "w": 1},
    }
    assert _items(token.headers["ratelimit"]) == {
        "address": {"r": PER_ADDRESS - 2, "t": 1},
        "token": {"r": PER_TOKEN - 1, "t": 1},
    }
    costly = await client.get("/tables/x/export")
    assert _items(costly.headers["ratelimit-policy"])["expensive"] == {"q": EXPENSIVE, "w": 1}
    assert _items(costly.headers["ratelimit"])["expensive"] == {"r": EXPENSIVE - 1, "t": 1}
    for _ in range(PER_ADDRESS - 3):
        await client.get("/health")
    limited = await client.get("/health")
    assert_problem(limited, 429, "rate_limited")
    assert limited.headers["retry-after"] == "1"
    assert _items(limited.headers["ratelimit"]) == {"address": {"r": 0, "t": 1}}
    clock.next_window()
    again = await client.get("/health")
    assert _items(again.headers["ratelimit"]) == {"address": {"r": PER_ADDRESS - 1, "t": 1}}


async def test_a_page_of_an_allowed_origin_may_read_the_conventions_headers(
    db_url: str,
) -> None:
    """CORS: ETag, Location, Retry-After, the RateLimit fields and WWW-Authenticate are not
    safelisted, so they are exposed to the allowed origins (Access-Control-Expose-Headers),
    on the application's answers and on the limits' refusals."""
    origin = "https://front.example"
    app = create_app(settings(db_url, cors_origins=(origin,), rate_per_address=1))
    async with serve(app) as url, client_at(url) as http:
        answered = await http.get("/health", headers={"origin": origin})
        refused = await http.get("/health", headers={"origin": origin})
    assert refused.status_code == 429
    for response in (answered, refused):
        exposed = {
            h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")
        }
        assert exposed >= {
            "etag",
            "location",
            "retry-after",
            "ratelimit",
            "ratelimit-policy",
            "www-authenticate",
        }


class AccessRecords(Records):
    """The records of ``doko.access``."""

    def lines(self, since: float = 0.0) -> list[AccessLine]:
        """The access lines logged so far of requests that ended ``since`` (``time.time()``)
        or later, in order (a record carries a batch of them). Other live servers of this
        module flush their earlier requests' lines to the same logger meanwhile."""
        return [
            line
            for r in self.records
            for line in r.batch  # type: ignore[attr-defined]
            if line.ended >= since
        ]


@pytest.fixture
def access() -> Iterator[AccessRecords]:
    """Records ``doko.access`` at INFO while the test runs."""
    with AccessRecords().attached("doko.access") as records:
        yield records  # type: ignore[misc]


async def test_one_access_line_per_request_without_the_query_string(
    db_url: str, access: AccessRecords
) -> None:
    """Every request gets one access line on ``doko.access``: the client's address, method,
    path without the query string (which may carry a token), the status sent and the
    milliseconds taken; refused
    (429) and failed (404) requests included. Lines still kept when the server stops are
    logged then."""
    app = create_app(
        settings(db_url, rate_per_token=1, rate_per_address=UNLIMITED), rate_clock=Clock()
    )
    secret = new_token()
    address = new_address()
    async with serve(app) as url, client_at(url, address) as http:
        started = time.time()
        sent = [
            await http.get(f"/health?token={secret}"),
            await http.get("/tables/none-such?x=1"),
            await http.post("/tables", json={"name": "logged"}),
            await http.get("/health", headers=bearer(secret)),
            await http.get(f"/tables/none-such?token={secret}&x=1"),
        ]
    ended = time.time()
    assert [r.status_code for r in sent] == [200, 404, 201, 429, 429]
    lines = access.lines(since=started)
    assert [(line.method, line.path, line.status) for line in lines] == [
        ("GET", "/health", 200),
        ("GET", "/tables/none-such", 404),
        ("POST", "/tables", 201),
        ("GET", "/health", 429),
        ("GET", "/tables/none-such", 429),
    ]
    for line in lines:
        assert line.client == address
        assert 0 <= line.ms < 10_000
        assert started <= line.ended <= ended
        assert secret not in repr(line) and "?" not in line.path
    formatted = "\n".join(JsonFormatter().format(r) for r in access.records)
    assert secret not in formatted


async def test_requests_no_route_serves_are_logged_and_limited(
    db_url: str, access: AccessRecords
) -> None:
    """Every request counts and is logged, also one for a path no route serves (404) or with
    a method the path does not allow (405): "each client address ``per_address`` requests a
    second, counting all of that address's requests", "one access line per request"."""
    app = create_app(
        settings(db_url, rate_per_token=UNLIMITED, rate_per_address=2), rate_clock=Clock()
    )
    async with serve(app) as url, client_at(url) as http:
        started = time.time()
        sent = [
            await http.get("/nowhere?token=secret"),
            await http.delete("/health"),
            await http.get("/nowhere"),
            await http.get("/health"),
        ]
    assert [(line.method, line.path, line.status) for line in access.lines(started)] == [
        ("GET", "/nowhere", 404),
        ("DELETE", "/health", 405),
        ("GET", "/nowhere", 429),
        ("GET", "/health", 429),
    ]
    assert [r.status_code for r in sent] == [404, 405, 429, 429]


async def test_a_running_server_logs_its_access_lines_without_being_asked(
    base_url: str, access: AccessRecords
) -> None:
    """A running server logs a request's line by itself (its `AccessLog` flushes
    periodically), though far fewer lines than the batch limit were kept."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10.0) as http:
        started = time.time()
        assert (await http.get("/health?soon=1")).status_code == 200
        async with asyncio.timeout(30):  # a safety net only: the flush is periodic
            while not access.lines(started):
                await asyncio.sleep(0.02)
    assert [(line.method, line.path, line.status) for line in access.lines(started)] == [
        ("GET", "/health", 200)
    ]


async def test_the_access_log_flushes_every_interval(access: AccessRecords) -> None:
    """`AccessLog.run` logs what is kept every ``interval`` seconds (half a second in the
    service; a hundredth here), and once more when it is stopped."""
    log = AccessLog(interval=0.01, limit=1000)
    running = asyncio.create_task(log.run())
    try:
        log.add("192.0.2.7", "GET", "/first", 200, time.perf_counter())
        async with asyncio.timeout(30):
            while not access.lines():
                await asyncio.sleep(0.005)
        assert [line.path for line in access.lines()] == ["/first"]
        log.add("192.0.2.7", "GET", "/last", 200, time.perf_counter())
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
    assert [line.path for line in access.lines()] == ["/first", "/last"]


def test_a_batch_is_formatted_as_one_json_line_per_request(
    access: AccessRecords,
) -> None:
    """`AccessLog` keeps lines until `flush` (or until ``limit`` are kept) and logs them as
    one record; `JsonFormatter` writes that record as one JSON object a line, a request
    each. Nothing is kept while ``doko.access`` is not logging INFO."""
    log = AccessLog(limit=3)
    logging.getLogger("doko.access").setLevel(logging.WARNING)
    log.add("192.0.2.7", "GET", "/health", 200, time.perf_counter())
    log.flush()
    assert access.lines() == []
    logging.getLogger("doko.access").setLevel(logging.INFO)
    log.add("192.0.2.7", "GET", "/a", 200, time.perf_counter())
    log.add("192.0.2.7", "POST", "/b", 409, time.perf_counter())
    assert access.lines() == [], "kept, not logged yet"
    log.add("192.0.2.7", "GET", "/c", 429, time.perf_counter())  # the third: the limit flushes
    records = access.records
    assert len(records) == 1
    text = JsonFormatter().format(records[0])
    objects = [msgspec.json.decode(line) for line in text.split("\n")]
    assert [(o["method"], o["path"], o["status"]) for o in objects] == [
        ("GET", "/a", 200),
        ("POST", "/b", 409),
        ("GET", "/c", 429),
    ]
    for o in objects:
        assert set(o) == {
            *("time", "level", "logger", "message"),
            *("client", "method", "path", "status", "ms"),
        }
        assert o["client"] == "192.0.2.7"
        assert (o["logger"], o["level"], o["message"]) == ("doko.access", "info", "request")
    log.flush()
    assert len(access.records) == 1, "nothing was kept"
