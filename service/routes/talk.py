"""Table talk (T5): saying something to the table, reading what was said, and the host's mutes.

Talk is kept beside the log (`infra.talk`), never in it: no event, no version, nothing in the
hash chain, the export or the deal records. Whoever may watch the table may talk: a seat
token speaks for its seat, under its player's name; any other viewer as a spectator. What
may be said is the domain's (`domain.talk.said`); how often, the talk pace's
(`service.edge.talk_pace`). Server bots never talk (T5.4): they hold no token.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.params import JSONBody, Parameter

from domain.seats import Seat
from domain.talk import said, spectator_name
from infra.talk import TalkEntry, TalkKind
from service.bodies.tables import ZERO_MINIMUM
from service.bodies.talk import (
    TalkMessage,
    TalkMuteRequest,
    TalkRequest,
    TalkState,
    talk_message,
)
from service.edge.auth import authorize_host, authorize_spectator, bearer, seat_of
from service.edge.credentials import AS_HOST, AS_SPECTATOR, Credential, admit
from service.edge.parsing import MAX_POSITION, query_numbers
from service.edge.problems import example_problem
from service.routes.shared import (
    LIFE_PROBLEMS,
    TableId,
    current_table,
    problem_responses,
    sent_token,
    services,
    success,
    watched_table,
)

TALK_PROBLEMS = [
    example_problem(400, "talk_text", "a message has 1-200 characters, not 0", "T5.1"),
    LIFE_PROBLEMS["private"],
    example_problem(
        409,
        "talk_names_card",
        "during a deal a player's message may not name a card, a suit, trump or a party",
        "T5.2",
    ),
    example_problem(409, "talk_muted", "the host muted the table talk: seat 2 is muted", "T5.3"),
    example_problem(429, "rate_limited", "5 messages in 30 s: wait 12 s"),
]
"""The problems of saying something (T5)."""

After = Annotated[
    int | None,
    Parameter(
        ge=0,
        le=MAX_POSITION,
        schema_extra=ZERO_MINIMUM,
        required=False,
        description="only the entries after this talk id (the last one seen)",
    ),
]


async def _talk_state(
    request: Request[Any, Any, Any], table_id: str, after: int | None
) -> TalkState:
    """The table's talk (after ``after``, or its newest) and its mutes."""
    talk = services(request).talk
    entries = await (talk.recent(table_id) if after is None else talk.after(table_id, after))
    mutes = await talk.mutes(table_id)
    return TalkState(
        [talk_message(e) for e in entries], [int(s) for s in mutes.seats], mutes.spectators
    )


async def _keep(
    request: Request[Any, Any, Any],
    table_id: str,
    kind: TalkKind,
    seat: Seat | None,
    name: str = "",
    text: str = "",
) -> TalkEntry:
    """Keep a talk entry and wake this process's streams of the table at once (the others
    hear it from the database's notification)."""
    svc = services(request)
    entry = await svc.talk.add(table_id, kind, seat, name, text)
    svc.hub.talked(f"{table_id}:{entry.talk_id}")
    return entry


@post(
    "/tables/{table_id:str}/talk",
    operation_id="postTableTalk",
    summary="Say something to the table (T5)",
    description="A short message to everyone watching the table: its stream sends it to every "
    "viewer as `event: talk` (`TalkMessage`, no event id). With a seat token its player "
    "speaks; anyone else who may watch the table (none at a public table; the host token or "
    "the invitation code at a private one) as a spectator, under `name`: a name as a seat's "
    "player's is kept (N1-N3: 400 `name_unseen_characters` or `name_mixed_scripts`). 1-200 "
    "characters once trimmed, no control or direction characters (400 `talk_text`, T5.1); during a "
    "deal a seated player's message names no card, suit, trump or party (409 "
    "`talk_names_card`, T5.2): a person's words, never a hand; a muted seat or muted "
    "spectators are refused (409 `talk_muted`, T5.3). Each sender may say a few messages a "
    'window (429 `rate_limited` with `Retry-After`; `RateLimit-Policy` `"talk"` and '
    "`RateLimit` on every answer). Talk is never an event of the table: not in its hash "
    "chain, its export or its deal records.",
    security=AS_SPECTATOR,
    status_code=200,
    responses={
        200: success(TalkMessage, [], "the message as it was kept and sent"),
        **problem_responses(401, 404, 409, 413, shown=TALK_PROBLEMS),
    },
)
async def post_table_talk(
    request: Request[Any, Any, Any], table_id: TableId, data: JSONBody[TalkRequest]
) -> Response[TalkMessage]:
    svc = services(request)
    token = sent_token(request)
    loaded = await current_table(request, table_id, token=token)
    state = loaded.state
    seat = seat_of(state, token) if token is not None else None
    if seat is None:
        authorize_spectator(request, state)
    else:
        admit(Credential.SEAT_TOKEN)
    mutes = await svc.talk.mutes(table_id)
    text = said(state, seat, data.text, mutes)
    if seat is not None:
        player = state.players[seat]
        name = player.name if player is not None else ""
        sender = f"{table_id}:seat:{int(seat)}"
    else:
        name = spectator_name(data.name) if data.name else ""
        client = request.client
        sender = f"{table_id}:spectator:{client.host if client else ''}"
    headers = svc.pace.admit(sender)
    entry = await _keep(request, table_id, TalkKind.SAID, seat, name, text)
    return Response(talk_message(entry), headers=headers)


@get(
    "/tables/{table_id:str}/talk",
    operation_id="getTableTalk",
    summary="What was said at the table (T5)",
    description="The table's newest talk entries (at most 50, oldest first), or with `after` "
    "those after that talk id (what a resumed stream left out), and whom the host muted "
    "(T5.3). Whoever may watch the table may read it (a private table takes a credential of "
    "it, T1.1).",
    security=AS_SPECTATOR,
    responses={
        200: success(TalkState, [], "the talk and its mutes"),
        **problem_responses(404, shown=[LIFE_PROBLEMS["private"]]),
    },
)
async def get_table_talk(
    request: Request[Any, Any, Any], table_id: TableId, after: After = None
) -> TalkState:
    query_numbers(request, {"after": MAX_POSITION})
    await watched_table(request, table_id)
    return await _talk_state(request, table_id, after)


@post(
    "/tables/{table_id:str}/talk/mutes",
    operation_id="muteTableTalk",
    summary="Mute or unmute a seat or the spectators (host, T5.3)",
    description="With the host token: `muted` true mutes `seat` (null: the spectators), false "
    "unmutes it; their messages are refused (409 `talk_muted`) until then. Every stream of "
    "the table tells it as `event: talk` with `kind` `muted` or `unmuted`. Answers the talk "
    "and its mutes.",
    security=AS_HOST,
    status_code=200,
    responses={
        200: success(TalkState, [], "the talk and its mutes"),
        **problem_responses(401, 404, 413, shown=[LIFE_PROBLEMS["private"]]),
    },
)
async def mute_table_talk(
    request: Request[Any, Any, Any], table_id: TableId, data: JSONBody[TalkMuteRequest]
) -> TalkState:
    svc = services(request)
    token = bearer(request) or ""
    loaded = await svc.tables.load(table_id)
    authorize_host(loaded.state, token)
    seat = None if data.seat is None else Seat(data.seat)
    kind = TalkKind.MUTED if data.muted else TalkKind.UNMUTED
    await _keep(request, table_id, kind, seat)
    return await _talk_state(request, table_id, None)


TALK_ROUTES = [post_table_talk, get_table_talk, mute_table_talk]
