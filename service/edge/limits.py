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
- The routes that leave something behind (a table, a stream ticket, a tournament's player:
  those marked `Limited.CREATES`) cost more than a request too: each client address may
  send ``creations`` of them a minute (``"creations"``, a window of `CREATIONS_WINDOW`
  seconds), on top of the other limits; beyond, 429 ``rate_limited`` with ``Retry-After``
  the seconds until that window ends.
- Streams count once, when they are opened. Which routes are streams is the routes' own word
  (``opt`` `limited` `Limited.STREAM`: the feed, a table's and a tournament's events), not a
  list of paths. Each client address may hold ``streams_per_address`` streams open at once:
  one more is refused with 429 ``too_many_streams`` and ``Retry-After`` (a client holding
  every stream would otherwise hold every connection of the process).
- At most ``stream_opens`` streams are being opened at once (their authorization and the
  reads before the answer begins, which take database connections); one more waits for
  its turn up to ``open_wait`` seconds, then is refused with 429 ``streams_busy`` and
  ``Retry-After``: a burst of opens queues or is refused, and leaves the rest of the pool
  to the other requests, instead of answering 503 ``database_unavailable`` to them and to
  itself.
- A request on a connection of the health reserve (`service.edge.http.HEALTH_ONLY`: the
  process holds as many connections as it may) is served only for the health paths;
  any other is refused with 503 ``too_many_connections`` and ``Retry-After``.

Every refusal is counted in `service.edge.refusals.REFUSALS` (one log line an
interval); each refused request also has its access line.

Every answer to a request the limits counted says where its client stands, in the fields
of the IETF draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers):
``RateLimit-Policy`` lists the quota policies that counted the request (``"address"``:
``per_address`` a second; ``"token"``: ``per_token`` a second, when it sent a token;
``"expensive"``: ``expensive`` a second on the routes that replay a log; ``"creations"``:
``creations`` a minute on the routes that leave something behind), each as
``"name";q=QUOTA;w=WINDOW``, and ``RateLimit`` what is left of each in the current window, as
``"name";r=REMAINING;t=SECONDS`` (the seconds until the window ends). A 429 ``rate_limited``
has them too (the policy it broke at ``r=0``), with ``Retry-After``.

A request that the service's stop cuts off (``stopping()`` says it stops, and the server
cancels what still runs after its share of the bound, `service.edge.shutdown`) is answered
503 ``unavailable`` with ``Retry-After`` if its answer had not begun (instead of uvicorn's
plain-text 500), and has its access line; its cancellation ends there.

The window is a second of ``clock()`` (`time.monotonic` unless the app was given another,
as tests do). The limits are per process: ``doko serve --workers N`` allows N times as much.
"""

from __future__ import annotations

import asyncio
import enum
import math
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import msgspec
from litestar import Litestar
from litestar.exceptions import MethodNotAllowedException, NotFoundException
from litestar.types import ASGIApp, Message, Receive, Send
from litestar.utils import normalize_path

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
    expensive routes; the creations a minute per client address; the streams a client
    address may hold open; the streams being opened at once, and how long one more waits."""

    per_token: int
    per_address: int
    expensive: int
    streams_per_address: int = 100
    creations: int = 60
    stream_opens: int = 4
    open_wait: float = 1.5


CREATIONS_WINDOW = 60
"""The window of the ``"creations"`` quota, in seconds."""


class Limited(enum.Enum):
    """What a route holds or leaves behind beyond its request, the limit that counts it: the
    route says so in its ``opt`` (`limited`)."""

    STREAM = "stream"
    """An event stream: held open (``streams_per_address``, ``stream_opens``)."""
    CREATES = "creates"
    """Leaves something behind: a table, a stream ticket, a tournament's player
    (``creations``)."""


LIMITED = "limited"
"""The key of a route's ``opt`` that holds its `Limited`."""


def limited(kind: Limited) -> dict[str, Limited]:
    """A route's ``opt`` that puts it under ``kind``'s limit."""
    return {LIMITED: kind}


Classify = Callable[[str, str], "Limited | None"]
"""``classify(path, method)``: the limit of the route that serves the request, if any."""


