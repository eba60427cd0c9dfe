"""Idempotency-Key on every POST and DELETE route (IETF draft "The Idempotency-Key HTTP
Header Field"; README, API), against a real service on a real PostgreSQL.

Each route is a `Route` below: how to bring a fresh table to where the request is
accepted, the request, and another request of the same credential to reuse its key on.
A test checks that the list covers every POST and DELETE operation of the OpenAPI
document, so a new route needs its entry.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from litestar import Litestar

from domain.cards import Card
from domain.seats import Seat
from domain.table import TimeOut
from service.app import create_app
from service.openapi.document import openapi_document
from service.tools.client import (
    DokoClient,
    TableClient,
)
from tests.service.conftest import serve, settings
from tests.service.sessions import (
    Game,
    armut_deal,
    new_game,
    preset_deal,
    presets_with_both_qc,
)


class Request(msgspec.Struct, frozen=True):
    method: str
    path: str
    token: str | None = None
    body: dict[str, Any] | None = None

    def send(self, http: httpx.AsyncClient, key: str | None) -> Awaitable[httpx.Response]:
        headers = {"authorization": f"Bearer {self.token}"} if self.token else {}
        if key is not None:
            headers["idempotency-key"] = key
        return http.request(self.method, self.path, json=self.body, headers=headers)


class Prepared(msgspec.Struct, frozen=True):
    """A request the table accepts now, another of the same credential, and the stream
    whose events count its writes (None: count the tables)."""

    request: Request
    other: Request
    table_id: str | None


Setup = Callable[[DokoClient, Litestar], Awaitable[Prepared]]


async def _public(api: DokoClient, **options: Any) -> TableClient:
    return await api.create_table("idempotent", visibility="public", **options)


async def create(api: DokoClient, _app: Litestar) -> Prepared:
    body = {"name": "once", "visibility": "public"}
    return Prepared(
        Request("POST", "/tables", body=body),
        Request("POST", "/tables", body={**body, "name": "twice"}),
        None,
    )


async def sit(api: DokoClient, _app: Litestar) -> Prepared:
    table = await _public(api)
    path = f"{table.path}/seats"
    return Prepared(
        Request("POST", path, body={"name": "ann"}),
        Request("POST", path, body={"name": "bob"}),
        table.table_id,
    )


async def bot(api: DokoClient, _app: Litestar) -> Prepared:
    table = await _public(api)
    path, host = f"{table.path}/bots", table.host_token
    return Prepared(
        Request("POST", path, host, {"kind": "random"}),
        Request("POST", path, host, {"kind": "greedy"}),
        table.table_id,
    )


def _seat_command(
    name: str,
    body: dict[str, Any],
    other: dict[str, Any],
    before: Callable[[httpx.AsyncClient, Game], Awaitable[None]],
) -> Setup:
    """Seat 1's ``name`` command at a table of four (`new_game`) after ``before``."""

    async def setup(api: DokoClient, _app: Litestar) -> Prepared:
        game = await new_game(api)
        await before(api.http, game)
        seat = game.seats[1]
        path = f"{seat.path}/{name}"
        return Prepared(
            Request("POST", path, seat.token, body),
            Request("POST", path, seat.token, other),
            game.table.table_id,
        )

    return setup


async def _declare(http: httpx.AsyncClient, game: Game, seat: int, declaration: str) -> None:
    taken = game.seats[seat]
    body = {"declaration": declaration}
    response = await http.post(f"{taken.path}/reservation", json=body, headers=taken.auth)
    assert response.status_code == 200, response.text


async def _nothing(_http: httpx.AsyncClient, _game: Game) -> None:
    pass


async def _all_healthy(http: httpx.AsyncClient, game: Game) -> None:
    for seat in (1, 2, 3, 0):
        await _declare(http, game, seat, "healthy")


async def _reserved(http: httpx.AsyncClient, game: Game) -> None:
    """Seat 1 has a reservation (it names the contract next, R4.2)."""
    for seat, declaration in ((1, "reservation"), (2, "healthy"), (3, "healthy"), (0, "healthy")):
        await _declare(http, game, seat, declaration)


async def schweinchen(api: DokoClient, _app: Litestar) -> Prepared:
    """At a table with Schweinchen (V3) seat 1 leads holding both AD: after four `healthy`
    it shows them (a command without a body)."""
    presets = presets_with_both_qc("idempotent")
    presets[0] = preset_deal((Card.AD, Card.AD))
    table = await _public(api, first_dealer=0, presets=presets, rules={"schweinchen": True})
    game = Game(table, [await table.take_seat(f"p{s}", seat=s) for s in range(4)])
    await _all_healthy(api.http, game)
    seat = game.seats[1]
    return Prepared(
        Request("POST", f"{seat.path}/schweinchen", seat.token),
        Request("POST", f"{seat.path}/play", seat.token, {"card": "AD"}),
        table.table_id,
    )


