"""Routes: parse, authorize, call one handler, map errors (see `service.problems`)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import HeaderParameter, JSONBody, Parameter
from litestar.response.sse import ServerSentEvent, ServerSentEventMessage

from domain.cards import Card
from domain.commands import Announce, Declare, NameContract, PlayCard
from domain.seats import Seat
from domain.table import (
    CreateTable,
    SeatLeft,
    SeatTaken,
    TableCommand,
    TableEvent,
    TakeSeat,
    Visibility,
)
from domain.table_view import TableView, redact, table_view, without_secrets
from infra.audit import Export, deal_events, render_deal
from infra.event_store import StoredEvent
from infra.projections import DealRecord, Scoresheet, scoresheet_of
from infra.signing import KeySet, key_set
from infra.tables import Loaded
from infra.witness import scored_heads, with_chain_head, witnessed_sheet
from service import examples
from service.auth import (
    authorize_host,
    authorize_invitation,
    authorize_seat,
    authorize_spectator,
    bearer,
    new_invitation,
    new_token,
    seat_of,
    token_hash,
)
from service.draws import fresh_id
from service.dto import (
    ZERO_MINIMUM,
    AnnounceRequest,
    BotSeatedResponse,
    CommandResponse,
    ContractRequest,
    CreateTableRequest,
    PlayRequest,
    ReservationRequest,
    SeatBotRequest,
    SeatTakenResponse,
    TableCreatedResponse,
    TakeSeatRequest,
)
from service.health import ReadinessCheck, readiness
from service.keys import KEYS_PATH, signed, signing
from service.parsing import (
    MAX_POSITION,
    MAX_VERSION,
    NoneMatch,
    expected_version,
    query_numbers,
)
from service.parsing import last_event_id as last_event_id_of
from service.problems import RETRY_AFTER, Problem, ServiceError, etag
from service.records import DealVerification, deal_record_of, decoded, export_of
from service.streams import ALL, message, sse_messages
from service.tickets import stream_viewer

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
        "view may otherwise lag another process's commit by its notification",
    ),
]
LastEventId = Annotated[
    str | None,
    HeaderParameter(name="Last-Event-ID", required=False, description="resume after this id"),
]


def _problems(
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
                or [_EXAMPLE_PROBLEMS[status]]
            ],
        )
        for status in statuses
    }


def _example_problem(
    status: int, code: str, detail: str, rule: str | None = None
) -> dict[str, Any]:
    problem = {
        "type": f"urn:doko:problem:{code}",
        "title": code.replace("_", " "),
        "status": status,
    }
    return {**problem, "code": code, "detail": detail, **({"rule": rule} if rule else {})}


_EXAMPLE_PROBLEMS = {
    400: _example_problem(400, "malformed_request", "Invalid enum value 'ZZ'"),
    401: _example_problem(401, "unauthorized", "send Authorization: Bearer <seat token>"),
    403: _example_problem(403, "forbidden", "this token is seat 1's, not seat 0's"),
    404: _example_problem(404, "table_not_found", "no table '4f1c'"),
    409: _example_problem(
        409, "must_follow", "QS was led: you hold a trump and must play it", "R3.3"
    ),
    413: _example_problem(413, "body_too_large", "Request Entity Too Large"),
    422: _example_problem(
        422, "idempotency_key_reused", "this Idempotency-Key was used for another request"
    ),
    429: _example_problem(429, "rate_limited", "Too Many Requests"),
    503: _example_problem(
        503, "database_unavailable", f"the database is unavailable: retry in {RETRY_AFTER} s"
    ),
}
_SIGNED_PROBLEMS = [
    _EXAMPLE_PROBLEMS[503],
    _example_problem(
        503, "signing_key_unavailable", "the current signing key is configured outside the database"
    ),
]
"""The 503 problems of the routes that sign their answers."""

LIFE_PROBLEMS = {
    "turn_seconds": _example_problem(
        400, "malformed_request", "the request is not valid: #/turn_seconds must be at least 5"
    )
    | {"errors": [{"pointer": "#/turn_seconds", "detail": "must be at least 5"}]},
    "invitation_required": _example_problem(
        401, "invitation_required", "a private table: send its invitation code to sit down"
    ),
    "invitation_invalid": _example_problem(
        403, "invitation_invalid", "this is not the table's invitation code"
    ),
    "private": _example_problem(404, "table_not_found", "no table '4f1c'"),
    "table_public": _example_problem(
        409, "table_public", "a public table is open to anyone: it has no invitation", "T1.2"
    ),
    "seat_unavailable": _example_problem(409, "seat_unavailable", "seat 2 is taken", "R1.1"),
    "seat_vacant": _example_problem(409, "seat_vacant", "nobody sits on seat 2", "T2.1"),
    "leave_on_turn": _example_problem(
        409, "leave_on_turn", "seat 1 is the one to act: act first, then leave", "T2.3"
    ),
    "seat_occupied": _example_problem(
        409, "seat_occupied", "seat 1's player is present: only they may leave it", "T2.4"
    ),
    "turn_expired": _example_problem(
        409,
        "turn_expired",
        "seat 1's time ran out at 2026-12-01T12:00:30+00:00: the stand-in acts for it",
        "T3.2",
    ),
    "not_away": _example_problem(409, "not_away", "the clock has not acted for seat 1", "T3.3"),
    "started": _example_problem(
        409, "phase_closed", "the session has started: abandon it instead", "T4.1"
    ),
    "not_started": _example_problem(
        409, "phase_closed", "the session has not started: close the table instead", "T4.2"
    ),
    "session_over": _example_problem(409, "session_over", "the session is over already", "T4.2"),
}
"""Example problems of the table's life (T1-T4), by what they answer (``private``: a private
table, to a caller holding no credential of it, is answered as an unknown table, T1.1)."""


def _success(model: Any, shown: list[Example], description: str) -> ResponseSpec:
    """The success response of an operation, with an example rendered by the domain."""
    return ResponseSpec(model, description=description, generate_examples=False, examples=shown)


_NOT_MODIFIED = {304: ResponseSpec(None, description="not modified")}


def services(request: Request[Any, Any, Any]) -> Any:
    return request.app.state.services


async def _current(
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


async def _watched(
    request: Request[Any, Any, Any],
    table_id: str,
    held: NoneMatch | None = None,
    min_version: int | None = None,
) -> Loaded:
    """The table for a spectator (`_current`), who at a private table must hold a
    credential of it (T1.1): read from the log again before refusing one the cached table
    does not know (a seat taken through another process)."""
    loaded = await _current(request, table_id, held, min_version=min_version)
    try:
        authorize_spectator(request, loaded.state)
    except ServiceError:
        loaded = await services(request).tables.load(table_id, fresh=True)
        authorize_spectator(request, loaded.state)
    return loaded


def _conditional(version: int, held: NoneMatch, render: Callable[[], Any]) -> Response[Any]:
    """A view with ``ETag`` = the table version; 304 when the client holds that version
    (compared weakly, RFC 9110 13.1.2: ``W/"12"`` matches ``"12"``; ``*`` matches any)."""
    tag = etag(version)
    if held.matches(version):
        return Response(content=None, status_code=304, headers={"ETag": tag})
    return Response(render(), headers={"ETag": tag})


@post(
    "/tables",
    operation_id="createTable",
    summary="Create a table",
    description="Draws 12 secret server seeds and publishes their SHA-256 commitments at once "
    "(or takes shared seeds, or a tournament director's preset deals). The host token and, "
    "for a private table (the default), the invitation code are shown once. A public table "
    "is listed in the lobby and open to anyone (T1.1); `turn_seconds` sets the turn clock "
    "(5-600 s, T3.1).",
    responses={
        201: _success(TableCreatedResponse, examples.TABLE_CREATED, "the new table"),
        **_problems(400, 413, 429, shown=[LIFE_PROBLEMS["turn_seconds"]]),
    },
)
async def create_table(
    request: Request[Any, Any, Any], data: JSONBody[CreateTableRequest]
) -> TableCreatedResponse:
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
        seeds = tuple(secrets.token_bytes(32) for _ in range(12))
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
    )
    table_id = fresh_id()
    svc = services(request)
    done = await svc.tables.execute(table_id, command, actor="host")
    if data.turn_seconds is not None:
        svc.clock.watch(table_id)
    created = done.state.created
    return TableCreatedResponse(
        table_id=table_id,
        host_token=host,
        commitments=list(created.commitments if created else ()),
        version=done.version,
        view=table_view(done.state, None, done.recorded_at),
        invitation=invitation,
    )


@post(
    "/tables/{table_id:str}/seats",
    operation_id="takeSeat",
    summary="Take a seat",
    description="Sit on `seat` or the next free one; the seat token is shown once. When the "
    "fourth player sits the session starts and deal 1 is dealt (R1.1, R1.2); during the "
    "session a newcomer takes a vacant seat and plays on with it (T2.2). A private table "
    "takes its invitation code, in the body or as the Bearer token (T1.1).",
    responses={
        201: _success(SeatTakenResponse, examples.SEAT_TAKEN, "the seat taken"),
        **_problems(
            400,
            404,
            413,
            shown=[LIFE_PROBLEMS[k] for k in ("invitation_required", "invitation_invalid")]
            + [LIFE_PROBLEMS["seat_unavailable"]],
        ),
    },
)
async def take_seat(
    request: Request[Any, Any, Any], table_id: TableId, data: JSONBody[TakeSeatRequest]
) -> SeatTakenResponse:
    tables = services(request).tables
    loaded: Loaded = await tables.load(table_id)
    authorize_invitation(request, loaded.state, data.invitation)
    token = new_token()
    seat = Seat(data.seat) if data.seat is not None else None
    command = TakeSeat(data.name, token_hash(token), seat, bytes.fromhex(data.entropy))
    done = await tables.execute(
        table_id,
        command,
        actor="player",
        check=lambda state: authorize_invitation(request, state, data.invitation),
    )
    taken = done.events[0]
    assert isinstance(taken, SeatTaken)
    return SeatTakenResponse(
        table_id=table_id,
        seat=int(taken.seat),
        token=token,
        version=done.version,
        view=table_view(done.state, taken.seat, done.recorded_at),
    )


@post(
    "/tables/{table_id:str}/bots",
    operation_id="seatBot",
    summary="Fill a seat with a bot",
    description="The host fills `seat` (or the next free one; during the session, a vacant "
    "one, T2.2) with a server-side bot, `random` (random legal moves) or `greedy` (a simple "
    "heuristic). Bots see only their seat's view and keep playing across restarts.",
    security=[{"seat_token": []}],
    responses=_problems(400, 401, 404, 409, 413, 429),
)
async def seat_bot(
    request: Request[Any, Any, Any], table_id: TableId, data: JSONBody[SeatBotRequest]
) -> BotSeatedResponse:
    svc = services(request)
    token = bearer(request) or ""  # before the table: a private one is no more than an unknown one
    loaded: Loaded = await svc.tables.load(table_id)
    authorize_host(loaded.state, token)
    seat = Seat(data.seat) if data.seat is not None else None
    name = data.name or f"{data.kind.value} bot"
    command = TakeSeat(name, token_hash(new_token()), seat, bot=data.kind.value)
    svc.bots.watch(table_id)
    done = await svc.tables.execute(table_id, command, actor="host")
    taken = done.events[0]
    assert isinstance(taken, SeatTaken)
    return BotSeatedResponse(seat=int(taken.seat), version=done.version)


@get(
    "/tables/{table_id:str}",
    operation_id="getTable",
    summary="The public table view",
    description="Everything a spectator may see; no hand, hidden party, losing contract or "
    "silent solo before the deal is scored. A private table's view takes a token of the "
    "table or its invitation code as the Bearer token (T1.1). ETag = table version.",
    responses={
        200: _success(TableView, examples.TABLE_VIEW, "the public view"),
        **_NOT_MODIFIED,
        **_problems(404, 429, shown=[LIFE_PROBLEMS["private"]]),
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
    loaded = await _watched(request, table_id, held, min_version)
    return _conditional(
        loaded.version, held, lambda: table_view(loaded.state, None, loaded.recorded_at)
    )


@get(
    "/tables/{table_id:str}/seats/{seat:int}",
    operation_id="getSeatView",
    summary="A seat's own view",
    description="The seat's hand, legal cards and allowed announcements with the fewest cards "
    "each stays allowed with. Needs that seat's token. ETag = table version.",
    security=[{"seat_token": []}],
    responses={
        200: _success(TableView, examples.SEAT_VIEW, "the seat's view"),
        **_NOT_MODIFIED,
        **_problems(401, 403, 404),
    },
)
async def get_seat_view(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    if_none_match: IfNoneMatch = None,
    min_version: MinVersion = None,
) -> Response[TableView]:
    query_numbers(request, {"min_version": MAX_VERSION})
    token = bearer(request) or ""
    held = NoneMatch(if_none_match)
    loaded = await _current(request, table_id, held, token, min_version)
    authorize_seat(loaded.state, token, Seat(seat))
    return _conditional(
        loaded.version, held, lambda: table_view(loaded.state, Seat(seat), loaded.recorded_at)
    )


async def _act(
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
    answer = CommandResponse(done.version, table_view(done.state, Seat(seat), done.recorded_at))
    return Response(answer, headers={"ETag": etag(done.version)})


_COMMAND_ERRORS = _problems(
    400,
    401,
    403,
    404,
    413,
    429,
    shown=[_EXAMPLE_PROBLEMS[409], LIFE_PROBLEMS["turn_expired"], LIFE_PROBLEMS["seat_vacant"]],
)
_COMMAND_RESPONSES = {
    200: _success(
        CommandResponse, examples.COMMAND_RESULT, "the seat's new view and the table version"
    ),
    **_COMMAND_ERRORS,
}


@post(
    "/tables/{table_id:str}/seats/{seat:int}/reservation",
    operation_id="declare",
    summary="Say healthy or reservation (R4.1)",
    security=[{"seat_token": []}],
    status_code=200,
    responses=_COMMAND_RESPONSES,
)
async def declare(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[ReservationRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = Declare(Seat(seat), data.declaration)
    return await _act(request, table_id, seat, command, if_match)


@post(
    "/tables/{table_id:str}/seats/{seat:int}/contract",
    operation_id="nameContract",
    summary="Name a contract after a reservation (R4.2)",
    security=[{"seat_token": []}],
    status_code=200,
    responses=_COMMAND_RESPONSES,
)
async def name_contract(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[ContractRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = NameContract(Seat(seat), data.contract)
    return await _act(request, table_id, seat, command, if_match)


@post(
    "/tables/{table_id:str}/seats/{seat:int}/play",
    operation_id="playCard",
    summary="Play a card (R3)",
    security=[{"seat_token": []}],
    status_code=200,
    responses=_COMMAND_RESPONSES,
)
async def play_card(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[PlayRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = PlayCard(Seat(seat), Card(data.card))
    return await _act(request, table_id, seat, command, if_match)


@post(
    "/tables/{table_id:str}/seats/{seat:int}/announce",
    operation_id="announce",
    summary="Announce re, kontra or a refusal (R6)",
    security=[{"seat_token": []}],
    status_code=200,
    responses=_COMMAND_RESPONSES,
)
async def announce(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[AnnounceRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = Announce(Seat(seat), data.word)
    return await _act(request, table_id, seat, command, if_match)


@get(
    "/tables/{table_id:str}/scoresheet",
    operation_id="getScoresheet",
    summary="The scoresheet (R10)",
    description="One row per deal played so far (dealer, entries by seat, running totals, "
    "who played each seat, T2.2, and the version and chain head of its `deal_scored`: a "
    "witness of the table's history, see `doko verify --witness`), the totals and, once the "
    "session is over, the winners (R1.3; none for an abandoned session, T4.2). ETag = table "
    "version.",
    responses={**_NOT_MODIFIED, **_problems(404, 429, shown=[LIFE_PROBLEMS["private"]])},
)
async def get_scoresheet(
    request: Request[Any, Any, Any],
    table_id: TableId,
    if_none_match: IfNoneMatch = None,
    min_version: MinVersion = None,
) -> Response[Scoresheet]:
    query_numbers(request, {"min_version": MAX_VERSION})
    held = NoneMatch(if_none_match)
    loaded = await _watched(request, table_id, held, min_version)
    heads = await scored_heads(services(request).pool, table_id, loaded.version)
    return _conditional(
        loaded.version, held, lambda: witnessed_sheet(scoresheet_of(loaded.state), heads)
    )


DealNo = Annotated[int, Parameter(ge=1, le=12, description="the deal's number, 1-12")]


async def _scored(request: Request[Any, Any, Any], table_id: str, deal_no: int) -> None:
    """Deals are public once scored (R4.3): before that, 409 (and at a private table, to
    holders of a credential of it, T1.1)."""
    loaded: Loaded = await services(request).tables.load(table_id, fresh=True)
    authorize_spectator(request, loaded.state)
    if len(loaded.state.session.sheet) < deal_no:
        raise ServiceError(
            409, "deal_not_scored", f"deal {deal_no} is not scored yet: it stays hidden until then"
        )


async def _scored_log(
    request: Request[Any, Any, Any], table_id: str, deal_no: int
) -> list[StoredEvent]:
    """The table's stored events, once deal ``deal_no`` is scored."""
    await _scored(request, table_id, deal_no)
    stored: list[StoredEvent] = await services(request).store.read_stream(table_id)
    return stored


