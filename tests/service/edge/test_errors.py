"""Every way a request can fail: the exact problem+json, and nothing written.

Each rejected request is checked to leave the table as it was: its version
(the ETag of the public view) and its number of rows in ``events``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from domain.announcements import Word
from domain.cards import Card
from domain.commands import Announce, Declaration, Declare, NameContract, PlayCard
from domain.deal import Phase
from domain.game_types import GameType
from domain.seats import Seat
from service.app import create_app
from service.tools.client import (
    CommandResult,
    DokoClient,
    ProblemError,
)
from tests.service.conftest import Clock, serve, settings
from tests.service.sessions import Game, new_game, presets_with_both_qc

PROBLEM_FIELDS = {"type", "title", "status", "code"}


def assert_problem(
    response: httpx.Response, status: int, code: str, rule: str | None = None
) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body.keys() >= PROBLEM_FIELDS, body
    assert (body["status"], body["code"]) == (status, code), body
    if rule is not None:
        assert body.get("rule") == rule, body
    return body


def assert_rejected(error: ProblemError, code: str, rule: str) -> None:
    assert (error.status, error.code, error.rule) == (409, code, rule), error.problem
    assert error.headers["content-type"].startswith("application/problem+json")
    assert error.problem.keys() >= PROBLEM_FIELDS


class Unchanged:
    """``async with unchanged(table_id): ...``: the table's version and rows stay as they were."""

    def __init__(self, http: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
        self.http = http
        self.pool = pool

    async def state(self, table_id: str) -> tuple[str, int, int]:
        response = await self.http.get(f"/tables/{table_id}")
        rows = await self.pool.fetchval(
            "SELECT count(*) FROM events WHERE stream_id = $1", table_id
        )
        total = await self.pool.fetchval("SELECT count(*) FROM events")
        return response.headers.get("etag", ""), rows, total

    @asynccontextmanager
    async def __call__(self, table_id: str) -> AsyncIterator[None]:
        before = await self.state(table_id)
        yield
        assert await self.state(table_id) == before


@pytest.fixture(scope="module")
async def game(module_http: httpx.AsyncClient) -> Game:
    """A game in deal 1's reservations; the tests using it must leave it unchanged."""
    return await new_game(DokoClient(module_http))


@pytest.fixture
def unchanged(http: httpx.AsyncClient, pool: asyncpg.Pool) -> Unchanged:
    return Unchanged(http, pool)


def play_path(game: Game, seat: int = 1) -> str:
    return f"/tables/{game.table.table_id}/seats/{seat}/play"


def auth(game: Game, seat: int = 1) -> dict[str, str]:
    return game.seats[seat].auth


# -- 400 / 401 / 403 / 404 / 413 ----------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "detail", "code"),
    [
        (b'{"card": "AS"', "malformed JSON", "malformed_request"),
        (b'{"card": "AS", "extra": 1}', "unknown field", "malformed_request"),
        (b'{"card": "ZZ"}', "bad card code (R2.1)", "invalid_card"),
        (b'{"card": 12}', "wrong type", "malformed_request"),
        (b"{}", "missing field", "malformed_request"),
        (b"[]", "not an object", "malformed_request"),
        (b"", "empty body", "malformed_request"),
        (b'{"card": "AS", "card": "QC"}', "a member twice", "duplicate_member"),
    ],
)
async def test_malformed_bodies_are_400(
    game: Game,
    http: httpx.AsyncClient,
    unchanged: Unchanged,
    content: bytes,
    detail: str,
    code: str,
) -> None:
    async with unchanged(game.table.table_id):
        response = await http.post(
            play_path(game),
            content=content,
            headers={**auth(game), "content-type": "application/json"},
        )
        assert_problem(response, 400, code, "R2.1" if code == "invalid_card" else None)


async def test_bad_bodies_when_creating_and_sitting_are_400(
    game: Game, http: httpx.AsyncClient, unchanged: Unchanged
) -> None:
    async with unchanged(game.table.table_id):
        for body in (
            {"name": "x" * 101},
            {"first_dealer": 4},
            {"seeds": ["00" * 32]},
            {"seeds": ["00" * 32] * 12, "presets": presets_with_both_qc("x")},
            {"nickname": "x"},
        ):
            assert_problem(await http.post("/tables", json=body), 400, "malformed_request")
        for body in ({"name": ""}, {"name": "x", "seat": 4}, {"name": "x", "entropy": "zz"}):
            response = await http.post(f"/tables/{game.table.table_id}/seats", json=body)
            assert_problem(response, 400, "malformed_request")


