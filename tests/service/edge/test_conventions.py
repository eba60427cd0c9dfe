"""The HTTP conventions an integrator expects of every answer (README, "The API in one
minute"): ``Location`` on every 201, a Bearer challenge (``WWW-Authenticate``) on every 401,
``Cache-Control: no-store`` on every answer that carries a credential or a hand, and a view
at least as new as ``min_version`` or a 409 that says the table has not reached it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

OPENAPI_FILE = Path(__file__).resolve().parents[3] / "openapi" / "openapi.json"


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
async def walk(module_http: httpx.AsyncClient) -> dict[str, httpx.Response]:
    """One answer of each operation that creates something (201), in a row: a public table,
    a seat, a bot, a stream ticket; a private tournament, a player, its stream ticket."""
    http = module_http
    answers: dict[str, httpx.Response] = {}
    answers["createTable"] = table = await http.post(
        "/tables", json={"name": "conventions", "visibility": "public"}
    )
    table_id = table.json()["table_id"]
    host = table.json()["host_token"]
    answers["takeSeat"] = await http.post(f"/tables/{table_id}/seats", json={"name": "Anna"})
    answers["seatBot"] = await http.post(
        f"/tables/{table_id}/bots", json={"kind": "random"}, headers=_bearer(host)
    )
    answers["getStreamTicket"] = await http.post(f"/tables/{table_id}/stream-tickets")
    answers["createTournament"] = tournament = await http.post(
        "/tournaments", json={"name": "conventions", "visibility": "private", "rounds": 1}
    )
    tournament_id = tournament.json()["tournament_id"]
    director = tournament.json()["host_token"]
    answers["registerPlayer"] = await http.post(
        f"/tournaments/{tournament_id}/players", json={"name": "Bo"}, headers=_bearer(director)
    )
    answers["getTournamentStreamTicket"] = await http.post(
        f"/tournaments/{tournament_id}/stream-tickets", headers=_bearer(director)
    )
    for name, answer in answers.items():
        assert answer.status_code == 201, (name, answer.text)
    return answers


def _operations_answering(status: str) -> set[str]:
    document = json.loads(OPENAPI_FILE.read_text())
    return {
        operation["operationId"]
        for item in document["paths"].values()
        for operation in item.values()
        if status in operation["responses"]
    }


def test_the_walk_covers_every_operation_that_creates(walk: dict[str, httpx.Response]) -> None:
    assert set(walk) == _operations_answering("201")


async def test_every_201_says_where_what_it_made_is(
    walk: dict[str, httpx.Response], module_http: httpx.AsyncClient
) -> None:
    """RFC 9110 §15.3.2: a 201's ``Location`` names what it made, relative to the service.
    Followed with the credential the answer gave, it answers; a stream ticket's is the
    stream's URL with the ticket, which opens it."""
    table = walk["createTable"].json()
    table_id = table["table_id"]
    seat = walk["takeSeat"].json()
    tournament_id = walk["createTournament"].json()["tournament_id"]
    player = walk["registerPlayer"].json()
    expected = {
        "createTable": f"/tables/{table_id}",
        "takeSeat": f"/tables/{table_id}/seats/{seat['seat']}",
        "seatBot": f"/tables/{table_id}/seats/{walk['seatBot'].json()['seat']}",
        "getStreamTicket": f"/tables/{table_id}/events?ticket="
        + walk["getStreamTicket"].json()["ticket"],
        "createTournament": f"/tournaments/{tournament_id}",
        "registerPlayer": f"/tournaments/{tournament_id}/table",
        "getTournamentStreamTicket": f"/tournaments/{tournament_id}/events?ticket="
        + walk["getTournamentStreamTicket"].json()["ticket"],
    }
    assert {name: answer.headers.get("location") for name, answer in walk.items()} == expected
    followed = {
        "createTable": await module_http.get(expected["createTable"]),
        "takeSeat": await module_http.get(expected["takeSeat"], headers=_bearer(seat["token"])),
        "createTournament": await module_http.get(
            expected["createTournament"],
            headers=_bearer(walk["createTournament"].json()["host_token"]),
        ),
        "registerPlayer": await module_http.get(
            expected["registerPlayer"], headers=_bearer(player["token"])
        ),
    }
    assert {name: answer.status_code for name, answer in followed.items()} == dict.fromkeys(
        followed, 200
    )
    for name in ("getStreamTicket", "getTournamentStreamTicket"):
        async with module_http.stream("GET", expected[name]) as stream:
            assert stream.status_code == 200, name
            assert stream.headers["content-type"].startswith("text/event-stream"), name