async def _armut_offered(api: DokoClient) -> Game:
    """At a table with Armut (V4) seat 1 holds three trumps, says `reservation` and names
    poverty; seat 2 is asked first."""
    presets = presets_with_both_qc("idempotent")
    presets[0] = armut_deal()
    table = await _public(api, first_dealer=0, presets=presets, rules={"armut": True})
    game = Game(table, [await table.take_seat(f"p{s}", seat=s) for s in range(4)])
    await _reserved(api.http, game)
    poor = game.seats[1]
    named = await api.http.post(
        f"{poor.path}/contract", json={"contract": "poverty"}, headers=poor.auth
    )
    assert named.status_code == 200, named.text
    return game


async def answer_poverty(api: DokoClient, _app: Litestar) -> Prepared:
    """Seat 2 is asked to take the Armut (V4.3)."""
    game = await _armut_offered(api)
    seat = game.seats[2]
    return Prepared(
        Request("POST", f"{seat.path}/poverty/answer", seat.token, {"accept": True}),
        Request("POST", f"{seat.path}/poverty/answer", seat.token, {"accept": False}),
        game.table.table_id,
    )


async def return_poverty(api: DokoClient, _app: Litestar) -> Prepared:
    """Seat 2 took the Armut and gives back three cards (V4.4)."""
    game = await _armut_offered(api)
    seat = game.seats[2]
    taken = await api.http.post(
        f"{seat.path}/poverty/answer", json={"accept": True}, headers=seat.auth
    )
    assert taken.status_code == 200, taken.text
    return Prepared(
        Request("POST", f"{seat.path}/poverty/return", seat.token, {"cards": ["AD", "10D", "9D"]}),
        Request("POST", f"{seat.path}/poverty/return", seat.token, {"cards": ["QS", "QH", "QD"]}),
        game.table.table_id,
    )


async def back(api: DokoClient, app: Litestar) -> Prepared:
    """Seat 1's turn ran out (the table's clock, 600 s, is told so): it says it is back."""
    table = await _public(api, first_dealer=0, turn_seconds=600)
    seats = [await table.take_seat(f"p{s}", seat=s) for s in range(4)]
    now = datetime.now(UTC)
    await app.state.services.tables.execute(table.table_id, TimeOut(Seat(1), now, now))
    path = seats[1].path
    return Prepared(
        Request("POST", f"{path}/back", seats[1].token),
        Request("POST", f"{path}/reservation", seats[1].token, {"declaration": "healthy"}),
        table.table_id,
    )


async def leave(api: DokoClient, _app: Litestar) -> Prepared:
    table = await _public(api)
    seat = await table.take_seat("ann", seat=0)
    return Prepared(
        Request("DELETE", seat.path, seat.token),
        Request("POST", f"{seat.path}/back", seat.token),
        table.table_id,
    )


async def close(api: DokoClient, _app: Litestar) -> Prepared:
    table = await _public(api)
    return Prepared(
        Request("POST", f"{table.path}/close", table.host_token),
        Request("POST", f"{table.path}/abandon", table.host_token),
        table.table_id,
    )


async def abandon(api: DokoClient, _app: Litestar) -> Prepared:
    game = await new_game(api)
    path, host = game.table.path, game.table.host_token
    return Prepared(
        Request("POST", f"{path}/abandon", host),
        Request("POST", f"{path}/close", host),
        game.table.table_id,
    )


async def replace_invitation(api: DokoClient, _app: Litestar) -> Prepared:
    table = await api.create_table("private")
    return Prepared(
        Request("POST", f"{table.path}/invitation", table.host_token),
        Request("POST", f"{table.path}/close", table.host_token),
        table.table_id,
    )


