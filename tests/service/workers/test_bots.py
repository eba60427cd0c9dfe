"""Bot seats and the demo: sessions with server-side bots."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import asyncpg
import httpx
import pytest

from domain.table_view import TableView
from service.app import create_app
from service.tools.client import (
    DokoClient,
    ProblemError,
    SeatClient,
)
from service.tools.demo import demo
from service.tools.play import (
    random_player,
)
from tests.service.conftest import serve, settings
from tests.service.edge.test_errors import assert_problem
from tests.service.sessions import all_bot_tables


async def _play_until(seat: SeatClient, done: Callable[[TableView], bool], seed: int) -> TableView:
    """The one human seat plays random legal moves until ``done(view)``; bots do the rest."""
    player = random_player(random.Random(seed))
    async with asyncio.timeout(120):
        while True:
            view = await seat.view()
            if done(view):
                return view
            command = player(view.deal) if view.deal is not None else None
            if command is None:
                await asyncio.sleep(0.005)
                continue
            try:
                await seat.send(command, if_match=seat.version)
            except ProblemError as error:
                # only a raced turn is expected: a bot acted after the view we decided on
                # (If-Match). A legal move refused, or any other error, fails at once.
                if (error.status, error.code) != (409, "version_mismatch"):
                    raise


async def test_one_client_and_three_bots_play_a_whole_session(api: DokoClient) -> None:
    table = await api.create_table("bots")
    human = await table.take_seat("human", seat=0)
    kinds = {await table.seat_bot(kind): kind for kind in ("random", "greedy", "greedy")}
    assert sorted(kinds) == [1, 2, 3]
    final = await _play_until(human, lambda v: v.winners is not None, seed=7)
    assert len(final.scoresheet) == 12
    assert all(sum(row) == 0 for row in final.scoresheet)
    assert [s.bot for s in final.seats] == [None, "random", "greedy", "greedy"]
    for deal_no in (1, 12):
        verification = f"{table.path}/deals/{deal_no}/verification"
        report = (await api.http.get(verification, headers=table.credential)).json()
        assert report["ok"], report
    sheet = await api.http.get(f"{table.path}/scoresheet", headers=table.credential)
    body = sheet.json()
    assert [row["deal_no"] for row in body["rows"]] == list(range(1, 13))
    running = [0, 0, 0, 0]
    for row in body["rows"]:
        assert sum(row["entries"]) == 0  # R10
        running = [t + e for t, e in zip(running, row["entries"], strict=True)]
        assert row["totals"] == running
    assert body["totals"] == list(final.totals) == running
    assert body["finished"] and body["winners"] == list(final.winners or ())  # R1.3
    again = await api.http.get(
        f"{table.path}/scoresheet",
        headers={**table.credential, "if-none-match": sheet.headers["etag"]},
    )
    assert again.status_code == 304


async def test_bots_carry_on_after_a_restart(db_url: str) -> None:
    """Bots are driven from the event log: a new service process picks them up mid-deal."""
    async with (
        serve(create_app(settings(db_url))) as first,
        httpx.AsyncClient(base_url=first, timeout=10) as http,
    ):
        table = await DokoClient(http).create_table("restart", visibility="public")
        human = await table.take_seat("human", seat=2)
        for _ in range(3):
            await table.seat_bot("random")
        mid = await _play_until(
            human, lambda v: v.deal is not None and len(v.deal.tricks) >= 3, seed=3
        )
        version = human.version
    assert mid.winners is None
    async with (
        serve(create_app(settings(db_url))) as second,
        httpx.AsyncClient(base_url=second, timeout=10) as http,
    ):
        again = DokoClient(http).table(table.table_id).seat(2, human.token)
        final = await _play_until(again, lambda v: v.winners is not None, seed=4)
    assert again.version > version
    assert len(final.scoresheet) == 12


async def test_the_demo_plays_and_verifies_a_session_with_bots(
    db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`doko demo` without ``--url``: its own service in this process, on the database."""
    assert await demo(None, db_url, bots=3, seed=5) == 0
    text = capsys.readouterr().out
    assert "Scoresheet (R10)" in text
    assert "12 of 12 deals verified" in text
    # the last deal's itemized score (its lines depend on the deal: a deal nobody wins
    # (R8) has none, so only the heading and the value are always there)
    assert "Deal 12: " in text
    assert "game value for Re: " in text


async def test_the_driver_forgets_a_finished_table(db_url: str) -> None:
    """What the bot driver keeps is bounded by the tables still in play: once a table's
    session is over it is dropped, and the periodic rescan does not bring it back."""
    app = create_app(settings(db_url))
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=10) as http:
        api = DokoClient(http)
        [finished] = await all_bot_tables(api, 1)
        async with asyncio.timeout(120):
            while (await api.table(finished).view()).winners is None:
                await asyncio.sleep(0.05)
        bots = app.state.services.bots
        async with asyncio.timeout(30):
            while finished in bots._known:
                await asyncio.sleep(0.01)
        await bots._scan()
        assert finished not in bots._known
        assert finished not in bots._line


async def test_seating_a_bot_needs_the_host_token_and_a_free_seat(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    """Only the host seats bots (401 without a token or with a seat's token), on a free
    seat only (409 `seat_unavailable`, R1.1); a refusal writes nothing."""
    table = await api.create_table("bot refusals")
    human = await table.take_seat("human", seat=1)
    path = f"{table.path}/bots"

    async def count() -> int:
        return int(
            await pool.fetchval("SELECT count(*) FROM events WHERE stream_id = $1", table.table_id)
        )

    before = await count()
    refused = [
        (await api.http.post(path, json={"kind": "random"}), 401, "unauthorized"),
        (
            await api.http.post(path, json={"kind": "random"}, headers=human.auth),
            401,
            "unauthorized",
        ),
        (
            await api.http.post(
                path,
                json={"kind": "greedy", "seat": 1},
                headers={"authorization": f"Bearer {table.host_token}"},
            ),
            409,
            "seat_unavailable",
        ),
    ]
    for response, status, code in refused:
        body = assert_problem(response, status, code)
        assert human.token not in response.text and table.host_token not in response.text
        if code == "seat_unavailable":
            assert body["rule"] == "R1.1"
    assert await count() == before
    assert await table.seat_bot("greedy") == 0  # the host may: the next free seat
    assert await count() == before + 1
