"""Routes of who may open a table: stream tickets (`service.edge.tickets`) and the host's
replacing of a private table's invitation code (T1.2).

A stream ticket lets a client that cannot send headers on a stream (a browser's
EventSource) open it without a credential in its URL. Replacing the invitation code shuts
out everyone who holds only the old one, former players included: from the next request
on it neither seats nor shows the table, and the streams opened with it end; the seated
players keep their seats and tokens, the host its token.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response, post
from litestar.openapi.datastructures import ResponseSpec

from domain.table import RotateInvitation, TableState
from domain.table_view import TableView
from infra.tables import Loaded
from service.edge.auth import authorize_host, bearer, new_invitation, token_hash
from service.edge.credentials import AS_HOST, AS_SPECTATOR
from service.edge.limits import Limited, limited
from service.edge.problems import etag
from service.edge.tickets import TICKET_SECONDS, StreamTicket, admitted
from service.routes.shared import (
    ETAG,
    LIFE_PROBLEMS,
    NO_STORE,
    TableId,
    created,
    problem_responses,
    services,
    view_for,
)


class InvitationReplaced(msgspec.Struct, frozen=True):
    """The private table's new invitation code (shown once: only its hash is kept), the
    table's version and its public view."""

    invitation: str
    version: int
    view: TableView


@post(
    "/tables/{table_id:str}/stream-tickets",
    operation_id="getStreamTicket",
    opt=limited(Limited.CREATES),
    summary="A ticket that opens the table's stream once",
    description="For clients that cannot send headers on a stream (a browser's EventSource): "
    "send the credential the stream is to be read with as the Bearer token (a seat token: "
    "that seat's events; the host token or the invitation code: a spectator's; none at a "
    "public table) and open `GET /tables/{id}/events?ticket=...` with the answer's `ticket`. "
    f"It opens the stream once, within {TICKET_SECONDS} s, while the credential still opens "
    "the table; then get a new one (to resume, too). A credential is never put in a URL; "
    "the ticket, made for one, is: `Location` is the stream's URL with it.",
    security=AS_SPECTATOR,
    cache_control=NO_STORE,
    responses={
        201: ResponseSpec(StreamTicket, description="the ticket", generate_examples=False),
        **problem_responses(401, 404, shown=[LIFE_PROBLEMS["private"]]),
    },
)
async def stream_ticket(
    request: Request[Any, Any, Any], table_id: TableId
) -> Response[StreamTicket]:
    token = bearer(request, required=False)
    await admitted(request, table_id, token_hash(token) if token is not None else None)
    ticket: StreamTicket = await services(request).tickets.issue(table_id, token)
    return created(ticket, f"/tables/{table_id}/events?ticket={ticket.ticket}")


@post(
    "/tables/{table_id:str}/invitation",
    operation_id="replaceInvitation",
    summary="Replace a private table's invitation code (T1.2)",
    description="The host gets a new invitation code (shown once) and the old one stops at "
    "once: it neither seats anyone nor shows the table (its streams end), also to former "
    "players; the seated players keep their seats. A public table has none (`table_public`).",
    security=AS_HOST,
    status_code=200,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses=problem_responses(401, 404, shown=[LIFE_PROBLEMS["table_public"]]),
)
async def replace_invitation(
    request: Request[Any, Any, Any], table_id: TableId
) -> Response[InvitationReplaced]:
    token = bearer(request) or ""
    tables = services(request).tables
    loaded: Loaded = await tables.load(table_id)
    authorize_host(loaded.state, token)

    def authorize(state: TableState) -> None:
        authorize_host(state, token)

    code = new_invitation()
    command = RotateInvitation(token_hash(code))
    done = await tables.execute(table_id, command, actor="host", check=authorize)
    view = view_for(request, done.state, None, done.recorded_at, token, done.version)
    body = InvitationReplaced(code, done.version, view)
    return Response(body, headers={"ETag": etag(done.version)})


ACCESS_ROUTES = [stream_ticket, replace_invitation]
