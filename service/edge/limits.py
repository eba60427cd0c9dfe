"""Rate limits: requests per second per token and per client address, open streams per
client address, and the access log.

One plain ASGI middleware does these jobs on every HTTP request, because it runs on
every request: a fixed one-second window counted in a dict (the event loop is single
threaded, so no lock is needed), and one access line per request (client address, method, path
without the query string, status, milliseconds) kept by a `service.edge.logs.AccessLog`.

- Each bearer token may send ``per_token`` requests a second, and each client address
  ``per_address`` requests a second, counting all of that address's requests. A token
  counts as the same key whether it comes in the ``Authorization`` header or, on the
  event streams, in the ``token`` query parameter; what cannot be a token (longer than
  any issued one, or with other characters: see `service.edge.auth.TOKEN`) counts under one
  shared key. A request beyond either limit is refused with 429 ``rate_limited`` and
  ``Retry-After`` (the seconds until the window ends, rounded up: 1). A refused request
  still counts.
- The routes that replay a table's log (a deal's verification, replay and review, the export)
  cost far more than the others: each client address may send ``expensive`` of them a
  second, on top of the other limits.
- No route is left out: the limits count every request the server reads, whatever its
  path (the OpenAPI document and its page at ``/schema`` included, a path no route serves
  too).
- Streams count once, when they are opened. Each client address may hold
  ``streams_per_address`` streams (``/feed``, ``/tables/{id}/events``) open at once: one
  more is refused with 429 ``too_many_streams`` and ``Retry-After`` (a client holding
  every stream would otherwise hold every connection of the process).
- A request on a connection of the health reserve (`service.edge.http.HEALTH_ONLY`: the
  process holds as many connections as it may) is served only for the health paths;
  any other is refused with 503 ``too_many_connections`` and ``Retry-After``.

Every refusal is counted in `service.edge.refusals.REFUSALS` (one log line an
interval); each refused request also has its access line.

Every answer to a request the limits counted says where its client stands, in the fields
of the IETF draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers):
``RateLimit-Policy`` lists the quota policies that counted the request (``"address"``:
``per_address`` a second; ``"token"``: ``per_token`` a second, when it sent a token;
``"expensive"``: ``expensive`` a second on the routes that replay a log), each as
``"name";q=QUOTA;w=1``, and ``RateLimit`` what is left of each in the current window, as
``"name";r=REMAINING;t=1`` (the window ends within a second). A 429 ``rate_limited`` has
them too (the policy it broke at ``r=0``), with ``Retry-After``.

A request that the service's stop cuts off (``stopping()`` says it stops, and the server
cancels what still runs after its share of the bound, `service.edge.shutdown`) is answered
503 ``unavailable`` with ``Retry-After`` if its answer had not begun (instead of uvicorn's
plain-text 500), and has its access line; its cancellation ends there.

The window is a second of ``clock()`` (`time.monotonic` unless the app was given another,
as tests do). The limits are per process: ``doko serve --workers N`` allows N times as much.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import msgspec
from litestar.types import ASGIApp, Message, Receive, Send

from service.edge.auth import TOKEN
from service.edge.http import HEALTH_ONLY
from service.edge.logs import AccessLog
from service.edge.problems import PROBLEM_JSON, problem_of
from service.edge.refusals import REFUSALS

EXPENSIVE_PATHS = ("/verification", "/replay", "/export", "/review")
"""Path endings of the routes that replay a table's log (a review also searches it)."""

HEALTH_PATHS = frozenset({"/health", "/health/live", "/health/ready"})
"""The paths a connection of the health reserve is served for."""

EXPOSED = ("ETag", "Location", "Retry-After", "RateLimit", "RateLimit-Policy", "WWW-Authenticate")
"""The response headers a page of an allowed origin may read (CORS ``Access-Control-Expose-
Headers``: besides the safelisted ones, such as ``Cache-Control`` and ``Content-Type``)."""

NOT_A_TOKEN = "(not a token)"
"""The one key of everything sent as a token that cannot be one."""


class Limits(msgspec.Struct, frozen=True):
    """Requests a second: per token, per client address, and per client address on the
    expensive routes; and the streams a client address may hold open."""

    per_token: int
    per_address: int
    expensive: int
    streams_per_address: int = 100


def is_stream(path: str) -> bool:
    """Whether ``path`` is an event stream's: the feed, or a table's events."""
    return path == "/feed" or (path.startswith("/tables/") and path.endswith("/events"))


class Counter:
    """Requests per key in the current one-second window."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._second = 0
        self._counts: dict[str, int] = {}

    def admit(self, key: str, second: int) -> bool:
        """Count one request of ``key`` in ``second``; False once the key is over the limit."""
        if second != self._second:
            self._second = second
            self._counts = {}
        count = self._counts.get(key, 0) + 1
        self._counts[key] = count
        return count <= self.limit

    def remaining(self, key: str) -> int:
        """How many more requests ``key`` may send in the current window."""
        return max(0, self.limit - self._counts.get(key, 0))


WINDOW = 1
"""The window of every quota, in seconds (RateLimit ``w`` and, at most, ``t``)."""


def policy_field(policies: list[tuple[str, int]]) -> bytes:
    """``RateLimit-Policy`` for these (name, quota) policies."""
    return ", ".join(f'"{name}";q={quota};w={WINDOW}' for name, quota in policies).encode()


def limit_field(remaining: list[tuple[str, int]]) -> bytes:
    """``RateLimit`` for these (name, remaining) policies: each window ends within `WINDOW`."""
    return ", ".join(f'"{name}";r={left};t={WINDOW}' for name, left in remaining).encode()


def _header(scope: Any, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


def token_key(scope: Any) -> str | None:
    """The rate-limit key of the request's token (header or query), None without one."""
    header = _header(scope, b"authorization")
    if header is not None:
        token = header.decode("latin-1").partition(" ")[2].strip()
    elif b"token=" in scope["query_string"]:
        sent = parse_qs(scope["query_string"].decode("latin-1")).get("token")
        if not sent:
            return None
        token = sent[-1]
    else:
        return None
    return token if TOKEN.fullmatch(token) else NOT_A_TOKEN