@get(
    "/tables/{table_id:str}/deals/{deal_no:int}",
    operation_id="getDeal",
    summary="A scored deal's full record",
    description="Hands, every action, the revealed seed with its commitment, and the "
    "itemized score lines with their rule ids. Only once the deal is scored.",
    responses=_problems(404, 409, shown=[LIFE_PROBLEMS["private"]]),
)
async def get_deal(
    request: Request[Any, Any, Any], table_id: TableId, deal_no: DealNo
) -> DealRecord:
    await _scored(request, table_id, deal_no)
    record: str | None = await services(request).pool.fetchval(
        "SELECT record::text FROM deal_archive WHERE stream_id = $1 AND deal_no = $2",
        table_id,
        deal_no,
    )
    if record is not None:
        return msgspec.json.decode(record, type=DealRecord)
    # the projection lacks the row (being rebuilt?): the record from the log itself
    stored = await services(request).store.read_stream(table_id)
    computed = await asyncio.to_thread(deal_record_of, stored, deal_no)
    if computed is None:
        raise ServiceError(409, "deal_not_scored", f"deal {deal_no} is not scored yet")
    return computed


class DealReplay(msgspec.Struct):
    """A scored deal step by step: its events in order and a readable rendering."""

    deal_no: int
    events: list[TableEvent]
    text: str