def classifier(app: Litestar) -> Classify:
    """How ``app``'s routes are limited: the `Limited` in the ``opt`` of the route that
    serves a path and method (litestar's own routing), None for the others and for a path or
    method no route serves."""
    route = app.asgi_router.handle_routing

    def classify(path: str, method: str) -> Limited | None:
        try:
            handler = route(path=normalize_path(path), method=method)[1]
        except (NotFoundException, MethodNotAllowedException):
            return None
        kind: Limited | None = handler.opt.get(LIMITED)
        return kind

    return classify


def unlimited(_path: str, _method: str) -> Limited | None:
    """No route is a stream or a creation (a guard without routes to ask)."""
    return None


class Counter:
    """Requests per key in the current window of ``window`` seconds."""

    def __init__(self, limit: int, window: int = 1) -> None:
        self.limit = limit
        self.window = window
        self._slot = 0
        self._counts: dict[str, int] = {}

    def admit(self, key: str, now: float) -> bool:
        """Count one request of ``key`` at ``now``; False once the key is over the limit."""
        slot = int(now // self.window)
        if slot != self._slot:
            self._slot = slot
            self._counts = {}
        count = self._counts.get(key, 0) + 1
        self._counts[key] = count
        return count <= self.limit

    def remaining(self, key: str) -> int:
        """How many more requests ``key`` may send in the current window."""
        return max(0, self.limit - self._counts.get(key, 0))

    def left(self, now: float) -> int:
        """The seconds until the current window ends, rounded up (at least 1)."""
        return max(1, math.ceil(self.window - now % self.window))


WINDOW = 1
"""The window of the per-second quotas, in seconds (RateLimit ``w`` and, at most, ``t``)."""


Quota = tuple[str, int, int]
"""A quota policy: its name, its quota, its window in seconds."""
Left = tuple[str, int, int]
"""Where a client stands in a policy: its name, the requests left, the seconds until the
window ends."""


def policy_field(policies: list[Quota]) -> bytes:
    """``RateLimit-Policy`` for these policies."""
    return ", ".join(f'"{name}";q={quota};w={window}' for name, quota, window in policies).encode()


def limit_field(remaining: list[Left]) -> bytes:
    """``RateLimit`` for these policies."""
    return ", ".join(f'"{name}";r={left};t={ends}' for name, left, ends in remaining).encode()


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


class Refusal(msgspec.Struct, frozen=True):
    """Why a request is refused: its status, code, detail and ``Retry-After`` seconds."""

    status: int
    code: str
    detail: str | None = None
    retry: int = 1


def _refused(
    refusal: Refusal,
    path: str,
    origin: bytes | None,
    origins: frozenset[bytes],
    rate: list[tuple[bytes, bytes]],
) -> tuple[Any, Any]:
    """A refusal's problem+json answer (start and body messages) with its ``Retry-After``
    and the ``rate`` headers, readable cross-origin by the allowed origins as every other
    answer is."""
    detail = refusal.detail or refusal.code.replace("_", " ")
    body = msgspec.json.encode(problem_of(refusal.status, refusal.code, detail, path))
    headers = [
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(refusal.retry).encode()),
        *rate,
    ]
    if origin is not None and (origin in origins or b"*" in origins):
        headers += [
            (b"access-control-allow-origin", origin),
            (b"access-control-expose-headers", ", ".join(EXPOSED).encode()),
            (b"vary", b"Origin"),
        ]
    start = {"type": "http.response.start", "status": refusal.status, "headers": headers}
    return start, {"type": "http.response.body", "body": body}


STOPPING = Refusal(503, "unavailable", "the service is stopping: send the request again")
BUSY = Refusal(
    429,
    "streams_busy",
    "streams are being opened faster than the service serves them: try again",
)


