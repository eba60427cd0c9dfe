"""A table created with house rules (V2.1, the second 10H beats the first; V3 Schweinchen;
V4 Armut, V4.8 dealt again when all refuse it; V5 Bock rounds) plays a session over HTTP,
shows its rule set in its view and in the lobby, replays exactly by it and verifies
offline; a tournament's tables play by the tournament's rule set; a rule set that is none
is refused with the variant's rule."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import asyncpg
import httpx
import msgspec
import pytest

from domain.cards import Card
from domain.commands import AnswerPoverty, DealCommand, Declaration, Declare, NameContract
from domain.events import (
    CardPlayed,
    DealDealt,
    DealScored,
    GameTypeFixed,
    PovertyAnswered,
    PovertyReturned,
    SchweinchenShown,
    SessionStarted,
    TrickWon,
)
from domain.game_types import GameType, order_of
from domain.observations import Observation
from domain.players import greedy_action
from domain.rule_set import RuleSet, in_force
from domain.seats import SEATS, Seat
from domain.table import TableCreated
from domain.variants.armut import ArmutRefused, poor
from domain.variants.second_heart_ten import SecondHeartTen
from infra.event_store import EventStore
from infra.tables import CODEC
from service.tools.cli import main
from service.tools.client import DokoClient
from service.tools.play import Player, play_session, random_players
from tests.service.sessions import (
    Recorded,
    armut_deal,
    poor_seed,
    preset_deal,
    presets_with_both_qc,
    record_session,
    replays_exactly,
    verified_by_the_service,
)
from tests.service.test_session import audit, truth_of

pytestmark = pytest.mark.xdist_group("house_rules")
"""Its tests share a fixture that plays a whole session: one worker runs them all."""

V2 = {"second_heart_ten": "always"}


V5: dict[str, str | bool] = {"bock_rounds": True}
V2_V5 = {**V2, **V5}
"""V2.1 and V5 at one table: V2 decides tricks, V5 doubles scores, neither touches the
other's part, so one session shows both (a whole session over HTTP is this module's cost)."""


@pytest.fixture(scope="module")
async def v2_v5_session(base_url: str) -> Recorded:
    """Server seeds, four random players, the second 10H beating the first (V2.1) and Bock
    rounds (V5)."""
    return await record_session(base_url, random_players(29), rules=V2_V5)


async def test_a_v2_session_is_played_by_its_rules_and_replays_exactly(
    v2_v5_session: Recorded, pool: asyncpg.Pool, http: httpx.AsyncClient
) -> None:
    final = v2_v5_session.final
    assert final.rules == RuleSet(second_heart_ten=SecondHeartTen.ALWAYS, bock_rounds=True)
    assert len(final.scoresheet) == 12 and all(sum(row) == 0 for row in final.scoresheet)
    stored = await EventStore(pool).read_stream(v2_v5_session.table_id)
    events = [CODEC.from_stored(s) for s in stored]
    created = events[0]
    assert isinstance(created, TableCreated) and created.rule_set == final.rules
    (started,) = [e for e in events if isinstance(e, SessionStarted)]
    assert in_force(started.rules) == final.rules
    replays_exactly(events)
    await verified_by_the_service(http, v2_v5_session.table_id)


async def test_the_lobby_lists_the_rule_set_of_each_table(
    v2_v5_session: Recorded, http: httpx.AsyncClient
) -> None:
    response = await http.get("/tables", params={"status": "finished"})
    assert response.status_code == 200, response.text
    listed = {t["table_id"]: t for t in response.json()["tables"]}
    assert listed[v2_v5_session.table_id]["options"]["rules"] == V2_V5
    default = await http.post("/tables", json={"name": "plain", "visibility": "public"})
    assert default.status_code == 201, default.text
    assert "rules" not in default.json()["view"]  # RULES.md exactly: as before rule sets


async def verified_offline(
    session: Recorded,
    http: httpx.AsyncClient,
    base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    deals: int = 12,
) -> bytes:
    """The session's export, once `doko verify --file` (with the service's public key) has
    re-played all its ``deals`` deals by the rule set the log records."""
    response = await http.get(f"/tables/{session.table_id}/export")
    assert response.status_code == 200, response.text
    export = tmp_path / "export.json"
    export.write_bytes(response.content)
    status = await asyncio.to_thread(
        main, ["verify", "--file", str(export), "--public-key", base_url]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert f"{session.table_id}: ok, {deals} deals" in out
    return response.content


async def test_the_export_of_a_v2_session_verifies_offline(
    v2_v5_session: Recorded,
    http: httpx.AsyncClient,
    base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`doko verify --file` re-plays the exported log by the rule set it records."""
    exported = await verified_offline(v2_v5_session, http, base_url, tmp_path, capsys)
    document = msgspec.json.decode(exported)
    assert '"second_heart_ten":"always"' in msgspec.json.encode(document).decode()


