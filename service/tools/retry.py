"""Waiting and trying again as the service asks, for Python clients (README "During a
database outage"; the TypeScript client's `retryingFetch` does the same).

`RetryingTransport` wraps an httpx transport: it sends a request again after a network error,
``429`` (``rate_limited``, ``too_many_streams``), ``502``/``503``/``504``
(``database_unavailable``, a proxy's) and ``409 idempotency_key_in_flight``, a bounded number
of times, waiting what the answer's ``Retry-After`` asks for, else a back-off doubling from
``delay`` up to ``max_delay``. Every POST and DELETE gets an ``Idempotency-Key`` (a random
one, unless the caller sent one), the same for each of its attempts, so that the service
writes a command at most once however many times it was sent (README "Idempotency keys");
GETs are safe to repeat::

    async with httpx.AsyncClient(base_url=url, transport=RetryingTransport()) as http:
        api = DokoClient(http)
"""

from __future__ import annotations

import asyncio
import random
import secrets
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

TRANSIENT = frozenset({429, 502, 503, 504})
"""Statuses the service (or a proxy in front of it) answers before doing anything."""

ATTEMPTS = 5
DELAY = 0.5
MAX_DELAY = 30.0


def retry_after(headers: httpx.Headers, now: datetime | None = None) -> float | None:
    """The wait (seconds) an answer's ``Retry-After`` asks for: delay-seconds or an HTTP
    date; None without one or with one that cannot be read."""
    value = headers.get("retry-after", "").strip()
    if value.isdigit():
        return float(value)
    if not value:
        return None
    try:
        date = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, float((date - (now or datetime.now(UTC))).total_seconds()))


def backoff(failures: int, delay: float = DELAY, max_delay: float = MAX_DELAY) -> float:
    """The wait before attempt ``failures + 1``: ``delay`` doubled for each failure after the
    first, up to ``max_delay``, give or take a tenth (so that many clients do not come back
    at once)."""
    plain = min(delay * 2 ** min(max(0, failures - 1), 32), max_delay)
    return float(plain * random.uniform(0.9, 1.1))


async def _in_flight(response: httpx.Response) -> bool:
    """A ``409 idempotency_key_in_flight``: the same command is still being written."""
    if response.status_code != 409:
        return False
    await response.aread()
    try:
        return bool(response.json().get("code") == "idempotency_key_in_flight")
    except ValueError:
        return False


class RetryingTransport(httpx.AsyncBaseTransport):
    """An httpx transport that tries again as the service asks (the module's comment)."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport | None = None,
        *,
        attempts: int = ATTEMPTS,
        delay: float = DELAY,
        max_delay: float = MAX_DELAY,
    ) -> None:
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.attempts = attempts
        self.delay = delay
        self.max_delay = max_delay

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method in ("POST", "DELETE") and "idempotency-key" not in request.headers:
            request.headers["idempotency-key"] = secrets.token_hex(16)
        attempt = 0
        while True:
            attempt += 1
            last = attempt >= self.attempts
            try:
                response = await self.inner.handle_async_request(request)
            except httpx.TransportError:
                if last:
                    raise
                await asyncio.sleep(backoff(attempt, self.delay, self.max_delay))
                continue
            if last or not (response.status_code in TRANSIENT or await _in_flight(response)):
                return response
            asked = retry_after(response.headers)
            if asked is not None and asked > self.max_delay:
                return response  # longer than a client should hold a request: the caller's
            await response.aclose()
            await asyncio.sleep(max(asked or 0.0, backoff(attempt, self.delay, self.max_delay)))

    async def aclose(self) -> None:
        await self.inner.aclose()
