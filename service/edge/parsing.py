"""Strict parsing of the numbers clients send: table versions in entity tags (If-Match,
If-None-Match), stream cursors (Last-Event-ID), and numbers in query strings.

A number is ASCII digits only (no sign, no exponent, no ``²``, no other script's digits)
and within the range of the column it is compared with: a table version is a PostgreSQL
``integer``, a global position a ``bigint``. Anything else is a 400
``malformed_request``: it could never name a version or an event, and a number past
the column's range would fail in the database instead.
"""

from __future__ import annotations

import re
from typing import Any

from litestar import Request

from service.edge.problems import ServiceError

MAX_VERSION = 2**31 - 1
"""The largest table version (``events.version`` is an ``integer``)."""
MAX_POSITION = 2**63 - 1
"""The largest global position (``events.position`` is a ``bigint``)."""
MAX_TAGS = 32
"""The most entity tags an If-None-Match may list."""

_ENTITY_TAG = re.compile(r'(?:W/)?"([\x21\x23-\x7e]*)"|([0-9]+)')
"""An entity tag (RFC 9110 8.8.3; its opaque part in visible ASCII), or a bare number."""


def number(text: str, limit: int) -> int | None:
    """``text`` as a number of ASCII digits not above ``limit``, else None."""
    if not (0 < len(text) <= len(str(limit)) and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= limit else None


def _malformed(detail: str) -> ServiceError:
    return ServiceError(400, "malformed_request", detail)


def _tag(text: str, header: str) -> int | None:
    """The table version an entity tag names (``"12"``, ``W/"12"`` or ``12``); None for
    an opaque tag that is not a number (another server's: it matches no version)."""
    match = _ENTITY_TAG.fullmatch(text)
    if match is None:
        raise _malformed(f'{header} takes entity tags, e.g. "12"')
    opaque = match[1] if match[1] is not None else match[2]
    if not opaque.isdigit():
        return None
    version = number(opaque, MAX_VERSION)
    if version is None:
        raise _malformed(f"{header}: a table version is at most {MAX_VERSION}")
    return version


def expected_version(header: str | None) -> int | None:
    """The table version an If-Match header names (``"12"``, ``W/"12"`` or ``12``); None
    without the header or for ``*`` (any version)."""
    if header is None or header.strip() == "*":
        return None
    version = _tag(header.strip(), "If-Match")
    if version is None:
        raise _malformed('If-Match takes the table version you expect, e.g. "12"')
    return version


def entity_tags(header: str | None) -> list[str]:
    """The entity tags an If-None-Match header lists, as sent (at most `MAX_TAGS`)."""
    tags = [t.strip() for t in header.split(",")] if header is not None else []
    if len(tags) > MAX_TAGS:
        raise _malformed(f"If-None-Match lists at most {MAX_TAGS} entity tags")
    return tags


class NoneMatch:
    """An If-None-Match header: ``*`` or the table versions it names (RFC 9110 13.1.2)."""

    def __init__(self, header: str | None) -> None:
        tags = entity_tags(header)
        self.any = "*" in tags
        named = (_tag(t, "If-None-Match") for t in tags if t != "*")
        self.versions = {v for v in named if v is not None}

    def matches(self, version: int) -> bool:
        """Whether the client holds this version (weak comparison: ``W/"12"`` is ``"12"``)."""
        return self.any or version in self.versions

    @property
    def newest(self) -> int:
        """The newest version named, 0 if none."""
        return max(self.versions, default=0)


def last_event_id(header: str | None, limit: int) -> int | None:
    """The cursor a Last-Event-ID header names (an event id this stream sent: a number up
    to ``limit``); None without one (absent or empty)."""
    if header is None or not header.strip():
        return None
    cursor = number(header.strip(), limit)
    if cursor is None:
        raise _malformed(f"Last-Event-ID takes an event id this stream sent (0-{limit})")
    return cursor


def query_numbers(request: Request[Any, Any, Any], limits: dict[str, int]) -> None:
    """Every query parameter named in ``limits`` is a number up to its limit (litestar
    itself would read ``1e3`` as 1000, or ``١٢`` as 12)."""
    for name, limit in limits.items():
        for text in request.query_params.getall(name, []):
            if number(text, limit) is None:
                raise _malformed(f"{name} takes a number from 0 to {limit}")
