"""Tokens: random secrets shown once, kept only as SHA-256 hashes, sent as ``Bearer``.

A seat token acts for its seat only, for as long as its player holds the seat (T2.2);
the host token belongs to the table's creator. A private table's invitation code
(T1.1) seats whoever holds it; it and the table's tokens are the credentials that
open a private table to a viewer. Comparison is constant-time. What cannot be a
token (longer than the 43 characters of every issued one, or with characters no
issued one has) is refused with 401 before it is hashed or remembered.
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
from domain.table import TableState, Visibility
from service.draws import fresh_secret
from service.problems import ServiceError

TOKEN_BYTES = 32
TOKEN = re.compile(rf"[A-Za-z0-9_-]{{1,{len(secrets.token_urlsafe(TOKEN_BYTES))}}}")
"""What a token may look like: URL-safe base64, no longer than an issued one (43)."""


def new_token() -> str:
    """A fresh secret token (256 bits, URL-safe; the same again when a request with an
    Idempotency-Key runs again, `service.draws`)."""
    return fresh_secret(TOKEN_BYTES)


def new_invitation() -> str:
    """A fresh invitation code for a private table (128 bits, URL-safe, T1.1; drawn as
    `new_token`)."""
    return fresh_secret(16)


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
    """The seat a (possibly absent) credential views as: a seat token its seat; the host
    token or the invitation code, or nothing at a public table, a spectator. Anything
    else is 401, as is no credential at a private table (`authorize_viewer`)."""
    seat = seat_of(state, token) if token is not None else None
    if seat is None:
        authorize_viewer(state, token, any_token=token is not None)
    return seat


def _is(digest: str, token: str) -> bool:
    return bool(digest) and hmac.compare_digest(digest, token_hash(token))


def authorize_viewer(state: TableState, token: str | None, *, any_token: bool = False) -> None:
    """T1.1: a public table is open to anyone; a private one to a seat token, the host token
    or the invitation code (401 otherwise). With ``any_token`` a given token must be one
    of these at a public table too."""
    created = state.created
    assert created is not None
    private = created.visibility is Visibility.PRIVATE
    if token is None:
        if private:
            raise ServiceError(
                401, "unauthorized", "a private table: send a token of the table or its invitation"
            )
        return
    if not (private or any_token):
        return
    known = (created.host_token_hash, created.invitation_hash)
    if seat_of(state, token) is None and not any(_is(h, token) for h in known):
        raise ServiceError(401, "unauthorized", "this is no token or invitation of this table")


def authorize_spectator(request: Request[Any, Any, Any], state: TableState) -> None:
    """T1.1: what a spectator may see of a private table takes a credential of the table
    (`authorize_viewer`); a public table asks for none."""
    created = state.created
    if created is not None and created.visibility is Visibility.PRIVATE:
        authorize_viewer(state, bearer(request, required=False))


def authorize_invitation(
    request: Request[Any, Any, Any], state: TableState, code: str | None
) -> None:
    """T1.1: sitting at a private table takes its invitation code (``code``, or else the
    Bearer token): none is 401 ``invitation_required``, another is 403
    ``invitation_invalid``. A public table asks for none."""
    created = state.created
    assert created is not None
    if created.visibility is not Visibility.PRIVATE:
        return
    code = code or bearer(request, required=False)
    if not code:
        raise ServiceError(
            401, "invitation_required", "a private table: send its invitation code to sit down"
        )
    if not _is(created.invitation_hash, code):
        raise ServiceError(403, "invitation_invalid", "this is not the table's invitation code")


def is_host(state: TableState, token: str) -> bool:
    """Whether the token is the table creator's host token."""
    created = state.created
    return created is not None and _is(created.host_token_hash, token)


def authorize_host(state: TableState, token: str) -> None:
    """The token must be the table creator's host token (401 otherwise)."""
    if not is_host(state, token):
        raise ServiceError(401, "unauthorized", "this is not the table's host token")
