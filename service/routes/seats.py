"""Seats: sit down, seat a bot, read a seat's own view (R1.1, T1, T2)."""

from typing import Any

from litestar import Request, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import JSONBody

from domain.seats import Seat
from domain.table import (
    SeatTaken,
    TakeSeat,
)
from domain.table_view import TableView
from infra.tables import Loaded
from service.bodies.tables import (
    BotSeatedResponse,
    SeatBotRequest,
    SeatTakenResponse,
    TakeSeatRequest,
)
from service.edge.auth import (
    authorize_host,
    authorize_invitation,
    authorize_seat,
    bearer,
    new_token,
    token_hash,
)
from service.edge.credentials import AS_HOST, AS_NEWCOMER, AS_SEAT
from service.edge.parsing import (
    MAX_VERSION,
    NoneMatch,
    query_numbers,
)
from service.openapi import table_examples
from service.routes.shared import (
    ETAG,
    LIFE_PROBLEMS,
    NO_STORE,
    NOT_MODIFIED,
    NOT_REACHED,
    IfNoneMatch,
    MinVersion,
    SeatParam,
    TableId,
    created,
    current_table,
    problem_responses,
    services,
    success,
    versioned_view,
    view_for,
)


@post(
    "/tables/{table_id:str}/seats",
    operation_id="takeSeat",
    summary="Take a seat",
    description="Sit on `seat` or the next free one; the seat token is shown once. When the "
    "fourth player sits the session starts and deal 1 is dealt (R1.1, R1.2); during the "
    "session a newcomer takes a vacant seat and plays on with it (T2.2). A private table "
    "takes its invitation code, in the body or as the Bearer token (T1.1). `Location` is the "
    "seat's view.",
    security=AS_NEWCOMER,
    cache_control=NO_STORE,
    responses={
        201: success(SeatTakenResponse, table_examples.SEAT_TAKEN, "the seat taken"),
        **problem_responses(
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
) -> Response[SeatTakenResponse]:
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
    answer = SeatTakenResponse(
        table_id=table_id,
        seat=int(taken.seat),
        token=token,
        version=done.version,
        view=view_for(request, done.state, taken.seat, done.recorded_at, token, done.version),
    )
    return created(answer, f"/tables/{table_id}/seats/{int(taken.seat)}")


@post(
    "/tables/{table_id:str}/bots",
    operation_id="seatBot",
    summary="Fill a seat with a bot",
    description="The host fills `seat` (or the next free one; during the session, a vacant "
    "one, T2.2) with a server-side bot, `random` (random legal moves) or `greedy` (a simple "
    "heuristic). Bots see only their seat's view and keep playing across restarts. "
    "`Location` is the seat (whose view takes its token, which nobody holds: the table's "
    "view shows the bot).",
    security=AS_HOST,
    responses={
        201: ResponseSpec(
            BotSeatedResponse, description="the seat the bot took", generate_examples=False
        ),
        **problem_responses(400, 401, 404, 409, 413, 429),
    },
)
async def seat_bot(
    request: Request[Any, Any, Any], table_id: TableId, data: JSONBody[SeatBotRequest]
) -> Response[BotSeatedResponse]:
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
    answer = BotSeatedResponse(seat=int(taken.seat), version=done.version)
    return created(answer, f"/tables/{table_id}/seats/{int(taken.seat)}")


@get(
    "/tables/{table_id:str}/seats/{seat:int}",
    operation_id="getSeatView",
    summary="A seat's own view",
    description="The seat's hand, legal cards and allowed announcements with the fewest cards "
    "each stays allowed with. Needs that seat's token. ETag = table version.",
    security=AS_SEAT,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses={
        200: success(TableView, table_examples.SEAT_VIEW, "the seat's view"),
        **NOT_MODIFIED,
        **problem_responses(401, 403, 404, 409, shown=[NOT_REACHED]),
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
    loaded = await current_table(request, table_id, held, token, min_version)
    authorize_seat(loaded.state, token, Seat(seat))
    return versioned_view(
        loaded.version,
        held,
        lambda: view_for(
            request, loaded.state, Seat(seat), loaded.recorded_at, token, loaded.version
        ),
        min_version,
    )


SEATS_ROUTES = [take_seat, seat_bot, get_seat_view]