def _replay(stored: list[StoredEvent], deal_no: int) -> DealReplay:
    """The deal's events (no token or invitation hash in them) and its rendering."""
    events = decoded(stored)
    shown = [without_secrets(e) for e in deal_events(events, deal_no)]
    return DealReplay(deal_no, shown, render_deal(events, deal_no))


@get(
    "/tables/{table_id:str}/deals/{deal_no:int}/replay",
    operation_id="replayDeal",
    summary="A scored deal step by step",
    description="Rate-limited per client address like the other routes that replay a log.",
    responses=_problems(404, 409, shown=[LIFE_PROBLEMS["private"]]),
)
async def replay_deal(
    request: Request[Any, Any, Any], table_id: TableId, deal_no: DealNo
) -> DealReplay:
    stored = await _scored_log(request, table_id, deal_no)
    return await asyncio.to_thread(_replay, stored, deal_no)


@get(
    "/tables/{table_id:str}/deals/{deal_no:int}/verification",
    operation_id="verifyDeal",
    summary="Verify a scored deal",
    description="Commitment and seed, hands recomputed, events replayed by the rules, score "
    "recomputed, hash chain intact, on the log up to the deal's last event (which later "
    "events cannot change: the result is computed once and kept); signed by the service's "
    f"current key (see `{KEYS_PATH}`).",
    responses=_problems(404, 409, shown=[LIFE_PROBLEMS["private"], *_SIGNED_PROBLEMS]),
)
async def verify_deal(
    request: Request[Any, Any, Any], table_id: TableId, deal_no: DealNo
) -> DealVerification:
    svc = services(request)
    if not await svc.visibilities.public([table_id]):  # T1.1, also when the report is kept
        await _watched(request, table_id)
    verification: DealVerification = await svc.verifications.of(
        table_id, deal_no, lambda: _scored_log(request, table_id, deal_no)
    )
    return await signed(svc.keys, verification)


