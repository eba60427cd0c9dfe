"""Play: reservations, contracts, cards, announcements (R3-R6), Schweinchen (V3.1) and Armut
(V4.3, V4.4), each one command validated by the domain's table. Each answers the seat's new
view, its hand with it: not to be stored (``Cache-Control: no-store``)."""

from typing import Any

from litestar import Request, Response, post
from litestar.params import JSONBody

from domain.cards import Card
from domain.commands import (
    Announce,
    AnswerPoverty,
    Declare,
    NameContract,
    PlayCard,
    ReturnPoverty,
    ShowSchweinchen,
)
from domain.seats import Seat
from service.bodies.tables import (
    AnnounceRequest,
    CommandResponse,
    ContractRequest,
    PlayRequest,
    PovertyAnswerRequest,
    PovertyReturnRequest,
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


@post(
    "/tables/{table_id:str}/seats/{seat:int}/poverty/answer",
    operation_id="answerPoverty",
    summary="Accept or refuse an Armut (house rule V4.3)",
    description="At a table whose rule set has ``armut``, once a player with three trumps "
    "or fewer named the contract ``poverty`` and it stands (V4.1, V4.2): the other seats in "
    "turn from the poor player's left accept or refuse. The first who accepts takes the "
    "poor player's trumps into its hand; if all three refuse, the deal goes on without the "
    "Armut (V4.7), or with ``armut_refused`` ``redeal`` the same dealer deals it again at "
    "once (V4.8: a new ``deal_dealt`` of the same ``deal_no`` with ``dealing.redeal``). The "
    "view's ``options.answer_poverty`` says when the seat is asked.",
    security=AS_SEAT,
    status_code=200,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses=COMMAND_RESPONSES,
)
async def answer_poverty(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[PovertyAnswerRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = AnswerPoverty(Seat(seat), data.accept)
    return await act(request, table_id, seat, command, if_match)


@post(
    "/tables/{table_id:str}/seats/{seat:int}/poverty/return",
    operation_id="returnPoverty",
    summary="Give back cards for an accepted Armut (house rule V4.4)",
    description="The seat that accepted an Armut gives back exactly as many cards as it "
    "took (``options.return_cards``), any of its hand, trumps too (V4.4); then the play "
    "begins with the two as Re (V4.5). Only the two see the cards (V4.6): the others' "
    "``poverty_returned`` event and view show how many cards and trumps came back.",
    security=AS_SEAT,
    status_code=200,
    cache_control=NO_STORE,
    response_headers=[ETAG],
    responses=COMMAND_RESPONSES,
)
async def return_poverty(
    request: Request[Any, Any, Any],
    table_id: TableId,
    seat: SeatParam,
    data: JSONBody[PovertyReturnRequest],
    if_match: IfMatch = None,
) -> Response[CommandResponse]:
    command = ReturnPoverty(Seat(seat), data.cards)
    return await act(request, table_id, seat, command, if_match)


PLAY_ROUTES = [
    declare,
    name_contract,
    play_card,
    announce,
    show_schweinchen,
    answer_poverty,
    return_poverty,
]
