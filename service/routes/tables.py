"""Tables: open one, read its public view and its scoresheet."""

import secrets
from typing import Any

from litestar import Request, Response, get, post
from litestar.params import JSONBody

from domain.seats import Seat
from domain.table import (
    CreateTable,
    Visibility,
)
from domain.table_view import TableView
from infra.audit.witness import scored_heads, witnessed_sheet
from infra.projections import Scoresheet, scoresheet_of
from service.bodies.tables import (
    CreateTableRequest,
    TableCreatedResponse,
)
from service.edge.auth import (
    new_invitation,
    new_token,
    token_hash,
)
from service.edge.credentials import AS_SPECTATOR
from service.edge.draws import fresh_id
from service.edge.limits import Limited, limited
from service.edge.parsing import (
    MAX_VERSION,
    NoneMatch,
    query_numbers,
)
from service.edge.problems import ServiceError
from service.openapi import table_examples
from service.routes.shared import (
    ETAG,
    LIFE_PROBLEMS,
    NO_STORE,
    NOT_MODIFIED,
    NOT_REACHED,
    IfNoneMatch,
    MinVersion,
    TableId,
    created,
    problem_responses,
    sent_token,
    services,
    success,
    versioned_view,
    view_for,
    watched_table,
)


@post(
    "/tables",
    operation_id="createTable",
    opt=limited(Limited.CREATES),
    summary="Create a table",
    description="Draws a secret server seed for every deal of the session (12, or as `rules` "
    "say: V6.1, V6.6) and publishes their SHA-256 commitments at once "
    "(or takes shared seeds, or a tournament director's preset deals). The host token and, "
    "for a private table (the default), the invitation code are shown once. A public table "
    "is listed in the lobby and open to anyone (T1.1); `turn_seconds` sets the turn clock "
    "(5-600 s, T3.1); `rules` the house rules it plays by (V1-V6 on the rules page; left "
    "out: RULES.md exactly). `Location` is the table's view.",
    cache_control=NO_STORE,
    responses={
        201: success(TableCreatedResponse, table_examples.TABLE_CREATED, "the new table"),
        **problem_responses(400, 413, 429, shown=[LIFE_PROBLEMS["turn_seconds"]]),
    },
)
async def create_table(
    request: Request[Any, Any, Any], data: JSONBody[CreateTableRequest]
) -> Response[TableCreatedResponse]:
    if data.seeds is not None and data.presets is not None:
        raise ServiceError(400, "malformed_request", "give seeds or presets, not both")
    host = new_token()
    invitation = new_invitation() if data.visibility is Visibility.PRIVATE else None
    fixed = data.first_dealer is not None
    first = Seat(data.first_dealer) if data.first_dealer is not None else Seat(secrets.randbelow(4))
    presets = tuple(tuple(tuple(hand) for hand in deal) for deal in data.presets or ())
    if data.seeds is not None:
        seeds = tuple(bytes.fromhex(s) for s in data.seeds)
    elif presets:
        seeds = ()
    else:
        seeds = tuple(secrets.token_bytes(32) for _ in range(data.rules.all_deals))
    command = CreateTable(
        name=data.name,
        first_dealer=first,
        server_seeds=seeds,
        presets=presets,
        first_dealer_fixed=fixed,
        host_token_hash=token_hash(host),
        shared_seeds=data.seeds is not None,
        visibility=data.visibility,
        invitation_hash=token_hash(invitation) if invitation else "",
        turn_seconds=data.turn_seconds,
        rules=data.rules,
    )
    table_id = fresh_id()
    svc = services(request)
    done = await svc.tables.execute(table_id, command, actor="host")
    if data.turn_seconds is not None:
        svc.clock.watch(table_id)
    made = done.state.created
    answer = TableCreatedResponse(
        table_id=table_id,
        host_token=host,
        commitments=list(made.commitments if made else ()),
        version=done.version,
        view=view_for(request, done.state, None, done.recorded_at, host, done.version),
        invitation=invitation,
    )
    return created(answer, f"/tables/{table_id}")


@get(
    "/tables/{table_id:str}",
    operation_id="getTable",
    summary="The public table view",
    description="Everything a spectator may see; no hand, hidden party, losing contract or "
    "silent solo before the deal is scored. A private table's view takes a token of the "
    "table or its invitation code as the Bearer token (T1.1). ETag = table version.",
    security=AS_SPECTATOR,
    response_headers=[ETAG],
    responses={
        200: success(TableView, table_examples.TABLE_VIEW, "the public view"),
        **NOT_MODIFIED,
        **problem_responses(404, 409, 429, shown=[LIFE_PROBLEMS["private"], NOT_REACHED]),
    },
)
async def get_table(
    request: Request[Any, Any, Any],
    table_id: TableId,
    if_none_match: IfNoneMatch = None,
    min_version: MinVersion = None,
) -> Response[TableView]:
    query_numbers(request, {"min_version": MAX_VERSION})
    held = NoneMatch(if_none_match)
    loaded = await watched_table(request, table_id, held, min_version)
    token = sent_token(request)
    return versioned_view(
        loaded.version,
        held,
        lambda: view_for(request, loaded.state, None, loaded.recorded_at, token, loaded.version),
        min_version,
    )


@get(
    "/tables/{table_id:str}/scoresheet",
    operation_id="getScoresheet",
    summary="The scoresheet (R10)",
    description="One row per deal played so far (dealer, entries by seat, running totals, "
    "who played each seat, T2.2, and the version and chain head of its `deal_scored`: a "
    "witness of the table's history, see `doko verify --witness`), the totals and, once the "
    "session is over, the winners (R1.3; none for an abandoned session, T4.2). ETag = table "
    "version.",
    security=AS_SPECTATOR,
    response_headers=[ETAG],
    responses={
        **NOT_MODIFIED,
        **problem_responses(404, 409, 429, shown=[LIFE_PROBLEMS["private"], NOT_REACHED]),
    },
)
async def get_scoresheet(
    request: Request[Any, Any, Any],
    table_id: TableId,
    if_none_match: IfNoneMatch = None,
    min_version: MinVersion = None,
) -> Response[Scoresheet]:
    query_numbers(request, {"min_version": MAX_VERSION})
    held = NoneMatch(if_none_match)
    loaded = await watched_table(request, table_id, held, min_version)
    heads = await scored_heads(services(request).pool, table_id, loaded.version)
    return versioned_view(
        loaded.version,
        held,
        lambda: witnessed_sheet(scoresheet_of(loaded.state), heads),
        min_version,
    )


TABLES_ROUTES = [create_table, get_table, get_scoresheet]