@get(
    "/tables/{table_id:str}/export",
    operation_id="exportSession",
    summary="The whole session as one portable JSON record",
    description="Every event with its version, payload and hash, signed by the service's "
    f"current key (see `{KEYS_PATH}`), for `doko verify --file` offline. Only once the "
    "session is over (finished, or abandoned: T4.2).",
    responses={
        200: ResponseSpec(Export, description="the table's log", generate_examples=False),
        **_problems(404, 409, shown=[LIFE_PROBLEMS["private"], *_SIGNED_PROBLEMS]),
    },
)
async def export_table(request: Request[Any, Any, Any], table_id: TableId) -> Response[bytes]:
    tables = services(request).tables
    loaded: Loaded = await tables.load(table_id, fresh=True)
    authorize_spectator(request, loaded.state)
    if not (loaded.state.session.finished or loaded.state.abandoned):
        raise ServiceError(409, "session_not_finished", "a session is exported once it is over")
    stored = await tables.store.read_stream(table_id)
    signer, now = await signing(services(request).keys)
    body = await asyncio.to_thread(export_of, stored, signer, now)
    return Response(body, media_type="application/json")


@get(
    KEYS_PATH,
    operation_id="signingKeys",
    summary="The public keys that sign exports and reports (a JWK set)",
    description="Every Ed25519 key of the deployment as a JWK (RFC 7517, RFC 8037; `kid` is "
    "the RFC 7638 thumbprint) with its `status` and validity: `current` signs new exports "
    "and reports, `retired` no longer does and what it signed before `retired` still "
    "verifies, `revoked` is compromised from `revoked_from` on (what it signed before is "
    "flagged). A signature dated outside its key's validity, or more than 5 minutes in the "
    "future, is refused. Save it to check files offline: `doko verify --file F "
    "--public-key KEYS`.",
    media_type="application/jwk-set+json",
    responses=_problems(validated=False),
)
async def signing_keys(request: Request[Any, Any, Any]) -> KeySet:
    return key_set(await services(request).keys.keys())


