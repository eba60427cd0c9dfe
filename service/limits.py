"""Rate limits: requests per second per token and per client address, and the access log.

One plain ASGI middleware does both jobs on every HTTP request, because it runs on
every request: a fixed one-second window counted in a dict (the event loop is single
threaded, so no lock is needed), and one access line per request (method, path
without the query string, status, milliseconds) kept by a `service.logs.AccessLog`.

- Each bearer token may send ``per_token`` requests a second, and each client address
  ``per_address`` requests a second, counting all of that address's requests. A
  request beyond either limit is refused with 429 ``rate_limited`` and ``Retry-After``
  (the seconds until the window ends, rounded up: 1). A refused request still counts.
- ``/schema`` (the OpenAPI document) is not limited.
- Streams count once, when they are opened.

The limits are per process: ``doko serve --workers N`` allows N times as much.
"""

from __future__ import annotations

import time
from typing import Any

from litestar.exceptions import TooManyRequestsException
from litestar.types import ASGIApp, Message, Receive, Send

from service.logs import AccessLog

UNLIMITED_PATHS = ("/schema",)
"""Path prefixes that no limit applies to."""


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


def _authorization(scope: Any) -> bytes | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            return bytes(value)
    return None


def guard(per_token: int, per_address: int, log: AccessLog) -> Any:
    """The middleware factory: rate limits and the access log (see the module docstring)."""
    tokens = Counter(per_token)
    addresses = Counter(per_address)

    def admit(scope: Any) -> bool:
        if scope["path"].startswith(UNLIMITED_PATHS):
            return True
        second = int(time.monotonic())
        client = scope.get("client")
        address_ok = addresses.admit(client[0] if client else "", second)
        header = _authorization(scope)
        token_ok = header is None or tokens.admit(header.decode("latin-1"), second)
        return address_ok and token_ok

    def middleware(app: ASGIApp) -> ASGIApp:
        async def handle(scope: Any, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            started = time.perf_counter()
            status = 0

            async def record(message: Message) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = message["status"]
                await send(message)

            try:
                if not admit(scope):
                    status = 429
                    raise TooManyRequestsException(headers={"Retry-After": "1"})
                await app(scope, receive, record)
            finally:
                log.add(scope["method"], scope["path"], status, started)

        return handle

    return middleware