ROUTES: dict[tuple[str, str], Setup] = {
    ("post", "/tables"): create,
    ("post", "/tables/{table_id}/seats"): sit,
    ("post", "/tables/{table_id}/bots"): bot,
    ("post", "/tables/{table_id}/seats/{seat}/reservation"): _seat_command(
        "reservation", {"declaration": "healthy"}, {"declaration": "reservation"}, _nothing
    ),
    ("post", "/tables/{table_id}/seats/{seat}/contract"): _seat_command(
        "contract", {"contract": "queen_solo"}, {"contract": "jack_solo"}, _reserved
    ),
    ("post", "/tables/{table_id}/seats/{seat}/play"): _seat_command(
        "play", {"card": "AS"}, {"card": "QC"}, _all_healthy
    ),
    ("post", "/tables/{table_id}/seats/{seat}/announce"): _seat_command(
        "announce", {"word": "re"}, {"word": "no90"}, _all_healthy
    ),
    ("post", "/tables/{table_id}/seats/{seat}/schweinchen"): schweinchen,
    ("post", "/tables/{table_id}/seats/{seat}/poverty/answer"): answer_poverty,
    ("post", "/tables/{table_id}/seats/{seat}/poverty/return"): return_poverty,
    ("post", "/tables/{table_id}/seats/{seat}/back"): back,
    ("delete", "/tables/{table_id}/seats/{seat}"): leave,
    ("post", "/tables/{table_id}/close"): close,
    ("post", "/tables/{table_id}/abandon"): abandon,
    ("post", "/tables/{table_id}/invitation"): replace_invitation,
}
"""Every POST and DELETE route, and how to make its request one the table accepts."""


@pytest.fixture(scope="module")
async def app(db_url: str) -> Litestar:
    return create_app(settings(db_url))


@pytest.fixture(scope="module")
async def base_url(app: Litestar) -> AsyncIterator[str]:
    """The module's server is `app`, whose services the tests reach (the clock's time out)."""
    async with serve(app) as url:
        yield url


LOOPBACK = "127.0.0.1"
"""The address the tests' clients connect from (the scope of their anonymous keys)."""


def key() -> str:
    return str(uuid.uuid4())


async def writes(pool: asyncpg.Pool, table_id: str | None) -> int:
    """The events of the table (None: the tables)."""
    if table_id is None:
        return int(await pool.fetchval("SELECT count(*) FROM events WHERE version = 1"))
    return int(await pool.fetchval("SELECT count(*) FROM events WHERE stream_id = $1", table_id))


NO_TABLE_WRITE = {
    ("post", "/tables/{table_id}/stream-tickets"),
    ("post", "/tournaments/{tournament_id}/stream-tickets"),
}
"""Unsafe routes that write nothing to a table or a tournament (a stream ticket): not in
`ROUTES`, whose checks count a table's writes (still to be brought under the key's
checks)."""


TOURNAMENT_WRITES = {
    ("post", "/tournaments"),
    ("post", "/tournaments/{tournament_id}/players"),
    ("post", "/tournaments/{tournament_id}/rounds"),
    ("post", "/tournaments/{tournament_id}/registration/close"),
    ("delete", "/tournaments/{tournament_id}/players/{player}"),
}
"""Unsafe routes that write to a tournament's stream, not a table's: their retries are checked
in `tests.service.routes.test_tournaments`
(`test_a_retried_post_with_its_key_draws_the_same_credentials_once`)."""


TALK_WRITES = {
    ("post", "/tables/{table_id}/talk"),
    ("post", "/tables/{table_id}/talk/mutes"),
}
"""Unsafe routes that write table talk, kept beside the log (T5.1), not in it: not in
`ROUTES`, whose checks count the log's writes."""


def test_every_unsafe_route_is_in_the_table() -> None:
    operations = {
        (method, path)
        for path, item in openapi_document()["paths"].items()
        for method in item
        if method in ("post", "delete")
    }
    assert operations - NO_TABLE_WRITE - TOURNAMENT_WRITES - TALK_WRITES == set(ROUTES)


@pytest.fixture(params=list(ROUTES), ids=lambda r: f"{r[0]} {r[1]}")
async def prepared(request: pytest.FixtureRequest, api: DokoClient, app: Litestar) -> Prepared:
    """Each POST and DELETE route, made ready on a fresh table."""
    return await ROUTES[request.param](api, app)