def _cursor(last_event_id: str | None, after: int | None, limit: int) -> int:
    """Where a stream resumes: after Last-Event-ID if sent, else ``after``, else 0."""
    resumed = last_event_id_of(last_event_id, limit)
    return resumed if resumed is not None else after or 0


@get(
    "/tables/{table_id:str}/events",
    operation_id="streamTable",
    summary="Live table events (Server-Sent Events)",
    description="Each event as the viewer may see it (seat token: that seat's view; none, "
    "the host token or the invitation code: public; a private table needs one of these, "
    "T1.1). Send the credential as the Bearer token, or, from an EventSource (which cannot "
    "send headers), a `ticket` obtained with it (`POST /tables/{id}/stream-tickets`): a "
    "credential in the URL (`token`) is refused (400 `token_in_url`). Event ids are table "
    "versions; send Last-Event-ID (or `after`) to resume without gaps or repeats. A seat's "
    "stream ends with the event of its player leaving (T2.2), one opened with the "
    "invitation code with the code's replacement (T1.2). `deal_scored` and "
    "`session_finished` data carry one more member, `chain_head`: the hash chain value at "
    "that version (hex), a witness of the table's history.",
    responses=_problems(400, 401, 404, shown=[LIFE_PROBLEMS["private"]]),
    media_type="text/event-stream",
)
async def stream_table(
    request: Request[Any, Any, Any],
    table_id: TableId,
    last_event_id: LastEventId = None,
    after: Annotated[
        int | None, Parameter(ge=0, le=MAX_VERSION, schema_extra=ZERO_MINIMUM, required=False)
    ] = None,
    ticket: Annotated[
        str | None,
        Parameter(required=False, description="a stream ticket (single use, short-lived)"),
    ] = None,
) -> ServerSentEvent:
    svc = services(request)
    query_numbers(request, {"after": MAX_VERSION})
    cursor = _cursor(last_event_id, after, MAX_VERSION)
    opened = await stream_viewer(request, table_id, ticket)
    loaded, viewer = opened.loaded, opened.seat
    left: list[int] = []  # the version at which the viewer's player left, or its code went

    async def fetch(cursor: int) -> tuple[list[ServerSentEventMessage], int]:
        recorded = await svc.hub.events_after(table_id, cursor)
        messages = []
        for record, event in recorded:
            shown = redact(event, viewer)
            if shown is not None and not left:
                data = with_chain_head(msgspec.json.encode(shown), record)
                messages.append(message(record, record.version, data))
            mine = record.version > loaded.version  # not an earlier player's leaving
            gone = isinstance(event, SeatLeft) and event.seat is viewer
            if (gone or opened.shut_out_by(event)) and mine:
                left.append(record.version)
        return messages, recorded[-1][0].version if recorded else cursor

    messages = sse_messages(svc.hub, table_id, cursor, fetch)
    return ServerSentEvent(_until_left(messages, left))