async def test_a_v2_session_decides_tricks_with_both_10h_by_v2(
    v2_v5_session: Recorded, pool: asyncpg.Pool
) -> None:
    """Where a trick of the stored log holds both 10H as trumps, the second won it."""
    stored = await EventStore(pool).read_stream(v2_v5_session.table_id)
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
        ({"rules": {"schweinchen": "yes"}}, "malformed_request", None),
        ({"rules": {"armut": "yes"}}, "malformed_request", None),
        ({"rules": {"pflichtsolo": True}}, "malformed_request", None),
        ({"rules": {"session_deals": 10}}, "invalid_table_option", "V6.1"),
        ({"rules": {"session_deals": 52}}, "invalid_table_option", "V6.1"),
        ({"rules": {"duty_solo": True}, "seeds": ["ab" * 32] * 12}, "invalid_table_option", "V6.1"),
        ({"rules": {"armut_refused": "redeal"}}, "invalid_table_option", "V4.8"),
    ],
)
async def test_a_rule_set_that_is_none_is_refused(
    http: httpx.AsyncClient, body: dict[str, object], code: str, rule: str | None
) -> None:
    """Also a session length that is no multiple of 4 from 4 to 48, and seeds that do not
    cover every deal of the session (V6.1: a duty solo session of 12 has 16 deals)."""
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
    replays_exactly(events)


V3: dict[str, str | bool] = {"schweinchen": True}


def _greedy(seat: int) -> Player:
    """`domain.players.greedy_action` (it shows Schweinchen whenever it may, V3.1)."""
    chooser = random.Random(seat)
    return lambda observation: greedy_action(observation, chooser)


@pytest.fixture(scope="module")
async def v3_session(base_url: str) -> Recorded:
    """Schweinchen (V3): in deal 1 seat 1 leads holding both AD; greedy players."""
    presets = presets_with_both_qc("v3")
    presets[0] = preset_deal((Card.AD, Card.AD))
    return await record_session(
        base_url, [_greedy(s) for s in range(4)], first_dealer=0, presets=presets, rules=V3
    )


async def test_a_v3_session_shows_schweinchen_to_all_and_replays_exactly(
    v3_session: Recorded, pool: asyncpg.Pool, http: httpx.AsyncClient
) -> None:
    """Seat 1 showed Schweinchen in deal 1 (V3.1); every seat and the spectator received the
    event; each trick holding an AD went to seat 1 (V3.2); the deal's record names the seat
    and sorts its AD first; the stored log replays exactly and the service verifies every
    deal."""
    final = v3_session.final
    assert final.rules == RuleSet(schweinchen=True)
    assert len(final.scoresheet) == 12 and all(sum(row) == 0 for row in final.scoresheet)
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(v3_session.table_id)]
    first_deal = events[: next(i for i, e in enumerate(events) if isinstance(e, DealScored))]
    assert SchweinchenShown(Seat(1)) in first_deal
    cards: list[CardPlayed] = []
    won = []
    for event in first_deal:
        if isinstance(event, CardPlayed):
            cards.append(event)
        elif isinstance(event, TrickWon):
            if any(c.card is Card.AD for c in cards):
                won.append(event.winner)
            cards = []
    assert won == [Seat(1), Seat(1)]
    receivers = {
        r.viewer
        for r in v3_session.transcript
        if r.source == "sse" and r.event == "schweinchen_shown"
    }
    assert receivers == {*SEATS, None}
    record = (await http.get(f"/tables/{v3_session.table_id}/deals/1")).json()
    assert record["schweinchen"] == 1 and record["sorted_hands"][1][:2] == ["AD", "AD"]
    replays_exactly(events)
    await verified_by_the_service(http, v3_session.table_id)


