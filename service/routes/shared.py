"""What the route modules share: parameter types, documented problem responses, and the
table as a route reads it."""

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import msgspec
from litestar import Request, Response
from litestar.datastructures import CacheControlHeader, ResponseHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import HeaderParameter, Parameter

from domain.life import life_actions
from domain.seats import Seat
from domain.table import TableCommand, TableState
from domain.table_view import TableView, table_view
from infra.projections import DealRecord
from infra.tables import Loaded
from service.bodies.tables import (
    ZERO_MINIMUM,
    CommandResponse,
)
from service.edge.auth import (
    authorize_seat,
    authorize_spectator,
    bearer,
    is_host,
    seat_of,
)
from service.edge.parsing import (
    MAX_POSITION,
    MAX_VERSION,
    NoneMatch,
    expected_version,
)
from service.edge.problems import RETRY_AFTER, Problem, ServiceError, etag, example_problem
from service.openapi import table_examples
from service.routes.records import deal_record_of

if TYPE_CHECKING:  # the app imports the routes
    from service.app import Services

T = TypeVar("T")

NO_STORE = CacheControlHeader(no_store=True)
"""``Cache-Control: no-store`` (RFC 9111 §5.2.2.5), on every answer that carries a credential
(a token, an invitation code, a stream ticket) or a hand (a seat's view): no cache, shared
or private, keeps a copy of it. A route sets it with ``cache_control=NO_STORE``."""

ETAG = ResponseHeader(
    name="ETag",
    value='"12"',
    documentation_only=True,
    required=True,
    description="the table version the answer shows (the view's `version`), as an entity "
    "tag: send it back in If-None-Match (views) or If-Match (commands)",
)
"""The ``ETag`` a route answers with the table version, declared (``response_headers=[ETAG]``);
the route sets its value."""


def created(body: T, location: str) -> Response[T]:
    """A 201 answer with ``Location``, the path of what it created (RFC 9110 §15.3.2), relative
    to the service's base URL."""
    return Response(body, status_code=201, headers={"Location": location})


TableId = Annotated[
    str,
    Parameter(description="the table's id", pattern="^[A-Za-z0-9_-]{1,64}$", max_length=64),
]
SeatParam = Annotated[
    int, Parameter(ge=0, le=3, schema_extra=ZERO_MINIMUM, description="seat 0-3, clockwise")
]
IfMatch = Annotated[
    str | None,
    HeaderParameter(name="If-Match", required=False, description="the table version you expect"),
]
IfNoneMatch = Annotated[
    str | None,
    HeaderParameter(name="If-None-Match", required=False, description="ETag of the view you hold"),
]
MinVersion = Annotated[
    int | None,
    Parameter(
        ge=0,
        le=MAX_VERSION,
        schema_extra=ZERO_MINIMUM,
        required=False,
        description="answer with the table at this version or later (a version you learned "
        "from a command's answer or a stream event id); with several service processes a "
        "view may otherwise lag another process's commit by its notification. A version the "
        "table has not reached is 409 `version_not_reached` (its ETag the version it is at)",
    ),
]
AfterPosition = Annotated[
    int | None,
    Parameter(ge=0, le=MAX_POSITION, schema_extra=ZERO_MINIMUM, required=False),
]
"""A stream's ``after``: resume after this global position (ids of streams across streams)."""
LastEventId = Annotated[
    str | None,
    HeaderParameter(name="Last-Event-ID", required=False, description="resume after this id"),
]
TicketParameter = Annotated[
    str | None,
    Parameter(required=False, description="a stream ticket (single use, short-lived)"),
]
"""A stream's ``ticket``: opens it once in place of a credential (`service.edge.tickets`)."""


def problem_responses(
    *statuses: int,
    validated: bool = True,
    database: bool = True,
    shown: Sequence[dict[str, Any]] = (),
) -> dict[int, ResponseSpec]:
    """The problem responses of an operation: ``statuses``, and always 429 (every route is
    rate-limited), 503 for routes that use the database (``database``: while it is
    unavailable) and, for routes with parameters or a body (``validated``), 400. Each
    status shows the operation's own problems of that status (``shown``, e.g. from
    `LIFE_PROBLEMS`), else a typical one."""
    always = {429, *((400,) if validated else ()), *((503,) if database else ())}
    statuses = tuple(sorted({*statuses, *always, *(p["status"] for p in shown)}))
    return {
        status: ResponseSpec(
            Problem,
            description="problem",
            media_type="application/problem+json",
            generate_examples=False,  # random examples: an unstable document, not JSON-able
            examples=[
                Example(summary=problem["code"], value=problem)
                for problem in [p for p in shown if p["status"] == status]
                or [EXAMPLE_PROBLEMS[status]]
            ],
        )
        for status in statuses
    }


