"""Tournaments: club nights and competitions of several tables over several rounds (E1-E6).

A director creates a tournament (the host token, shown once), players register (each gets a
tournament credential, shown once, that is their seat's token at their table in every round),
the director starts the rounds (the service opens every table of the round with the round's
shared deals, `infra.tournaments`), and everyone allowed to see the tournament reads it, its
standings, its stream and, once a deal is public for the whole round (E5.3), the deal
compared across the round's tables. Who may do what: `service.edge.tournament_access`. A rejected
command writes nothing and answers problem+json with its code and E-rule id; every POST
takes an Idempotency-Key (`service.edge.idempotency`): a retry draws the same credentials
and writes nothing twice.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, Response, delete, get, post
from litestar.params import JSONBody, Parameter
from litestar.response.sse import ServerSentEvent

from domain.dealing import SEED_BYTES
from domain.standings import Standings
from domain.table import Visibility
from domain.tournament import (
    PLAYERS,
    CloseRegistration,
    CreateTournament,
    RegisterPlayer,
    RemovePlayer,
    SeatRound,
    TournamentCommand,
    TournamentState,
    standings_method,
)
from domain.tournament_view import player_seat, tournament_view
from infra.command_ids import table_id
from infra.tournaments import LoadedTournament, TournamentNotFound
from service.bodies.tables import ZERO_MINIMUM
from service.bodies.tournaments import (
    CreateTournamentRequest,
    DealComparison,
    PlayerRegisteredResponse,
    PlayerTable,
    RegisterRequest,
    RoundStartedResponse,
    StartRoundRequest,
    TableDeal,
    TableProgress,
    TournamentAnswer,
    TournamentCreatedResponse,
)
from service.edge.auth import bearer, new_invitation, new_token, token_hash
from service.edge.credentials import (
    AS_HOST,
    AS_REGISTRANT,
    AS_TOURNAMENT_PLAYER,
    AS_TOURNAMENT_STREAM_READER,
    AS_TOURNAMENT_VIEWER,
)
from service.edge.draws import fresh_bytes, fresh_id
from service.edge.limits import Limited, limited
from service.edge.parsing import MAX_POSITION, query_numbers
from service.edge.shared_deals import not_public
from service.edge.tickets import TICKET_SECONDS, StreamTicket, ticket_digest
from service.edge.tournament_access import (
    authorize_director,
    authorize_player,
    authorize_registration,
    authorize_viewer,
    digest_of,
    tournament_not_found,
)
from service.openapi import tournament_examples
from service.routes.shared import (
    NO_STORE,
    AfterPosition,
    LastEventId,
    TicketParameter,
    created,
    problem_responses,
    scored_record,
    services,
    success,
)
from service.routes.streams import cursor_of
from service.streams.hub import sse_messages
from service.streams.tournaments import follow

TournamentId = Annotated[
    str,
    Parameter(description="the tournament's id", pattern="^[A-Za-z0-9_]{1,64}$", max_length=64),
]
PlayerParam = Annotated[
    int,
    Parameter(
        ge=0, le=PLAYERS[1] - 1, schema_extra=ZERO_MINIMUM, description="the player's number"
    ),
]
RoundNo = Annotated[int, Parameter(ge=1, le=12, description="the round's number, 1-12")]
DealNo = Annotated[int, Parameter(ge=1, le=12, description="the deal's number, 1-12")]
P = tournament_examples.PROBLEMS


async def load_tournament(request: Request[Any, Any, Any], tournament_id: str) -> LoadedTournament:
    try:
        loaded: LoadedTournament = await services(request).tournaments.load(tournament_id)
    except TournamentNotFound:
        raise tournament_not_found(tournament_id) from None
    return loaded


async def load_viewed(request: Request[Any, Any, Any], tournament_id: str) -> LoadedTournament:
    """The tournament, to a caller allowed to see it (`authorize_viewer`)."""
    loaded = await load_tournament(request, tournament_id)
    authorize_viewer(loaded.state, tournament_id, digest_of(request))
    return loaded


async def answer(
    request: Request[Any, Any, Any], tournament_id: str, loaded: LoadedTournament
) -> TournamentAnswer:
    """The tournament as anyone allowed to see it sees it (`domain.tournament_view`), with its
    running round's tables' progress as their projections have it now (one statement,
    `infra.tournaments.Tournaments.round_rows`)."""
    state = loaded.state
    progress: tuple[TableProgress, ...] = ()
    if state.running:
        round_no = state.round_no
        rows = await services(request).tournaments.round_rows(tournament_id, state, round_no)
        progress = tuple(
            TableProgress(
                t.table_no, table_id(tournament_id, round_no, t.table_no), len(t.entries), t.over
            )
            for t in rows
        )
    return TournamentAnswer(tournament_id, loaded.version, tournament_view(state), progress)


@post(
    "/tournaments",
    operation_id="createTournament",
    summary="Create a tournament (E1)",
    description="A club night or tournament: its name, 1-12 rounds, `public` (anyone "
    "registers) or `private` (registration takes the invitation code), a turn clock for its "
    "tables (T3.1), the standings method (`total_points`, `placement_points`, `duplicate`, "
    "E6) and optionally preset deals for every round. The service draws the seating seed "
    "and every round's 12 deal seeds and publishes their SHA-256 commitments at once "
    "(E1.2). The director's host token and, for a private tournament, the invitation code are "
    "shown once. `Location` is the tournament.",
    cache_control=NO_STORE,
    responses={
        201: success(TournamentCreatedResponse, tournament_examples.CREATED, "the new tournament"),
        **problem_responses(400, 413, shown=[P["unknown_standings_method"]]),
    },
)
async def create_tournament(
    request: Request[Any, Any, Any], data: JSONBody[CreateTournamentRequest]
) -> Response[TournamentCreatedResponse]:
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
        else tuple(
            tuple(fresh_bytes(SEED_BYTES) for _ in range(data.rules.all_deals))
            for _ in range(data.rounds)
        )
    )
    command = CreateTournament(
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
        max_players=data.max_players,
        rules=data.rules,
    )
    tournament_id = fresh_id()
    done = await services(request).tournaments.execute(tournament_id, command, actor="director")
    view = await answer(request, tournament_id, LoadedTournament(done.state, done.version))
    made = TournamentCreatedResponse(tournament_id, host, view, invitation)
    return created(made, f"/tournaments/{tournament_id}")


@get(
    "/tournaments/{tournament_id:str}",
    operation_id="getTournament",
    summary="A tournament: its options, players, rounds and tables' progress",
    description="The commitments to its chance (the seating seed's, revealed once the tournament "
    "is finished, and every round's deal seeds', E1.2), the players, and every round "
    "started with its tables (their ids, seats, deals scored, whether over). A private "
    "tournament takes one of its credentials as the Bearer token (the host token, a player's "
    "tournament credential or the invitation code); to anyone else it does not exist.",
    security=AS_TOURNAMENT_VIEWER,
    responses={
        200: success(TournamentAnswer, tournament_examples.TOURNAMENT, "the tournament"),
        **problem_responses(401, 404, shown=[P["tournament_not_found"]]),
    },
)
async def get_tournament(
    request: Request[Any, Any, Any], tournament_id: TournamentId
) -> TournamentAnswer:
    loaded = await load_viewed(request, tournament_id)
    return await answer(request, tournament_id, loaded)


@post(
    "/tournaments/{tournament_id:str}/players",
    operation_id="registerPlayer",
    opt=limited(Limited.CREATES),
    summary="Register a player (E2)",
    description="Under a name no other player of the tournament has (E2.1: kept in NFKC "
    "without format characters and compared regardless of case, so that a look-alike "
    "with a zero-width space or in fullwidth letters is the same name, N1, N4; a name with a "
    "bidirectional control or an invisible character is refused, `name_unseen_characters`, "
    "N2, and one whose letters are of several scripts, `name_mixed_scripts`, N3); at most "
    "the tournament's `max_players` (E2.3, `tournament_full`); at a private tournament with "
    "its invitation code "
    "(in the body, or as the Bearer token); the director registers players with the host "
    "token. The tournament credential is shown once: it seats its player at their table in "
    "every round (`getPlayerTable`). Registration closes when round 1 starts, or when the "
    "director closes it (`closeRegistration`, E2.2). "
    "`Location` is the player's table (`getPlayerTable`), which the credential opens.",
    security=AS_REGISTRANT,
    cache_control=NO_STORE,
    responses={
        201: success(
            PlayerRegisteredResponse, tournament_examples.REGISTERED, "the player registered"
        ),
        **problem_responses(
            400,
            401,
            403,
            404,
            413,
            shown=[
                P[k]
                for k in (
                    "name_taken",
                    "registration_closed",
                    "tournament_full",
                    "invitation_required",
                    "name_unseen_characters",
                    "name_mixed_scripts",
                )
            ],
        ),
    },
)
async def register_player(
    request: Request[Any, Any, Any], tournament_id: TournamentId, data: JSONBody[RegisterRequest]
) -> Response[PlayerRegisteredResponse]:
    loaded = await load_tournament(request, tournament_id)
    director = authorize_registration(
        loaded.state, tournament_id, digest_of(request), data.invitation
    )
    token = new_token()
    command = RegisterPlayer(data.name, token_hash(token), director)
    who = "director" if director else "player"
    done = await services(request).tournaments.execute(tournament_id, command, actor=who)
    registered = done.state.players
    number = next(n for n, p in enumerate(registered) if p.token_hash == command.token_hash)
    registration = PlayerRegisteredResponse(
        tournament_id, number, registered[number].name, token, done.version
    )
    return created(registration, f"/tournaments/{tournament_id}/table")


async def direct(
    request: Request[Any, Any, Any], tournament_id: str, command: TournamentCommand
) -> TournamentAnswer:
    """The director's ``command`` (host token, checked on the state it is decided on); the
    tournament after it."""
    await load_tournament(request, tournament_id)
    digest = digest_of(request)

    def check(state: TournamentState) -> None:
        authorize_director(state, tournament_id, digest)

    done = await services(request).tournaments.execute(
        tournament_id, command, actor="director", check=check
    )
    return await answer(request, tournament_id, LoadedTournament(done.state, done.version))


@delete(
    "/tournaments/{tournament_id:str}/players/{player:int}",
    operation_id="removePlayer",
    summary="Remove a player before round 1 (E2.4)",
    description="The director (host token) removes player `player` until round 1 starts "
    "(then `players_fixed`): the players after them move up one number, their credential "
    "no longer opens anything, their name is free again, and a seating of round 1 by hand "
    "is dropped (it numbered the players, E3.3). A number that no player has is "
    "`unknown_player`. The answer is the tournament after it.",
    security=AS_HOST,
    status_code=200,
    responses={
        200: success(TournamentAnswer, tournament_examples.TOURNAMENT, "the tournament"),
        **problem_responses(401, 404, shown=[P[k] for k in ("players_fixed", "unknown_player")]),
    },
)
async def remove_player(
    request: Request[Any, Any, Any],
    tournament_id: TournamentId,
    player: PlayerParam,
) -> TournamentAnswer:
    return await direct(request, tournament_id, RemovePlayer(player))


@post(
    "/tournaments/{tournament_id:str}/registration/close",
    operation_id="closeRegistration",
    summary="Close registration before round 1 (E2.2)",
    description="The director (host token) closes registration: nobody registers any more "
    "(`registration_closed`), also not the director; round 1 starts as before. Closed "
    "once: closing it again, or after round 1 started, is `registration_closed`. The "
    "answer is the tournament after it.",
    security=AS_HOST,
    status_code=200,
    responses={
        200: success(TournamentAnswer, tournament_examples.TOURNAMENT, "the tournament"),
        **problem_responses(401, 404, shown=[P["registration_closed"]]),
    },
)
async def close_registration(
    request: Request[Any, Any, Any], tournament_id: TournamentId
) -> TournamentAnswer:
    return await direct(request, tournament_id, CloseRegistration())


@get(
    "/tournaments/{tournament_id:str}/table",
    operation_id="getPlayerTable",
    summary="The player's table and seat in the current round",
    description="With the player's tournament credential as the Bearer token: the round now, "
    "the player's table (its id) and seat there. The same credential is the seat's token "
    "at that table (`GET /tables/{id}/seats/{seat}/view`, the table's stream, play), so "
    "one link serves a player the whole evening. Before round 1 no table (`table_id` "
    "null, `round_no` 0, `status` `registering`). Once a round has started the table and "
    "seat are given at once, and `table_open` says whether the seat answers the credential "
    "yet: for a moment after `startRound` the service is still opening and seating the "
    "round's tables (`table_open` false, and the seat's view 404 or 401); the tournament's "
    "stream sends `table_opened` for each table as it opens, so wait for that rather "
    "than asking again.",
    security=AS_TOURNAMENT_PLAYER,
    responses={
        200: success(PlayerTable, tournament_examples.PLAYER_TABLES, "where the player plays"),
        **problem_responses(401, 404, shown=[P["tournament_not_found"]]),
    },
)
async def get_player_table(
    request: Request[Any, Any, Any], tournament_id: TournamentId
) -> PlayerTable:
    loaded = await load_tournament(request, tournament_id)
    state = loaded.state
    player = authorize_player(state, tournament_id, digest_of(request))
    where = PlayerTable(tournament_id, player, state.players[player].name, state.status, 0)
    sits = player_seat(state, player)
    if sits is None:
        return where
    stream = table_id(tournament_id, sits.round_no, sits.table_no)
    return msgspec.structs.replace(
        where,
        round_no=sits.round_no,
        table_id=stream,
        table_no=sits.table_no,
        seat=int(sits.seat),
        table_open=await services(request).tournaments.table_open(stream),
    )


@post(
    "/tournaments/{tournament_id:str}/rounds",
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
        200: success(RoundStartedResponse, tournament_examples.ROUND_STARTED, "the round started"),
        **problem_responses(
            401,
            404,
            413,
            shown=[P[k] for k in ("round_running", "no_players", "seated_twice", "left_out")],
        ),
    },
)
async def start_round(
    request: Request[Any, Any, Any], tournament_id: TournamentId, data: JSONBody[StartRoundRequest]
) -> RoundStartedResponse:
    svc = services(request)
    loaded = await load_tournament(request, tournament_id)
    authorize_director(loaded.state, tournament_id, digest_of(request))
    loaded = await svc.tournaments.settle(tournament_id)  # a table's end not noticed yet
    if data.seating is not None and data.round_no > loaded.state.round_no:
        seating = tuple(tuple(seats) for seats in data.seating)
        await svc.tournaments.execute(
            tournament_id, SeatRound(data.round_no, seating), actor="director"
        )
    done = await svc.tournaments.start_round(tournament_id, data.round_no, actor="director")
    created = done.state.created
    if created is not None and created.turn_seconds is not None:
        for table_no in range(1, len(done.state.seatings[data.round_no - 1]) + 1):
            svc.clock.watch(table_id(tournament_id, data.round_no, table_no))
    view = await answer(request, tournament_id, LoadedTournament(done.state, done.version))
    return RoundStartedResponse(data.round_no, done.version, view)


@get(
    "/tournaments/{tournament_id:str}/standings",
    operation_id="getStandings",
    summary="The standings (E6)",
    description="Every player's total points (E6.1), placement points (E6.2) and "
    "duplicate score (E6.3), ranked by the tournament's method or by `method`, with the "
    "tie-break (E6.4): the standings the tournament stores with each of its events that "
    "changes them (a round started or ended, a table abandoned, a public deal recorded, E6.6), "
    "computed from the tournament's own records; ranked by another method than the "
    "tournament's, computed from the same records. A read: it records nothing, and costs the "
    "same whatever the number of players. Only what is final counts (E6.5): a deal "
    "once every table of its round has scored it, placement points once the round has ended; "
    "the abandoned tables are listed (T4.2).",
    security=AS_TOURNAMENT_VIEWER,
    responses={
        200: success(Standings, tournament_examples.STANDINGS, "the standings"),
        **problem_responses(
            401, 404, shown=[P["unknown_standings_method"], P["tournament_not_found"]]
        ),
    },
)
async def get_standings(
    request: Request[Any, Any, Any],
    tournament_id: TournamentId,
    method: Annotated[
        str | None,
        Parameter(
            required=False,
            max_length=40,
            description="rank by this method (`total_points`, `placement_points`, "
            "`duplicate`) instead of the tournament's",
        ),
    ] = None,
) -> Standings:
    ranked_by = standings_method(method) if method is not None else None
    await load_viewed(request, tournament_id)
    current: Standings = await services(request).tournaments.current_standings(
        tournament_id, ranked_by
    )
    return current


@get(
    "/tournaments/{tournament_id:str}/rounds/{round_no:int}/deals/{deal_no:int}",
    operation_id="compareDeal",
    summary="One deal of a round at every table, side by side",
    description="The same cards in the same seats at every table of the round (E5.1): each "
    "table's players, contract, announcements, tricks and score (its deal record). Only "
    "once every table of the round has scored the deal or is over (E5.3: "
    "`deal_not_public` before); an abandoned table that did not play it has no record.",
    security=AS_TOURNAMENT_VIEWER,
    responses={
        200: success(DealComparison, tournament_examples.COMPARISON, "the deal at every table"),
        **problem_responses(401, 404, 409, shown=[P["deal_not_public"], P["tournament_not_found"]]),
    },
)
async def compare_deal(
    request: Request[Any, Any, Any], tournament_id: TournamentId, round_no: RoundNo, deal_no: DealNo
) -> DealComparison:
    svc = services(request)
    loaded = await load_viewed(request, tournament_id)
    state = loaded.state
    if round_no > state.round_no or deal_no > await svc.tournaments.public_deals(
        tournament_id, state, round_no
    ):
        raise not_public(deal_no)
    shown: list[TableDeal] = []
    for table_no, seats in enumerate(state.seatings[round_no - 1], 1):
        stream = table_id(tournament_id, round_no, table_no)
        record = await scored_record(svc, stream, deal_no)
        names = tuple("bot" if p is None else state.players[p].name for p in seats)
        shown.append(TableDeal(table_no, stream, names, record))
    return DealComparison(tournament_id, round_no, deal_no, tuple(shown))


@post(
    "/tournaments/{tournament_id:str}/stream-tickets",
    operation_id="getTournamentStreamTicket",
    opt=limited(Limited.CREATES),
    summary="A ticket that opens the tournament's stream once",
    description="For clients that cannot send headers on a stream (a browser's EventSource): "
    "send one of a private tournament's credentials as the Bearer token (the director's host "
    "token, a player's tournament credential or the invitation code; none at a public "
    "tournament) and open `GET /tournaments/{id}/events?ticket=...` with the answer's "
    f"`ticket`. It opens the tournament's stream once, within {TICKET_SECONDS} s (a second "
    "time, at another tournament or table, or later: 401 `ticket_invalid`, `ticket_expired`); "
    "then get a new one (to resume, too). A credential is never put in a URL; the ticket, "
    "made for one, is: `Location` is the stream's URL with it.",
    security=AS_TOURNAMENT_VIEWER,
    cache_control=NO_STORE,
    responses={
        201: success(StreamTicket, tournament_examples.STREAM_TICKET, "the ticket"),
        **problem_responses(401, 404, shown=[P["tournament_not_found"]]),
    },
)
async def tournament_stream_ticket(
    request: Request[Any, Any, Any], tournament_id: TournamentId
) -> Response[StreamTicket]:
    await load_viewed(request, tournament_id)
    ticket: StreamTicket = await services(request).tickets.issue(
        tournament_id, bearer(request, required=False)
    )
    return created(ticket, f"/tournaments/{tournament_id}/events?ticket={ticket.ticket}")


@get(
    "/tournaments/{tournament_id:str}/events",
    operation_id="streamTournament",
    opt=limited(Limited.STREAM),
    summary="Live tournament messages, standings and tables' chain heads (Server-Sent Events)",
    description="The tournament's own events (registrations, rounds started and ended, tables' "
    "ends; no seed or credential hash), each with the tournament stream's `chain_head`; "
    "`table_opened` once a table of a round has every seat taken (its seats' views answer "
    "their players' credentials from then on), `table_scored` and `table_finished` with the "
    "table's version and chain head (a witness, as `/feed` publishes public tables', for "
    "`doko verify --witness`), never what was scored, once the deal is public: every table "
    "of the round has scored it or is over (E5.3; a version counts a deal's events, and the "
    "other tables play the same cards); and `standings` whenever they change. Event ids are "
    "the stream's own message numbers (1, 2, ...; the standings take the id of the message "
    "before them), which count only what the stream shows: resume with Last-Event-ID or "
    "`after`. A private tournament takes one of its credentials as the "
    "Bearer token, or, from an EventSource (which cannot send headers), a `ticket` "
    "obtained with it (`POST /tournaments/{id}/stream-tickets`); without either it is 404 "
    "`tournament_not_found`, as to anyone it does not exist for. A credential in the URL "
    "(`token`) is refused (400 `token_in_url`).",
    security=AS_TOURNAMENT_STREAM_READER,
    responses=problem_responses(400, 401, 404, shown=[P["tournament_not_found"]]),
    media_type="text/event-stream",
)
async def stream_tournament(
    request: Request[Any, Any, Any],
    tournament_id: TournamentId,
    last_event_id: LastEventId = None,
    after: AfterPosition = None,
    ticket: TicketParameter = None,
) -> ServerSentEvent:
    svc = services(request)
    query_numbers(request, {"after": MAX_POSITION})
    cursor = cursor_of(last_event_id, after, MAX_POSITION)
    digest = await ticket_digest(request, tournament_id, ticket)
    loaded = await load_tournament(request, tournament_id)
    authorize_viewer(loaded.state, tournament_id, digest, ticket=ticket is not None)
    fetch = follow(svc.hub, svc.tournaments, tournament_id)
    return ServerSentEvent(sse_messages(svc.hub, tournament_id, cursor, fetch))


TOURNAMENTS_ROUTES = [
    create_tournament,
    get_tournament,
    register_player,
    remove_player,
    close_registration,
    get_player_table,
    start_round,
    get_standings,
    compare_deal,
    tournament_stream_ticket,
    stream_tournament,
]
