"""A table created with house rules (V2.1, the second 10H beats the first) plays a whole
session over HTTP, shows its rule set in its view and in the lobby, replays exactly by it
and verifies offline; a tournament's tables play by the tournament's rule set; a rule set
that is none is refused with the variant's rule."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import httpx
import msgspec
import pytest

from domain.cards import Card
from domain.events import CardPlayed, DealScored, GameTypeFixed, SessionStarted, TrickWon
from domain.game_types import GameType, order_of
from domain.replay import TABLE, replay
from domain.rule_set import RuleSet, in_force
from domain.table import TableCreated
from domain.variants.second_heart_ten import SecondHeartTen
from infra.event_store import EventStore
from infra.tables import CODEC
from service.tools.cli import main
from service.tools.client import DokoClient
from service.tools.play import play_session, random_players
from tests.service.sessions import Recorded, record_session, verified_by_the_service

pytestmark = pytest.mark.xdist_group("house_rules")
"""Its tests share a fixture that plays a whole session: one worker runs them all."""

V2 = {"second_heart_ten": "always"}


@pytest.fixture(scope="module")
async def v2_session(base_url: str) -> Recorded:
    """Server seeds, four random players, the second 10H beating the first (V2.1)."""
    return await record_session(base_url, random_players(29), rules=V2)


async def test_a_v2_session_is_played_by_its_rules_and_replays_exactly(
    v2_session: Recorded, pool: asyncpg.Pool, http: httpx.AsyncClient
) -> None:
    final = v2_session.final
    assert final.rules == RuleSet(second_heart_ten=SecondHeartTen.ALWAYS)
    assert len(final.scoresheet) == 12 and all(sum(row) == 0 for row in final.scoresheet)
    stored = await EventStore(pool).read_stream(v2_session.table_id)
    events = [CODEC.from_stored(s) for s in stored]
    created = events[0]
    assert isinstance(created, TableCreated) and created.rule_set == final.rules
    (started,) = [e for e in events if isinstance(e, SessionStarted)]
    assert in_force(started.rules) == final.rules
    result = replay(events, TABLE)
    assert result.ok, result.error
    assert result.valid == len(events)
    await verified_by_the_service(http, v2_session.table_id)


async def test_the_lobby_lists_the_rule_set_of_each_table(
    v2_session: Recorded, http: httpx.AsyncClient
) -> None:
    response = await http.get("/tables", params={"status": "finished"})
    assert response.status_code == 200, response.text
    listed = {t["table_id"]: t for t in response.json()["tables"]}
    assert listed[v2_session.table_id]["options"]["rules"] == V2
    default = await http.post("/tables", json={"name": "plain", "visibility": "public"})
    assert default.status_code == 201, default.text
    assert "rules" not in default.json()["view"]  # RULES.md exactly: as before rule sets


async def test_the_export_of_a_v2_session_verifies_offline(
    v2_session: Recorded,
    http: httpx.AsyncClient,
    base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`doko verify --file` re-plays the exported log by the rule set it records."""
    response = await http.get(f"/tables/{v2_session.table_id}/export")
    assert response.status_code == 200, response.text
    export = tmp_path / "export.json"
    export.write_bytes(response.content)
    status = await asyncio.to_thread(
        main, ["verify", "--file", str(export), "--public-key", base_url]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert f"{v2_session.table_id}: ok, 12 deals" in out
    document = msgspec.json.decode(response.content)
    assert '"second_heart_ten":"always"' in msgspec.json.encode(document).decode()


async def test_a_v2_session_decides_tricks_with_both_10h_by_v2(
    v2_session: Recorded, pool: asyncpg.Pool
) -> None:
    """Where a trick of the stored log holds both 10H as trumps, the second won it."""
    stored = await EventStore(pool).read_stream(v2_session.table_id)
    events = [CODEC.from_stored(s) for s in stored]
    game_type: GameType | None = None
    cards: list[CardPlayed] = []
    for event in events:
        if isinstance(event, GameTypeFixed):
            game_type = event.game_type
        elif isinstance(event, CardPlayed):
            cards.append(event)
        elif isinstance(event, TrickWon):
            tens = [c.seat for c in cards if c.card is Card.TENH]
            if len(tens) == 2 and game_type and order_of(game_type).is_trump(Card.TENH):
                assert event.winner == tens[1], event
            cards = []


@pytest.mark.parametrize(
    ("body", "code", "rule"),
    [
        ({"rules": {"second_heart_ten": "sometimes"}}, "invalid_table_option", "V2"),
        ({"rules": {"schweinchen": True}}, "malformed_request", None),
    ],
)
async def test_a_rule_set_that_is_none_is_refused(
    http: httpx.AsyncClient, body: dict[str, object], code: str, rule: str | None
) -> None:
    response = await http.post("/tables", json={"name": "t", **body})
    assert response.status_code == 400, response.text
    problem = response.json()
    assert problem["code"] == code and problem.get("rule") == rule, problem


async def test_a_tournaments_tables_play_by_its_rule_set(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    """A tournament created with V2.1 opens its tables with it: each seat's view shows it,
    a deal is played, and the table's stored log replays exactly by it."""
    tournament = await api.create_tournament("V2 night", rounds=1, rules=V2)
    players = [await tournament.register(name) for name in ("ann", "bob", "cem", "dia")]
    started = await tournament.start_round(1)
    (table,) = started.tournament.tables
    seats = [await player.seat() for player in players]
    for seat in seats:
        assert (await seat.view()).rules == RuleSet(second_heart_ten=SecondHeartTen.ALWAYS)
    await play_session(seats, random_players(31), deals=1)
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(table.table_id)]
    assert sum(isinstance(e, DealScored) for e in events) >= 1
    result = replay(events, TABLE)
    assert result.ok and result.valid == len(events), result.error