EXAMPLE_PROBLEMS = {
    400: example_problem(400, "malformed_request", "Invalid enum value 'ZZ'"),
    401: example_problem(401, "unauthorized", "send Authorization: Bearer <seat token>"),
    403: example_problem(403, "forbidden", "this token is seat 1's, not seat 0's"),
    404: example_problem(404, "table_not_found", "no table '4f1c'"),
    409: example_problem(
        409, "must_follow", "QS was led: you hold a trump and must play it", "R3.3"
    ),
    413: example_problem(413, "body_too_large", "Request Entity Too Large"),
    422: example_problem(
        422, "idempotency_key_reused", "this Idempotency-Key was used for another request"
    ),
    429: example_problem(429, "rate_limited", "Too Many Requests"),
    503: example_problem(
        503, "database_unavailable", f"the database is unavailable: retry in {RETRY_AFTER} s"
    ),
}
SIGNED_PROBLEMS = [
    EXAMPLE_PROBLEMS[503],
    example_problem(
        503, "signing_key_unavailable", "the current signing key is configured outside the database"
    ),
]
"""The 503 problems of the routes that sign their answers."""

LIFE_PROBLEMS = {
    "turn_seconds": example_problem(
        400, "malformed_request", "the request is not valid: #/turn_seconds must be at least 5"
    )
    | {"errors": [{"pointer": "#/turn_seconds", "detail": "must be at least 5"}]},
    "invitation_required": example_problem(
        401, "invitation_required", "a private table: send its invitation code to sit down"
    ),
    "invitation_invalid": example_problem(
        403, "invitation_invalid", "this is not the table's invitation code"
    ),
    "private": example_problem(404, "table_not_found", "no table '4f1c'"),
    "table_public": example_problem(
        409, "table_public", "a public table is open to anyone: it has no invitation", "T1.2"
    ),
    "seat_unavailable": example_problem(409, "seat_unavailable", "seat 2 is taken", "R1.1"),
    "seat_vacant": example_problem(409, "seat_vacant", "nobody sits on seat 2", "T2.1"),
    "leave_on_turn": example_problem(
        409, "leave_on_turn", "seat 1 is the one to act: act first, then leave", "T2.3"
    ),
    "seat_occupied": example_problem(
        409, "seat_occupied", "seat 1's player is present: only they may leave it", "T2.4"
    ),
    "turn_expired": example_problem(
        409,
        "turn_expired",
        "seat 1's time ran out at 2026-12-01T12:00:30+00:00: the stand-in acts for it",
        "T3.2",
    ),
    "not_away": example_problem(409, "not_away", "the clock has not acted for seat 1", "T3.3"),
    "started": example_problem(
        409, "phase_closed", "the session has started: abandon it instead", "T4.1"
    ),
    "not_started": example_problem(
        409, "phase_closed", "the session has not started: close the table instead", "T4.2"
    ),
    "session_over": example_problem(409, "session_over", "the session is over already", "T4.2"),
}
"""Example problems of the table's life (T1-T4), by what they answer (``private``: a private
table, to a caller holding no credential of it, is answered as an unknown table, T1.1)."""


NOT_REACHED = example_problem(
    409, "version_not_reached", "the table is at version 8: min_version 12 is not reached"
)
"""A view asked for with a ``min_version`` the table has not reached (`versioned_view`)."""


def success(model: Any, shown: list[Example], description: str) -> ResponseSpec:
    """The success response of an operation, with an example rendered by the domain."""
    return ResponseSpec(model, description=description, generate_examples=False, examples=shown)


NOT_MODIFIED = {304: ResponseSpec(None, description="not modified")}


def services(request: Request[Any, Any, Any]) -> "Services":
    """What the route handlers use (`service.app.Services`), typed."""
    found: Services = request.app.state.services
    return found


async def scored_record(svc: "Services", table_id: str, deal_no: int) -> DealRecord | None:
    """A scored deal's record from the ``deal_archive`` projection, or, if the projection
    lacks the row (being rebuilt?), from the log itself; None if the deal is not scored."""
    record: str | None = await svc.pool.fetchval(
        "SELECT record::text FROM deal_archive WHERE stream_id = $1 AND deal_no = $2",
        table_id,
        deal_no,
    )
    if record is not None:
        return msgspec.json.decode(record, type=DealRecord)
    stored = await svc.store.read_stream(table_id)
    computed: DealRecord | None = await asyncio.to_thread(deal_record_of, stored, deal_no)
    return computed


async def current_table(
    request: Request[Any, Any, Any],
    table_id: str,
    held: NoneMatch | None = None,
    token: str | None = None,
    min_version: int | None = None,
) -> Loaded:
    """The table as this process knows it (see `infra.tables`), read from the log when the
    client names a newer version (``min_version``, or If-None-Match) or a token the cached
    table does not know (a seat taken through another process): a client never gets back
    behind what it saw."""
    tables = services(request).tables
    loaded: Loaded = await tables.load(table_id)
    newest = max(held.newest if held else 0, min_version or 0)
    if newest > loaded.version or (token is not None and seat_of(loaded.state, token) is None):
        loaded = await tables.load(table_id, fresh=True)
    return loaded


