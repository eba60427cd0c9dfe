"""Tokens: random secrets shown once, kept only as SHA-256 hashes, sent as ``Bearer``.

A seat token acts for its seat only; the host token belongs to the table's
creator. Comparison is constant-time. What cannot be a token (longer than the
43 characters of every issued one, or with characters no issued one has) is
refused with 401 before it is hashed or remembered.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
from typing import Any

from litestar import Request

from domain.seats import SEATS, Seat
from domain.table import TableState
from service.problems import ServiceError

TOKEN_BYTES = 32
TOKEN = re.compile(rf"[A-Za-z0-9_-]{{1,{len(secrets.token_urlsafe(TOKEN_BYTES))}}}")
"""What a token may look like: URL-safe base64, no longer than an issued one (43)."""


def new_token() -> str:
    """A fresh secret token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


@functools.lru_cache(maxsize=16384)
def token_hash(token: str) -> str:
    """What is stored of a token (remembered for the tokens in use: every request hashes
    its token, often twice; `bearer` lets only token-sized strings get here)."""
    return hashlib.sha256(token.encode()).hexdigest()


def bearer(
    request: Request[Any, Any, Any], *, required: bool = True, query: bool = False
) -> str | None:
    """The Bearer token of the request; with ``query`` (the event streams, for EventSource,
    which cannot send headers) its ``token`` query parameter when there is no header.

    Anything that cannot be a token is 401, as is a missing one when ``required``.
    """
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ServiceError(401, "unauthorized", "use Authorization: Bearer <token>")
        token = token.strip()
    elif query and "token" in request.query_params:
        token = request.query_params["token"]
    elif required:
        raise ServiceError(401, "unauthorized", "send Authorization: Bearer <seat token>")
    else:
        return None
    if not TOKEN.fullmatch(token):
        raise ServiceError(401, "unauthorized", "this is not a token doko issued")
    return token


def seat_of(state: TableState, token: str) -> Seat | None:
    """The seat whose token this is, if any."""
    digest = token_hash(token)
    for seat in SEATS:
        player = state.players[seat]
        if player is not None and hmac.compare_digest(player.token_hash, digest):
            return seat
    return None


def authorize_seat(state: TableState, token: str, seat: Seat) -> None:
    """The token must be that seat's: another seat's token is 403, an unknown one 401."""
    holder = seat_of(state, token)
    if holder is None:
        raise ServiceError(401, "unauthorized", "this token belongs to no seat at this table")
    if holder is not seat:
        raise ServiceError(
            403, "forbidden", f"this token is seat {int(holder)}'s, not seat {int(seat)}'s"
        )


def viewer_of(state: TableState, token: str | None) -> Seat | None:
    """The seat a (possibly absent) token views as; an unknown token is 401."""
    if token is None:
        return None
    seat = seat_of(state, token)
    if seat is None:
        raise ServiceError(401, "unauthorized", "this token belongs to no seat at this table")
    return seat


def authorize_host(state: TableState, token: str) -> None:
    """The token must be the table creator's host token (401 otherwise)."""
    created = state.created
    if created is None or not hmac.compare_digest(created.host_token_hash, token_hash(token)):
        raise ServiceError(401, "unauthorized", "this is not the table's host token")