async def test_the_export_of_a_v3_session_verifies_offline(
    v3_session: Recorded,
    http: httpx.AsyncClient,
    base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`doko verify --file` re-decides the showing from the exported log."""
    exported = await verified_offline(v3_session, http, base_url, tmp_path, capsys)
    assert b'"schweinchen_shown"' in exported


@pytest.mark.parametrize(
    ("rules", "lead", "seat", "code"),
    [
        pytest.param(None, 2, 1, "schweinchen_not_allowed", id="V3.1-not-at-this-table"),
        pytest.param(V3, 1, 1, "schweinchen_not_allowed", id="V3.1-one-AD-only"),
        pytest.param(V3, 2, 2, "not_your_turn", id="V3.1-on-its-turn-only"),
    ],
)
async def test_showing_schweinchen_is_refused_with_its_rule(
    api: DokoClient,
    http: httpx.AsyncClient,
    rules: dict[str, str | bool] | None,
    lead: int,
    seat: int,
    code: str,
) -> None:
    """Refused as 409 with V3.1 and the log untouched: at a table without V3, by the seat to
    lead holding one AD, by a seat that is not to play (seat 1 leads, with ``lead`` AD)."""
    presets = presets_with_both_qc("v3 refused")
    presets[0] = preset_deal((Card.AD,) * lead)
    table = await api.create_table(
        "v3", first_dealer=0, presets=presets, visibility="public", rules=rules
    )
    seats = [await table.take_seat(f"p{s}", seat=s) for s in SEATS]
    for s in (1, 2, 3, 0):
        await seats[s].send(Declare(Seat(s), Declaration.HEALTHY))
    hand = (await seats[1].view()).deal
    assert hand is not None and hand.hand.count(Card.AD) == lead
    await table.view()
    before = table.version
    taken = seats[seat]
    response = await http.post(f"{taken.path}/schweinchen", headers=taken.auth)
    assert response.status_code == 409, response.text
    problem = response.json()
    assert (problem["code"], problem["rule"]) == (code, "V3.1"), problem
    await table.view()
    assert table.version == before


async def test_a_v5_session_marks_its_bock_deals_and_replays_exactly(
    v2_v5_session: Recorded, pool: asyncpg.Pool, http: httpx.AsyncClient
) -> None:
    """The scoresheet marks exactly the deals that the queue of V5.1 and V5.7 makes Bock
    deals (kept here from the stored scores' triggers); a Bock deal's value is its lines'
    sum, V5.6 included; the stored log replays exactly and the service verifies it."""
    final = v2_v5_session.final
    assert final.rules == RuleSet(second_heart_ten=SecondHeartTen.ALWAYS, bock_rounds=True)
    events = [
        CODEC.from_stored(s) for s in await EventStore(pool).read_stream(v2_v5_session.table_id)
    ]
    pending, expected = 0, []
    for event in events:
        if isinstance(event, DealScored):
            score = event.score
            expected.append(pending > 0)
            assert (score.bock is True) is (pending > 0)
            lines = sum(ln.points if ln.party.value == "re" else -ln.points for ln in score.lines)
            assert lines == score.value
            pending = max(0, pending - 1) + (4 if score.bock_triggers else 0)
    sheet = (await http.get(f"/tables/{v2_v5_session.table_id}/scoresheet")).json()
    assert [row.get("bock", False) for row in sheet["rows"]] == expected
    assert any(expected)  # the session did have Bock deals
    assert sum(sheet["totals"]) == 0
    replays_exactly(events)
    await verified_by_the_service(http, v2_v5_session.table_id)


async def test_the_export_of_a_v5_session_verifies_offline(
    v2_v5_session: Recorded,
    http: httpx.AsyncClient,
    base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await verified_offline(v2_v5_session, http, base_url, tmp_path, capsys)


async def test_a_tournaments_tables_play_schweinchen_and_bock_rounds(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    """A tournament created with V3 and V5 opens its tables with both: each seat's view
    shows them, two deals are played by random players, and the table's log replays."""
    rules = RuleSet(schweinchen=True, bock_rounds=True)
    tournament = await api.create_tournament("Bock night", rounds=1, rules={**V3, **V5})
    players = [await tournament.register(name) for name in ("ann", "bob", "cem", "dia")]
    started = await tournament.start_round(1)
    (table,) = started.tournament.tables
    seats = [await player.seat() for player in players]
    for seat in seats:
        assert (await seat.view()).rules == rules
    await play_session(seats, random_players(37), deals=2)
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(table.table_id)]
    assert sum(isinstance(e, DealScored) for e in events) >= 2
    replays_exactly(events)


async def test_a_v3_session_leaks_nothing(v3_session: Recorded, pool: asyncpg.Pool) -> None:
    """The oracle of what each viewer may know (`tests.service.knowledge`, Schweinchen shown
    to everyone, V3.1) finds every view and stream message of the V3 session right."""
    audit(v3_session, await truth_of(pool, v3_session.table_id))


async def test_a_v5_session_leaks_nothing(v2_v5_session: Recorded, pool: asyncpg.Pool) -> None:
    """The oracle, keeping the Bock queue (V5.1, V5.7) itself, finds every view and stream
    message of the V5 session right, a Bock deal's ``bock`` included."""
    audit(v2_v5_session, await truth_of(pool, v2_v5_session.table_id))


V4: dict[str, str | bool] = {"armut": True}


def _armut(seat: int, take: bool = True) -> Player:
    """Offers Armut whenever its hand may (V4.1), else the greedy player (which accepts an
    Armut holding many trumps and gives back its plain cards first); refusing every Armut
    unless ``take``."""
    chooser = random.Random(seat)

    def act(observation: Observation) -> DealCommand | None:
        options, viewer = observation.options, observation.viewer
        assert viewer is not None
        if options.answer_poverty and not take:
            return AnswerPoverty(viewer, False)
        if options.declarations:
            offer = poor(observation.hand)
            return Declare(viewer, Declaration.RESERVATION if offer else Declaration.HEALTHY)
        if GameType.POVERTY in options.contracts:
            return NameContract(viewer, GameType.POVERTY)
        return greedy_action(observation, chooser)

    return act


@pytest.fixture(scope="module")
async def v4_session(base_url: str) -> Recorded:
    """Armut (V4): in deal 1 seat 1 offers three trumps and seat 2 takes them."""
    presets = presets_with_both_qc("v4")
    presets[0] = armut_deal()
    return await record_session(
        base_url, [_armut(s) for s in range(4)], first_dealer=0, presets=presets, rules=V4
    )


async def test_a_v4_session_exchanges_in_secret_and_replays_exactly(
    v4_session: Recorded, pool: asyncpg.Pool, http: httpx.AsyncClient
) -> None:
    """Deal 1: seat 1 names poverty, seat 2 (asked first) accepts, takes AD 10D 9D and gives
    back three cards (V4.3, V4.4); seats 1 and 2 are Re and the deal is scored as a normal
    game (V4.5). Only seats 1 and 2 received the cards given back (V4.6); the record shows
    them once scored; the log replays exactly and the service verifies every deal."""
    final = v4_session.final
    assert final.rules == RuleSet(armut=True)
    assert len(final.scoresheet) == 12 and all(sum(row) == 0 for row in final.scoresheet)
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(v4_session.table_id)]
    first_deal = events[: next(i for i, e in enumerate(events) if isinstance(e, DealScored)) + 1]
    assert GameTypeFixed(GameType.POVERTY, Seat(1)) in first_deal
    assert PovertyAnswered(Seat(2), True) in first_deal
    (returned,) = [e for e in first_deal if isinstance(e, PovertyReturned)]
    assert (returned.seat, returned.poor, returned.count) == (Seat(2), Seat(1), 3)
    assert returned.cards is not None and len(returned.cards) == 3
    scored = first_deal[-1]
    assert isinstance(scored, DealScored)
    score = scored.score
    assert score.game_type is GameType.POVERTY and not score.solo
    assert score.re_seats == (Seat(1), Seat(2))
    assert sum(score.card_points.values()) == 240 and sum(score.entries) == 0
    seen: dict[Seat | None, dict[str, object]] = {}
    for r in v4_session.transcript:  # each viewer's first: deal 1's
        if r.source == "sse" and r.event == "poverty_returned" and r.viewer not in seen:
            seen[r.viewer] = msgspec.json.decode(r.body)
    assert set(seen) == {*SEATS, None}
    for viewer, event in seen.items():
        shown = viewer in (Seat(1), Seat(2))
        expected = [c.value for c in returned.cards] if shown else None
        assert event["cards"] == expected, (viewer, event)
        assert event["trumps"] == returned.trumps
    record = (await http.get(f"/tables/{v4_session.table_id}/deals/1")).json()
    assert record["poverty"]["given_cards"] == ["AD", "10D", "9D"]
    assert record["poverty"]["returned_cards"] == [c.value for c in returned.cards]
    replays_exactly(events)
    await verified_by_the_service(http, v4_session.table_id)


