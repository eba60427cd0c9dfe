"""The lobby: the public tables, newest first, from the ``lobby`` projection (T1.1).

A page is a function of the projection's rows, so it carries a strong ``ETag`` (a hash of
its body) and answers ``If-None-Match`` with 304. Pages are cut by the ``position`` of each
table's first event: ``before`` takes the ``next`` of the previous page, and as a new table
always has a higher position than every table listed, tables created while a client pages
through never shift a page: nothing is listed twice or skipped. Private and closed tables
are never listed.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from domain.table import TableStatus
from infra.projections import LobbyEntry
from service.bodies.tables import LobbyPage, LobbyTable
from service.edge.conditional import conditional, tag_of
from service.routes.shared import NOT_MODIFIED, IfNoneMatch, problem_responses, services

LISTED = (TableStatus.OPEN, TableStatus.PLAYING, TableStatus.FINISHED, TableStatus.ABANDONED)
"""The statuses the lobby lists (a closed table has left it, T4.1)."""

_PAGE = """
    SELECT stream_id, position, created_at, entry::text FROM lobby
    WHERE public AND status = ANY($1::text[]) AND position < $2
    ORDER BY position DESC LIMIT $3
"""
_END = 2**63 - 1
"""Past every position (PostgreSQL's largest bigint)."""


@get(
    "/tables",
    operation_id="listTables",
    summary="The lobby: public tables, newest first",
    description="Public tables with their status (`open`: seats free; `playing`; `finished`; "
    "`abandoned`), seats (player names, bot kinds, free, vacant or away), the deal in "
    "play, and options (the turn clock, the dealing method). Filter with `status` (repeat "
    "it for several); page with `before` = the previous page's `next`: pages stay stable "
    "while tables are created. Private and closed tables are never listed. ETag/If-None-Match.",
    response_headers=[
        ResponseHeader(
            name="ETag",
            value='"9f2c4e1a0b7d3f5e"',
            documentation_only=True,
            required=True,
            description="a strong entity tag of the page (a hash of its body): send it back "
            "in If-None-Match",
        )
    ],
    responses={
        200: ResponseSpec(LobbyPage, description="a page of the lobby", generate_examples=False),
        **NOT_MODIFIED,
        **problem_responses(400, 429),
    },
)
async def list_tables(
    request: Request[Any, Any, Any],
    status: Annotated[
        list[TableStatus] | None,
        Parameter(required=False, description="only tables with this status (repeatable)"),
    ] = None,
    before: Annotated[
        int | None,
        Parameter(ge=1, le=_END, required=False, description="the `next` of the previous page"),
    ] = None,
    limit: Annotated[int, Parameter(ge=1, le=100, description="tables per page")] = 50,
    if_none_match: IfNoneMatch = None,
) -> Response[Any]:
    wanted = [s.value for s in (status or LISTED) if s in LISTED]
    rows = await services(request).pool.fetch(_PAGE, wanted, before or _END, limit + 1)
    tables = tuple(
        LobbyTable(
            **msgspec.structs.asdict(msgspec.json.decode(entry, type=LobbyEntry)),
            table_id=stream_id,
            created=created_at,
        )
        for stream_id, _, created_at, entry in rows[:limit]
    )
    page = LobbyPage(tables, rows[limit - 1][1] if len(rows) > limit else None)
    body = msgspec.json.encode(page)
    return conditional(body, tag_of(body), "application/json", if_none_match)


LOBBY_ROUTES = [list_tables]
