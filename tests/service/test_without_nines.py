"""A table created without nines (V1) plays a whole session over HTTP with 10-card hands
and 10 tricks, lists its rule set in the lobby, replays exactly, verifies in the service and
offline, leaks nothing; its shifted deadlines are refused as problem+json naming V1.3; a
tournament's tables play without nines too."""

from __future__ import annotations

import hashlib
from pathlib import Path

import asyncpg
import httpx
import msgspec
import pytest

from domain.announcements import Word
from domain.cards import Card
from domain.commands import Announce, Declaration, Declare, PlayCard
from domain.dealing import deal_from_seed
from domain.events import DealDealt, DealScored
from domain.rule_set import RuleSet
from domain.seats import SEATS, Seat
from domain.variants import without_nines
from infra.event_store import EventStore
from infra.tables import CODEC
from service.tools.client import DokoClient, SeatClient
from service.tools.play import play_session, random_players
from tests.service.sessions import (
    Recorded,
    record_session,
    replays_exactly,
    verified_by_the_service,
)
from tests.service.test_house_rules import verified_offline
from tests.service.test_session import audit, truth_of

pytestmark = pytest.mark.xdist_group("without_nines")
"""Its tests share a fixture that plays a whole session: one worker runs them all."""

V1: dict[str, str | bool] = {"without_nines": True}


@pytest.fixture(scope="module")
async def v1_session(base_url: str) -> Recorded:
    """Server seeds, four random players, without nines (V1)."""
    return await record_session(base_url, random_players(41), rules=V1)


def _check_deals(events: list[object]) -> None:
    """V1.1, V1.2: every deal 4 hands of 10 of the 40 cards, dealt by doko-deal-v1-40;
    every score of 10 tricks and 240 card points, its entries summing to 0."""
    dealt = [e for e in events if isinstance(e, DealDealt)]
    scored = [e.score for e in events if isinstance(e, DealScored)]
    assert len(dealt) == len(scored) == 12
    for deal in dealt:
        assert [len(h) for h in deal.hands] == [10, 10, 10, 10]
        assert sorted(c for h in deal.hands for c in h) == sorted(without_nines.DECK)
        assert deal.dealing.algorithm == "doko-deal-v1-40"
    for score in scored:
        assert sum(score.tricks.values()) == 10 and sum(score.card_points.values()) == 240
        assert sum(score.entries) == 0


async def test_a_v1_session_plays_ten_tricks_a_deal_and_replays_exactly(
    v1_session: Recorded, pool: asyncpg.Pool, http: httpx.AsyncClient
) -> None:
    final = v1_session.final
    assert final.rules == RuleSet(without_nines=True)
    assert len(final.scoresheet) == 12 and all(sum(row) == 0 for row in final.scoresheet)
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(v1_session.table_id)]
    _check_deals(events)
    replays_exactly(events)
    await verified_by_the_service(http, v1_session.table_id)
    listed = await http.get("/tables", params={"status": "finished"})
    assert listed.status_code == 200, listed.text
    tables = {t["table_id"]: t for t in listed.json()["tables"]}
    assert tables[v1_session.table_id]["options"]["rules"] == V1