async def test_invalid_preset_deals_are_rejected(
    game: Game, http: httpx.AsyncClient, unchanged: Unchanged
) -> None:
    """Preset hands must use every card code exactly twice (R2.1)."""
    presets = presets_with_both_qc("bad")
    presets[3][0][0] = presets[3][0][1]
    async with unchanged(game.table.table_id):
        for bad in (presets, [[["QC"] * 12] * 4] * 12):
            response = await http.post("/tables", json={"presets": bad})
            assert_problem(response, 400, "invalid_deal", "R2.1")


async def test_tokens_are_checked(
    game: Game, http: httpx.AsyncClient, unchanged: Unchanged
) -> None:
    body = {"card": "AS"}
    other = await new_game(DokoClient(http))
    async with unchanged(game.table.table_id):
        assert_problem(await http.post(play_path(game), json=body), 401, "unauthorized")
        for header in ("Bearer not-a-token", "Basic abc", "Bearer", "token"):
            response = await http.post(
                play_path(game), json=body, headers={"authorization": header}
            )
            assert_problem(response, 401, "unauthorized")
        # seat 2's token acting for seat 1
        response = await http.post(play_path(game, 1), json=body, headers=auth(game, 2))
        assert_problem(response, 403, "forbidden")
        # a seat's token of another table
        response = await http.post(play_path(game, 1), json=body, headers=auth(other, 1))
        assert_problem(response, 401, "unauthorized")
        # views: the seat's own token only
        view = f"/tables/{game.table.table_id}/seats/1"
        assert_problem(await http.get(view), 401, "unauthorized")
        assert_problem(await http.get(view, headers=auth(game, 0)), 403, "forbidden")
        # the typed client acting for another seat with its own token
        with pytest.raises(ProblemError) as raised:
            await game.seats[2].send(Declare(Seat(1), Declaration.HEALTHY))
        assert raised.value.status == 403


async def test_unknown_tables_and_paths_are_404(
    game: Game, http: httpx.AsyncClient, unchanged: Unchanged
) -> None:
    async with unchanged(game.table.table_id):
        assert_problem(await http.get("/tables/nope"), 404, "table_not_found")
        response = await http.post(
            "/tables/nope/seats/1/play", json={"card": "AS"}, headers=auth(game)
        )
        assert_problem(response, 404, "table_not_found")
        response = await http.post("/tables/nope/seats", json={"name": "x"})
        assert_problem(response, 404, "table_not_found")
        assert_problem(
            await http.get("/tables/nope/seats/1", headers=auth(game)), 404, "table_not_found"
        )
        assert_problem(await http.get("/tables/nope/events"), 404, "table_not_found")
        assert_problem(await http.get("/nowhere"), 404, "not_found")
        seat9 = f"/tables/{game.table.table_id}/seats/9/play"
        response = await http.post(seat9, json={"card": "AS"}, headers=auth(game))
        assert_problem(response, 400, "malformed_request")


async def test_oversized_bodies_are_413(
    game: Game, http: httpx.AsyncClient, unchanged: Unchanged
) -> None:
    huge = b'{"card": "AS", "pad": "' + b"x" * (300 * 1024) + b'"}'
    async with unchanged(game.table.table_id):
        for path, headers in ((play_path(game), auth(game)), ("/tables", {})):
            response = await http.post(
                path, content=huge, headers={**headers, "content-type": "application/json"}
            )
            assert_problem(response, 413, "body_too_large")


# -- 409: rules ---------------------------------------------------------------------------


async def test_declaring_out_of_turn_is_r4_1(game: Game, unchanged: Unchanged) -> None:
    view = await game.seats[1].view()
    assert view.deal is not None and view.deal.phase is Phase.RESERVATIONS
    assert view.deal.turn == 1
    async with unchanged(game.table.table_id):
        with pytest.raises(ProblemError) as raised:
            await game.seats[2].send(Declare(Seat(2), Declaration.HEALTHY))
        assert_rejected(raised.value, "not_your_turn", "R4.1")
        with pytest.raises(ProblemError) as raised:
            await game.seats[1].send(PlayCard(Seat(1), Card.AS))
        assert (raised.value.status, raised.value.code) == (409, "phase_closed")