async def _until_left(
    messages: AsyncIterator[ServerSentEventMessage], left: list[int]
) -> AsyncIterator[ServerSentEventMessage]:
    """A seat's stream up to its player's leaving (T2.2): the token no longer sees the seat;
    the same for a stream opened with an invitation code up to its replacement (T1.2)."""
    async for sent in messages:
        yield sent
        if left and sent.id is not None and int(sent.id) >= left[0]:
            return


@get(
    "/feed",
    operation_id="streamFeed",
    summary="Integration feed of public events across all tables (Server-Sent Events)",
    description="Every public table's public events from a global position on, finished deals "
    "with their itemized scores included, `deal_scored` and `session_finished` with their "
    "`chain_head`; private tables are left out (T1.1). Event ids are global positions; "
    "resume with Last-Event-ID or `after`.",
    responses=_problems(429),
    media_type="text/event-stream",
)
async def stream_feed(
    request: Request[Any, Any, Any],
    last_event_id: LastEventId = None,
    after: Annotated[
        int | None, Parameter(ge=0, le=MAX_POSITION, schema_extra=ZERO_MINIMUM, required=False)
    ] = None,
) -> ServerSentEvent:
    svc = services(request)

    async def fetch(cursor: int) -> tuple[list[ServerSentEventMessage], int]:
        rendered = await svc.hub.feed_after(cursor)
        messages = [message for _, message in rendered if message is not None]
        return messages, rendered[-1][0] if rendered else cursor

    query_numbers(request, {"after": MAX_POSITION})
    cursor = _cursor(last_event_id, after, MAX_POSITION)
    return ServerSentEvent(sse_messages(svc.hub, ALL, cursor, fetch))