async def test_the_export_of_a_v1_session_verifies_offline(
    v1_session: Recorded,
    http: httpx.AsyncClient,
    base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`doko verify --file` recomputes the 10-card hands from the seeds and re-plays."""
    exported = await verified_offline(v1_session, http, base_url, tmp_path, capsys)
    compact = msgspec.json.encode(msgspec.json.decode(exported))
    assert b'"without_nines":true' in compact and b'"doko-deal-v1-40"' in compact


async def test_a_deal_without_nines_is_reviewed(
    v1_session: Recorded, http: httpx.AsyncClient
) -> None:
    """The expert's review prices every action of a deal without nines by its rules: four
    declarations, 40 cards and each word said."""
    response = await http.get(f"/tables/{v1_session.table_id}/deals/1/review")
    assert response.status_code == 200, response.text
    decisions = response.json()["decisions"]
    assert sum(d["kind"] == "card" for d in decisions) == 40
    assert sum(d["kind"] == "declaration" for d in decisions) == 4


async def test_a_v1_session_leaks_nothing(v1_session: Recorded, pool: asyncpg.Pool) -> None:
    """The oracle of what each viewer may know finds every view and stream message of the
    session without nines right."""
    audit(v1_session, await truth_of(pool, v1_session.table_id))


def _presets() -> list[list[list[str]]]:
    """12 deals of 10 cards each (V1.2) for first dealer 0; in deal 1 seats 0 and 2 hold a
    QC each (a normal game: Re is seats 0 and 2)."""
    deals = []
    for k in range(12):
        seed = hashlib.sha256(f"v1 deadlines:{k}".encode()).digest()
        deals.append([list(h) for h in deal_from_seed(seed, Seat(0), without_nines.ALGORITHM)])
    first = deals[0]
    for s in (1, 3):  # give seats 1 and 3's QC to seats 0 and 2
        while Card.QC in first[s]:
            to = 0 if Card.QC not in first[0] else 2
            give = next(c for c in first[to] if c is not Card.QC)
            first[s][first[s].index(Card.QC)] = give
            first[to][first[to].index(give)] = Card.QC
    assert first[0].count(Card.QC) == first[2].count(Card.QC) == 1
    return [[[c.value for c in h] for h in deal] for deal in deals]


async def _play_tricks(seats: list[SeatClient], tricks: int) -> None:
    """``tricks`` complete tricks, each seat on its turn playing its first legal card."""
    for _ in range(4 * tricks):
        for seat in seats:
            deal = (await seat.view()).deal
            assert deal is not None
            if deal.turn == seat.seat:
                await seat.send(PlayCard(seat.seat, deal.options.cards[0]))
                break


UP_TO_NO30 = ((2, "re"), (2, "no90"), (2, "no60"), (2, "no30"))

DEADLINES = [
    # (said before the first card, seat, word, last allowed cards, first refused, code)
    ((), 0, "re", 9, 8, "announcement_too_late"),
    (((0, "re"),), 0, "no90", 8, 7, "announcement_too_late"),
    (((0, "re"),), 1, "kontra", 8, 7, "announcement_too_late"),
    ((), 2, "no60", 9, 8, "included_level_too_late"),
    (((2, "re"), (2, "no90")), 2, "no60", 7, 6, "announcement_too_late"),
    (UP_TO_NO30, 0, "schwarz", 5, 4, "announcement_too_late"),
]
"""V1.3 by hand: re/kontra 9, no90 8, no60 7, no30 6, schwarz 5; a reply to re 8."""


@pytest.mark.parametrize(("before", "seat", "word", "allowed", "refused", "code"), DEADLINES)
async def test_a_shifted_deadline_is_refused_with_v1_3(
    api: DokoClient,
    http: httpx.AsyncClient,
    before: tuple[tuple[int, str], ...],
    seat: int,
    word: str,
    allowed: int,
    refused: int,
    code: str,
) -> None:
    """At ``allowed`` cards the word is taken; one card later (a fresh table, the same
    deal) it is refused as 409 problem+json naming V1.3, the log untouched."""
    for cards, accepted in ((allowed, True), (refused, False)):
        table = await api.create_table(
            "v1", first_dealer=0, presets=_presets(), visibility="public", rules=V1
        )
        seats = [await table.take_seat(f"p{s}", seat=s) for s in SEATS]
        for s in (1, 2, 3, 0):
            await seats[s].send(Declare(Seat(s), Declaration.HEALTHY))
        for s, said in before:
            await seats[s].send(Announce(Seat(s), Word(said)))
        await _play_tricks(seats, 10 - cards)
        deal = (await seats[seat].view()).deal
        assert deal is not None and len(deal.hand) == cards
        taken = seats[seat]
        await table.view()
        version = table.version
        response = await http.post(
            f"{taken.path}/announce", json={"word": word}, headers=taken.auth
        )
        if accepted:
            assert response.status_code == 200, response.text
            continue
        assert response.status_code == 409, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        problem = response.json()
        assert (problem["code"], problem["rule"]) == (code, "V1.3"), problem
        await table.view()
        assert table.version == version


async def test_preset_hands_of_12_are_refused_at_a_table_without_nines(
    http: httpx.AsyncClient,
) -> None:
    presets = [[[c.value for c in h] for h in deal_from_seed(bytes(32), Seat(0))]] * 12
    response = await http.post("/tables", json={"name": "t", "presets": presets, "rules": V1})
    assert response.status_code == 400, response.text
    problem = response.json()
    assert (problem["code"], problem["rule"]) == ("invalid_deal", "V1.2"), problem


async def test_a_tournaments_tables_play_without_nines(api: DokoClient, pool: asyncpg.Pool) -> None:
    """A tournament created without nines opens its tables so: each seat's view shows it,
    two deals of 10 tricks are played, and the table's log replays exactly."""
    tournament = await api.create_tournament("Ohne Neunen", rounds=1, rules=V1)
    players = [await tournament.register(name) for name in ("ann", "bob", "cem", "dia")]
    started = await tournament.start_round(1)
    (table,) = started.tournament.tables
    seats = [await player.seat() for player in players]
    for seat in seats:
        view = await seat.view()
        assert view.rules == RuleSet(without_nines=True)
        assert view.deal is not None and len(view.deal.hand) == 10
    await play_session(seats, random_players(43), deals=2)
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(table.table_id)]
    scored = [e.score for e in events if isinstance(e, DealScored)]
    assert len(scored) >= 2 and all(sum(s.tricks.values()) == 10 for s in scored)
    replays_exactly(events)