async def test_seats_are_unavailable_when_taken_r1_1(
    game: Game, api: DokoClient, unchanged: Unchanged
) -> None:
    async with unchanged(game.table.table_id):
        with pytest.raises(ProblemError) as raised:
            await game.table.take_seat("fifth")
        assert_rejected(raised.value, "seat_unavailable", "R1.1")
    table = await api.create_table("half")
    await table.take_seat("first", seat=2)
    async with unchanged(table.table_id):
        with pytest.raises(ProblemError) as raised:
            await table.take_seat("second", seat=2)
        assert_rejected(raised.value, "seat_unavailable", "R1.1")


async def test_contracts_not_allowed_r4_2(api: DokoClient, unchanged: Unchanged) -> None:
    game = await new_game(api)
    seats = game.seats
    await seats[1].send(Declare(Seat(1), Declaration.RESERVATION))
    for s in (2, 3, 0):
        await seats[s].send(Declare(Seat(s), Declaration.HEALTHY))
    view = await seats[1].view()
    assert view.deal is not None and view.deal.phase is Phase.CONTRACTS
    assert GameType.MARRIAGE not in view.deal.options.contracts  # seat 1 has one QC only
    async with unchanged(game.table.table_id):
        for contract in (GameType.NORMAL, GameType.SILENT_SOLO, GameType.MARRIAGE):
            with pytest.raises(ProblemError) as raised:
                await seats[1].send(NameContract(Seat(1), contract))
            assert_rejected(raised.value, "contract_not_allowed", "R4.2")
        with pytest.raises(ProblemError) as raised:
            await seats[2].send(NameContract(Seat(2), GameType.CLUBS_SOLO))
        assert_rejected(raised.value, "not_your_turn", "R4.2")
    result = await seats[1].send(NameContract(Seat(1), GameType.JACK_SOLO))
    assert result.view.deal is not None
    assert result.view.deal.game_type is GameType.JACK_SOLO


async def test_play_and_announcement_violations(api: DokoClient, unchanged: Unchanged) -> None:
    game = await new_game(api)
    seats = game.seats
    table_id = game.table.table_id
    for s in (1, 2, 3, 0):
        await seats[s].send(Declare(Seat(s), Declaration.HEALTHY))
    view = await seats[1].view()
    assert view.deal is not None
    assert view.deal.game_type is GameType.NORMAL and view.deal.turn == 1

    async def rejected(seat: int, command: Any, code: str, rule: str) -> None:
        async with unchanged(table_id):
            with pytest.raises(ProblemError) as raised:
                await seats[seat].send(command)
            assert_rejected(raised.value, code, rule)

    # seat 1 holds QC: Re, and cannot say kontra
    await rejected(1, Announce(Seat(1), Word.KONTRA), "wrong_party", "R6.9")
    hand2 = (await seats[2].view()).deal.hand  # type: ignore[union-attr]
    await rejected(2, PlayCard(Seat(2), hand2[0]), "not_your_turn", "R3.6")
    absent = next(c for c in Card if c not in view.deal.hand)
    await rejected(1, PlayCard(Seat(1), absent), "card_not_in_hand", "R3.6")
    await seats[1].send(PlayCard(Seat(1), Card.AS))
    view2 = await seats[2].view()
    assert view2.deal is not None
    legal = view2.deal.options.cards
    assert Card.KS in legal
    illegal = next(c for c in view2.deal.hand if c not in legal)
    await rejected(2, PlayCard(Seat(2), illegal), "must_follow", "R3.3")
    # two tricks with legal cards: everyone then holds 10 cards
    while True:
        views = [await s.view() for s in seats]
        deal0 = views[0].deal
        assert deal0 is not None
        if len(deal0.tricks) == 2:
            break
        turn = deal0.turn
        assert turn is not None
        mine = views[turn].deal
        assert mine is not None
        await seats[turn].send(PlayCard(Seat(turn), mine.options.cards[0]))
    assert deal0.hand_sizes == (10, 10, 10, 10)
    # seat 0 holds no QC: Kontra; kontra needs 11 cards in hand
    await rejected(0, Announce(Seat(0), Word.KONTRA), "announcement_too_late", "R6.2")


