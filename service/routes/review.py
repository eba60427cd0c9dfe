"""Review: a scored deal's decisions, each priced by the expert (`expert.review`).

Each decision of each seat (declaration, contract, card, announcement) is weighed against
the alternatives the seat had, from what that seat saw at that moment only; the answer
lists the points each choice lost against the expert's best and marks each seat's three
costliest. A review takes seconds of CPU: it runs in the searching bots' process pool
(`service.workers.thinking`), is rate-limited as the other routes that replay a log
(`service.edge.limits`), and is computed once per deal and kept (`Kept`, as the
verifications). A deal is reviewed once it is public to the caller (R4.3 scored, T1.1, at a
tournament's table once every table of the round scored it, E5.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, get_args

import msgspec
from litestar import Request, get

from domain.events import DealEvent
from domain.rule_set import DEFAULT
from domain.seats import SEATS, Seat
from domain.table import TableCreated
from expert.review import REVIEW_BUDGET, Decision
from expert.search import Budget
from infra.audit.deals import deal_events
from infra.event_store import StoredEvent
from service.edge.credentials import AS_SPECTATOR
from service.routes.audit import DealNo, may_see_kept, scored_log
from service.routes.records import Kept, decoded
from service.routes.shared import LIFE_PROBLEMS, TableId, problem_responses, services
from service.workers.thinking import Thinking

COSTLIEST = 3
"""How many of each seat's decisions the review marks."""

_DEAL_EVENTS = get_args(DealEvent)


class SeatReview(msgspec.Struct, frozen=True):
    """A seat's sum of points lost and its costliest decisions (indexes into ``decisions``,
    the costliest first; only decisions that lost something)."""

    seat: Seat
    lost: float
    costliest: tuple[int, ...]


class DealReview(msgspec.Struct, frozen=True):
    """A scored deal's review: every decision in the order made, and each seat's summary.
    Points are the seat's mean scoresheet entries (R10) by the expert's search."""

    table_id: str
    deal_no: int
    decisions: tuple[Decision, ...]
    seats: Annotated[tuple[SeatReview, ...], msgspec.Meta(description="seat 0 first")]


def summary(decisions: Sequence[Decision]) -> tuple[SeatReview, ...]:
    """Each seat's points lost and its `COSTLIEST` decisions that lost anything."""
    found = []
    for seat in SEATS:
        own = [d for d in decisions if d.seat is seat]
        costly = sorted((d for d in own if d.lost > 0), key=lambda d: (-d.lost, d.index))
        total = round(sum(d.lost for d in own), 3)
        found.append(SeatReview(seat, total, tuple(d.index for d in costly[:COSTLIEST])))
    return tuple(found)


def reviews(
    thinking: Thinking, budget: Budget = REVIEW_BUDGET, size: int = 256
) -> Kept[DealReview]:
    """The review of each deal asked for, computed in the pool at this budget and kept."""

    async def review(stored: Sequence[StoredEvent], table_id: str, deal_no: int) -> DealReview:
        log = decoded(stored)
        created = log[0]
        rules = created.rule_set if isinstance(created, TableCreated) else DEFAULT
        events = [e for e in deal_events(log, deal_no) if isinstance(e, _DEAL_EVENTS)]
        decisions = await thinking.review(events, f"review:{table_id}:{deal_no}", budget, rules)
        return DealReview(table_id, deal_no, decisions, summary(decisions))

    return Kept(review, size)


@get(
    "/tables/{table_id:str}/deals/{deal_no:int}/review",
    operation_id="reviewDeal",
    summary="A scored deal's decisions, priced by the expert",
    description="Every decision each seat made (declaration, contract, card, announcement) "
    "with the mean scoresheet entry of each alternative it had and the points lost against "
    "the best, computed by the `expert` bot's search from what that seat saw at that moment "
    "(never the hands it could not see); each seat's three costliest decisions. Seconds of "
    "CPU the first time, then kept; rate-limited like the other routes that replay a log. "
    "Only once the deal is scored; at a table of a tournament once every table of the round "
    "has scored it (E5.3: `deal_not_public`).",
    security=AS_SPECTATOR,
    responses=problem_responses(404, 409, shown=[LIFE_PROBLEMS["private"]]),
)
async def review_deal(
    request: Request[Any, Any, Any], table_id: TableId, deal_no: DealNo
) -> DealReview:
    svc = services(request)
    await may_see_kept(request, table_id, deal_no)
    review: DealReview = await svc.reviews.of(
        table_id, deal_no, lambda: scored_log(request, table_id, deal_no)
    )
    return review


REVIEW_ROUTES = [review_deal]
