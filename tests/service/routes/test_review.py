"""A scored deal's review (`service.routes.review`): one entry per decision of the log, each
seat's costliest marked, computed once in the pool and kept, counted as an expensive route;
a deal not scored is refused (a tournament's deal before it is public:
`tests.service.test_tournament_secrecy`)."""

from __future__ import annotations

import asyncio

import httpx
from litestar import Litestar

from tests.service.routes.test_records import app, scored, served  # noqa: F401 (fixtures)
from tests.service.streams.test_shared_reads import Counted

ACTIONS = {"declared", "card_played", "announced"}


async def test_a_deals_review_has_every_decision_and_is_kept(
    app: Litestar,  # noqa: F811
    served: httpx.AsyncClient,  # noqa: F811
    scored: str,  # noqa: F811
) -> None:
    """Deal 1's review lists each action of its replay in order, by the seat that acted;
    asked again (five at once) it is the same and the log is not read again."""
    store = app.state.services.store
    counted = Counted(store.read_stream)
    store.read_stream = counted
    try:
        path = f"/tables/{scored}/deals/1/review"
        first = await served.get(path)
        assert first.status_code == 200, first.text
        assert '"expensive"' in first.headers["ratelimit-policy"]
        reads = counted.calls
        again = await asyncio.gather(*(served.get(path) for _ in range(5)))
        assert counted.calls == reads, "kept: the log was not read again"
    finally:
        del store.read_stream
    review = first.json()
    assert all(a.json() == review for a in again)
    events = (await served.get(f"/tables/{scored}/deals/1/replay")).json()["events"]
    actions = [
        e
        for e in events
        if e["type"] in ACTIONS or (e["type"] == "contract_named" and e["contract"] is not None)
    ]
    decisions = review["decisions"]
    assert [d["seat"] for d in decisions] == [e["seat"] for e in actions]
    assert [d["index"] for d in decisions] == list(range(len(actions)))
    for seat in review["seats"]:
        own = [d for d in decisions if d["seat"] == seat["seat"]]
        costly = sorted((d for d in own if d["lost"] > 0), key=lambda d: (-d["lost"], d["index"]))
        assert seat["costliest"] == [d["index"] for d in costly[:3]]
        assert abs(seat["lost"] - sum(d["lost"] for d in own)) < 1e-6


async def test_a_deal_not_scored_has_no_review(
    served: httpx.AsyncClient,  # noqa: F811
) -> None:
    """R4.3: a deal is reviewed once it is scored: before, 409 ``deal_not_scored``."""
    body = {"name": "unscored", "visibility": "public"}
    created = (await served.post("/tables", json=body)).json()
    refused = await served.get(f"/tables/{created['table_id']}/deals/1/review")
    assert (refused.status_code, refused.json()["code"]) == (409, "deal_not_scored")
