"""Events: club nights and tournaments of several tables over several rounds (E1-E6).

A director creates an event (the host token, shown once), players register (each gets an
event credential, shown once, that is their seat's token at their table in every round),
the director starts the rounds (the service opens every table of the round with the
round's shared deals, `infra.events`), and everyone allowed to see the event reads it,
its standings, its stream and, once a deal is public for the whole round (E5.3), the deal
compared across the round's tables. Who may do what: `service.event_access`. A rejected
command writes nothing and answers problem+json with its code and E-rule id; every POST
takes an Idempotency-Key (`service.edge.idempotency`): a retry draws the same credentials
and writes nothing twice.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, get, post
from litestar.params import JSONBody, Parameter
from litestar.response.sse import ServerSentEvent, ServerSentEventMessage

from domain.dealing import SEED_BYTES
from domain.event import (
    CreateEvent,
    RegisterPlayer,
    SeatRound,
    standings_method,
)
from domain.event_view import event_view, player_seat
from domain.session import DEALS
from domain.standings import Standings, standings
from domain.table import Visibility
from infra.events import EventNotFound, LoadedEvent, table_id
from infra.idempotency import holding
from service import event_examples
from service.edge.auth import bearer, new_invitation, new_token, token_hash
from service.edge.credentials import (
    AS_EVENT_PLAYER,
    AS_EVENT_STREAM_READER,
    AS_EVENT_VIEWER,
    AS_HOST,
    AS_REGISTRANT,
)
from service.edge.draws import fresh_bytes, fresh_id
from service.edge.parsing import MAX_POSITION, query_numbers
from service.edge.tickets import TICKET_SECONDS, StreamTicket, ticket_digest
from service.event_access import (
    authorize_director,
    authorize_player,
    authorize_registration,
    authorize_viewer,
    digest_of,
    event_not_found,
)
from service.event_dto import (
    CreateEventRequest,
    DealComparison,
    EventAnswer,
    EventCreatedResponse,
    PlayerRegisteredResponse,
    PlayerTable,
    RegisterRequest,
    RoundStartedResponse,
    StartRoundRequest,
    TableDeal,
    TableProgress,
)
from service.event_stream import EventFeed
from service.routes.shared import (
    AfterPosition,
    LastEventId,
    problem_responses,
    scored_record,
    services,
    success,
)
from service.routes.streams import cursor_of
from service.shared_deals import not_public
from service.streams import sse_messages

EventId = Annotated[
    str,
    Parameter(description="the event's id", pattern="^[A-Za-z0-9_]{1,64}$", max_length=64),
]
RoundNo = Annotated[int, Parameter(ge=1, le=12, description="the round's number, 1-12")]
DealNo = Annotated[int, Parameter(ge=1, le=12, description="the deal's number, 1-12")]
P = event_examples.PROBLEMS


async def load_event(request: Request[Any, Any, Any], event_id: str) -> LoadedEvent:
    try:
        loaded: LoadedEvent = await services(request).events.load(event_id)
    except EventNotFound:
        raise event_not_found(event_id) from None
    return loaded


async def load_viewed(request: Request[Any, Any, Any], event_id: str) -> LoadedEvent:
    """The event, to a caller allowed to see it (`authorize_viewer`)."""
    loaded = await load_event(request, event_id)
    authorize_viewer(loaded.state, event_id, digest_of(request))
    return loaded


def _claimed() -> dict[str, str]:
    """The command id and fingerprint of the request's Idempotency-Key, if it holds one:
    its run again writes nothing twice (`infra.idempotency`)."""
    claim = holding()
    if claim is None:
        return {}
    return {"command_id": claim.command_id, "fingerprint": claim.fingerprint.hex()}


async def answer(
    request: Request[Any, Any, Any], event_id: str, loaded: LoadedEvent
) -> EventAnswer:
    """The event as anyone allowed to see it sees it (`domain.event_view`), with its running
    round's tables' progress as their logs have it now."""
    state = loaded.state
    progress: tuple[TableProgress, ...] = ()
    if state.running:
        round_no = state.round_no
        tables = await services(request).events.round_tables(event_id, state, round_no)
        progress = tuple(
            TableProgress(
                n,
                table_id(event_id, round_no, n),
                len(t.session.sheet) if t else 0,
                t.over if t else False,
            )
            for n, t in enumerate(tables, 1)
        )
    return EventAnswer(event_id, loaded.version, event_view(state), progress)


@post(
    "/events",
    operation_id="createEvent",
    summary="Create an event (E1)",
    description="A club night or tournament: its name, 1-12 rounds, `public` (anyone "
    "registers) or `private` (registration takes the invitation code), a turn clock for its "
    "tables (T3.1), the standings method (`total_points`, `placement_points`, `duplicate`, "
    "E6) and optionally preset deals for every round. The service draws the seating seed "
    "and every round's 12 deal seeds and publishes their SHA-256 commitments at once "
    "(E1.2). The director's host token and, for a private event, the invitation code are "
    "shown once.",
    responses={
        201: success(EventCreatedResponse, event_examples.CREATED, "the new event"),
        **problem_responses(400, 413, shown=[P["unknown_standings_method"]]),
    },
)
async def create_event(
    request: Request[Any, Any, Any], data: JSONBody[CreateEventRequest]
) -> EventCreatedResponse:
    method = standings_method(data.method)
    host = new_token()
    private = data.visibility is Visibility.PRIVATE
    invitation = new_invitation() if private else None
    presets = tuple(
        tuple(tuple(tuple(hand) for hand in deal) for deal in deals) for deals in data.presets or ()
    )
    seeds = (
        ()
        if presets
        else tuple(tuple(fresh_bytes(SEED_BYTES) for _ in range(DEALS)) for _ in range(data.rounds))
    )
    command = CreateEvent(
        name=data.name,
        rounds=data.rounds,
        host_token_hash=token_hash(host),
        seating_seed=fresh_bytes(SEED_BYTES),
        round_seeds=seeds,
        presets=presets,
        visibility=data.visibility,
        invitation_hash=token_hash(invitation) if invitation else "",
        turn_seconds=data.turn_seconds,
        method=method,
    )
    event_id = fresh_id()
    done = await services(request).events.execute(event_id, command, actor="director", **_claimed())
    view = await answer(request, event_id, LoadedEvent(done.state, done.version))
    return EventCreatedResponse(event_id, host, view, invitation)


@get(
    "/events/{event_id:str}",
    operation_id="getEvent",
    summary="An event: its options, players, rounds and tables' progress",
    description="The commitments to its chance (the seating seed's, revealed once the event "
    "is finished, and every round's deal seeds', E1.2), the players, and every round "
    "started with its tables (their ids, seats, deals scored, whether over). A private "
    "event takes one of its credentials as the Bearer token (the host token, a player's "
    "event credential or the invitation code); to anyone else it does not exist.",
    security=AS_EVENT_VIEWER,
    responses={
        200: success(EventAnswer, event_examples.EVENT, "the event"),
        **problem_responses(401, 404, shown=[P["event_not_found"]]),
    },
)
async def get_event(request: Request[Any, Any, Any], event_id: EventId) -> EventAnswer:
    loaded = await load_viewed(request, event_id)
    return await answer(request, event_id, loaded)


@post(
    "/events/{event_id:str}/players",
    operation_id="registerPlayer",
    summary="Register a player (E2)",
    description="Under a name no other player of the event has (E2.1: compared without "
    "surrounding spaces, regardless of case); at a private event with its invitation code "
    "(in the body, or as the Bearer token); the director registers players with the host "
    "token. The event credential is shown once: it seats its player at their table in "
    "every round (`getPlayerTable`). Registration closes when round 1 starts (E2.2).",
    security=AS_REGISTRANT,
    responses={
        201: success(PlayerRegisteredResponse, event_examples.REGISTERED, "the player registered"),
        **problem_responses(
            400,
            401,
            403,
            404,
            413,
            shown=[P[k] for k in ("name_taken", "registration_closed", "invitation_required")],
        ),
    },
)
async def register_player(
    request: Request[Any, Any, Any], event_id: EventId, data: JSONBody[RegisterRequest]
) -> PlayerRegisteredResponse:
    loaded = await load_event(request, event_id)
    director = authorize_registration(loaded.state, event_id, digest_of(request), data.invitation)
    token = new_token()
    command = RegisterPlayer(data.name, token_hash(token), director)
    who = "director" if director else "player"
    done = await services(request).events.execute(event_id, command, actor=who, **_claimed())
    registered = done.state.players
    number = next(n for n, p in enumerate(registered) if p.token_hash == command.token_hash)
    return PlayerRegisteredResponse(event_id, number, registered[number].name, token, done.version)


@get(
    "/events/{event_id:str}/table",
    operation_id="getPlayerTable",
    summary="The player's table and seat in the current round",
    description="With the player's event credential as the Bearer token: the round now, "
    "the player's table (its id) and seat there. The same credential is the seat's token "
    "at that table (`GET /tables/{id}/seats/{seat}/view`, the table's stream, play), so "
    "one link serves a player the whole evening. Before round 1 no table (`table_id` "
    "null, `round_no` 0, `status` `registering`). Once a round has started the table and "
    "seat are given at once, and `table_open` says whether the seat answers the credential "
    "yet: for a moment after `startRound` the service is still opening and seating the "
    "round's tables (`table_open` false, and the seat's view 404 or 401); the event's "
    "stream sends `table_opened` for each table as it opens, so wait for that rather "
    "than asking again.",
    security=AS_EVENT_PLAYER,
    responses={
        200: success(PlayerTable, event_examples.PLAYER_TABLES, "where the player plays"),
        **problem_responses(401, 404, shown=[P["event_not_found"]]),
    },
)
async def get_player_table(request: Request[Any, Any, Any], event_id: EventId) -> PlayerTable:
    loaded = await load_event(request, event_id)
    state = loaded.state
    player = authorize_player(state, event_id, digest_of(request))
    where = PlayerTable(event_id, player, state.players[player].name, state.status, 0)
    sits = player_seat(state, player)
    if sits is None:
        return where
    stream = table_id(event_id, sits.round_no, sits.table_no)
    return msgspec.structs.replace(
        where,
        round_no=sits.round_no,
        table_id=stream,
        table_no=sits.table_no,
        seat=int(sits.seat),
        table_open=await services(request).events.table_open(stream),
    )


@post(
    "/events/{event_id:str}/rounds",
    operation_id="startRound",
    summary="Start the next round (E4.1), seated by rule or by hand (E3)",
    description="The director (host token) starts round `round_no`, the next one: not while "
    "a round runs, not before anyone registered. Round 1 is seated by lot (E3.1), later "
    "rounds avoiding repeat opponents (E3.2), or by the director's `seating` (E3.3: every "
    "player exactly once; the empty seats are bots, E3.4). The service opens every table "
    "of the round with the round's 12 shared deals (E5.1). Starting a round that has "
    "started answers as its start did and opens nothing twice (also from several service "
    "processes).",
    security=AS_HOST,
    status_code=200,
    responses={
        200: success(RoundStartedResponse, event_examples.ROUND_STARTED, "the round started"),
        **problem_responses(
            401,
            404,
            413,
            shown=[P[k] for k in ("round_running", "no_players", "seated_twice", "left_out")],
        ),
    },
)
async def start_round(
    request: Request[Any, Any, Any], event_id: EventId, data: JSONBody[StartRoundRequest]
) -> RoundStartedResponse:
    svc = services(request)
    loaded = await load_event(request, event_id)
    authorize_director(loaded.state, event_id, digest_of(request))
    loaded = await svc.events.settle(event_id)  # a table's end not noticed yet
    if data.seating is not None and data.round_no > loaded.state.round_no:
        seating = tuple(tuple(seats) for seats in data.seating)
        await svc.events.execute(
            event_id, SeatRound(data.round_no, seating), actor="director", **_claimed()
        )
    done = await svc.events.start_round(event_id, data.round_no, actor="director")
    created = done.state.created
    if created is not None and created.turn_seconds is not None:
        for table_no in range(1, len(done.state.seatings[data.round_no - 1]) + 1):
            svc.clock.watch(table_id(event_id, data.round_no, table_no))
    view = await answer(request, event_id, LoadedEvent(done.state, done.version))
    return RoundStartedResponse(data.round_no, done.version, view)


@get(
    "/events/{event_id:str}/standings",
    operation_id="getStandings",
    summary="The standings (E6)",
    description="Every player's total points (E6.1), placement points (E6.2) and "
    "duplicate score (E6.3), ranked by the event's method or by `method`, with the "
    "tie-break (E6.4): the stored standings, rebuilt from the event's and its tables' logs "
    "whenever a deal was scored or a table or round ended since (ranked by another method "
    "than the event's, recomputed from the logs). Only what is final counts (E6.5): a deal once "
    "every table of its round has scored it, placement points once the round has ended; "
    "the abandoned tables are listed (T4.2).",
    security=AS_EVENT_VIEWER,
    responses={
        200: success(Standings, event_examples.STANDINGS, "the standings"),
        **problem_responses(401, 404, shown=[P["unknown_standings_method"], P["event_not_found"]]),
    },
)
async def get_standings(
    request: Request[Any, Any, Any],
    event_id: EventId,
    method: Annotated[
        str | None,
        Parameter(
            required=False,
            max_length=40,
            description="rank by this method (`total_points`, `placement_points`, "
            "`duplicate`) instead of the event's",
        ),
    ] = None,
) -> Standings:
    ranked_by = standings_method(method) if method is not None else None
    loaded = await load_viewed(request, event_id)
    state = loaded.state
    events = services(request).events
    created = state.created
    if ranked_by is not None and created is not None and ranked_by is not created.method:
        replace = msgspec.structs.replace
        state = replace(state, created=replace(created, method=ranked_by))
        return standings(state, await events.sheets(event_id, state))
    current: Standings = await events.current_standings(event_id)
    return current


@get(
    "/events/{event_id:str}/rounds/{round_no:int}/deals/{deal_no:int}",
    operation_id="compareDeal",
    summary="One deal of a round at every table, side by side",
    description="The same cards in the same seats at every table of the round (E5.1): each "
    "table's players, contract, announcements, tricks and score (its deal record). Only "
    "once every table of the round has scored the deal or is over (E5.3: "
    "`deal_not_public` before); an abandoned table that did not play it has no record.",
    security=AS_EVENT_VIEWER,
    responses={
        200: success(DealComparison, event_examples.COMPARISON, "the deal at every table"),
        **problem_responses(401, 404, 409, shown=[P["deal_not_public"], P["event_not_found"]]),
    },
)
async def compare_deal(
    request: Request[Any, Any, Any], event_id: EventId, round_no: RoundNo, deal_no: DealNo
) -> DealComparison:
    svc = services(request)
    loaded = await load_viewed(request, event_id)
    state = loaded.state
    if round_no > state.round_no or deal_no > await svc.events.public_deals(
        event_id, state, round_no
    ):
        raise not_public(deal_no)
    shown: list[TableDeal] = []
    for table_no, seats in enumerate(state.seatings[round_no - 1], 1):
        stream = table_id(event_id, round_no, table_no)
        record = await scored_record(svc, stream, deal_no)
        names = tuple("bot" if p is None else state.players[p].name for p in seats)
        shown.append(TableDeal(table_no, stream, names, record))
    return DealComparison(event_id, round_no, deal_no, tuple(shown))


@post(
    "/events/{event_id:str}/stream-tickets",
    operation_id="getEventStreamTicket",
    summary="A ticket that opens the event's stream once",
    description="For clients that cannot send headers on a stream (a browser's EventSource): "
    "send one of a private event's credentials as the Bearer token (the director's host "
    "token, a player's event credential or the invitation code; none at a public event) and "
    "open `GET /events/{id}/events?ticket=...` with the answer's `ticket`. It opens the "
    f"event's stream once, within {TICKET_SECONDS} s (a second time, at another event or "
    "table, or later: 401 `ticket_invalid`, `ticket_expired`); then get a new one (to "
    "resume, too). A credential is never put in a URL.",
    security=AS_EVENT_VIEWER,
    responses={
        201: success(StreamTicket, event_examples.STREAM_TICKET, "the ticket"),
        **problem_responses(401, 404, shown=[P["event_not_found"]]),
    },
)
async def event_stream_ticket(request: Request[Any, Any, Any], event_id: EventId) -> StreamTicket:
    await load_viewed(request, event_id)
    ticket: StreamTicket = await services(request).tickets.issue(
        event_id, bearer(request, required=False)
    )
    return ticket


@get(
    "/events/{event_id:str}/events",
    operation_id="streamEvent",
    summary="Live event messages, standings and tables' chain heads (Server-Sent Events)",
    description="The event's own events (registrations, rounds started and ended, tables' "
    "ends; no seed or credential hash), each with the event stream's `chain_head`; "
    "`table_opened` once a table of a round has every seat taken (its seats' views answer "
    "their players' credentials from then on), `table_scored` and `table_finished` as the "
    "event's tables score deals and finish, with the table's chain head (a witness, as "
    "`/feed` publishes public tables', for `doko verify --witness`), never what was "
    "scored; and `standings` whenever they change. Event ids are global positions: resume "
    "with Last-Event-ID or `after`. A private event takes one of its credentials as the "
    "Bearer token, or, from an EventSource (which cannot send headers), a `ticket` "
    "obtained with it (`POST /events/{id}/stream-tickets`); without either it is 404 "
    "`event_not_found`, as to anyone it does not exist for. A credential in the URL "
    "(`token`) is refused (400 `token_in_url`).",
    security=AS_EVENT_STREAM_READER,
    responses=problem_responses(400, 401, 404, shown=[P["event_not_found"]]),
    media_type="text/event-stream",
)
async def stream_event(
    request: Request[Any, Any, Any],
    event_id: EventId,
    last_event_id: LastEventId = None,
    after: AfterPosition = None,
    ticket: Annotated[
        str | None,
        Parameter(required=False, description="a stream ticket (single use, short-lived)"),
    ] = None,
) -> ServerSentEvent:
    svc = services(request)
    query_numbers(request, {"after": MAX_POSITION})
    cursor = cursor_of(last_event_id, after, MAX_POSITION)
    digest = await ticket_digest(request, event_id, ticket)
    loaded = await load_event(request, event_id)
    authorize_viewer(loaded.state, event_id, digest, ticket=ticket is not None)
    feed = EventFeed(svc.events, event_id)

    async def fetch(cursor: int) -> tuple[list[ServerSentEventMessage], int]:
        return await feed.after(cursor)

    return ServerSentEvent(sse_messages(svc.hub, event_id, cursor, fetch))


EVENTS_ROUTES = [
    create_event,
    get_event,
    register_player,
    get_player_table,
    start_round,
    get_standings,
    compare_deal,
    event_stream_ticket,
    stream_event,
]
