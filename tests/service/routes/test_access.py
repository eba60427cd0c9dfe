"""Who may open a table: stream tickets instead of credentials in URLs, the host
replacing a private table's invitation (T1.2), a private table that does not exist to a
stranger (T1.1), and the headers every answer carries.

Every refused request is checked to write nothing where it could have written.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from domain.table import InvitationRotated
from infra.event_store import EventStore
from service.app import create_app
from service.edge.logs import JsonFormatter
from service.tools.client import (
    DokoClient,
    ProblemError,
    SseMessage,
    TableClient,
)
from tests.service.conftest import Records, serve, settings
from tests.service.edge.test_errors import assert_problem
from tests.service.knowledge import differences, message, with_server_time, without_prompt
from tests.service.routes.test_table_life import log, problem, unchanged
from tests.service.truth import Truth

WAIT = 60.0
"""The bound of every wait for a condition (never reached unless something is broken)."""
TICKET_SECONDS = 60
"""README, Operations: a stream ticket opens the stream within 60 s of being issued."""


class FakeNow:
    """The service's clock, set by the test (`service.app.create_app`'s ``now``); it starts
    at the host's time, as the other servers on the database read it."""

    def __init__(self) -> None:
        self.at = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.at


async def first_ids(
    http: httpx.AsyncClient, path: str, params: dict[str, str], upto: str
) -> list[str]:
    """The event ids a stream sends until ``upto`` (the stream must open: 200)."""
    got: list[str] = []
    async with asyncio.timeout(WAIT), http.stream("GET", path, params=params) as response:
        assert response.status_code == 200, await response.aread()
        async for line in response.aiter_lines():
            if line.startswith("id:"):
                got.append(line.removeprefix("id:").strip())
                if got[-1] == upto:
                    break
    return got


# -- stream tickets -------------------------------------------------------------------------


async def test_a_stream_ticket_opens_the_stream_once_within_its_time_in_any_process(
    db_url: str,
) -> None:
    """A ticket obtained with a credential in the header opens that table's stream once,
    as that credential would, also through another service process; used again, at
    another table or after its 60 s it is 401; a credential in the URL is 400 whatever the
    table; no ticket reaches a log line."""
    now = FakeNow()
    tickets: list[str] = []
    with Records().attached("doko.access", "doko.service") as records:
        async with (
            serve(create_app(settings(db_url), now=now)) as one,
            serve(create_app(settings(db_url), now=now)) as other,
            httpx.AsyncClient(base_url=one, timeout=WAIT) as first,
            httpx.AsyncClient(base_url=other, timeout=WAIT) as second,
        ):
            table = await DokoClient(first).create_table("tickets")
            seat = await table.take_seat("anna", seat=2)
            elsewhere = await DokoClient(first).create_table("elsewhere", visibility="public")
            events = f"{table.path}/events"

            answer = await first.post(f"{table.path}/stream-tickets", headers=seat.auth)
            assert answer.status_code == 201, answer.text
            ticket = answer.json()["ticket"]
            tickets.append(ticket)
            expires = datetime.fromisoformat(answer.json()["expires_at"])
            assert expires == now.at + timedelta(seconds=TICKET_SECONDS)
            assert ticket not in (seat.token, table.host_token, table.invitation)

            at_another_table = await second.get(
                f"{elsewhere.path}/events", params={"ticket": ticket}
            )
            assert_problem(at_another_table, 401, "ticket_invalid")
            got = await first_ids(second, events, {"ticket": ticket, "after": "0"}, "2")
            assert got == ["1", "2"]
            for client in (first, second):
                again = await client.get(events, params={"ticket": ticket})
                assert_problem(again, 401, "ticket_invalid")

            late = await table.stream_ticket(seat.token)
            tickets.append(late)
            now.at += timedelta(seconds=TICKET_SECONDS)
            assert_problem(await second.get(events, params={"ticket": late}), 401, "ticket_expired")
            in_time = await table.stream_ticket()  # with the host token: a spectator's stream
            tickets.append(in_time)
            now.at += timedelta(seconds=TICKET_SECONDS - 1)
            assert await first_ids(second, events, {"ticket": in_time}, "1") == ["1"]

            for path in (events, f"/tables/{uuid.uuid4().hex}/events"):
                in_url = await first.get(path, params={"token": seat.token})
                assert_problem(in_url, 400, "token_in_url")
    logged = "\n".join(JsonFormatter().format(r) for r in records.records)
    assert "/stream-tickets" in logged
    for secret in (*tickets, seat.token):
        assert secret not in logged