async def watched_table(
    request: Request[Any, Any, Any],
    table_id: str,
    held: NoneMatch | None = None,
    min_version: int | None = None,
) -> Loaded:
    """The table for a spectator (`current_table`), who at a private table must hold a
    credential of it (T1.1): read from the log again before refusing one the cached table
    does not know (a seat taken through another process)."""
    loaded = await current_table(request, table_id, held, min_version=min_version)
    try:
        authorize_spectator(request, loaded.state)
    except ServiceError:
        loaded = await services(request).tables.load(table_id, fresh=True)
        authorize_spectator(request, loaded.state)
    return loaded


def versioned_view(
    version: int, held: NoneMatch, render: Callable[[], Any], min_version: int | None = None
) -> Response[Any]:
    """A view with ``ETag`` = the table version; 304 when the client holds that version
    (compared weakly, RFC 9110 13.1.2: ``W/"12"`` matches ``"12"``; ``*`` matches any).

    A table that has not reached ``min_version`` (read from the log again already:
    `current_table`) has no view that new: 409 ``version_not_reached``, with the version it
    is at as its ETag, at once (no version comes by waiting that the client did not make).
    Asked after the caller is authorized, so that it tells a stranger nothing of a private
    table.

    What a view shows is a function of the table version and the credential sent (``Vary:
    Authorization``): a private table's existence, the seat's hand, the life ``actions`` of
    the role the credential stands for; so the version is its validator, per credential.
    The view's ``server_time`` is not part of what the ETag validates: it says when the
    answer was made, as ``Date`` does. A 304 keeps the body the client holds, its
    ``server_time`` included, which was true when it came: a client reckons the service's
    clock as its own plus the offset it saw then (the web client does), which a 304 leaves
    as good as it was; re-rendering every view for a fresh time would cost every 304."""
    tag = etag(version)
    if min_version is not None and version < min_version:
        raise ServiceError(
            409,
            "version_not_reached",
            f"the table is at version {version}: min_version {min_version} is not reached",
            headers={"ETag": tag},
        )
    headers = {"ETag": tag, "Vary": "Authorization"}
    if held.matches(version):
        return Response(content=None, status_code=304, headers=headers)
    return Response(render(), headers=headers)


def sent_token(request: Request[Any, Any, Any]) -> str | None:
    """The Bearer token sent, if it can be one (else None: no role)."""
    try:
        return bearer(request, required=False)
    except ServiceError:
        return None


def view_for(
    request: Request[Any, Any, Any],
    state: TableState,
    viewer: Seat | None,
    recorded_at: datetime | None,
    token: str | None,
    version: int,
) -> TableView:
    """The table at ``version`` as ``viewer`` sees it, with the life actions of the role
    ``token`` stands for (a seat's player, the host, or none: a spectator; `domain.life`) and
    the service's time (``server_time``)."""
    seat = seat_of(state, token) if token is not None else None
    host = token is not None and is_host(state, token)
    actions = life_actions(state, seat, host=host)
    return table_view(state, viewer, recorded_at, actions, services(request).now(), version)


async def act(
    request: Request[Any, Any, Any],
    table_id: str,
    seat: int,
    command: TableCommand,
    if_match_header: str | None,
) -> Response[CommandResponse]:
    """Authorize the seat (again on the state the command is decided on: a token whose
    player left no longer acts, T2.2), refuse a turn action after its deadline (T3.2), run
    the command, answer with the seat's new view."""
    svc = services(request)
    tables = svc.tables
    token = bearer(request) or ""
    expected = expected_version(if_match_header)
    loaded: Loaded = await tables.load(table_id, fresh=False)
    if seat_of(loaded.state, token) is None:  # a seat taken in another process since?
        loaded = await tables.load(table_id, fresh=True)
    authorize_seat(loaded.state, token, Seat(seat))
    await svc.clock.require_in_time(table_id, loaded, command)
    done = await tables.execute(
        table_id,
        command,
        actor=f"seat:{seat}",
        expected_version=expected,
        check=lambda state: authorize_seat(state, token, Seat(seat)),
    )
    view = view_for(request, done.state, Seat(seat), done.recorded_at, token, done.version)
    answer = CommandResponse(done.version, view)
    return Response(answer, headers={"ETag": etag(done.version)})


COMMAND_ERRORS = problem_responses(
    400,
    401,
    403,
    404,
    413,
    429,
    shown=[EXAMPLE_PROBLEMS[409], LIFE_PROBLEMS["turn_expired"], LIFE_PROBLEMS["seat_vacant"]],
)
COMMAND_RESPONSES = {
    200: success(
        CommandResponse, table_examples.COMMAND_RESULT, "the seat's new view and the table version"
    ),
    **COMMAND_ERRORS,
}
