"""Routes of a table's life around the game: leaving a seat, coming back, closing a table
and abandoning a session (T2-T4 of `domain.table`).

Each parses, authorizes (a seat's token, or the host's), and executes one table command;
the authorization is checked again on the state the command is decided on, so a token
whose player left meanwhile does nothing. A rejected command writes nothing.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, delete, post
from litestar.handlers import HTTPRouteHandler

from domain.seats import Seat
from domain.table import AbandonSession, CloseTable, ComeBack, LeaveSeat, TableCommand, TableState
from infra.tables import Check, Loaded
from service.bodies.tables import CommandResponse
from service.edge.auth import authorize_host, authorize_seat, bearer, is_host
from service.edge.credentials import AS_HOST, AS_SEAT, AS_SEAT_OR_HOST
from service.edge.parsing import expected_version
from service.edge.problems import etag
from service.openapi import table_examples
from service.routes.shared import (
    COMMAND_RESPONSES,
    ETAG,
    LIFE_PROBLEMS,
    NO_STORE,
    IfMatch,
    SeatParam,
    TableId,
    act,
    problem_responses,
    services,
    success,
    view_for,
)

_PUBLIC_RESULT = success(
    CommandResponse, table_examples.TABLE_RESULT, "the table's new version and its public view"
)


async def _execute(
    request: Request[Any, Any, Any],
    table_id: str,
    command: TableCommand,
    authorize: Check,
    *,
    actor: str,
    if_match: str | None = None,
) -> Response[CommandResponse]:
    """Run a command that ``authorize(state)`` allows (`infra.tables.Tables.execute` asks
    it on the state it decides on: a request with an Idempotency-Key whose first run was
    written, by a token that this stopped, gets that run's result); answer with the
    public view."""
    done = await services(request).tables.execute(
        table_id,
        command,
        actor=actor,
        expected_version=expected_version(if_match),
        check=authorize,
    )
    view = view_for(request, done.state, None, done.recorded_at, bearer(request), done.version)
    body = CommandResponse(done.version, view)
    return Response(body, headers={"ETag": etag(done.version)})


@delete(
    "/tables/{table_id:str}/seats/{seat:int}",
    operation_id="leaveSeat",
    summary="Leave a seat (T2), or vacate a bot's or an away seat as the host",
    description="With the seat's token its player leaves: before the session the seat is free "
    "again (T2.1); during it the seat is vacant, play waits for it and the turn clock, if "
    "any, still runs (T2.2), until a newcomer takes it or the host seats a bot. Not while "
    "the seat is the one to act: act first (T2.3). With the host token, the host vacates a "
    "bot's seat or an away seat, never a present player's (T2.4). The token stops working "
    "at once.",
    security=AS_SEAT_OR_HOST,
    status_code=200,
    response_headers=[ETAG],
    responses={
        200: _PUBLIC_RESULT,
        **problem_responses(
            401,
            403,
            404,
            shown=[
                LIFE_PROBLEMS[k]
                for k in ("seat_vacant", "leave_on_turn", "seat_occupied", "session_over")
            ],
        ),
    },
)
async def leave_seat(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    token = bearer(request) or ""
    loaded: Loaded = await services(request).tables.load(table_id)
    by_host = is_host(loaded.state, token)

    def authorize(state: TableState) -> None:
        if by_host:
            authorize_host(state, token)
        else:
            authorize_seat(state, token, Seat(seat))

    who = "host" if by_host else f"seat:{seat}"
    return await _execute(
        request,
        table_id,
        LeaveSeat(Seat(seat), by_host),
        authorize,
        actor=who,
        if_match=if_match,
    )


@post(
    "/tables/{table_id:str}/seats/{seat:int}/back",
    operation_id="comeBack",
    summary="Be back after the clock acted for the seat (T3.3)",
    description="After a timeout (or three in a row: the seat is away and the stand-in plays "
    "its turns at once) the player says it is back: the count of timeouts starts again, and "
    "the next turn has the whole clock. Acting on one's own also brings one back.",
    security=AS_SEAT,
    status_code=200,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses={
        200: COMMAND_RESPONSES[200],
        **problem_responses(
            401, 403, 404, shown=[LIFE_PROBLEMS["not_away"], LIFE_PROBLEMS["seat_vacant"]]
        ),
    },
)
async def come_back(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = ComeBack(Seat(seat))
    return await act(request, table_id, seat, command, if_match)


def _host_command(
    path: str,
    command: TableCommand,
    *,
    operation_id: str,
    summary: str,
    description: str,
    problems: list[dict[str, Any]],
) -> HTTPRouteHandler:
    """A route by which the table's host gives ``command`` (with the host token)."""

    async def handler(
        request: Request[Any, Any, Any], table_id: TableId
    ) -> Response[CommandResponse]:
        token = bearer(request) or ""

        def authorize(state: TableState) -> None:
            authorize_host(state, token)

        return await _execute(request, table_id, command, authorize, actor="host")

    handler.__name__ = operation_id
    return post(
        path,
        operation_id=operation_id,
        summary=summary,
        description=description,
        security=AS_HOST,
        status_code=200,
        response_headers=[ETAG],
        responses={200: _PUBLIC_RESULT, **problem_responses(401, 404, shown=problems)},
    )(handler)


close_table = _host_command(
    "/tables/{table_id:str}/close",
    CloseTable(),
    operation_id="closeTable",
    summary="Close a table before its session starts (T4.1)",
    description="The host closes a table whose session has not started: it leaves the lobby, "
    "nobody may sit down any more. A running session is abandoned instead.",
    problems=[LIFE_PROBLEMS["started"]],
)
abandon_session = _host_command(
    "/tables/{table_id:str}/abandon",
    AbandonSession(),
    operation_id="abandonSession",
    summary="Abandon a running session (T4.2)",
    description="The host ends the session with the deals scored so far: the scoresheet stays "
    "as it is, no winners are declared (R1.3), every scored deal stays auditable, and the "
    "session can be exported.",
    problems=[LIFE_PROBLEMS["not_started"], LIFE_PROBLEMS["session_over"]],
)


LIFE_ROUTES = [leave_seat, come_back, close_table, abandon_session]