# -- conditional and idempotent requests ---------------------------------------------------


async def test_if_match_with_a_stale_version_is_409(
    api: DokoClient, http: httpx.AsyncClient, unchanged: Unchanged
) -> None:
    game = await new_game(api)
    seat = game.seats[1]
    await seat.view()
    current = seat.version
    async with unchanged(game.table.table_id):
        with pytest.raises(ProblemError) as raised:
            await seat.send(Declare(Seat(1), Declaration.HEALTHY), if_match=current - 1)
        assert (raised.value.status, raised.value.code) == (409, "version_mismatch")
        assert raised.value.headers["etag"] == f'"{current}"'
        response = await http.post(
            f"/tables/{game.table.table_id}/seats/1/reservation",
            json={"declaration": "healthy"},
            headers={**seat.auth, "if-match": "soon"},
        )
        assert_problem(response, 400, "malformed_request")
    done = await seat.send(Declare(Seat(1), Declaration.HEALTHY), if_match=current)
    assert done.version == current + 1


async def test_if_none_match_with_the_current_etag_is_304(
    game: Game, http: httpx.AsyncClient
) -> None:
    for path, headers in (
        (f"/tables/{game.table.table_id}", {}),
        (f"/tables/{game.table.table_id}/seats/3", auth(game, 3)),
    ):
        first = await http.get(path, headers=headers)
        assert first.status_code == 200
        tag = first.headers["etag"]
        again = await http.get(path, headers={**headers, "if-none-match": tag})
        assert again.status_code == 304
        assert again.headers["etag"] == tag
        assert again.content == b""
        both = await http.get(path, headers={**headers, "if-none-match": f'"0", {tag}'})
        assert both.status_code == 304
        stale = await http.get(path, headers={**headers, "if-none-match": '"1"'})
        assert stale.status_code == 200
        assert stale.json() | {"server_time": None} == first.json() | {"server_time": None}


async def test_idempotency_key_retries_write_once(api: DokoClient, unchanged: Unchanged) -> None:
    game = await new_game(api)
    seat = game.seats[1]
    first = await seat.send(
        Declare(Seat(1), Declaration.HEALTHY), idempotency_key="k-1-retried-once"
    )
    async with unchanged(game.table.table_id):
        again = await seat.send(
            Declare(Seat(1), Declaration.HEALTHY), idempotency_key="k-1-retried-once"
        )
        assert again.version == first.version
        # the key is bound to its request: another body is 422, nothing written
        with pytest.raises(ProblemError) as raised:
            await seat.send(
                Declare(Seat(1), Declaration.RESERVATION), idempotency_key="k-1-retried-once"
            )
        assert (raised.value.status, raised.value.code) == (422, "idempotency_key_reused")
    assert again.view.deal is not None
    assert again.view.deal.declarations[1] is Declaration.HEALTHY
    # the same key for another seat is another command
    done = await game.seats[2].send(
        Declare(Seat(2), Declaration.HEALTHY), idempotency_key="k-1-retried-once"
    )
    assert done.version == first.version + 1
    # a late retry, after the table moved on, still answers with the first result
    async with unchanged(game.table.table_id):
        response = await api.http.post(
            f"/tables/{game.table.table_id}/seats/1/reservation",
            json={"declaration": "healthy"},
            headers={**seat.auth, "idempotency-key": "k-1-retried-once"},
        )
    assert response.status_code == 200, response.text
    assert response.json()["version"] == first.version
    assert response.headers["etag"] == f'"{first.version}"'
    assert msgspec.json.decode(response.content, type=CommandResult) == first