async def test_the_export_of_a_v4_session_verifies_offline(
    v4_session: Recorded,
    http: httpx.AsyncClient,
    base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`doko verify --file` re-decides the answers and the cards given back."""
    exported = await verified_offline(v4_session, http, base_url, tmp_path, capsys)
    assert b'"poverty_returned"' in exported


V4_8: dict[str, str | bool | int] = {"armut": True, "armut_refused": "redeal", "session_deals": 4}


@pytest.fixture(scope="module")
async def v4_8_session(base_url: str) -> Recorded:
    """Armut dealt again when all refuse (V4.8), a session of four deals (V6.1), the host's
    seeds: deal 1's gives a hand three trumps or fewer; every Armut is offered and refused."""
    seeds = [poor_seed(Seat(0)), *(bytes([n]).hex() * 32 for n in range(2, 5))]
    players = [_armut(s, take=False) for s in range(4)]
    return await record_session(base_url, players, first_dealer=0, seeds=seeds, rules=V4_8)


async def test_a_v4_8_session_deals_again_and_replays_and_verifies_exactly(
    v4_8_session: Recorded,
    pool: asyncpg.Pool,
    http: httpx.AsyncClient,
    base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Deal 1 is offered, refused by all three and dealt again by the same dealer (V4.8),
    not scored: the session still has four scored deals, each recorded once. The log
    replays exactly, the service verifies each deal and `doko verify --file` every dealing
    from the seeds, the redeals included; the views leak nothing (V4.6, R2.2)."""
    final = v4_8_session.final
    assert final.rules == RuleSet(armut=True, armut_refused=ArmutRefused.REDEAL, session_deals=4)
    assert len(final.scoresheet) == 4 and all(sum(row) == 0 for row in final.scoresheet)
    events = [
        CODEC.from_stored(s) for s in await EventStore(pool).read_stream(v4_8_session.table_id)
    ]
    first = [e for e in events if isinstance(e, DealDealt) and e.deal_no == 1]
    assert len(first) >= 2 and {d.dealer for d in first} == {Seat(0)}
    assert [d.dealing.redeals for d in first] == list(range(len(first)))
    assert sum(isinstance(e, DealScored) for e in events) == 4
    record = (await http.get(f"/tables/{v4_8_session.table_id}/deals/1")).json()
    assert record["dealing"]["redeal"] == len(first) - 1 and record["hands"] == [
        [c.value for c in hand] for hand in first[-1].hands
    ]
    replays_exactly(events)
    await verified_by_the_service(http, v4_8_session.table_id, deals=4)
    await verified_offline(v4_8_session, http, base_url, tmp_path, capsys, deals=4)
    audit(v4_8_session, await truth_of(pool, v4_8_session.table_id), deals=4)


async def test_a_server_bot_refuses_an_armut_and_plays_on_after_the_redeal(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    """V4.8 with a greedy server bot at seat 0 (the dealer, asked last, holding fewer than
    eight trumps): seat 1 offers its Armut, seats 2 and 3 refuse, the bot refuses too, the
    same dealer deals again at once and the bot plays the redeal with the others to its
    score: the table never waits for a deal nobody deals."""
    seeds = [poor_seed(Seat(0), refusing=True), *(bytes([n]).hex() * 32 for n in range(2, 5))]
    table = await api.create_table("bots", first_dealer=0, seeds=seeds, rules=V4_8)
    seats = [await table.take_seat(f"p{s}", seat=s) for s in (1, 2, 3)]
    assert await table.seat_bot("greedy", seat=0) == 0
    view = await play_session(seats, [_armut(s, take=False) for s in (1, 2, 3)], deals=1)
    assert len(view.scoresheet) >= 1
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(table.table_id)]
    assert PovertyAnswered(Seat(0), False) in events
    redealt = [e for e in events if isinstance(e, DealDealt) and e.dealing.redeals]
    assert redealt and redealt[0].deal_no == 1 and redealt[0].dealer == Seat(0)
    replays_exactly(events)


@pytest.mark.parametrize(
    ("cards", "status", "code", "rule"),
    [
        (["AC", "AC"], 409, "poverty_return_invalid", "V4.4"),
        (["AC", "AC", "JD", "JD"], 409, "poverty_return_invalid", "V4.4"),
        (["9H", "9H", "9H"], 409, "poverty_return_invalid", "V4.4"),
        (["AC", "XX", "9D"], 400, "invalid_card", "R2.1"),
    ],
    ids=["V4.4-two-not-three", "V4.4-four-not-three", "V4.4-not-held", "R2.1-no-card"],
)
async def test_giving_back_the_wrong_cards_is_refused_with_its_rule(
    api: DokoClient,
    http: httpx.AsyncClient,
    cards: list[str],
    status: int,
    code: str,
    rule: str | None,
) -> None:
    """Seat 1 offers, seat 2 accepts; giving back another number of cards than three, or
    cards it does not hold, is refused as problem+json with V4.4 and the log untouched."""
    presets = presets_with_both_qc("v4 refused")
    presets[0] = armut_deal()
    table = await api.create_table(
        "v4", first_dealer=0, presets=presets, visibility="public", rules=V4
    )
    seats = [await table.take_seat(f"p{s}", seat=s) for s in SEATS]
    await seats[1].send(Declare(Seat(1), Declaration.RESERVATION))
    for s in (2, 3, 0):
        await seats[s].send(Declare(Seat(s), Declaration.HEALTHY))
    await seats[1].send(NameContract(Seat(1), GameType.POVERTY))
    asked = (await seats[2].view()).deal
    assert asked is not None and asked.options.answer_poverty is True
    response = await http.post(
        f"{seats[2].path}/poverty/answer", json={"accept": True}, headers=seats[2].auth
    )
    assert response.status_code == 200, response.text
    await table.view()
    before = table.version
    response = await http.post(
        f"{seats[2].path}/poverty/return", json={"cards": cards}, headers=seats[2].auth
    )
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert (problem["code"], problem.get("rule")) == (code, rule), problem
    await table.view()
    assert table.version == before


async def test_a_tournaments_tables_play_armut(api: DokoClient, pool: asyncpg.Pool) -> None:
    """A tournament created with V4 opens its tables with it: each seat's view shows it,
    two deals are played by players who offer Armut whenever they may (deal 1 holds a hand
    of three trumps: an Armut is offered and answered), and the table's log replays."""
    presets = presets_with_both_qc("v4 tournament")
    presets[0] = armut_deal()
    tournament = await api.create_tournament("Armut night", rounds=1, rules=V4, presets=[presets])
    players = [await tournament.register(name) for name in ("ann", "bob", "cem", "dia")]
    started = await tournament.start_round(1)
    (table,) = started.tournament.tables
    seats = [await player.seat() for player in players]
    for seat in seats:
        assert (await seat.view()).rules == RuleSet(armut=True)
    await play_session(seats, [_armut(s) for s in range(4)], deals=2)
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(table.table_id)]
    assert sum(isinstance(e, DealScored) for e in events) >= 2
    assert any(isinstance(e, PovertyAnswered) for e in events)
    replays_exactly(events)


async def test_a_v4_session_leaks_nothing(v4_session: Recorded, pool: asyncpg.Pool) -> None:
    """The oracle of what each viewer may know (`tests.service.knowledge`: an Armut's cards
    to its two players only, V4.6) finds every view and stream message of the V4 session
    right: no seat but the two, and no spectator, received a card given back."""
    audit(v4_session, await truth_of(pool, v4_session.table_id))


V6: dict[str, str | bool | int] = {"session_deals": 4, "duty_solo": True}


@pytest.fixture(scope="module")
async def v6_session(base_url: str) -> Recorded:
    """A session of 4 counted deals with duty solos (V6), four random players."""
    return await record_session(base_url, random_players(6), rules=V6)


async def test_a_v6_session_plays_every_duty_solo_and_replays_exactly(
    v6_session: Recorded, pool: asyncpg.Pool, http: httpx.AsyncClient
) -> None:
    """4 counted deals and 4 duty solos, one by each seat (V6.3, V6.6), marked on the
    scoresheet, which shows the session length and nobody owing at the end; the dealer stays
    after a duty solo and its soloist leads; the log replays and the service verifies it."""
    final = v6_session.final
    assert final.rules == RuleSet(session_deals=4, duty_solo=True)
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(v6_session.table_id)]
    scored = [e.score for e in events if isinstance(e, DealScored)]
    assert len(scored) == 8 and all(sum(s.entries) == 0 for s in scored)
    assert sorted(s.re_seats[0] for s in scored if s.duty_solo is True) == list(SEATS)
    sheet = (await http.get(f"/tables/{v6_session.table_id}/scoresheet")).json()
    assert sheet["deals"] == 8 and sheet["duty_owed"] == []  # V6.6: 4 counted, 4 duty solos
    assert [row.get("duty_solo", False) for row in sheet["rows"]] == [
        s.duty_solo is True for s in scored
    ]
    counted = 0
    for row in sheet["rows"]:  # R1.2, V6.6: the dealer moves on after a counted deal only
        assert row["dealer"] == (final.first_dealer + counted) % 4
        counted += not row.get("duty_solo", False)
    dealers = [e.dealer for e in events if isinstance(e, DealDealt)]
    leads = [e for e in events if isinstance(e, GameTypeFixed)]
    firsts = [e for e in events if isinstance(e, CardPlayed)][::48]
    for dealer, fixed, first in zip(dealers, leads, firsts, strict=True):  # R3.5, V6.5
        assert first.seat == (fixed.declarer if fixed.duty_solo is True else dealer.left())
    assert sum(sheet["totals"]) == 0
    replays_exactly(events)
    await verified_by_the_service(http, v6_session.table_id, deals=8)


