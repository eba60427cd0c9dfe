"""Tokens: random secrets shown once, kept only as SHA-256 hashes, sent as ``Bearer``.

A seat token acts for its seat only, for as long as its player holds the seat (T2.2);
the host token belongs to the table's creator. A private table's invitation code
(T1.1) seats whoever holds it; it and the table's tokens are the credentials that
open a private table to a viewer; to a caller holding none of them a private table does
not exist (404, as an unknown table: `TableHidden`). Comparison is constant-time. What cannot be a
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
from service.edge.credentials import Credential, admit
from service.edge.draws import fresh_secret
from service.edge.problems import ServiceError, TableHidden

TOKEN_BYTES = 32
TOKEN = re.compile(rf"[A-Za-z0-9_-]{{1,{len(secrets.token_urlsafe(TOKEN_BYTES))}}}")
"""What a token may look like: URL-safe base64, no longer than an issued one (43)."""


def new_token() -> str:
    """A fresh secret token (256 bits, URL-safe; the same again when a request with an
    Idempotency-Key runs again, `service.edge.draws`)."""
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


def bearer(request: Request[Any, Any, Any], *, required: bool = True) -> str | None:
    """The Bearer token of the request's Authorization header: never one in its URL (a
    stream opened from a browser takes a ticket instead: `service.edge.tickets`).

    Anything that cannot be a token is 401, as is a missing one when ``required``.
    """
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ServiceError(401, "unauthorized", "use Authorization: Bearer <token>")
        token = token.strip()
    elif required:
        raise ServiceError(401, "unauthorized", "send Authorization: Bearer <seat token>")
    else:
        return None
    if not TOKEN.fullmatch(token):
        raise ServiceError(401, "unauthorized", "this is not a token doko issued")
    return token


def seat_with(state: TableState, digest: str) -> Seat | None:
    """The seat whose token has this hash, if any."""
    for seat in SEATS:
        player = state.players[seat]
        if player is not None and hmac.compare_digest(player.token_hash, digest):
            return seat
    return None


def seat_of(state: TableState, token: str) -> Seat | None:
    """The seat whose token this is, if any."""
    return seat_with(state, token_hash(token))


def credential_of(state: TableState, digest: str) -> Credential | None:
    """T1.1, T1.2: which of the table's credentials the one with this hash is, if any: a
    seated player's token, the host token, or the invitation code in force."""
    created = state.created
    assert created is not None
    if seat_with(state, digest) is not None:
        return Credential.SEAT_TOKEN
    if _same(created.host_token_hash, digest):
        return Credential.HOST_TOKEN
    if _same(state.invitation_hash, digest):
        return Credential.INVITATION_CODE
    return None


def opens(state: TableState, digest: str) -> bool:
    """T1.1, T1.2: whether the credential with this hash is one of the table's."""
    return credential_of(state, digest) is not None


def private(state: TableState) -> bool:
    created = state.created
    return created is not None and created.visibility is Visibility.PRIVATE


def hide_unless_known(state: TableState, token: str | None) -> None:
    """T1.1: to a caller holding no credential of a private table (none, or one that does
    not `open` it) the table does not exist: `TableHidden`, answered as an unknown table."""
    if private(state):
        held(state, token)


def held(state: TableState, token: str | None) -> Credential:
    """T1.1: which of the table's credentials ``token`` is; none, or one that is none of
    them, is `TableHidden`."""
    kind = credential_of(state, token_hash(token)) if token is not None else None
    if kind is None:
        raise TableHidden()
    return kind


def authorize_seat(state: TableState, token: str, seat: Seat) -> None:
    """The token must be that seat's: another seat's token is 403, an unknown one 401 (at a
    private table, unless it is another credential of it, 404: `hide_unless_known`)."""
    holder = seat_of(state, token)
    if holder is None:
        hide_unless_known(state, token)
        raise ServiceError(401, "unauthorized", "this token belongs to no seat at this table")
    if holder is not seat:
        raise ServiceError(
            403, "forbidden", f"this token is seat {int(holder)}'s, not seat {int(seat)}'s"
        )
    admit(Credential.SEAT_TOKEN)


def viewer_of(state: TableState, token: str | None) -> Seat | None:
    """The seat a (possibly absent) credential views as (`viewer_with`)."""
    return viewer_with(state, token_hash(token) if token is not None else None)


def viewer_with(state: TableState, digest: str | None) -> Seat | None:
    """The seat a credential (by its hash; None: none) views as: a seat token its seat; the
    host token or the invitation code, or nothing at a public table, a spectator. Another
    credential is 401 at a public table; at a private one, it or none is `TableHidden`."""
    seat = seat_with(state, digest) if digest is not None else None
    if seat is None and not (digest is not None and opens(state, digest)):
        if private(state):
            raise TableHidden()
        if digest is not None:
            raise ServiceError(401, "unauthorized", "this is no token or invitation of this table")
    return seat


def _same(digest: str, other: str) -> bool:
    return bool(digest) and hmac.compare_digest(digest, other)


def _is(digest: str, token: str) -> bool:
    return _same(digest, token_hash(token))


def _sent(request: Request[Any, Any, Any]) -> str | None:
    """The Bearer token, or None where there is none or what is sent cannot be one."""
    try:
        return bearer(request, required=False)
    except ServiceError:
        return None


def authorize_spectator(request: Request[Any, Any, Any], state: TableState) -> None:
    """T1.1: what a spectator may see of a private table takes a credential of the table
    (the Bearer token: a seat's, the host's or the invitation code); without one the table
    does not exist (`hide_unless_known`). A public table asks for none."""
    if private(state):
        admit(held(state, _sent(request)))


def authorize_invitation(
    request: Request[Any, Any, Any], state: TableState, code: str | None
) -> None:
    """T1.1: sitting at a private table takes its invitation code in force (T1.2; ``code``,
    or else the Bearer token). A caller with no credential of the table at all is told it
    does not exist (`TableHidden`); a seat's or the host's token without a code is 401
    ``invitation_required``, with another code 403 ``invitation_invalid``. A public table
    asks for none."""
    if not private(state):
        return
    token = _sent(request)
    if _is(state.invitation_hash, code or token or ""):
        admit(None if code else Credential.INVITATION_CODE)
        return
    hide_unless_known(state, token)
    if not code:
        raise ServiceError(
            401, "invitation_required", "a private table: send its invitation code to sit down"
        )
    raise ServiceError(403, "invitation_invalid", "this is not the table's invitation code")


def is_host(state: TableState, token: str) -> bool:
    """Whether the token is the table creator's host token."""
    created = state.created
    return created is not None and _is(created.host_token_hash, token)


def authorize_host(state: TableState, token: str) -> None:
    """The token must be the table creator's host token (401 otherwise; at a private table,
    404 unless it is another credential of it: `hide_unless_known`)."""
    if not is_host(state, token):
        hide_unless_known(state, token)
        raise ServiceError(401, "unauthorized", "this is not the table's host token")
    admit(Credential.HOST_TOKEN)
