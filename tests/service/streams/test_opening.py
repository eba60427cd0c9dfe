"""A burst of stream opens larger than the database pool: each open waits for its turn
(`service.edge.limits`: at most a third of the pool opens streams at once, and as many
streams read the log at once, `service.streams.hub.Hub.reading`), or is refused 429
``streams_busy`` with ``Retry-After``; none is answered 503 ``database_unavailable``, and
the other requests made meanwhile are served. Counted on the real service and database:
the loads of tournaments in flight at once never pass what the streams may take."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from infra.tournaments import Tournaments
from service.app import create_app, stream_share
from service.tools.client import DokoClient
from tests.service.conftest import serve, settings
from tests.service.streams.test_shared_reads import ended

TOURNAMENTS = 10
PER_TOURNAMENT = 6
POOL = 6
SAFETY = 60.0


async def _open(http: httpx.AsyncClient, path: str, answers: list[httpx.Response]) -> None:
    """Open the stream, note its answer, and hold it open (until cancelled)."""
    async with http.stream("GET", path, timeout=httpx.Timeout(SAFETY, read=None)) as response:
        answers.append(response)
        if response.status_code != 200:
            await response.aread()
            return
        async for _ in response.aiter_lines():
            pass


async def test_a_burst_of_opens_larger_than_the_pool_waits_or_is_refused_never_503(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """60 tournament streams (6 each of 10 tournaments) opened at once on a pool of 6,
    while tables are created: every open is 200 or 429 ``streams_busy`` with
    ``Retry-After``, every table is created (201), and no more tournaments are loaded at
    once than the streams' share of the pool allows (opening and reading: twice the share)."""
    configured = settings(db_url, pool_size=POOL)
    share = stream_share(configured)
    in_flight = most = 0
    load = Tournaments.load

    async def counted(self: Tournaments, stream_id: str, **kwargs: Any) -> Any:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        try:
            return await load(self, stream_id, **kwargs)
        finally:
            in_flight -= 1

    app = create_app(configured)
    limits = httpx.Limits(max_connections=TOURNAMENTS * PER_TOURNAMENT + 20)
    async with (
        serve(app) as url,
        httpx.AsyncClient(base_url=url, timeout=SAFETY, limits=limits) as http,
    ):
        api = DokoClient(http)
        ids = [
            (await api.create_tournament(f"burst {n}", visibility="public")).tournament_id
            for n in range(TOURNAMENTS)
        ]
        monkeypatch.setattr(Tournaments, "load", counted)
        answers: list[httpx.Response] = []
        streams = [
            asyncio.create_task(_open(http, f"/tournaments/{t}/events", answers))
            for t in ids
            for _ in range(PER_TOURNAMENT)
        ]
        try:
            tables = await asyncio.gather(
                *(http.post("/tables", json={"name": f"beside {n}"}) for n in range(5))
            )
            async with asyncio.timeout(SAFETY):
                while len(answers) < len(streams):
                    await asyncio.sleep(0.01)
        finally:
            await ended(streams)
    assert [t.status_code for t in tables] == [201] * 5, [t.text for t in tables]
    for answer in answers:
        if answer.status_code != 200:
            assert answer.status_code == 429, answer.text
            assert answer.json()["code"] == "streams_busy"
            assert answer.headers["retry-after"] == "1"
    assert 1 <= most <= 2 * share, f"{most} tournaments loaded at once"
