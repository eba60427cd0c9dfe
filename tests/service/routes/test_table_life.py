"""A table's life through the live service: private tables and invitations (T1), leaving
and replacing (T2), closing and abandoning (T4), and the lobby.

Every refused request is checked to write nothing (the table's events stay as they were).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from domain.commands import PlayCard
from domain.events import CardPlayed, DealScored
from domain.seats import SEATS
from domain.table import SeatLeft, SeatTaken, SessionAbandoned, TableEvent
from domain.table_view import SeatStatus
from infra.audit.export import verify_file
from infra.audit.table import verify_table
from infra.event_store import EventStore
from infra.signing import read_keys
from infra.tables import Tables
from service.tools.client import (
    DokoClient,
    ProblemError,
    Received,
    SeatClient,
    TableClient,
)
from service.tools.play import (
    play_session as play,
)
from service.tools.play import (
    random_players,
)
from tests.service.truth import Auditor, Truth, cards_in, secrets_in

WAIT = 300.0
"""The bound of every wait for a condition (never reached unless something is broken)."""


async def rows(pool: asyncpg.Pool, table_id: str) -> int:
    count: int = await pool.fetchval("SELECT count(*) FROM events WHERE stream_id = $1", table_id)
    return count


@asynccontextmanager
async def unchanged(pool: asyncpg.Pool, table_id: str) -> AsyncIterator[None]:
    """The block writes nothing to the table."""
    before = await rows(pool, table_id)
    yield
    assert await rows(pool, table_id) == before


def problem(error: pytest.ExceptionInfo[ProblemError]) -> tuple[int, str | None, str | None]:
    return error.value.status, error.value.code, error.value.rule


async def log(pool: asyncpg.Pool, table_id: str) -> list[TableEvent]:
    return [event for _, event in await Tables(EventStore(pool)).events(table_id)]


# -- T1: private tables and invitations ---------------------------------------------------


_GUESSED = {"invitation": "guessed"}


async def test_a_private_table_is_filled_by_invitation_only(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """T1.1: a private table (the default) seats only holders of its invitation code; it is
    shown only to a credential of it (a seat token, the host token, the code), and does not
    exist to anyone else (404); it is in no lobby and not in the feed. What its seats and
    a spectator with the code receive (whole streams, views) passes the secrecy oracle: no
    invitation or token hash."""
    transcript: list[Received] = []
    table = await api.create_table("friends")
    assert table.invitation and table.host_token
    stranger = api.table(table.table_id)
    wrong = api.table(table.table_id, invitation="guessed")
    host = {"authorization": f"Bearer {table.host_token}"}
    async with unchanged(pool, table.table_id):
        for client in (stranger, wrong):
            with pytest.raises(ProblemError) as hidden:
                await client.take_seat("stranger")
            assert problem(hidden) == (404, "table_not_found", None)
        for body, refused in (
            ({}, (401, "invitation_required")),
            (_GUESSED, (403, "invitation_invalid")),
        ):
            response = await http.post(
                f"{table.path}/seats", json={"name": "x", **body}, headers=host
            )
            assert (response.status_code, response.json()["code"]) == refused
        for path in ("", "/scoresheet", "/events"):
            response = await http.get(f"{table.path}{path}")
            assert (response.status_code, response.json()["code"]) == (404, "table_not_found")
            response = await http.get(f"{table.path}{path}", headers=wrong.credential)
            assert response.status_code == 404
    seats: list[SeatClient] = []
    for seat in SEATS:  # each player with their own client, knowing only the code
        friend = DokoClient(api.http, transcript)
        seats.append(
            await friend.table(table.table_id, invitation=table.invitation).take_seat(
                f"friend {seat}"
            )
        )
    spectator = DokoClient(api.http, transcript).table(table.table_id, invitation=table.invitation)
    view = await spectator.view()
    assert view.deal is not None and view.visibility == "private"
    assert [s.name for s in view.seats] == [f"friend {s}" for s in SEATS]
    own = await http.get(table.path, headers=seats[2].auth)
    assert own.status_code == 200 and own.json()["viewer"] is None
    events = await log(pool, table.table_id)
    assert sum(isinstance(e, SeatTaken) for e in events) == 4
    await _audit_private(table.table_id, [*seats, spectator], transcript, pool)
    page = await api.lobby()
    assert table.table_id not in {t.table_id for t in page.tables}
    marker = await api.create_table("public marker", visibility="public")
    async with asyncio.timeout(WAIT), api.feed() as messages:
        async for message in messages:
            body = message.json()
            assert body["table_id"] != table.table_id, "a private table's event in the feed"
            if body["table_id"] == marker.table_id:
                break


async def _audit_private(
    table_id: str, viewers: list[Any], transcript: list[Received], pool: asyncpg.Pool
) -> None:
    """Every viewer's whole stream and view against the secrecy oracle; the invitation
    hash put back into the spectator's ``table_created`` fails it."""
    truth = Truth(table_id, await EventStore(pool).read_stream(table_id))
    for viewer in viewers:
        async with asyncio.timeout(WAIT), viewer.events() as messages:
            async for message in messages:
                if message.id == str(truth.version):
                    break
        await viewer.view()
    auditor = Auditor(truth)
    auditor.audit(transcript)
    assert not auditor.failures, auditor.failures
    assert auditor.coverage.stream_messages == 4 * truth.version + truth.version
    invitation_hash = truth.log.events[1]["invitation_hash"]
    assert invitation_hash, "a private table's invitation is logged hashed"
    created = next(
        i for i in transcript if i.source == "sse" and i.viewer is None and i.version == 1
    )
    leak = json.loads(created.body) | {"invitation_hash": invitation_hash}
    auditor = Auditor(truth)
    auditor.audit([msgspec.structs.replace(created, body=json.dumps(leak).encode())])
    failures = "\n".join(auditor.failures)
    assert f"table_created $.invitation_hash: got '{invitation_hash}', expected ''" in failures
    assert "secret strings (token or invitation hashes, seeds) shown" in failures, failures


