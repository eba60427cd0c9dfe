"""Security as declared is security as read: every operation of the OpenAPI
document declares the kinds of credential its route really admits requests with, and
no other; an operation a public table opens without one says so (``{}``).

What a route really reads is found apart from the declarations: the live service notes,
per request, the kinds of credential that admitted it (`service.edge.credentials.admit`,
called by the ``authorize_*`` functions and the stream's ticket check), and a wrapper
around the app's ASGI handler keeps that record for each call of the test, by a header of
its own. Every operation is called at a fresh private table with each kind (a seat token,
the host token, the invitation code, a stream ticket) and with none, and at a public
table with none; a tournament's operations at a fresh private tournament (a player's tournament
credential is a seat token, the director's a host token) and at a public one.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from service.app import create_app
from service.edge.credentials import Credential, admissions
from service.openapi.document import openapi_document
from tests.service.conftest import serve, settings

CALL = "x-test-call"
"""The header by which the service's record of a request is found (`_recording`)."""
BODIES: dict[str, dict[str, Any]] = {
    "createTable": {"name": "walked"},
    "takeSeat": {"name": "walker"},
    "seatBot": {"kind": "random"},
    "declare": {"declaration": "healthy"},
    "nameContract": {"contract": "queen_solo"},
    "playCard": {"card": "QC"},
    "announce": {"word": "re"},
    "answerPoverty": {"accept": True},
    "returnPoverty": {"cards": ["AC", "9S", "KH"]},
    "createTournament": {"name": "walked"},
    "registerPlayer": {"name": "walker"},
    "startRound": {"round_no": 1},
    "postTableTalk": {"text": "Hallo"},
    "muteTableTalk": {"seat": 2, "muted": True},
}
"""A valid body of each operation that takes one, by hand."""
SENT = (None, Credential.STREAM_TICKET, Credential.INVITATION_CODE, Credential.SEAT_TOKEN)
"""The kinds sent to each operation, in this order, the host token last: what a call does
with one (a seat left, an invitation replaced, a table closed) never stops another."""

Records = dict[str, set[Credential]]


class Walker:
    """Calls operations of the live service and keeps what admitted each call."""

    def __init__(self, http: httpx.AsyncClient, records: Records) -> None:
        self.http = http
        self.records = records
        self.numbers = itertools.count()

    async def table(self, visibility: str) -> dict[str, str]:
        """A new table with seat 0 taken: its id and, by kind, its credentials."""
        body = {"name": "walk", "first_dealer": 0, "visibility": visibility}
        created = (await self.http.post("/tables", json=body)).json()
        code = created.get("invitation")
        seat = {"name": "first", "seat": 0, **({"invitation": code} if code else {})}
        taken = await self.http.post(f"/tables/{created['table_id']}/seats", json=seat)
        assert taken.status_code == 201, taken.text
        return {
            "table_id": created["table_id"],
            Credential.SEAT_TOKEN: taken.json()["token"],
            Credential.HOST_TOKEN: created["host_token"],
            Credential.INVITATION_CODE: code or "",
        }

    async def tournament(self, visibility: str) -> dict[str, str]:
        """A new tournament with one player registered: its id and its credentials by the kind
        the document names them (a player's tournament credential is their seat token, the
        director's the host token)."""
        body = {"name": "walk", "visibility": visibility}
        created = (await self.http.post("/tournaments", json=body)).json()
        code = created.get("invitation")
        player = {"name": "first", **({"invitation": code} if code else {})}
        registered = await self.http.post(
            f"/tournaments/{created['tournament_id']}/players", json=player
        )
        assert registered.status_code == 201, registered.text
        return {
            "tournament_id": created["tournament_id"],
            Credential.SEAT_TOKEN: registered.json()["token"],
            Credential.HOST_TOKEN: created["host_token"],
            Credential.INVITATION_CODE: code or "",
        }

    async def at(self, path: str, visibility: str) -> dict[str, str]:
        """Where an operation is called: a new tournament for a tournament's, else a new table."""
        if "{tournament_id}" in path:
            return await self.tournament(visibility)
        return await self.table(visibility)

    async def call(
        self,
        path: str,
        method: str,
        operation: dict[str, Any],
        table: dict[str, str],
        kind: Credential | None,
    ) -> tuple[int, set[Credential]]:
        """Call the operation at ``table`` with its credential of ``kind`` (None: none);
        the answer's status and the kinds that admitted the call."""
        where = {"table_id": table.get("table_id"), "tournament_id": table.get("tournament_id")}
        url = path.format(**where, seat=0, deal_no=1, round_no=1, player=0)
        headers, query = {CALL: str(next(self.numbers))}, {}
        if kind is Credential.STREAM_TICKET:
            host = {"authorization": f"Bearer {table[Credential.HOST_TOKEN]}"}
            stream = (
                f"/tournaments/{table['tournament_id']}"
                if "tournament_id" in table
                else f"/tables/{table['table_id']}"
            )
            ticket = await self.http.post(f"{stream}/stream-tickets", headers=host)
            query["ticket"] = ticket.json()["ticket"]
        elif kind is not None:
            headers["authorization"] = f"Bearer {table[kind]}"
        body = BODIES[operation["operationId"]] if "requestBody" in operation else None
        request = self.http.build_request(method, url, headers=headers, params=query, json=body)
        response = await self.http.send(request, stream=True)  # the streams never end
        await response.aclose()
        return response.status_code, self.records[headers[CALL]]


