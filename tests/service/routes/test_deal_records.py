"""A scored deal's record and replay over HTTP, and seeds shared between tables.

The expectations come from the table's log read as plain JSON (`tests.service.knowledge`)
and from the reference dealer written from the documentation (`tests.domain.test_dealing`),
never from the code that builds the answers.
"""

from __future__ import annotations

import hashlib
from collections import Counter

import asyncpg
import httpx
import msgspec
import pytest

from domain.seats import SEATS, Seat
from infra.event_store import EventStore
from service.tools.client import (
    DokoClient,
    TableClient,
)
from service.tools.play import (
    play_session,
    random_players,
)
from tests.domain.test_dealing import reference_deal
from tests.service.knowledge import Log

SHARED = [hashlib.sha256(f"shared:{k}".encode()).hexdigest() for k in range(12)]
"""Seeds a tournament director shares between tables (host-seeded: R2.2)."""


class Scored(msgspec.Struct):
    table: TableClient
    log: Log
    scored_at: int


@pytest.fixture(scope="module")
async def scored(base_url: str, pool: asyncpg.Pool) -> Scored:
    """A table with server seeds, entropy from every player, deal 1 played and scored."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        table = await DokoClient(http).create_table("records")
        seats = [await table.take_seat(f"p{s}", seat=s, entropy=bytes([s + 1]) * 8) for s in SEATS]
        await play_session(seats, random_players(17), deals=1)
    stored = await EventStore(pool).read_stream(table.table_id)
    log = Log([msgspec.json.decode(e.payload) for e in stored])
    scored_at = next(
        v for v, e in enumerate(log.events) if e.get("type") == "deal_scored" and e["deal_no"] == 1
    )
    return Scored(table, log, scored_at)


async def test_a_scored_deals_record_is_its_log(api: DokoClient, scored: Scored) -> None:
    """GET /deals/1: the hands (as dealt, and sorted), the revealed server seed (its
    commitment as published when the table was created), every action, the itemized score
    lines (R8-R10) and who played each seat (T2.2); the scoresheet's row names the same
    players. The table is private: its host token opens it (T1.1)."""
    table = scored.table
    response = await api.http.get(f"{table.path}/deals/1", headers=table.credential)
    assert response.status_code == 200, response.text
    record = response.json()
    facts = scored.log.facts[scored.scored_at]
    deal, created = facts.deal, facts.created
    assert deal is not None and created is not None
    # the same cards sorted for the game type (the order: tests.infra.test_projections)
    sorted_hands = record.pop("sorted_hands")
    assert [sorted(hand) for hand in sorted_hands] == [sorted(hand) for hand in deal.dealt]
    server_seed = created["server_seeds"][0]
    assert record["dealing"]["seed"] == server_seed
    assert record["dealing"]["commitment"] == hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()
    assert record["published_commitment"] == created["commitments"][0]
    assert record["dealing"]["entropy"] == [bytes([s + 1]).hex() * 8 for s in SEATS]
    expected = {
        "table": "records",
        "deal_no": 1,
        "dealer": deal.dealer,
        "players": [f"p{s}" for s in SEATS],
        "hands": deal.dealt,
        "dealing": deal.dealing,
        "published_commitment": created["commitments"][0],
        "declarations": deal.declarations,
        "contracts": deal.contracts,
        "game_type": deal.game_type,
        "declarer": deal.declarer,
        "parties": [deal.party(s) for s in SEATS],
        "marriage_clarified_in": deal.clarified_in,
        "tricks": [{"trick_no": n, **t} for n, t in enumerate(deal.tricks, 1)],
        "announcements": deal.announcements,
        "score": scored.log.events[scored.scored_at]["score"],
        "played_by": deal.played_by,
    }
    assert record == expected
    assert deal.played_by == [[f"p{s}"] for s in SEATS]
    sheet = (await api.http.get(f"{table.path}/scoresheet", headers=table.credential)).json()
    assert [row["players"] for row in sheet["rows"]] == [deal.played_by]
    assert len(record["tricks"]) == 12
    lines = record["score"]["lines"]
    assert all(line["rule"].startswith("R") for line in lines)
    re_points = sum(line["points"] if line["party"] == "re" else -line["points"] for line in lines)
    assert record["score"]["value"] == re_points


async def test_a_scored_deals_replay_is_its_log(api: DokoClient, scored: Scored) -> None:
    """GET /deals/1/replay: every event of the deal as logged, in order, and a rendering
    that names the score lines' rules."""
    table = scored.table
    response = await api.http.get(f"{table.path}/deals/1/replay", headers=table.credential)
    assert response.status_code == 200, response.text
    body = response.json()
    events = scored.log.events
    dealt = next(v for v, e in enumerate(events) if e.get("type") == "deal_dealt")
    assert body["deal_no"] == 1
    assert body["events"] == events[dealt : scored.scored_at + 1]
    assert body["events"][0]["dealing"]["seed"] == events[1]["server_seeds"][0]
    text = body["text"]
    assert text.startswith("Table records: seat 0 p0, seat 1 p1, seat 2 p2, seat 3 p3\nDeal 1: ")
    for line in events[scored.scored_at]["score"]["lines"]:
        assert line["rule"] in text


async def test_shared_seeds_deal_identical_hands_at_two_tables(api: DokoClient) -> None:
    """Tables given the same seeds and first dealer get the same hands, those of the
    documented algorithm (R2.2); another table's server seeds give other hands."""

    async def hands(seeds: list[str] | None) -> list[list[str]]:
        table = await api.create_table("shared", first_dealer=2, seeds=seeds)
        seats = [await table.take_seat(f"p{s}", seat=s) for s in SEATS]
        views = [await seat.view() for seat in seats]
        assert {v.dealing_method.value for v in views} == {"host_seeded" if seeds else "seeded"}
        return [[c.value for c in v.deal.hand] for v in views if v.deal is not None]

    first, second, other = await hands(SHARED), await hands(SHARED), await hands(None)
    reference, _ = reference_deal(bytes.fromhex(SHARED[0]), Seat(2))
    for seat in SEATS:
        assert Counter(first[seat]) == Counter(second[seat]) == Counter(reference[seat]), seat
    assert [Counter(h) for h in other] != [Counter(h) for h in first]
