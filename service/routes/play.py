"""Play: reservations, contracts, cards, announcements (R3-R6) and Schweinchen (V3.1), each
one command validated by the domain's table. Each answers the seat's new view, its hand with
it: not to be stored (``Cache-Control: no-store``)."""

from typing import Any

from litestar import Request, Response, post
from litestar.params import JSONBody

from domain.cards import Card
from domain.commands import Announce, Declare, NameContract, PlayCard, ShowSchweinchen
from domain.seats import Seat
from service.bodies.tables import (
    AnnounceRequest,
    CommandResponse,
    ContractRequest,
    PlayRequest,
    ReservationRequest,
)
from service.edge.credentials import AS_SEAT
from service.routes.shared import (
    COMMAND_RESPONSES,
    ETAG,
    NO_STORE,
    IfMatch,
    SeatParam,
    TableId,
    act,
)


@post(
    "/tables/{table_id:str}/seats/{seat:int}/reservation",
    operation_id="declare",
    summary="Say healthy or reservation (R4.1)",
    security=AS_SEAT,
    status_code=200,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses=COMMAND_RESPONSES,
)
async def declare(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[ReservationRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = Declare(Seat(seat), data.declaration)
    return await act(request, table_id, seat, command, if_match)


@post(
    "/tables/{table_id:str}/seats/{seat:int}/contract",
    operation_id="nameContract",
    summary="Name a contract after a reservation (R4.2)",
    security=AS_SEAT,
    status_code=200,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses=COMMAND_RESPONSES,
)
async def name_contract(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[ContractRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = NameContract(Seat(seat), data.contract)
    return await act(request, table_id, seat, command, if_match)


@post(
    "/tables/{table_id:str}/seats/{seat:int}/play",
    operation_id="playCard",
    summary="Play a card (R3)",
    security=AS_SEAT,
    status_code=200,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses=COMMAND_RESPONSES,
)
async def play_card(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[PlayRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = PlayCard(Seat(seat), Card(data.card))
    return await act(request, table_id, seat, command, if_match)


@post(
    "/tables/{table_id:str}/seats/{seat:int}/announce",
    operation_id="announce",
    summary="Announce re, kontra or a refusal (R6)",
    security=AS_SEAT,
    status_code=200,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses=COMMAND_RESPONSES,
)
async def announce(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[AnnounceRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = Announce(Seat(seat), data.word)
    return await act(request, table_id, seat, command, if_match)


@post(
    "/tables/{table_id:str}/seats/{seat:int}/schweinchen",
    operation_id="showSchweinchen",
    summary="Show both diamond aces as Schweinchen (house rule V3.1)",
    description="At a table whose rule set has ``schweinchen``: the player holding both AD "
    "shows them on their turn in the play, before their card, where AD is a trump (the "
    "normal game, a marriage, a silent solo, the diamonds solo; V3.3). From then on both AD "
    "are the highest trumps (V3.2), and every seat and spectator sees who showed them "
    "(``schweinchen`` in the deal's view, the event ``schweinchen_shown``). The view's "
    "``options.schweinchen`` says when the seat may. No body.",
    security=AS_SEAT,
    status_code=200,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses=COMMAND_RESPONSES,
)
async def show_schweinchen(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = ShowSchweinchen(Seat(seat))
    return await act(request, table_id, seat, command, if_match)


PLAY_ROUTES = [declare, name_contract, play_card, announce, show_schweinchen]