def guard(
    app: ASGIApp,
    limits: Limits,
    log: AccessLog,
    cors_origins: tuple[str, ...] = (),
    clock: Callable[[], float] = time.monotonic,
    stopping: Callable[[], bool] = lambda: False,
    classify: Classify = unlimited,
) -> ASGIApp:
    """``app`` behind the rate limits and the access log (see the module docstring);
    ``classify`` tells which routes are streams and which create (`classifier`).

    It wraps the whole application (`Litestar.asgi_handler`), so that requests for no
    route (404, 405) are counted and logged too.
    """
    tokens = Counter(limits.per_token)
    addresses = Counter(limits.per_address)
    expensive = Counter(limits.expensive)
    creations = Counter(limits.creations, CREATIONS_WINDOW)
    opening = asyncio.Semaphore(limits.stream_opens)
    origins = frozenset(o.encode() for o in cors_origins)
    streams: dict[str, int] = {}  # open streams per client address
    policies = {  # (a token sent, an expensive route, a creation) -> RateLimit-Policy
        (token, costly, creates): policy_field(
            [
                ("address", limits.per_address, WINDOW),
                *([("token", limits.per_token, WINDOW)] if token else []),
                *([("expensive", limits.expensive, WINDOW)] if costly else []),
                *([("creations", limits.creations, CREATIONS_WINDOW)] if creates else []),
            ]
        )
        for token in (False, True)
        for costly in (False, True)
        for creates in (False, True)
    }

    def refusal(scope: Any, address: str, kind: Limited | None) -> tuple[Refusal | None, list[Any]]:
        """Why the request is refused (None if it is admitted), and the RateLimit headers of
        its answer (none if the limits did not count it)."""
        path = scope["path"]
        if scope.get(HEALTH_ONLY) and path not in HEALTH_PATHS:
            return Refusal(503, "too_many_connections"), []
        now = clock()
        admitted = addresses.admit(address, now)
        left = [("address", addresses.remaining(address), WINDOW)]
        retry = 1
        costly = path.endswith(EXPENSIVE_PATHS)
        if costly:
            admitted = expensive.admit(address, now) and admitted
            left.append(("expensive", expensive.remaining(address), WINDOW))
        creates = kind is Limited.CREATES
        if creates:
            allowed = creations.admit(address, now)
            ends = creations.left(now)
            left.append(("creations", creations.remaining(address), ends))
            if not allowed:  # its window is the longest: the one to wait for
                admitted, retry = False, ends
        key = token_key(scope)
        if key is not None:
            admitted = tokens.admit(key, now) and admitted
            left.insert(1, ("token", tokens.remaining(key), WINDOW))
        rate = [
            (b"ratelimit-policy", policies[key is not None, costly, creates]),
            (b"ratelimit", limit_field(left)),
        ]
        if not admitted:
            return Refusal(429, "rate_limited", retry=retry), rate
        if kind is Limited.STREAM and streams.get(address, 0) >= limits.streams_per_address:
            return Refusal(429, "too_many_streams"), rate
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
        kind = classify(scope["path"], scope["method"])
        refused, rate = refusal(scope, address, kind)
        if refused is not None:
            status = refused.status
        held = False  # a turn of `opening`, until the stream's answer begins

        async def record(message: Message) -> None:
            nonlocal status, answered, held
            if message["type"] == "http.response.start":
                status, answered = message["status"], True
                if held:
                    held = False
                    opening.release()
                if rate:
                    message = {**message, "headers": [*message.get("headers", ()), *rate]}
            await send(message)

        async def turn() -> bool:
            """Whether a turn to open a stream came within ``open_wait`` seconds."""
            try:
                async with asyncio.timeout(limits.open_wait):
                    await opening.acquire()
            except TimeoutError:
                return False
            return True

        try:
            if refused is None and kind is Limited.STREAM:
                streams[address] = streams.get(address, 0) + 1
                try:
                    held = await turn()
                    if held:
                        await app(scope, receive, record)
                    else:
                        refused = BUSY
                        status = refused.status
                finally:
                    if held:
                        held = False
                        opening.release()
                    streams[address] -= 1
                    if not streams[address]:
                        del streams[address]
            elif refused is None:
                await app(scope, receive, record)
            if refused is not None:
                REFUSALS.count(refused.code, address)
                origin = _header(scope, b"origin")
                for message in _refused(refused, scope["path"], origin, origins, rate):
                    await send(message)
        except asyncio.CancelledError:
            if answered or not stopping():
                raise
            origin = _header(scope, b"origin")
            cut = _refused(STOPPING, scope["path"], origin, origins, [])
            for message in cut:
                await record(message)  # cut off by the stop: the request ends here
        finally:
            log.add(address, scope["method"], scope["path"], status, started)

    return handle
