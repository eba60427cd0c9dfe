"""Stream tickets: a table's or a tournament's stream opened without a credential in its URL.

An ``EventSource`` cannot send headers, and a credential in a URL reaches proxies' and
servers' logs. So a client asks for a ticket with its credential in the Authorization
header (`POST /tables/{id}/stream-tickets`: a seat token, the host token, the invitation
code, or none at a public table; `POST /tournaments/{id}/stream-tickets`: a credential of the
tournament, or none at a public one) and opens the stream with ``?ticket=``. A ticket:

- opens the stream it was issued for (the table's, or the tournament's: both are streams of
  the log, so their ids never meet) once, as the credential it was obtained with would:
  a second use, another table's or tournament's stream, or a ticket that expired is 401;
- expires `TICKET_SECONDS` after it was issued (by the service's clock, the injectable
  ``now`` of `service.app.create_app`);
- stands for its credential when the stream opens: if the credential no longer opens the
  table or tournament then (its player left, the invitation was replaced, T1.2), neither does
  the ticket;
- is a random secret (256 bits) of which the database keeps only the SHA-256 hash
  (``stream_tickets``, deleted when the ticket is used), so every service process of the
  deployment accepts a ticket issued by another, once; the access log never shows query
  strings (`service.edge.logs`).

A credential in the stream's URL (``?token=``) is refused (400 ``token_in_url``) before the
table or tournament is looked at, whatever it names (`ticket_digest`).
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import msgspec
from litestar import Request

from domain.seats import Seat
from domain.table import InvitationRotated, TableEvent
from infra.tables import Loaded
from service.edge.auth import TOKEN, bearer, credential_of, token_hash, viewer_with
from service.edge.credentials import Credential, admit
from service.edge.draws import fresh_secret
from service.edge.problems import ServiceError
from service.workers.clock import Now

TICKET_SECONDS = 60
"""How long a stream ticket stays valid after it was issued."""

_ISSUE = """
    WITH expired AS (DELETE FROM stream_tickets WHERE expires_at <= $5)
    INSERT INTO stream_tickets (ticket_hash, stream_id, credential_hash, expires_at)
    VALUES ($1, $2, $3, $4)
    ON CONFLICT (ticket_hash) DO NOTHING
"""
_USE = """
    DELETE FROM stream_tickets WHERE ticket_hash = $1 AND stream_id = $2
    RETURNING credential_hash, expires_at
"""


class StreamTicket(msgspec.Struct, frozen=True):
    """A ticket that opens the table's or tournament's stream once (``?ticket=``), until
    ``expires_at``."""

    ticket: str
    expires_at: datetime
    seconds: int = TICKET_SECONDS


class Tickets:
    """Issues stream tickets and takes them back when they are used (module docstring)."""

    def __init__(self, pool: asyncpg.Pool, now: Now) -> None:
        self._pool = pool
        self._now = now

    async def issue(self, stream_id: str, credential: str | None) -> StreamTicket:
        """A new ticket for the stream ``stream_id`` (a table's or a tournament's), standing for
        ``credential`` (None: none);
        drawn like a token (`service.edge.draws`), so that a request with an Idempotency-Key run
        again after its answer was lost issues the same ticket."""
        ticket = fresh_secret(32)
        now = self._now()
        expires = now + timedelta(seconds=TICKET_SECONDS)
        digest = token_hash(credential) if credential is not None else ""
        await self._pool.execute(_ISSUE, _hash(ticket), stream_id, digest, expires, now)
        return StreamTicket(ticket, expires)

    async def use(self, stream_id: str, ticket: str) -> str | None:
        """The hash of the credential the ticket stands for (None: none); the ticket is
        used up. One not issued for this stream, used already or expired is 401."""
        found = (
            await self._pool.fetchrow(_USE, _hash(ticket), stream_id) if _looks(ticket) else None
        )
        if found is None:
            raise ServiceError(
                401, "ticket_invalid", "no such ticket for this stream: get a new one"
            )
        if found["expires_at"] <= self._now():
            raise ServiceError(401, "ticket_expired", "the ticket expired: get a new one")
        return str(found["credential_hash"]) or None


def _looks(ticket: str) -> bool:
    return bool(TOKEN.fullmatch(ticket))


def _hash(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


async def admitted(
    request: Request[Any, Any, Any], table_id: str, digest: str | None, *, ticket: bool = False
) -> Loaded:
    """The table, if the credential (by its hash; None: none) opens it (`viewer_with`): as
    the cache has it unless it does not know the credential (a seat taken through another
    process), then as the log has it. What admitted the request is noted (`admit`): the
    stream ticket that stands for the credential (``ticket``), else the credential."""
    tables = request.app.state.services.tables
    loaded: Loaded = await tables.load(table_id)
    try:
        viewer_with(loaded.state, digest)
    except ServiceError:
        loaded = await tables.load(table_id, fresh=True)
        viewer_with(loaded.state, digest)
    if ticket:
        admit(Credential.STREAM_TICKET)
    elif digest is not None:
        admit(credential_of(loaded.state, digest))
    return loaded


class StreamViewer(msgspec.Struct, frozen=True):
    """Who opens a table's stream: the table then, the seat it sees as (None: a
    spectator's view) and whether it came in with the invitation code in force."""

    loaded: Loaded
    seat: Seat | None
    by_invitation: bool

    def shut_out_by(self, event: TableEvent) -> bool:
        """T1.2: a replaced invitation code stops opening the table, its streams included."""
        return self.by_invitation and isinstance(event, InvitationRotated)


async def ticket_digest(
    request: Request[Any, Any, Any], stream_id: str, ticket: str | None
) -> str | None:
    """Who opens the stream ``stream_id``, by the hash of their credential (None: none): the
    credential of the ``ticket`` (used up), else of the Authorization header, else none; a
    credential in the URL (``?token=``) is refused."""
    if "token" in request.query_params:
        raise ServiceError(
            400,
            "token_in_url",
            "a credential in a URL reaches logs: send it in the Authorization header, or "
            "open the stream with a ticket (POST /tables/{id}/stream-tickets, "
            "POST /tournaments/{id}/stream-tickets)",
        )
    if ticket is not None:
        digest: str | None = await request.app.state.services.tickets.use(stream_id, ticket)
        return digest
    token = bearer(request, required=False)
    return token_hash(token) if token is not None else None


async def stream_viewer(
    request: Request[Any, Any, Any], table_id: str, ticket: str | None
) -> StreamViewer:
    """Who opens the table's stream (`ticket_digest`) and as what."""
    digest = await ticket_digest(request, table_id, ticket)
    loaded = await admitted(request, table_id, digest, ticket=ticket is not None)
    seat = viewer_with(loaded.state, digest)
    invitation = loaded.state.invitation_hash
    by_invitation = bool(invitation) and hmac.compare_digest(digest or "", invitation)
    return StreamViewer(loaded, seat, seat is None and by_invitation)