def _recording(app: Any, records: Records) -> None:
    """Wrap the app's ASGI handler: a request with the `CALL` header is handled while the
    service keeps its record (`admissions`), under that header's value in ``records``."""
    handler = app.asgi_handler

    async def recorded(scope: Any, receive: Any, send: Any) -> None:
        call = dict(scope.get("headers", ())).get(CALL.encode())
        if call is None:
            await handler(scope, receive, send)
            return
        with admissions() as record:
            records[call.decode()] = record
            await handler(scope, receive, send)

    app.asgi_handler = recorded


@pytest.fixture(scope="module")
async def walker(db_url: str) -> AsyncIterator[Walker]:
    app = create_app(settings(db_url))
    records: Records = {}
    _recording(app, records)
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=30.0) as http:
        yield Walker(http, records)


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in openapi_document()["paths"].items()
        for method, operation in item.items()
    ]


def _declared(operation: dict[str, Any]) -> set[str]:
    return {scheme for requirement in operation.get("security", []) for scheme in requirement}


async def test_every_operation_declares_the_credentials_its_route_reads(walker: Walker) -> None:
    """At a private table, a credential that admits a call is one its operation declares,
    and each declared scheme admits some call (the host token last: `SENT`)."""
    undeclared, unread = [], []
    for path, method, operation in _operations():
        table = await walker.at(path, "private")
        read: set[Credential] = set()
        for kind in (*SENT, Credential.HOST_TOKEN):
            _, admitted = await walker.call(path, method, operation, table, kind)
            assert admitted <= ({kind} if kind else set()), (operation["operationId"], kind)
            read |= admitted
        name, declared = operation["operationId"], _declared(operation)
        undeclared += [f"{name} reads {kind} undeclared" for kind in read - declared]
        unread += [f"{name} declares {scheme}, never read" for scheme in declared - read]
    assert not undeclared + unread, "\n".join(undeclared + unread)


async def test_an_operation_a_public_table_opens_without_a_credential_says_so(
    walker: Walker,
) -> None:
    """At a public table a call without a credential is refused 401 exactly where the
    operation declares security without the empty requirement ``{}`` (T1.1)."""
    table = await walker.table("public")
    tournament = await walker.tournament("public")
    wrong = []
    for path, method, operation in _operations():
        at = tournament if "{tournament_id}" in path else table
        status, admitted = await walker.call(path, method, operation, at, None)
        assert admitted == set(), operation["operationId"]
        security = operation.get("security", [{}])
        if (status == 401) != ({} not in security):
            wrong.append(f"{operation['operationId']}: {status}, declares {security}")
    assert not wrong, "\n".join(wrong)
