"""The records of scored deals (`service.routes.records`): a deal's verification is computed once
and kept, and still agrees with the whole log; a deal's record survives a missing
projection row.

Reads of the log are counted on the running service's own event store (its
``read_stream``, wrapped to count its calls before calling it), on the real database.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import httpx
import msgspec
import pytest
from litestar import Litestar

from infra.audit.report import Check
from infra.audit.table import verify_table
from infra.event_store import EventStore
from infra.tables import Tables
from service.app import create_app
from tests.service.conftest import serve, settings
from tests.service.streams.test_shared_reads import Counted

SAFETY = 120.0


@pytest.fixture(scope="module")
async def app(db_url: str) -> Litestar:
    return create_app(settings(db_url))


@pytest.fixture(scope="module")
async def served(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        yield http


@pytest.fixture(scope="module")
async def scored(served: httpx.AsyncClient) -> str:
    """A table of four bots that has scored at least two deals."""
    created = (
        await served.post("/tables", json={"name": "records", "visibility": "public"})
    ).json()
    table_id, host = created["table_id"], created["host_token"]
    for kind in ("random", "greedy", "random", "greedy"):
        response = await served.post(
            f"/tables/{table_id}/bots",
            json={"kind": kind},
            headers={"authorization": f"Bearer {host}"},
        )
        assert response.status_code == 201
    async with asyncio.timeout(SAFETY):
        while len((await served.get(f"/tables/{table_id}/scoresheet")).json()["rows"]) < 2:
            await asyncio.sleep(0.05)
    return str(table_id)


async def test_a_deals_verification_is_computed_once(
    app: Litestar, served: httpx.AsyncClient, scored: str, pool: asyncpg.Pool
) -> None:
    """The first request reads the log; five more at once read nothing and get the same
    report (each signed by the same key when it is answered, so the signatures' times may
    differ by a second): deal 1 verified, on the log up to the command that scored it."""
    store = app.state.services.store
    counted = Counted(store.read_stream)
    store.read_stream = counted
    try:
        path = f"/tables/{scored}/deals/1/verification"
        first = await served.get(path)
        assert first.status_code == 200, first.text
        reads = counted.calls
        assert reads >= 1
        again = await asyncio.gather(*(served.get(path) for _ in range(5)))
        assert counted.calls == reads, "kept: the log was not read again"
    finally:
        del store.read_stream
    report = first.json()
    # the report is the kept one; its signature is made per answer, dated to the second
    signed_by = report.pop("signature")["kid"]
    for answer in again:
        body = answer.json()
        assert body.pop("signature")["kid"] == signed_by
        assert body == report
    assert report["ok"] and report["deal"]["deal_no"] == 1
    scored_at = await pool.fetchval(
        "SELECT version FROM events WHERE stream_id = $1 AND type = 'deal_scored'"
        " AND payload->>'deal_no' = '1'",
        scored,
    )
    assert report["deal"]["last_version"] == scored_at
    whole = await verify_table(Tables(EventStore(pool)), scored)  # the whole log, read afresh
    assert whole.ok
    kept = msgspec.convert(report["deal"]["checks"], tuple[Check, ...])
    assert next(d for d in whole.deals if d.deal_no == 1).checks == kept


async def test_a_deal_record_without_its_projection_row_is_read_from_the_log(
    served: httpx.AsyncClient, scored: str, pool: asyncpg.Pool
) -> None:
    """The deal archive is a projection: while its row is missing (being rebuilt), the
    record is computed from the log, the same as the row held."""
    path = f"/tables/{scored}/deals/2"
    archived = await served.get(path)
    assert archived.status_code == 200, archived.text
    await pool.execute("DELETE FROM deal_archive WHERE stream_id = $1 AND deal_no = 2", scored)
    computed = await served.get(path)
    assert computed.status_code == 200, computed.text
    assert computed.json() == archived.json()
