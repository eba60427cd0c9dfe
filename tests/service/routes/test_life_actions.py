"""Views say what their viewer may do now about the table's life, and views and stream
messages carry the service's time.

The service's clock is injected (`service.app.create_app`'s ``now``, the turn clock's time
source), so the time each answer must carry is the test's. The expected actions are
written by hand from T2.3, T2.4, T3.3, T4.1, T4.2 and T1.2 (domain/table.py's docstring).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import asyncpg

from domain.commands import Declaration, Declare
from domain.seats import Seat
from infra.event_store import EventStore
from service.tools.client import (
    DokoClient,
)
from tests.service.sessions import new_game
from tests.service.workers.test_clock import FakeNow, client, clocked_app

WAIT = 600.0
AT = datetime(2026, 12, 1, 12, 0, 0, 500000, tzinfo=UTC)
SHOWN = "2026-12-01T12:00:00.500000Z"
LATER = "2026-12-01T12:00:07.500000Z"


def refused(action: str, code: str, rule: str, seat: int | None = None) -> dict[str, object]:
    return {"action": action, "allowed": False, "code": code, "rule": rule, "seat": seat}


def allowed(action: str, seat: int | None = None) -> dict[str, object]:
    return {"action": action, "allowed": True, "code": None, "rule": None, "seat": seat}


async def test_a_view_carries_the_askers_life_actions_and_the_server_time(db_url: str) -> None:
    """First dealer 0: seat 1 declares first (R4.1), so it may not leave (T2.3); no seat has
    timed out (T3.3); four people sit (T2.4: no seat to vacate), the session runs (T4.1:
    no closing; T4.2: abandoning), the table is public (T1.2). A spectator has no action. A
    304 keeps the version's ETag while the clock moves; a 200 tells the time anew."""
    now = FakeNow(AT)
    async with client(clocked_app(db_url, now)) as api:
        game = await new_game(api)
        path = game.table.path
        http = api.http
        auth = game.seats[1].auth
        mine = await http.get(f"{path}/seats/1", headers=auth)
        assert mine.json()["actions"] == [
            refused("leave", "leave_on_turn", "T2.3"),
            refused("come_back", "not_away", "T3.3"),
        ]
        assert mine.json()["server_time"] == SHOWN
        assert mine.headers["vary"] == "Authorization"
        other = await http.get(path, headers=game.seats[0].auth)  # the public view, as seat 0
        assert (other.json()["viewer"], other.json()["actions"][0]) == (None, allowed("leave"))
        host = {"authorization": f"Bearer {game.table.host_token}"}
        hosted = (await http.get(path, headers=host)).json()["actions"]
        assert hosted == [
            *(refused("vacate", "seat_occupied", "T2.4", s) for s in range(4)),
            refused("close", "phase_closed", "T4.1"),
            allowed("abandon"),
            refused("rotate_invitation", "table_public", "T1.2"),
        ]
        assert (await http.get(path)).json()["actions"] == []
        now.at = AT + timedelta(seconds=7)
        tag = mine.headers["etag"]
        held = await http.get(f"{path}/seats/1", headers={**auth, "if-none-match": tag})
        assert (held.status_code, held.headers["etag"]) == (304, tag)
        again = await http.get(f"{path}/seats/1", headers=auth)
        assert (again.headers["etag"], again.json()["server_time"]) == (tag, LATER)
        declared = await http.post(
            f"{path}/seats/1/reservation", json={"declaration": "healthy"}, headers=auth
        )
        assert declared.json()["view"]["actions"][0] == allowed("leave")
        assert declared.json()["view"]["server_time"] == LATER


async def test_every_stream_message_carries_the_server_time(
    db_url: str, pool: asyncpg.Pool
) -> None:
    """The table stream's and the feed's messages end with the service's time when sent."""
    now = FakeNow(AT)
    async with client(clocked_app(db_url, now)) as api:
        game = await new_game(api)
        await game.table.view()
        latest = str(game.table.version)
        head = str(await EventStore(pool).head_position())
        now.at = AT + timedelta(seconds=7)
        async with (
            asyncio.timeout(WAIT),
            game.seats[3].events(last_event_id=latest) as table_messages,
            api.feed(last_event_id=head) as feed_messages,
        ):
            await game.seats[1].send(Declare(Seat(1), Declaration.HEALTHY))
            told = (await anext(aiter(table_messages))).json()
            assert (told["type"], told["server_time"]) == ("declared", LATER)
            async for message in feed_messages:
                item = message.json()
                if item["table_id"] == game.table.table_id and item["event"]["type"] == "declared":
                    assert item["server_time"] == LATER
                    break


async def test_a_life_commands_answer_has_the_actions_of_who_gave_it(api: DokoClient) -> None:
    """T2.4: the host vacates a bot's seat; its answer has the host's actions, that seat now
    free (``seat_vacant``, T2.1). T2.1: after leaving, the token is no seat's: the leaver's
    answer has a spectator's actions, none."""
    table = await api.create_table("life", visibility="public")
    host = {"authorization": f"Bearer {table.host_token}"}
    mine = await table.take_seat("ann", seat=0)
    await table.seat_bot("random", seat=1)
    vacated = await api.http.delete(f"{table.path}/seats/1", headers=host)
    actions = vacated.json()["view"]["actions"]
    assert actions[:2] == [
        refused("vacate", "seat_occupied", "T2.4", 0),
        refused("vacate", "seat_vacant", "T2.1", 1),
    ]
    assert actions[4] == allowed("close")
    left = await api.http.delete(f"{table.path}/seats/0", headers=mine.auth)
    assert (left.status_code, left.json()["view"]["actions"]) == (200, [])