async def test_a_retry_gets_the_first_answer_and_writes_nothing(
    prepared: Prepared, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    request, sent = prepared.request, key()
    before = await writes(pool, prepared.table_id)
    first = await request.send(http, sent)
    assert first.status_code in (200, 201), first.text
    written = await writes(pool, prepared.table_id)
    assert written > before
    again = await request.send(http, sent)
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert again.headers.get("etag") == first.headers.get("etag")
    # the same key for another request of the same credential: 422, nothing written
    reused = await prepared.other.send(http, sent)
    assert reused.status_code == 422, reused.text
    assert reused.json()["code"] == "idempotency_key_reused"
    assert await writes(pool, prepared.table_id) == written
    still = await request.send(http, sent)
    assert (still.status_code, still.content) == (first.status_code, first.content)


async def test_a_repeated_delete_is_answered_its_first_result_not_401(
    api: DokoClient, app: Litestar, http: httpx.AsyncClient
) -> None:
    prepared = await leave(api, app)
    sent = key()
    first = await prepared.request.send(http, sent)
    assert first.status_code == 200, first.text
    unkeyed = await prepared.request.send(http, None)
    assert unkeyed.status_code == 401  # the token stopped working with the leave (T2.2)
    again = await prepared.request.send(http, sent)
    assert (again.status_code, again.content) == (200, first.content)


async def test_one_credentials_key_is_not_anothers(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """Two seats leave with one key (and the same body: none): two leaves, two answers."""
    table = await _public(api)
    seats = [await table.take_seat(f"p{s}", seat=s) for s in (0, 1)]
    sent, before = key(), await writes(pool, table.table_id)
    answers = [await Request("DELETE", s.path, s.token).send(http, sent) for s in seats]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].json()["version"] + 1 == answers[1].json()["version"]
    assert await writes(pool, table.table_id) == before + 2


@pytest.mark.parametrize("route", [("post", "/tables"), ("post", "/tables/{table_id}/seats")])
async def test_an_anonymous_key_never_gives_another_address_the_first_callers_credential(
    route: tuple[str, str], api: DokoClient, app: Litestar, base_url: str, pool: asyncpg.Pool
) -> None:
    """A request without a credential (creating a table, sitting at a public table) is
    scoped to its client address: the same key and body from another address (here
    127.0.0.2 and 127.0.0.3) is another request, which writes and gets a credential of its
    own, never the first caller's; from the first address again it is the first answer."""
    prepared = await ROUTES[route](api, app)
    sent, before = key(), await writes(pool, prepared.table_id)

    def at(address: str) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(local_address=address)
        return httpx.AsyncClient(base_url=base_url, transport=transport)

    async with at("127.0.0.2") as first, at("127.0.0.3") as other:
        answers = [await prepared.request.send(client, sent) for client in (first, other)]
        again = await prepared.request.send(first, sent)
    assert [a.status_code for a in answers] == [201, 201], [a.text for a in answers]
    credential = "host_token" if route[1] == "/tables" else "token"
    assert answers[0].json()[credential] != answers[1].json()[credential]
    assert await writes(pool, prepared.table_id) == before + 2
    assert (again.status_code, again.content) == (201, answers[0].content)


@pytest.mark.parametrize("route", [("post", "/tables"), ("post", "/tables/{table_id}/seats")])
async def test_two_racing_duplicates_write_once(
    route: tuple[str, str],
    api: DokoClient,
    app: Litestar,
    base_url: str,
    pool: asyncpg.Pool,
) -> None:
    """Two requests with one key at once, on two connections: one write, one answer."""
    prepared = await ROUTES[route](api, app)
    sent, before = key(), await writes(pool, prepared.table_id)
    async with (
        httpx.AsyncClient(base_url=base_url) as one,
        httpx.AsyncClient(base_url=base_url) as two,
    ):
        answers = await asyncio.gather(
            prepared.request.send(one, sent), prepared.request.send(two, sent)
        )
    assert [a.status_code for a in answers] == [201, 201], [a.text for a in answers]
    assert answers[0].content == answers[1].content
    assert await writes(pool, prepared.table_id) == before + 1


async def test_a_first_answer_lost_after_its_write_is_given_again(
    prepared: Prepared, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """The first run wrote, then its answer was lost (its process died, or the database
    failed it after the commit: the row has no answer and its lease is over). The retry
    runs again, writes nothing, and answers the same table, tokens and view: the view made
    anew, so with the time it is made (`server_time`, the service's clock when it answers)."""
    from service.edge.idempotency import key_id  # here: the other tests run on older code too

    sent = key()
    first = await prepared.request.send(http, sent)
    written = await writes(pool, prepared.table_id)
    lost = await pool.execute(
        "UPDATE idempotency_keys SET answer = NULL, leased_until = now() - interval '1 s'"
        " WHERE key_id = $1 AND answer IS NOT NULL",
        key_id(prepared.request.token, sent, LOOPBACK),
    )
    assert lost == "UPDATE 1"
    again = await prepared.request.send(http, sent)
    assert (again.status_code, timeless(again)) == (first.status_code, timeless(first))
    assert await writes(pool, prepared.table_id) == written


def timeless(answer: httpx.Response) -> Any:
    """An answer's body without the time of its view (if it has one)."""
    body = answer.json()
    if isinstance(body, dict) and isinstance(body.get("view"), dict):
        assert body["view"].pop("server_time")
    return body


async def test_no_credential_of_an_answer_is_in_the_database(
    api: DokoClient, app: Litestar, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """A private table's creation with a key: its host token and invitation code are
    nowhere in the key's row, whose answer is sealed."""
    sent = key()
    created = await Request("POST", "/tables", body={"name": "secret"}).send(http, sent)
    assert created.status_code == 201
    secrets = [created.json()["host_token"], created.json()["invitation"]]
    rows = await pool.fetch("SELECT row_to_json(k)::text FROM idempotency_keys k")
    dumped = "".join(r[0] for r in rows)
    assert sent not in dumped
    for secret in secrets:
        assert secret not in dumped
        assert secret.encode().hex() not in dumped
    answers = [bytes(r[0]) for r in await pool.fetch("SELECT answer FROM idempotency_keys")]
    assert not any(b"host_token" in a for a in answers)


async def test_an_expired_key_is_forgotten_and_purged(
    api: DokoClient, app: Litestar, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """Past its retention a key binds nothing: the same key makes another request; the
    purge deletes the keys past it and no other."""
    from service.edge.idempotency import key_id

    path = (await sit(api, app)).request.path
    sent = key()
    held = key_id(None, sent, LOOPBACK)
    first = await Request("POST", path, body={"name": "ann"}).send(http, sent)
    assert first.status_code == 201
    expire = "UPDATE idempotency_keys SET expires_at = now() - interval '1 s' WHERE key_id = $1"
    assert await pool.execute(expire, held) == "UPDATE 1"
    again = await Request("POST", path, body={"name": "bob"}).send(http, sent)
    assert again.status_code == 201, again.text  # not 422: the key was forgotten
    assert again.json()["seat"] != first.json()["seat"]
    assert await pool.execute(expire, held) == "UPDATE 1"
    count = "SELECT count(*) FROM idempotency_keys WHERE expires_at {} now()"
    expired, kept = [await pool.fetchval(count.format(op)) for op in ("<=", ">")]
    assert expired >= 1 and kept >= 1
    assert await app.state.services.idempotency.purge() == expired
    assert await pool.fetchval(count.format("<=")) == 0
    assert await pool.fetchval(count.format(">")) == kept


async def test_a_refused_request_leaves_its_key_free(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """A request refused with a 4xx wrote nothing: its key is not kept, so the client
    may send the corrected request with it."""
    game = await new_game(api)
    seat, sent = game.seats[1], key()
    before = await writes(pool, game.table.table_id)
    early = await Request("POST", f"{seat.path}/play", seat.token, {"card": "AS"}).send(http, sent)
    assert early.status_code == 409  # the reservations come first (R4.1)
    body = {"declaration": "healthy"}
    declared = await Request("POST", f"{seat.path}/reservation", seat.token, body).send(http, sent)
    assert declared.status_code == 200, declared.text
    assert await writes(pool, game.table.table_id) == before + 1


async def test_a_key_another_process_holds_is_409_in_flight(
    api: DokoClient, app: Litestar, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """A key held by a run that is still running (its lease, here an hour, has not ended;
    the run is another process's, as far as this one knows): the retry waits a bounded
    number of times for its answer, then is 409 with Retry-After, and writes nothing."""
    from service.edge.idempotency import fingerprint, key_id

    prepared = await close(api, app)
    request, sent = prepared.request, key()
    assert request.token is not None
    await pool.execute(
        "INSERT INTO idempotency_keys VALUES ($1, $2, 'request:elsewhere', $3, NULL,"
        " now() + interval '1 hour', now() + interval '1 day')",
        key_id(request.token, sent, LOOPBACK),
        fingerprint(request.method, request.path, b""),  # close has no body
        bytes(32),
    )
    before = await writes(pool, prepared.table_id)
    answer = await request.send(http, sent)
    assert answer.status_code == 409, answer.text
    assert answer.json()["code"] == "idempotency_key_in_flight"
    assert answer.headers["retry-after"] == "1"
    assert await writes(pool, prepared.table_id) == before


async def test_a_body_that_is_no_json_is_400_and_leaves_the_key_free(
    http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    sent, before = key(), await writes(pool, None)
    headers = {"idempotency-key": sent, "content-type": "application/json"}
    broken = await http.post("/tables", content=b"{not json", headers=headers)
    assert broken.status_code == 400
    created = await Request("POST", "/tables", body={"name": "fixed"}).send(http, sent)
    assert created.status_code == 201, created.text
    assert await writes(pool, None) == before + 1


@pytest.mark.parametrize("sent", ["short-key", "a" * 201, "with space in it!"])
async def test_a_malformed_key_is_400_and_writes_nothing(
    sent: str, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    before = await writes(pool, None)
    response = await Request("POST", "/tables", body={"name": "x"}).send(http, sent)
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_request"
    assert await writes(pool, None) == before