async def test_five_clients_with_the_invitation_race_for_the_last_seat(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    """R1.1, T1.1: five clients with the code at once for the last free seat: exactly one
    sits (and the session starts), four get ``seat_unavailable`` and write nothing."""
    table = await api.create_table("last seat")
    for seat in range(3):
        await table.take_seat(f"p{seat}", seat=seat)
    before = await rows(pool, table.table_id)
    clients = [DokoClient(api.http).table(table.table_id, invitation=table.invitation)]
    clients *= 5
    results = await asyncio.gather(
        *(client.take_seat(f"late {n}") for n, client in enumerate(clients)),
        return_exceptions=True,
    )
    seated = [r for r in results if isinstance(r, SeatClient)]
    refused = [r for r in results if isinstance(r, ProblemError)]
    assert len(seated) == 1 and seated[0].seat == 3, results
    assert [(e.status, e.code, e.rule) for e in refused] == [(409, "seat_unavailable", "R1.1")] * 4
    new = (await log(pool, table.table_id))[before:]
    assert sum(isinstance(e, SeatTaken) for e in new) == 1
    assert (await table.view()).deal is not None, "the fourth player started the session"


# -- T2: leaving and replacing --------------------------------------------------------------


async def _in_play(seats: list[SeatClient], tricks: int, seed: int) -> None:
    """Play (each seat on its own view) until deal 1 has ``tricks`` complete tricks."""
    players = random_players(seed)
    async with asyncio.timeout(WAIT):
        while True:
            for seat, player in zip(seats, players, strict=True):
                view = await seat.view(max(s.version for s in seats))
                assert view.deal is not None
                if len(view.deal.tricks) >= tricks:
                    return
                command = player(view.deal)
                if command is not None:
                    await seat.send(command, if_match=seat.version)


async def test_a_player_leaves_mid_deal_and_a_bot_finishes_for_them(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """T2.2, T2.4: a player leaves during deal 1; the seat is vacant and its token void at
    once (its view, its commands, its stream: at this private table it finds no table,
    T1.1); the host seats a bot there, which plays on with the seat's cards; the
    scoresheet and the deal record name both players."""
    table = await api.create_table("leaving", first_dealer=0)
    seats = [await table.take_seat(f"p{s}", seat=s) for s in SEATS]
    await _in_play(seats, tricks=3, seed=5)
    view = await seats[0].view()
    assert view.deal is not None and view.deal.turn is not None
    leaver = seats[view.deal.turn.left()]  # not the one to act (T2.3)
    stream = leaver.events()
    async with asyncio.timeout(WAIT), stream as messages:
        left = await leaver.leave()
        assert left.view.seats[leaver.seat].status is SeatStatus.VACANT
        last = None
        async for message in messages:  # the seat's stream ends with its leaving
            last = message
        assert last is not None and last.event == "seat_left"
    async with unchanged(pool, table.table_id):
        for attempt in (leaver.view(), leaver.leave(), leaver.send(PlayCard(leaver.seat, "QC"))):  # type: ignore[arg-type]
            with pytest.raises(ProblemError) as void:
                await attempt
            # a private table: a token that opens nothing finds no table (T1.1)
            assert (void.value.status, void.value.code) == (404, "table_not_found")
        response = await http.get(f"{table.path}/events", headers=leaver.auth)
        assert response.status_code == 404
    assert await table.seat_bot("greedy", seat=leaver.seat) == leaver.seat
    others = [s for s in seats if s is not leaver]
    players = [p for s, p in zip(seats, random_players(6), strict=True) if s is not leaver]
    await play(others, players, deals=1)
    sheet = (await http.get(f"{table.path}/scoresheet", headers=table.credential)).json()
    played_by = sheet["rows"][0]["players"]
    assert played_by[leaver.seat] == [f"p{int(leaver.seat)}", "greedy bot"]
    assert [played_by[s.seat] for s in others] == [[f"p{int(s.seat)}"] for s in others]
    record = (await http.get(f"{table.path}/deals/1", headers=table.credential)).json()
    assert record["played_by"] == played_by
    report = await http.get(f"{table.path}/deals/1/verification", headers=table.credential)
    assert report.json()["ok"], report.json()
    events = await log(pool, table.table_id)
    gone = next(i for i, e in enumerate(events) if isinstance(e, SeatLeft))
    back = next(i for i, e in enumerate(events) if isinstance(e, SeatTaken) and i > gone)
    assert not any(
        isinstance(e, CardPlayed) and e.seat is leaver.seat for e in events[gone:back]
    ), "nobody played the vacant seat"


async def test_leaving_answers_its_problems_and_writes_nothing(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """T2.1-T2.4: no leave on one's turn, from a vacant seat, for another seat, or of a
    present player by the host; before the session a leaver frees the seat."""
    table = await api.create_table("refusals", first_dealer=0)
    early = await table.take_seat("early", seat=2)
    freed = await early.leave()
    assert freed.view.seats[2].status is SeatStatus.FREE
    seats = [await table.take_seat(f"p{s}", seat=s) for s in SEATS]
    path = f"{table.path}/seats"
    async with unchanged(pool, table.table_id):
        with pytest.raises(ProblemError) as on_turn:
            await seats[1].leave()  # seat 1, the first dealer's left, declares first (R4.1)
        assert problem(on_turn) == (409, "leave_on_turn", "T2.3")
        with pytest.raises(ProblemError) as present:
            await table.vacate(0)
        assert problem(present) == (409, "seat_occupied", "T2.4")
        response = await http.delete(f"{path}/0", headers=seats[3].auth)
        assert (response.status_code, response.json()["code"]) == (403, "forbidden")
        response = await http.delete(f"{path}/0", headers={"authorization": "Bearer nobody"})
        assert (response.status_code, response.json()["code"]) == (404, "table_not_found")
        response = await http.delete(f"{path}/0")
        assert response.status_code == 401
        response = await http.delete(f"{path}/7", headers=seats[3].auth)
        assert response.status_code == 400
        with pytest.raises(ProblemError) as clockless:
            await seats[0].back()
        assert problem(clockless) == (409, "not_away", "T3.3")
    await seats[0].leave()
    async with unchanged(pool, table.table_id):
        with pytest.raises(ProblemError) as vacant:
            await table.vacate(0)
        assert problem(vacant) == (409, "seat_vacant", "T2.1")


async def test_a_leave_races_a_play_of_the_same_seat(api: DokoClient, pool: asyncpg.Pool) -> None:
    """T2.3: the seat to act plays and leaves at once, 12 times. The play always stands; the
    leave is refused when it came first (the seat was to act), or it follows the play; the
    seat never acts once it has left, and a newcomer takes it for the next race."""
    table = await api.create_table("races", first_dealer=0)
    seats = [await table.take_seat(f"p{s}", seat=s) for s in SEATS]
    await _in_play(seats, tricks=1, seed=9)
    rng = random.Random(12)
    outcomes = set()
    for n in range(12):
        view = await seats[0].view(max(s.version for s in seats))
        assert view.deal is not None and view.deal.turn is not None
        actor = seats[view.deal.turn]
        mine = (await actor.view(max(s.version for s in seats))).deal
        assert mine is not None
        card = mine.options.cards[rng.randrange(len(mine.options.cards))]
        played, left = await asyncio.gather(
            actor.send(PlayCard(actor.seat, card)), actor.leave(), return_exceptions=True
        )
        assert not isinstance(played, BaseException), played
        if isinstance(left, ProblemError):
            assert (left.status, left.code, left.rule) == (409, "leave_on_turn", "T2.3")
            outcomes.add("refused")
            continue
        assert not isinstance(left, BaseException), left
        outcomes.add("after the play")
        events = await log(pool, table.table_id)
        gone = max(i for i, e in enumerate(events) if isinstance(e, SeatLeft))
        card_at = max(
            i for i, e in enumerate(events) if isinstance(e, CardPlayed) and e.seat is actor.seat
        )
        assert card_at < gone, "the leave came after the play"
        newcomer = await api.table(table.table_id, invitation=table.invitation).take_seat(
            f"new {n}", seat=actor.seat
        )
        seats[actor.seat] = newcomer
    assert outcomes, "the races were run"


# -- T4: closing and abandoning ---------------------------------------------------------------


async def test_a_closed_table_leaves_the_lobby(api: DokoClient, pool: asyncpg.Pool) -> None:
    """T4.1: the host closes a table before its session starts: it is no longer listed and
    nobody sits down; a session that has started is abandoned instead."""
    table = await api.create_table("closing", visibility="public")
    await table.take_seat("early")
    assert table.table_id in {t.table_id for t in (await api.lobby(["open"])).tables}
    closed = await table.close()
    assert closed.view.status == "closed"
    assert table.table_id not in {t.table_id for t in (await api.lobby()).tables}
    async with unchanged(pool, table.table_id):
        with pytest.raises(ProblemError) as late:
            await table.take_seat("late")
        assert problem(late) == (409, "phase_closed", "T4.1")
        with pytest.raises(ProblemError) as again:
            await table.close()
        assert problem(again) == (409, "phase_closed", "T4.1")
        with pytest.raises(ProblemError) as nobody:
            await api.table(table.table_id).close()
        assert problem(nobody) == (401, "unauthorized", None)
    unstarted = await api.create_table("not started")
    async with unchanged(pool, unstarted.table_id):
        with pytest.raises(ProblemError) as early:
            await unstarted.abandon()
        assert problem(early) == (409, "phase_closed", "T4.2")


async def test_an_abandoned_session_keeps_its_scored_deals_verifiable(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """T4.2: four bots play; the host abandons the session after two or more deals: the
    partial scoresheet stays, no winners, every scored deal verifies (the service's route,
    `doko verify`, and an export checked offline); nothing more is played."""
    table = await api.create_table("abandoned")
    for kind in ("greedy", "random", "greedy", "random"):
        await table.seat_bot(kind)
    async with asyncio.timeout(WAIT):
        while len((await table.view()).scoresheet) < 2:
            await asyncio.sleep(0.02)
    with pytest.raises(ProblemError) as started:
        await table.close()
    assert problem(started) == (409, "phase_closed", "T4.1")
    result = await table.abandon()
    assert result.view.status == "abandoned" and result.view.winners is None
    scored = len(result.view.scoresheet)
    assert 2 <= scored < 12
    async with unchanged(pool, table.table_id):
        with pytest.raises(ProblemError) as over:
            await table.abandon()
        assert problem(over) == (409, "session_over", "T4.2")
        await asyncio.sleep(0.1)  # the bots had a chance to act, and do not
    events = await log(pool, table.table_id)
    assert isinstance(events[-1], SessionAbandoned) and events[-1].deals == scored
    assert sum(isinstance(e, DealScored) for e in events) == scored
    credential = table.credential
    sheet = (await http.get(f"{table.path}/scoresheet", headers=credential)).json()
    assert sheet["abandoned"] and sheet["winners"] is None and len(sheet["rows"]) == scored
    for deal_no in range(1, scored + 1):
        path = f"{table.path}/deals/{deal_no}/verification"
        report = (await http.get(path, headers=credential)).json()
        assert report["ok"], report
    audit = await verify_table(Tables(EventStore(pool)), table.table_id)
    assert audit.ok, audit.failures
    assert [d.deal_no for d in audit.deals if d.ok] == list(range(1, scored + 2))
    export = await http.get(f"{table.path}/export", headers=credential)
    assert export.status_code == 200, export.text
    keys = read_keys((await http.get("/.well-known/doko-keys")).content)
    assert verify_file(export.content, keys).ok


# -- the lobby --------------------------------------------------------------------------------


async def _page_through(api: DokoClient, status: list[str], limit: int) -> list[Any]:
    """Every lobby entry, page after page, with the cursor of each."""
    listed: list[Any] = []
    before = None
    while True:
        page = await api.lobby(status, before=before, limit=limit)
        listed.extend(page.tables)
        if page.next is None:
            return listed
        before = page.next


async def test_the_lobby_pages_through_250_tables_created_concurrently(
    api: DokoClient, http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """250 public tables are created, 20 at a time, while a client pages through the lobby
    (newest first, 7 a page): the pages hold no table twice, every table that existed when
    the paging began, and no private or closed one. Paging again afterwards lists all 250
    once each, newest first. ETag and If-None-Match; the status filter; no
    secret in any entry."""
    first = [await api.create_table(f"lobby {n}", visibility="public") for n in range(50)]
    private = await api.create_table("lobby private")
    gone = await api.create_table("lobby closed", visibility="public")
    await gone.close()

    async def create(n: int) -> TableClient:
        return await api.create_table(f"lobby {n}", visibility="public", turn_seconds=60)

    created = list(first)
    paging = asyncio.create_task(_page_through(api, ["open"], 7))
    for start in range(50, 250, 20):
        created += await asyncio.gather(*(create(n) for n in range(start, start + 20)))
    during = await paging
    ids = [t.table_id for t in during]
    assert len(ids) == len(set(ids)), "a table listed twice"
    assert {t.table_id for t in first} <= set(ids), "a table skipped"
    assert private.table_id not in ids and gone.table_id not in ids

    after = [t for t in await _page_through(api, ["open"], 7) if t.name.startswith("lobby ")]
    listed = [t.table_id for t in after]
    assert len(listed) == len(set(listed)) == 250
    assert set(listed) == {t.table_id for t in created}
    assert listed[-50:] == [t.table_id for t in reversed(first)], "created one by one"
    assert [t.created for t in after] == sorted((t.created for t in after), reverse=True)
    assert after[0].options.turn_seconds == 60 and after[-1].options.turn_seconds is None
    assert all(t.status == "open" and t.visibility == "public" for t in after)

    response = await http.get("/tables", params={"limit": 3})
    tag = response.headers["etag"]
    same = await http.get("/tables", params={"limit": 3}, headers={"if-none-match": tag})
    assert (same.status_code, same.headers["etag"], same.content) == (304, tag, b"")
    newest = next(t for t in created if t.table_id == listed[0])
    await newest.take_seat("sitting")
    changed = await http.get("/tables", params={"limit": 3}, headers={"if-none-match": tag})
    assert changed.status_code == 200 and changed.headers["etag"] != tag
    entry = next(t for t in changed.json()["tables"] if t["table_id"] == newest.table_id)
    assert [s["status"] for s in entry["seats"]] == ["seated", "free", "free", "free"]
    assert entry["seats"][0]["name"] == "sitting"
    for bad in ({"status": "lost"}, {"limit": 0}, {"limit": 101}, {"before": 0}, {"before": 2**63}):
        response = await http.get("/tables", params=bad)
        assert (response.status_code, response.json()["code"]) == (400, "malformed_request")


async def test_the_lobby_shows_tables_in_play_and_no_secrets(
    api: DokoClient, http: httpx.AsyncClient
) -> None:
    """A table in play (deal 1 dealt, the human to act) is listed as ``playing`` with its
    deal number and seats (bots by kind); no token or invitation hash, seed or card is in
    the lobby."""
    table = await api.create_table("lobby play", visibility="public")
    await table.take_seat("human")
    for kind in ("greedy", "random", "greedy"):
        await table.seat_bot(kind)
    listed = await http.get("/tables", params={"status": ["playing", "finished"]})
    body = listed.json()
    assert not secrets_in(body) and not cards_in(body)
    assert b"invitation_hash" not in listed.content and b"token" not in listed.content
    entry = next(t for t in body["tables"] if t["table_id"] == table.table_id)
    assert (entry["status"], entry["deal"]) == ("playing", 1)
    assert [s["bot"] for s in entry["seats"]] == [None, "greedy", "random", "greedy"]
    page = msgspec.json.decode(listed.content)
    assert all(t["status"] in ("playing", "finished") for t in page["tables"])