NO_STORE = {
    "createTable": "the host token (and a private table's invitation)",
    "takeSeat": "the seat token and the seat's hand",
    "getStreamTicket": "a stream ticket",
    "createTournament": "the director's host token",
    "registerPlayer": "the player's tournament credential",
    "getTournamentStreamTicket": "a stream ticket",
}


async def test_no_answer_with_a_credential_or_a_hand_may_be_stored(
    walk: dict[str, httpx.Response], module_http: httpx.AsyncClient
) -> None:
    """``Cache-Control: no-store`` (RFC 9111 §5.2.2.5) on every answer that carries a
    credential or a hand: the creations above, a seat's view (also its 304), a command's
    answer (the seat's new view), a new invitation code; not on what anyone may see."""
    for name in NO_STORE:
        assert walk[name].headers.get("cache-control") == "no-store", name
    assert "cache-control" not in walk["seatBot"].headers
    http = module_http
    table = (await http.post("/tables", json={"name": "hands", "first_dealer": 0})).json()
    table_id, invitation = table["table_id"], table["invitation"]
    seats = [
        (
            await http.post(
                f"/tables/{table_id}/seats", json={"name": f"p{s}", "invitation": invitation}
            )
        ).json()
        for s in range(4)
    ]
    token = seats[1]["token"]
    view = await http.get(f"/tables/{table_id}/seats/1", headers=_bearer(token))
    assert view.status_code == 200 and view.json()["deal"]["hand"]
    assert view.headers["cache-control"] == "no-store"
    cached = await http.get(
        f"/tables/{table_id}/seats/1",
        headers={**_bearer(token), "if-none-match": view.headers["etag"]},
    )
    assert cached.status_code == 304 and cached.headers["cache-control"] == "no-store"
    answered = await http.post(
        f"/tables/{table_id}/seats/1/reservation",
        json={"declaration": "healthy"},
        headers=_bearer(token),
    )
    assert answered.status_code == 200 and answered.headers["cache-control"] == "no-store"
    host = _bearer(table["host_token"])
    rotated = await http.post(f"/tables/{table_id}/invitation", headers=host)
    assert rotated.status_code == 200 and rotated.headers["cache-control"] == "no-store"
    invitation = rotated.json()["invitation"]
    public = await http.get(f"/tables/{table_id}", headers=_bearer(invitation))
    assert public.status_code == 200 and "cache-control" not in public.headers


def _challenge(response: httpx.Response) -> dict[str, str]:
    """The ``WWW-Authenticate`` Bearer challenge's parameters (RFC 6750 §3)."""
    scheme, _, rest = response.headers["www-authenticate"].partition(" ")
    assert scheme == "Bearer", response.headers["www-authenticate"]
    found: dict[str, str] = {}
    for part in rest.split('", '):
        name, _, value = part.partition("=")
        found[name.strip()] = value.strip('"')
    return found