async def test_the_export_of_a_v6_session_verifies_offline(
    v6_session: Recorded,
    http: httpx.AsyncClient,
    base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await verified_offline(v6_session, http, base_url, tmp_path, capsys, deals=8)


async def test_the_lobby_lists_the_session_length_and_duty_solos(
    v6_session: Recorded, http: httpx.AsyncClient
) -> None:
    response = await http.get("/tables", params={"status": "finished"})
    assert response.status_code == 200, response.text
    listed = {t["table_id"]: t for t in response.json()["tables"]}
    entry = listed[v6_session.table_id]
    assert entry["options"]["rules"] == V6 and entry["deals"] == 8


async def test_a_tournaments_tables_play_duty_solos(api: DokoClient, pool: asyncpg.Pool) -> None:
    """A tournament created with V6 draws a seed for each of the 8 deals of a table's
    session; its table plays the whole session (4 counted deals, 4 duty solos), its log
    replays exactly and the tournament records the table's end after 8 deals."""
    tournament = await api.create_tournament("Pflichtsolo night", rounds=1, rules=V6)
    players = [await tournament.register(name) for name in ("ann", "bob", "cem", "dia")]
    started = await tournament.start_round(1)
    (table,) = started.tournament.tables
    seats = [await player.seat() for player in players]
    for seat in seats:
        assert (await seat.view()).rules == RuleSet(session_deals=4, duty_solo=True)
    await play_session(seats, random_players(41))
    events = [CODEC.from_stored(s) for s in await EventStore(pool).read_stream(table.table_id)]
    scored = [e.score for e in events if isinstance(e, DealScored)]
    assert len(scored) == 8 and sum(s.duty_solo is True for s in scored) == 4
    replays_exactly(events)


async def test_a_v6_session_leaks_nothing(v6_session: Recorded, pool: asyncpg.Pool) -> None:
    """The oracle of what each viewer may know finds every view and stream message of the
    V6 session right (who owes the duty solo and who is vorgeführt are public)."""
    audit(v6_session, await truth_of(pool, v6_session.table_id), deals=8)
