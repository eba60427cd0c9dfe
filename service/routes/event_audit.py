"""An event's audit over HTTP: its stream and every table of every round re-run
(`infra.event_audit`, E1-E6), and the signed export of it all (`infra.event_export`)."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from litestar import Request, Response, get
from litestar.openapi.datastructures import ResponseSpec

from infra.audit import Check
from infra.event_audit import EventReport, event_summary, verify_event
from infra.event_export import EventExport, export_event, read_event
from service import event_examples
from service.edge.credentials import AS_EVENT_VIEWER
from service.edge.problems import ServiceError
from service.event_access import authorize_viewer, digest_of
from service.keys import KEYS_PATH, signing
from service.routes.events import EventId, load_event
from service.routes.shared import SIGNED_PROBLEMS, problem_responses, services


class EventVerification(msgspec.Struct, frozen=True):
    """The audit of an event: whether every check passed, the first that failed (the
    first thing that differs), one line per check (`infra.event_audit.event_summary`) and
    the whole report, every table's included."""

    event_id: str
    ok: bool
    first_failure: Check | None
    summary: tuple[str, ...]
    report: EventReport


@get(
    "/events/{event_id:str}/verification",
    operation_id="verifyEvent",
    summary="Verify the whole event",
    description="Re-runs the event's stream (the commitments to its seeds, every seating "
    "drawn by the rule or seated by hand, the rounds and the tables' ends) and every table "
    "of every round (opened as the event says with the round's shared deals, its chain, "
    "its replay, every deal's seed, hands and score), and, once the event is finished, "
    "holds the stored standings against those recomputed from the tables' logs; names the "
    "first thing that differs. Not while a round runs (409 `round_running`, E5.3: its "
    "tables' deals are not all public). Rate-limited like the other routes that replay a "
    "log.",
    security=AS_EVENT_VIEWER,
    responses=problem_responses(401, 404, 409, shown=[event_examples.PROBLEMS["not_between"]]),
)
async def verify(request: Request[Any, Any, Any], event_id: EventId) -> EventVerification:
    loaded = await load_event(request, event_id)
    authorize_viewer(loaded.state, event_id, digest_of(request))
    if loaded.state.running:
        raise ServiceError(
            409,
            "round_running",
            f"round {loaded.state.round_no} is running: the event is verified between rounds",
            rule="E5.3",
        )
    report = await verify_event(services(request).events, event_id)
    return EventVerification(
        event_id, report.ok, report.first_failure, tuple(event_summary(report)), report
    )


@get(
    "/events/{event_id:str}/export",
    operation_id="exportEvent",
    summary="The whole event as one portable, signed JSON record",
    description="The event's stream, every table of every round as its own signed table "
    "export (as `exportSession` makes it) and the standings, signed by the service's "
    f"current key (see `{KEYS_PATH}`), for `doko verify --file` offline (no database). "
    "Credential hashes are sealed, and so is the seed of every deal no table of its round "
    "scored (`infra.event_export`). Only once the event is finished (409 "
    "`event_not_finished`, E4.3). Rate-limited like the other routes that replay a log.",
    security=AS_EVENT_VIEWER,
    responses={
        200: ResponseSpec(
            EventExport,
            description="the event and its tables",
            generate_examples=False,
            examples=event_examples.EXPORT,
        ),
        **problem_responses(
            401, 404, 409, shown=[event_examples.PROBLEMS["not_finished"], *SIGNED_PROBLEMS]
        ),
    },
)
async def export(request: Request[Any, Any, Any], event_id: EventId) -> Response[bytes]:
    loaded = await load_event(request, event_id)
    authorize_viewer(loaded.state, event_id, digest_of(request))
    if not loaded.state.finished:
        raise ServiceError(
            409, "event_not_finished", "an event is exported once it is finished", rule="E4.3"
        )
    svc = services(request)
    logs = await read_event(svc.events, event_id)
    signer, now = await signing(svc.keys)
    body = await asyncio.to_thread(
        export_event, logs.stored, logs.logs, logs.standings, signer=signer, signed_at=now
    )
    return Response(body, media_type="application/json")


EVENT_AUDIT_ROUTES = [verify, export]
