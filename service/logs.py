"""Structured logs: one JSON object a line. Never a token, a hand or a query string."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from litestar.types import ASGIApp, Message, Receive, Send

access = logging.getLogger("doko.access")


class JsonFormatter(logging.Formatter):
    """Formats a record as a JSON object with time, level, logger, message and extras."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def log_config(level: str) -> dict[str, Any]:
    """A logging configuration for uvicorn and doko: JSON lines on stderr."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json"}},
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "doko": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
        },
    }


def access_log(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: one access line per HTTP request (method, path, status, ms)."""

    async def middleware(scope: Any, receive: Receive, send: Send) -> None:
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
            await app(scope, receive, record)
        finally:
            fields = {
                "method": scope["method"],
                "path": scope["path"],
                "status": status,
                "ms": round((time.perf_counter() - started) * 1000, 2),
            }
            access.info("request", extra={"fields": fields})

    return middleware
