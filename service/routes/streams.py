"""Server-Sent Events: a table's events and the feed of every public table."""

from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
from litestar import Request, get
from litestar.params import Parameter
from litestar.response.sse import ServerSentEvent, ServerSentEventMessage

from domain.table import (
    SeatLeft,
)
from domain.table_view import prompt, redact
from infra.audit.witness import with_chain_head
from service.bodies.tables import (
    ZERO_MINIMUM,
)
from service.edge.credentials import AS_STREAM_READER
from service.edge.limits import Limited, limited
from service.edge.parsing import (
    MAX_POSITION,
    MAX_VERSION,
    query_numbers,
)
from service.edge.parsing import last_event_id as last_event_id_of
from service.edge.tickets import stream_viewer
from service.routes.shared import (
    LIFE_PROBLEMS,
    AfterPosition,
    LastEventId,
    TableId,
    TicketParameter,
    problem_responses,
    services,
)
from service.streams.hub import ALL, message, sse_messages, stamped, with_members, with_server_time
from service.streams.talk import talk_event


def cursor_of(last_event_id: str | None, after: int | None, limit: int) -> int:
    """Where a stream resumes: after Last-Event-ID if sent, else ``after``, else 0."""
    resumed = last_event_id_of(last_event_id, limit)
    return resumed if resumed is not None else after or 0


@get(
    "/tables/{table_id:str}/events",
    operation_id="streamTable",
    opt=limited(Limited.STREAM),
    summary="Live table events (Server-Sent Events)",
    description="Every event of the table, as the viewer may see it (seat token: that "
    "seat's view; none, the host token or the invitation code: public; a private table needs "
    "one of these, T1.1): a contract another seat named is `contract_named` with `contract` "
    "null (R4.3). Send the credential as the Bearer token, or, from an EventSource (which "
    "cannot send headers), a `ticket` obtained with it (`POST /tables/{id}/stream-tickets`): "
    "a credential in the URL (`token`) is refused (400 `token_in_url`). Event ids are table "
    "versions, one after another for every viewer; send Last-Event-ID (or `after`) to resume "
    "without gaps or repeats. Every message's data tells what the table asks once its event "
    "happened: `turn`, the seat to act (null: nobody), `clock`, its turn clock (as in views), "
    "and `options`, what the stream's seat may do now (null on a spectator's stream): a "
    "client that reads only its stream learns each of its turns. A seat's "
    "stream ends with the event of its player leaving (T2.2), one opened with the "
    "invitation code with the code's replacement (T1.2). `deal_scored` and "
    "`session_finished` data carry one more member, `chain_head`: the hash chain value at "
    "that version (hex), a witness of the table's history. Every message's data ends with "
    "`server_time`: the service's time (UTC) when it sent the message. Table talk (T5) comes "
    "beside the events as `event: talk` messages without an id (`TalkMessage`), live only: a "
    "resumed stream leaves out what was said meanwhile (`getTableTalk` with `after`).",
    security=AS_STREAM_READER,
    responses=problem_responses(400, 401, 404, shown=[LIFE_PROBLEMS["private"]]),
    media_type="text/event-stream",
)
async def stream_table(
    request: Request[Any, Any, Any],
    table_id: TableId,
    last_event_id: LastEventId = None,
    after: Annotated[
        int | None, Parameter(ge=0, le=MAX_VERSION, schema_extra=ZERO_MINIMUM, required=False)
    ] = None,
    ticket: TicketParameter = None,
) -> ServerSentEvent:
    svc = services(request)
    query_numbers(request, {"after": MAX_VERSION})
    cursor = cursor_of(last_event_id, after, MAX_VERSION)
    opened = await stream_viewer(request, table_id, ticket)
    loaded, viewer = opened.loaded, opened.seat
    left: list[int] = []  # the version at which the viewer's player left, or its code went
    talked = [await svc.talk.head(table_id)]  # the last talk id sent (T5: live only)

    async def fetch(cursor: int) -> tuple[list[ServerSentEventMessage], int]:
        base = (loaded.version, loaded.state)
        recorded = await svc.hub.events_after(table_id, cursor, base)
        messages = []
        now = svc.now()
        for record, event, state in recorded:
            if not left:
                asked = prompt(state, viewer, record.recorded_at)
                data = with_members(msgspec.json.encode(redact(event, viewer)), asked)
                data = with_chain_head(data, record)
                messages.append(message(record, record.version, with_server_time(data, now)))
            mine = record.version > loaded.version  # not an earlier player's leaving
            gone = isinstance(event, SeatLeft) and event.seat is viewer
            if (gone or opened.shut_out_by(event)) and mine:
                left.append(record.version)
        if not left and svc.hub.talk_head(table_id) > talked[0]:
            for entry in await svc.talk.after(table_id, talked[0]):
                messages.append(talk_event(entry, now))
                talked[0] = entry.talk_id
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
    opt=limited(Limited.STREAM),
    summary="Integration feed of public events across all tables (Server-Sent Events)",
    description="Every event of every public table, as a spectator sees it (a contract named: "
    "without it, R4.3), from a global position on, finished deals "
    "with their itemized scores included, `deal_scored` and `session_finished` with their "
    "`chain_head`; every item with `server_time`, the service's time when it sent it. Private "
    "tables are left out (T1.1). Event ids are global positions; resume with Last-Event-ID "
    "or `after`.",
    responses=problem_responses(429),
    media_type="text/event-stream",
)
async def stream_feed(
    request: Request[Any, Any, Any],
    last_event_id: LastEventId = None,
    after: AfterPosition = None,
) -> ServerSentEvent:
    svc = services(request)

    async def fetch(cursor: int) -> tuple[list[ServerSentEventMessage], int]:
        rendered = await svc.hub.feed_after(cursor)
        now = svc.now()
        messages: list[ServerSentEventMessage] = [
            stamped(message, now) for _, message in rendered if message is not None
        ]
        return messages, rendered[-1][0] if rendered else cursor

    query_numbers(request, {"after": MAX_POSITION})
    cursor = cursor_of(last_event_id, after, MAX_POSITION)
    return ServerSentEvent(sse_messages(svc.hub, ALL, cursor, fetch))


STREAMS_ROUTES = [stream_table, stream_feed]