async def test_concurrent_retries_with_one_key_write_once(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    game = await new_game(api)
    seat = game.seats[1]
    before = await pool.fetchval(
        "SELECT count(*) FROM events WHERE stream_id = $1", game.table.table_id
    )
    results = await asyncio.gather(
        *(
            seat.send(Declare(Seat(1), Declaration.HEALTHY), idempotency_key="same-key-for-all-5")
            for _ in range(5)
        ),
        return_exceptions=True,
    )
    failed = [r for r in results if isinstance(r, BaseException)]
    assert not failed, failed  # every retry is answered, none rejected or failed
    answers = [r for r in results if not isinstance(r, BaseException)]
    assert {(r.version, r.view) for r in answers} == {(answers[0].version, answers[0].view)}
    assert answers[0].view.deal is not None
    assert answers[0].view.deal.declarations[1] is Declaration.HEALTHY
    after = await pool.fetchval(
        "SELECT count(*) FROM events WHERE stream_id = $1", game.table.table_id
    )
    assert after == before + 1


async def test_an_idempotency_key_reused_for_another_request_is_422(
    api: DokoClient, unchanged: Unchanged
) -> None:
    """A key is bound to its request (operation, seat, body): used again for another
    operation or another body, it is 422 ``idempotency_key_reused`` and nothing is written;
    the same request again still gets the first result."""
    game = await new_game(api)
    seat = game.seats[1]
    first = await seat.send(
        Declare(Seat(1), Declaration.HEALTHY), idempotency_key="bound-to-healthy"
    )
    async with unchanged(game.table.table_id):
        for other in (
            Declare(Seat(1), Declaration.RESERVATION),  # another body
            Announce(Seat(1), Word.RE),  # another operation
            PlayCard(Seat(1), Card.AS),
        ):
            with pytest.raises(ProblemError) as raised:
                await seat.send(other, idempotency_key="bound-to-healthy")
            assert (raised.value.status, raised.value.code) == (422, "idempotency_key_reused")
            assert raised.value.headers["content-type"].startswith("application/problem+json")
        again = await seat.send(
            Declare(Seat(1), Declaration.HEALTHY), idempotency_key="bound-to-healthy"
        )
    assert again == first


async def test_concurrent_requests_with_one_key_write_once(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    """Ten requests with one key at once, half of them for another body: exactly one is
    written; the others get its result (same body) or 422 (another body), never a second
    write."""
    game = await new_game(api)
    seat = game.seats[1]
    table_id = game.table.table_id
    count = "SELECT count(*) FROM events WHERE stream_id = $1"
    before = await pool.fetchval(count, table_id)
    bodies = [Declaration.HEALTHY, Declaration.RESERVATION] * 5
    results = await asyncio.gather(
        *(seat.send(Declare(Seat(1), d), idempotency_key="race-of-ten-requests") for d in bodies),
        return_exceptions=True,
    )
    assert await pool.fetchval(count, table_id) == before + 1
    won = await pool.fetchval(
        "SELECT payload->>'declaration' FROM events WHERE stream_id = $1 AND version = $2",
        table_id,
        before + 1,
    )
    for declaration, result in zip(bodies, results, strict=True):
        if declaration.value == won:
            assert isinstance(result, CommandResult), result
            assert result.version == before + 1
        else:
            assert isinstance(result, ProblemError), result
            assert (result.status, result.code) == (422, "idempotency_key_reused")


# -- 429 --------------------------------------------------------------------------------


async def test_rate_limits_are_429_with_retry_after(db_url: str) -> None:
    clock = Clock()
    app = create_app(settings(db_url, rate_per_token=3, rate_per_address=8), rate_clock=clock)
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=10.0) as http:
        token = {"authorization": "Bearer some-token"}
        statuses = [(await http.get("/health", headers=token)).status_code for _ in range(3)]
        assert statuses == [200, 200, 200]
        limited = await http.get("/health", headers=token)
        body = assert_problem(limited, 429, "rate_limited")
        assert int(limited.headers["retry-after"]) >= 0, body
        # the address limit counts every request of the address
        clock.next_window()
        statuses = [(await http.get("/health")).status_code for _ in range(9)]
        assert statuses == [200] * 8 + [429]
        response = await http.get("/health")
        assert_problem(response, 429, "rate_limited")
        assert "retry-after" in response.headers


async def test_deal_records_stay_hidden_until_scored(
    game: Game, http: httpx.AsyncClient, unchanged: Unchanged
) -> None:
    """The public record routes show nothing of a deal in play, nor a session's log."""
    path = f"/tables/{game.table.table_id}"
    async with unchanged(game.table.table_id):
        for suffix in ("", "/replay", "/verification"):
            response = await http.get(f"{path}/deals/1{suffix}")
            assert_problem(response, 409, "deal_not_scored")
            assert_problem(await http.get(f"{path}/deals/13{suffix}"), 400, "malformed_request")
        assert_problem(await http.get(f"{path}/export"), 409, "session_not_finished")