class Health(msgspec.Struct):
    """The process answers."""

    status: str


@get(
    ["/health", "/health/live"],
    operation_id=lambda _handler, _method, path: "live" if "live" in path else "health",
    summary="Liveness: the process answers",
    description="Always 200 while the process serves requests; touches no database. "
    "`/health` is the same as `/health/live`.",
    responses=_problems(validated=False, database=False),
)
async def health() -> Health:
    return Health("ok")


class Readiness(msgspec.Struct):
    """Every readiness check passed."""

    status: str
    checks: list[ReadinessCheck]


@get(
    "/health/ready",
    operation_id="ready",
    summary="Readiness: the database answers, commits are heard, background tasks run",
    description="A database round trip (within the database timeout), the LISTEN connection "
    "that hears commits, and every background task (bots, listener, ...) running. 503 "
    "`not_ready` with the failed checks in `errors` otherwise.",
    responses=_problems(validated=False),
)
async def ready(request: Request[Any, Any, Any]) -> Readiness:
    svc = services(request)
    checks = await readiness(svc.watch, svc.supervisor, svc.listening)
    failed = [c for c in checks if not c.ok]
    if failed:
        raise ServiceError(
            503,
            "not_ready",
            "; ".join(f"{c.name}: {c.detail}" for c in failed),
            errors=[msgspec.to_builtins(c) for c in failed],
            headers={"Retry-After": str(RETRY_AFTER)},
        )
    return Readiness("ready", checks)


ROUTES = [
    create_table,
    take_seat,
    seat_bot,
    get_table,
    get_seat_view,
    get_scoresheet,
    declare,
    name_contract,
    play_card,
    announce,
    get_deal,
    replay_deal,
    verify_deal,
    export_table,
    signing_keys,
    stream_table,
    stream_feed,
    health,
    ready,
]
