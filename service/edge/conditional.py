"""Conditional GET for answers that are a function of their bytes (the lobby's pages, the
OpenAPI document): a strong ``ETag`` made from the body, and 304 with no body when the
client's ``If-None-Match`` names it (weak comparison, or ``*``: RFC 9110 13.1.2)."""

from __future__ import annotations

import hashlib
from typing import Any

from litestar import Response

from service.edge.parsing import entity_tags


def tag_of(body: bytes) -> str:
    """The strong entity tag of ``body``: the first 128 bits of its SHA-256, quoted."""
    return f'"{hashlib.sha256(body).hexdigest()[:32]}"'


def conditional(body: bytes, tag: str, media_type: str, if_none_match: str | None) -> Response[Any]:
    """``body`` (of ``media_type``) with its ETag ``tag``, or 304 if the client holds it."""
    held = {t.removeprefix("W/") for t in entity_tags(if_none_match)}
    if tag in held or "*" in held:
        return Response(content=None, status_code=304, headers={"ETag": tag})
    return Response(body, media_type=media_type, headers={"ETag": tag})