def _refused(
    status: int,
    code: str,
    path: str,
    origin: bytes | None,
    origins: frozenset[bytes],
    rate: list[tuple[bytes, bytes]],
    detail: str | None = None,
) -> tuple[Any, Any]:
    """A refusal's problem+json answer (start and body messages) with ``Retry-After: 1`` and
    the ``rate`` headers, readable cross-origin by the allowed origins as every other answer
    is."""
    detail = detail or code.replace("_", " ")
    body = msgspec.json.encode(problem_of(status, code, detail, path))
    headers = [
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", b"1"),
        *rate,
    ]
    if origin is not None and (origin in origins or b"*" in origins):
        headers += [
            (b"access-control-allow-origin", origin),
            (b"access-control-expose-headers", ", ".join(EXPOSED).encode()),
            (b"vary", b"Origin"),
        ]
    start = {"type": "http.response.start", "status": status, "headers": headers}
    return start, {"type": "http.response.body", "body": body}


def guard(
    app: ASGIApp,
    limits: Limits,
    log: AccessLog,
    cors_origins: tuple[str, ...] = (),
    clock: Callable[[], float] = time.monotonic,
    stopping: Callable[[], bool] = lambda: False,
) -> ASGIApp:
    """``app`` behind the rate limits and the access log (see the module docstring).

    It wraps the whole application (`Litestar.asgi_handler`), so that requests for no
    route (404, 405) are counted and logged too.
    """
    tokens = Counter(limits.per_token)
    addresses = Counter(limits.per_address)
    expensive = Counter(limits.expensive)
    origins = frozenset(o.encode() for o in cors_origins)
    streams: dict[str, int] = {}  # open streams per client address
    policies = {  # (a token sent, an expensive route) -> RateLimit-Policy
        (token, costly): policy_field(
            [
                ("address", limits.per_address),
                *([("token", limits.per_token)] if token else []),
                *([("expensive", limits.expensive)] if costly else []),
            ]
        )
        for token in (False, True)
        for costly in (False, True)
    }

    def refusal(scope: Any, address: str) -> tuple[tuple[int, str] | None, list[Any]]:
        """Why the request is refused (status, code; None if it is admitted), and the
        RateLimit headers of its answer (none if the limits did not count it)."""
        path = scope["path"]
        if scope.get(HEALTH_ONLY) and path not in HEALTH_PATHS:
            return (503, "too_many_connections"), []
        second = int(clock())
        admitted = addresses.admit(address, second)
        left = [("address", addresses.remaining(address))]
        costly = path.endswith(EXPENSIVE_PATHS)
        if costly:
            admitted = expensive.admit(address, second) and admitted
            left.append(("expensive", expensive.remaining(address)))
        key = token_key(scope)
        if key is not None:
            admitted = tokens.admit(key, second) and admitted
            left.insert(1, ("token", tokens.remaining(key)))
        rate = [
            (b"ratelimit-policy", policies[key is not None, costly]),
            (b"ratelimit", limit_field(left)),
        ]
        if not admitted:
            return (429, "rate_limited"), rate
        if is_stream(path) and streams.get(address, 0) >= limits.streams_per_address:
            return (429, "too_many_streams"), rate
        return None, rate

    async def handle(scope: Any, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # unless the application answers
        answered = False
        client = scope.get("client")
        address = client[0] if client else ""

        refused, rate = refusal(scope, address)
        if refused is not None:
            status = refused[0]

        async def record(message: Message) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status, answered = message["status"], True
                if rate:
                    message = {**message, "headers": [*message.get("headers", ()), *rate]}
            await send(message)

        try:
            if refused is not None:
                REFUSALS.count(refused[1], address)
                origin = _header(scope, b"origin")
                for message in _refused(*refused, scope["path"], origin, origins, rate):
                    await send(message)
            elif is_stream(scope["path"]):
                streams[address] = streams.get(address, 0) + 1
                try:
                    await app(scope, receive, record)
                finally:
                    streams[address] -= 1
                    if not streams[address]:
                        del streams[address]
            else:
                await app(scope, receive, record)
        except asyncio.CancelledError:
            if answered or not stopping():
                raise
            origin = _header(scope, b"origin")
            detail = "the service is stopping: send the request again"
            cut = _refused(503, "unavailable", scope["path"], origin, origins, [], detail)
            for message in cut:
                await record(message)  # cut off by the stop: the request ends here
        finally:
            log.add(address, scope["method"], scope["path"], status, started)

    return handle