async def test_every_401_challenges_for_a_bearer_token(module_http: httpx.AsyncClient) -> None:
    """RFC 9110 §11.6.1: a 401 carries ``WWW-Authenticate``; RFC 6750 §3.1: without a Bearer
    credential the challenge has no error code, with one that does not open the resource
    ``invalid_token``; a seat's token used for another seat is 403 ``insufficient_scope``."""
    http = module_http
    table = (await http.post("/tables", json={"name": "challenges", "visibility": "public"})).json()
    table_id = table["table_id"]
    seat = (await http.post(f"/tables/{table_id}/seats", json={"name": "Anna"})).json()
    missing = await http.get(f"/tables/{table_id}/seats/0")
    assert missing.status_code == 401
    assert _challenge(missing) == {"realm": "doko"}
    basic = await http.get(f"/tables/{table_id}/seats/0", headers={"authorization": "Basic eDp5"})
    assert basic.status_code == 401 and _challenge(basic) == {"realm": "doko"}
    wrong = await http.get(f"/tables/{table_id}/seats/0", headers=_bearer("A" * 43))
    assert wrong.status_code == 401
    assert _challenge(wrong)["error"] == "invalid_token"
    assert _challenge(wrong)["error_description"]
    not_host = await http.post(f"/tables/{table_id}/close", headers=_bearer(seat["token"]))
    assert not_host.status_code == 401 and _challenge(not_host)["error"] == "invalid_token"
    ticket = await http.get(f"/tables/{table_id}/events", params={"ticket": "A" * 43})
    assert ticket.status_code == 401 and _challenge(ticket)["error"] == "invalid_token"
    other = await http.get(f"/tables/{table_id}/seats/1", headers=_bearer(seat["token"]))
    assert other.status_code == 403 and _challenge(other)["error"] == "insufficient_scope"
    fine = await http.get(f"/tables/{table_id}/seats/0", headers=_bearer(seat["token"]))
    assert fine.status_code == 200 and "www-authenticate" not in fine.headers


async def _table_at(http: httpx.AsyncClient) -> tuple[str, int, str]:
    table = (await http.post("/tables", json={"name": "versions", "visibility": "public"})).json()
    seat = (await http.post(f"/tables/{table['table_id']}/seats", json={"name": "Anna"})).json()
    return table["table_id"], seat["version"], seat["token"]


async def test_a_view_is_at_least_min_version_or_a_409(module_http: httpx.AsyncClient) -> None:
    """``min_version`` asks for a view at least that new: the view when the table has reached
    it (after reading the log again: another process may have written it), else 409
    ``version_not_reached`` with the version it is at (its ETag), at once: the service never
    answers an older view as if it were the one asked for."""
    http = module_http
    table_id, version, token = await _table_at(http)
    for path, headers in (
        (f"/tables/{table_id}", {}),
        (f"/tables/{table_id}/seats/0", _bearer(token)),
        (f"/tables/{table_id}/scoresheet", {}),
    ):
        ahead = await http.get(path, params={"min_version": 99999}, headers=headers)
        assert ahead.status_code == 409, (path, ahead.text)
        problem: dict[str, Any] = ahead.json()
        assert problem["code"] == "version_not_reached"
        assert ahead.headers["etag"] == f'"{version}"'
        assert str(version) in problem["detail"]
        reached = await http.get(path, params={"min_version": version}, headers=headers)
        assert reached.status_code == 200 and reached.headers["etag"] == f'"{version}"'


async def test_a_view_says_its_version(module_http: httpx.AsyncClient) -> None:
    """A view's ``version`` is the table version it shows: its ETag, and the ``version`` of
    the command answer it came with."""
    http = module_http
    table_id, version, token = await _table_at(http)
    for path, headers in (
        (f"/tables/{table_id}", {}),
        (f"/tables/{table_id}/seats/0", _bearer(token)),
    ):
        view = await http.get(path, headers=headers)
        assert view.json()["version"] == version
        assert view.headers["etag"] == f'"{version}"'
    joined = (await http.post(f"/tables/{table_id}/seats", json={"name": "Bo"})).json()
    assert joined["view"]["version"] == joined["version"] == version + 1


async def test_min_version_does_not_tell_a_stranger_a_private_table_exists(
    module_http: httpx.AsyncClient,
) -> None:
    table = (await module_http.post("/tables", json={"name": "hidden"})).json()
    ahead = await module_http.get(f"/tables/{table['table_id']}", params={"min_version": 99999})
    assert (ahead.status_code, ahead.json()["code"]) == (404, "table_not_found")