# -- T1.2: replacing the invitation -----------------------------------------------------------


async def _read_all(stream: Any, opened: asyncio.Event) -> list[SseMessage]:
    """Every message of a stream until the service ends it; ``opened`` is set on the first."""
    received: list[SseMessage] = []
    async with asyncio.timeout(WAIT), stream as messages:
        async for sent in messages:
            if sent.id is not None:
                received.append(sent)
                opened.set()
    return received


async def test_the_host_replaces_the_invitation_and_the_old_code_opens_nothing(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """T1.2: with a new code the old one stops at once: it seats nobody (a former player
    neither, with the old code or its old token), shows nothing (views, tickets) and the
    stream opened with it ends with the replacement, whose new code's hash nobody is shown;
    the seated player keeps the seat. A public table has no code to replace; only the host
    replaces it; refusals write nothing."""
    table = await api.create_table("rotating")
    old = table.invitation
    assert old is not None
    staying = await table.take_seat("stays", seat=0)
    leaving = await table.take_seat("leaves", seat=1)
    await leaving.leave()
    watcher = DokoClient(http).table(table.table_id, invitation=old)
    ticket = await watcher.stream_ticket()
    opened = asyncio.Event()
    watched = asyncio.create_task(_read_all(watcher.events(), opened))
    await asyncio.wait_for(opened.wait(), WAIT)
    async with unchanged(pool, table.table_id):
        for stranger in (staying.auth, {}):
            refused = await http.post(f"{table.path}/invitation", headers=stranger)
            assert refused.status_code == 401, refused.text
    new = await table.replace_invitation()
    assert new != old and table.invitation == new

    stream = await watched
    assert stream[-1].event == "invitation_rotated"
    truth = Truth(table.table_id, await EventStore(pool).read_stream(table.table_id))
    rotated = truth.log.events[int(stream[-1].id or 0)]
    assert rotated["type"] == "invitation_rotated" and rotated["invitation_hash"]
    told = without_prompt(stream[-1].json())
    expected = with_server_time(
        message(rotated, None, truth.chain_head(int(stream[-1].id or 0))), told
    )
    assert not differences(told, expected), differences(told, expected)
    assert stream[-1].json()["invitation_hash"] == ""

    former = DokoClient(http).table(table.table_id, invitation=old)
    async with unchanged(pool, table.table_id):
        with pytest.raises(ProblemError) as retaken:
            await former.take_seat("back again", seat=1)
        assert problem(retaken) == (404, "table_not_found", None)
        for headers in ({"authorization": f"Bearer {old}"}, leaving.auth):
            assert (await http.get(table.path, headers=headers)).status_code == 404
            tickets = await http.post(f"{table.path}/stream-tickets", headers=headers)
            assert tickets.status_code == 404
        assert (
            await http.get(f"{table.path}/events", params={"ticket": ticket})
        ).status_code == 404
    assert (await staying.view()).viewer == 0
    newcomer = await DokoClient(http).table(table.table_id, invitation=new).take_seat("new", seat=1)
    view = await DokoClient(http).table(table.table_id, invitation=new).view()
    assert [s.name for s in view.seats[:2]] == ["stays", "new"] and newcomer.seat == 1
    assert sum(isinstance(e, InvitationRotated) for e in await log(pool, table.table_id)) == 1

    public = await api.create_table("open to all", visibility="public")
    async with unchanged(pool, public.table_id):
        with pytest.raises(ProblemError) as none:
            await public.replace_invitation()
        assert problem(none) == (409, "table_public", "T1.2")


# -- T1.1: a private table does not exist to a stranger -----------------------------------------


async def _private_table_with_a_scored_deal(api: DokoClient) -> TableClient:
    """A private table of four bots, abandoned after its first scored deal (unless the bots
    finished the session first): every route of a table has something to answer."""
    table = await api.create_table("hidden")
    for seat in range(4):
        await table.seat_bot("random", seat=seat)
    async with asyncio.timeout(WAIT), table.events() as messages:
        async for sent in messages:
            if sent.event == "deal_scored":
                break
    try:
        await table.abandon()
    except ProblemError as error:
        assert error.code == "session_over"
    return table


ROUTES = [
    ("GET", "", None),
    ("GET", "/scoresheet", None),
    ("GET", "/events", None),
    ("GET", "/deals/1", None),
    ("GET", "/deals/1/replay", None),
    ("GET", "/deals/1/verification", None),
    ("GET", "/export", None),
    ("GET", "/seats/0", None),
    ("POST", "/seats", {"name": "stranger"}),
    ("POST", "/seats", {"name": "stranger", "invitation": "guessed"}),
    ("POST", "/bots", {"kind": "random"}),
    ("POST", "/seats/0/play", {"card": "QC"}),
    ("POST", "/seats/0/back", None),
    ("DELETE", "/seats/0", None),
    ("POST", "/close", None),
    ("POST", "/abandon", None),
    ("POST", "/invitation", None),
    ("POST", "/stream-tickets", None),
]
"""Every route of a table, with a body where it takes one."""


async def test_a_private_table_answers_a_stranger_as_an_unknown_table(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """T1.1: to a caller without a credential of a private table (none, or a guessed token)
    every route of the table answers exactly what it answers for a table that does not
    exist: 404 ``table_not_found``, the same body (but for the id) and the same headers;
    a verification the service keeps included. A holder of a credential gets the table."""
    table = await _private_table_with_a_scored_deal(api)
    host = {"authorization": f"Bearer {table.host_token}"}
    for path in ("", "/deals/1/verification", "/export"):
        assert (await http.get(f"{table.path}{path}", headers=host)).status_code == 200
    unknown = uuid.uuid4().hex
    guessed = {"authorization": f"Bearer {uuid.uuid4().hex}"}
    async with unchanged(pool, table.table_id):
        for method, path, body in ROUTES:
            for headers in (guessed, {}):
                sent: dict[str, Any] = {"headers": headers}
                if body is not None:
                    sent["json"] = body
                hidden = await http.request(method, f"{table.path}{path}", **sent)
                absent = await http.request(method, f"/tables/{unknown}{path}", **sent)
                where = f"{method} {path} with {headers}"
                assert absent.status_code in (401, 404), where
                assert hidden.status_code == absent.status_code, (where, hidden.text)
                assert hidden.text.replace(table.table_id, unknown) == absent.text, where
                names = {k for k in hidden.headers if k != "date"}
                assert names == {k for k in absent.headers if k != "date"}, where
                if headers:
                    assert hidden.status_code == 404, where
    public = await api.create_table("public", visibility="public")
    assert (await http.get(public.path, headers=guessed)).status_code == 200
    assert (await http.get(f"{public.path}/seats/0", headers=guessed)).status_code == 401


# -- headers of every answer --------------------------------------------------------------------

PAGE_HEADERS = {"permissions-policy", "cross-origin-opener-policy"}


async def test_every_answer_says_nosniff_and_pages_keep_their_window(
    base_url: str, http: httpx.AsyncClient
) -> None:
    """``X-Content-Type-Options: nosniff`` on every answer: problems, streams, static files,
    health, the schema, an answer of the edge; pages also send ``Permissions-Policy`` and
    ``Cross-Origin-Opener-Policy: same-origin``."""
    answers = [
        await http.get(path)
        for path in ("/tables/nope", "/nowhere", "/web/api.js", "/health", "/health/ready")
    ]
    answers.append(await http.get("/schema/openapi.json"))
    answers.append(await http.get("/"))
    async with asyncio.timeout(WAIT), http.stream("GET", "/feed") as streamed:
        answers.append(streamed)
    async with httpx.AsyncClient(base_url=base_url) as edge:
        answers.append(await edge.get("/health", headers={"x-big": "a" * 20_000}))
    assert [a.status_code for a in answers] == [404, 404, 200, 200, 200, 200, 200, 200, 431]
    for answer in answers:
        assert answer.headers.get("x-content-type-options") == "nosniff", answer.url
    pages = [await http.get(path) for path in ("/", "/t/x", "/t/x/deals/1", "/rules", "/schema")]
    for page in pages:
        assert page.headers["content-type"].startswith("text/html")
        assert page.headers["cross-origin-opener-policy"] == "same-origin"
        assert "camera=()" in page.headers["permissions-policy"]
    assert not PAGE_HEADERS & set(answers[3].headers)  # not on JSON answers
    assert msgspec.json.decode(answers[0].content)["code"] == "table_not_found"
