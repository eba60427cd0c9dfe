"""Audit: scored deals, their replay and verification, the signed session export."""

import asyncio
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from domain.table import (
    TableEvent,
)
from domain.table_view import without_secrets
from infra.audit.deals import deal_events, render_deal
from infra.audit.export import Export
from infra.event_store import StoredEvent
from infra.projections import DealRecord
from infra.tables import Loaded
from service.edge.auth import (
    authorize_spectator,
)
from service.edge.credentials import AS_SPECTATOR
from service.edge.keys import KEYS_PATH, signed, signing
from service.edge.problems import ServiceError
from service.edge.shared_deals import require_public
from service.routes.records import DealVerification, decoded, export_of
from service.routes.shared import (
    LIFE_PROBLEMS,
    SIGNED_PROBLEMS,
    TableId,
    problem_responses,
    scored_record,
    services,
    watched_table,
)

DealNo = Annotated[int, Parameter(ge=1, le=12, description="the deal's number, 1-12")]


async def _scored(request: Request[Any, Any, Any], table_id: str, deal_no: int) -> None:
    """Deals are public once scored (R4.3): before that, 409 (and at a private table, to
    holders of a credential of it, T1.1); at a tournament's table once every table of the
    round has scored it (E5.3)."""
    svc = services(request)
    loaded: Loaded = await svc.tables.load(table_id, fresh=True)
    authorize_spectator(request, loaded.state)
    if len(loaded.state.session.sheet) < deal_no:
        raise ServiceError(
            409, "deal_not_scored", f"deal {deal_no} is not scored yet: it stays hidden until then"
        )
    await require_public(svc.tournaments, table_id, deal_no)


async def may_see_kept(request: Request[Any, Any, Any], table_id: str, deal_no: int) -> None:
    """What a kept result of a deal needs before it is served (the log is not read then):
    T1.1 a private table's credential, E5.3 a tournament's deal public."""
    svc = services(request)
    if not await svc.visibilities.public([table_id]):
        await watched_table(request, table_id)
    await require_public(svc.tournaments, table_id, deal_no)


async def scored_log(
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
    "itemized score lines with their rule ids. Only once the deal is scored; at a table of "
    "a tournament once every table of the round has scored it (E5.3: `deal_not_public`).",
    security=AS_SPECTATOR,
    responses=problem_responses(404, 409, shown=[LIFE_PROBLEMS["private"]]),
)
async def get_deal(
    request: Request[Any, Any, Any], table_id: TableId, deal_no: DealNo
) -> DealRecord:
    await _scored(request, table_id, deal_no)
    record = await scored_record(services(request), table_id, deal_no)
    if record is None:
        raise ServiceError(409, "deal_not_scored", f"deal {deal_no} is not scored yet")
    return record


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
    security=AS_SPECTATOR,
    responses=problem_responses(404, 409, shown=[LIFE_PROBLEMS["private"]]),
)
async def replay_deal(
    request: Request[Any, Any, Any], table_id: TableId, deal_no: DealNo
) -> DealReplay:
    stored = await scored_log(request, table_id, deal_no)
    return await asyncio.to_thread(_replay, stored, deal_no)


@get(
    "/tables/{table_id:str}/deals/{deal_no:int}/verification",
    operation_id="verifyDeal",
    summary="Verify a scored deal",
    description="Commitment and seed, hands recomputed, events replayed by the rules, score "
    "recomputed, hash chain intact, on the log up to the deal's last event (which later "
    "events cannot change: the result is computed once and kept); signed by the service's "
    f"current key (see `{KEYS_PATH}`).",
    security=AS_SPECTATOR,
    responses=problem_responses(404, 409, shown=[LIFE_PROBLEMS["private"], *SIGNED_PROBLEMS]),
)
async def verify_deal(
    request: Request[Any, Any, Any], table_id: TableId, deal_no: DealNo
) -> DealVerification:
    svc = services(request)
    await may_see_kept(request, table_id, deal_no)
    verification: DealVerification = await svc.verifications.of(
        table_id, deal_no, lambda: scored_log(request, table_id, deal_no)
    )
    return await signed(svc.keys, verification)


@get(
    "/tables/{table_id:str}/export",
    operation_id="exportSession",
    summary="The whole session as one portable JSON record",
    description="Every event with its version, payload and hash, signed by the service's "
    f"current key (see `{KEYS_PATH}`), for `doko verify --file` offline. Only once the "
    "session is over (finished, or abandoned: T4.2); a table of a tournament once every table "
    "of its round has scored its deals (E5.3).",
    security=AS_SPECTATOR,
    responses={
        200: ResponseSpec(Export, description="the table's log", generate_examples=False),
        **problem_responses(404, 409, shown=[LIFE_PROBLEMS["private"], *SIGNED_PROBLEMS]),
    },
)
async def export_table(request: Request[Any, Any, Any], table_id: TableId) -> Response[bytes]:
    tables = services(request).tables
    loaded: Loaded = await tables.load(table_id, fresh=True)
    authorize_spectator(request, loaded.state)
    if not (loaded.state.session.finished or loaded.state.abandoned):
        raise ServiceError(409, "session_not_finished", "a session is exported once it is over")
    await require_public(services(request).tournaments, table_id, len(loaded.state.session.sheet))
    stored = await tables.store.read_stream(table_id)
    signer, now = await signing(services(request).keys)
    body = await asyncio.to_thread(export_of, stored, signer, now)
    return Response(body, media_type="application/json")


AUDIT_ROUTES = [get_deal, replay_deal, verify_deal, export_table]
