"""Projections: table views, scoresheets, the deal archive and the lobby, live and rebuilt
(real PostgreSQL).

Also home of the table drivers the audit tests share (`play_table`, `execute_all`,
`append_in_chunks`): random legal sessions played in memory with `domain.table`,
then written either command by command through `Tables.execute`, or in random
chunks of several commands through the event store with the projector.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import asyncpg
import msgspec
import pytest

from domain import table
from domain.cards import Card
from domain.commands import DealCommand, Declaration, Declare, NameContract, PlayCard
from domain.dealing import deal_from_seed
from domain.errors import DomainError
from domain.events import DealScored
from domain.game_types import GameType
from domain.observations import Observation
from domain.players import FirstChoice
from domain.seats import SEATS, Seat
from domain.simulation import next_command
from domain.table import (
    AbandonSession,
    CloseTable,
    ComeBack,
    CreateTable,
    LeaveSeat,
    TableCommand,
    TableEvent,
    TableState,
    TakeSeat,
    TimeOut,
    Visibility,
)
from infra.event_store import EventStore
from infra.projections import (
    DealRecord,
    Scoresheet,
    deal_record,
    project,
    public_view,
    rebuild,
    scoresheet_of,
)
from infra.tables import CODEC, Tables

SESSIONS = 50
THROUGH_TABLES = 5
"""Sessions written command by command through `Tables.execute`; the rest in chunks."""


def preset_hands(rng: random.Random) -> tuple[table.Hands, ...]:
    """12 valid preset deals, as a tournament director would supply them."""
    return tuple(deal_from_seed(rng.randbytes(32), Seat(0)) for _ in range(12))


def play_table(
    rng: random.Random,
    name: str,
    *,
    presets: tuple[table.Hands, ...] = (),
    stop: int | None = None,
) -> tuple[list[TableCommand], TableState]:
    """A random legal table, played in memory: its commands and the final state.

    Seeded unless ``presets`` are given; ``stop`` ends it after that many commands.
    """
    seeds = () if presets else tuple(rng.randbytes(32) for _ in range(12))
    commands: list[TableCommand] = [
        CreateTable(name, Seat(rng.randrange(4)), server_seeds=seeds, presets=presets)
    ]
    entropy = [rng.randbytes(16) for _ in SEATS]  # not sent to preset tables (R2.2)
    commands += [
        TakeSeat(f"{name}-{s}", f"token-{name}-{s}", None, b"" if presets else entropy[s])
        for s in SEATS
    ]
    state = TableState()
    for command in commands:
        state = table.fold(table.decide(state, command), state)
    while not state.session.finished and (stop is None or len(commands) < stop):
        deal = state.session.deal
        assert deal is not None
        action = next_command(deal, rng)
        assert action is not None
        commands.append(action)
        state = table.fold(table.decide(state, action), state)
    return commands, state


T0 = datetime(2026, 12, 1, tzinfo=UTC)


def play_life(rng: random.Random, name: str) -> list[TableCommand]:
    """A table's whole life at random (T1-T4): public or private, with a turn clock;
    players leave and newcomers or bots take their seats, turns time out, seats go away and
    come back; the session is abandoned, played to its end, or the table closed early."""
    private = rng.random() < 0.5
    commands: list[TableCommand] = [
        CreateTable(
            name,
            Seat(rng.randrange(4)),
            server_seeds=tuple(rng.randbytes(32) for _ in range(12)),
            visibility=Visibility.PRIVATE if private else Visibility.PUBLIC,
            invitation_hash="invitation" if private else "",
            turn_seconds=30,
        )
    ]
    state = table.fold(table.decide(TableState(), commands[0]))
    ending = rng.choice(("close", "abandon", "play"))
    newcomers = 0
    while not state.over:
        turn = state.turn
        roll = rng.random()
        command: TableCommand | None
        if ending == "close" and None in state.players and roll < 0.1:
            command = CloseTable()
        elif None in state.players:
            command = TakeSeat(
                f"{name}-new{newcomers}", f"t{newcomers}", bot="greedy" if roll < 0.3 else ""
            )
            newcomers += 1
        elif turn is None or (ending == "abandon" and len(state.session.sheet) >= 2):
            command = AbandonSession()
        elif roll < 0.02:
            command = LeaveSeat(turn.left(), by_host=rng.random() < 0.5)
        elif roll < 0.3:
            command = TimeOut(turn, T0, T0)
        elif roll < 0.33:
            command = ComeBack(turn)
        else:
            deal = state.session.deal
            assert deal is not None
            command = next_command(deal, rng)
        if command is None:
            continue
        try:
            state = table.fold(table.decide(state, command), state)
        except DomainError:
            continue
        commands.append(command)
    return commands


async def execute_all(tables: Tables, stream_id: str, commands: Sequence[TableCommand]) -> None:
    """Every command through `Tables.execute`, as the service would."""
    for command in commands:
        await tables.execute(stream_id, command)


async def append_in_chunks(
    store: EventStore, stream_id: str, commands: Sequence[TableCommand], rng: random.Random
) -> None:
    """Decide in memory; append the events of 1-80 commands at a time, with the projector."""
    state, version, i = TableState(), 0, 0
    while i < len(commands):
        size = rng.randint(1, 80)
        before = state
        events: list[TableEvent] = []
        for command in commands[i : i + size]:
            decided = table.decide(state, command)
            events.extend(decided)
            state = table.fold(decided, state)
        i += size

        result = await store.append(
            stream_id,
            version,
            [CODEC.to_new_event(e) for e in events],
            projection=project(before, events),
        )
        version = result.last_version


async def snapshot(pool: asyncpg.Pool) -> dict[str, list[tuple[Any, ...]]]:
    """The four projection tables, rows sorted, JSON as PostgreSQL's normalised text."""
    return {
        "lobby": [
            tuple(r)
            for r in await pool.fetch(
                "SELECT stream_id, position, created_at, version, status, public, entry::text"
                " FROM lobby ORDER BY stream_id"
            )
        ],
        "table_views": [
            tuple(r)
            for r in await pool.fetch(
                "SELECT stream_id, version, view::text FROM table_views ORDER BY stream_id"
            )
        ],
        "scoresheets": [
            tuple(r)
            for r in await pool.fetch(
                "SELECT stream_id, version, sheet::text FROM scoresheets ORDER BY stream_id"
            )
        ],
        "deal_archive": [
            tuple(r)
            for r in await pool.fetch(
                "SELECT stream_id, deal_no, record::text FROM deal_archive"
                " ORDER BY stream_id, deal_no"
            )
        ],
    }


@pytest.mark.long
@pytest.mark.no_cover  # the projectors' lines the service tests reach; tracing slowed it
async def test_rebuild_equals_live_after_50_random_sessions(pool: asyncpg.Pool) -> None:
    rng = random.Random(20251129)
    store = EventStore(pool)
    tables = Tables(store, project)
    started = time.perf_counter()
    played = {f"live-{n:02}": play_table(rng, f"live-{n:02}") for n in range(SESSIONS)}
    in_progress = {
        f"open-{n}": play_table(rng, f"open-{n}", stop=rng.randint(1, 400)) for n in range(4)
    }
    lives = {f"life-{n}": play_life(rng, f"life-{n}") for n in range(6)}
    memory = time.perf_counter()
    for n, (stream_id, (commands, _)) in enumerate({**played, **in_progress}.items()):
        if n < THROUGH_TABLES or stream_id.startswith("open-2"):
            await execute_all(tables, stream_id, commands)
        else:
            await append_in_chunks(store, stream_id, commands, rng)
    for stream_id, commands in lives.items():
        await execute_all(tables, stream_id, commands)
    written = time.perf_counter()

    live = await snapshot(pool)
    await pool.execute("UPDATE table_views SET view = '{}' WHERE stream_id = 'live-07'")
    await pool.execute("DELETE FROM deal_archive WHERE stream_id = 'live-08' AND deal_no = 3")
    await pool.execute("INSERT INTO scoresheets VALUES ('stale', 1, '{}')")
    await pool.execute("UPDATE lobby SET status = 'open' WHERE stream_id = 'life-1'")
    await pool.execute("DELETE FROM lobby WHERE stream_id = 'live-09'")
    result = await rebuild(pool, progress=False)
    rebuilt = await snapshot(pool)
    done = time.perf_counter()
    print(
        f"\nplay {memory - started:.1f}s, write {written - memory:.1f}s,"
        f" rebuild {done - written:.1f}s ({result.events} events)"
    )

    assert rebuilt == live
    assert len(live["lobby"]) == len(live["table_views"])
    statuses = {r[0]: r[4] for r in live["lobby"] if r[0].startswith("life-")}
    assert set(statuses.values()) >= {"abandoned", "closed"}, statuses
    lineups = [
        row.players
        for r in live["scoresheets"]
        if r[0].startswith("life-")
        for row in msgspec.json.decode(r[2], type=Scoresheet).rows
    ]
    assert any(len(names) > 1 for lineup in lineups for names in lineup), "a seat changed hands"
    assert result.tables == len(live["table_views"]) >= SESSIONS + len(in_progress)
    mine = {**played, **in_progress}
    views = {r[0]: r for r in live["table_views"] if r[0] in mine}
    assert len(views) == len(mine)
    for stream_id, (_, state) in mine.items():
        version = await store.stream_version(stream_id)
        assert views[stream_id][1] == version
        assert msgspec.json.decode(views[stream_id][2]) == msgspec.json.decode(public_view(state))
    sheets = {r[0]: msgspec.json.decode(r[2], type=Scoresheet) for r in live["scoresheets"]}
    archive = [r for r in live["deal_archive"] if r[0] in played]
    assert len(archive) == 12 * SESSIONS
    for stream_id, (_, state) in played.items():
        sheet = sheets[stream_id]
        assert sheet == scoresheet_of(state)
        assert len(sheet.rows) == 12 and sheet.finished and sheet.winners
        assert sheet.rows[-1].totals == sheet.totals == state.session.totals
        assert sheet.players == tuple(f"{stream_id}-{s}" for s in SEATS)


async def test_a_rebuild_restores_damaged_projections(pool: asyncpg.Pool) -> None:
    """The rebuild's own lines traced in this process: a session played and one in progress,
    their projections damaged, rebuilt from the log, equal to what the appends wrote (the
    50-session run above is not traced, and the CLI's rebuild runs in a subprocess whose
    coverage data a loaded machine can lose)."""
    rng = random.Random(20261203)
    tables = Tables(EventStore(pool), project)
    for stream_id, stop in (("small-done", None), ("small-open", 30)):
        commands, _ = play_table(rng, stream_id, stop=stop)
        await execute_all(tables, stream_id, commands)
    live = await snapshot(pool)
    await pool.execute("UPDATE table_views SET view = '{}' WHERE stream_id = 'small-open'")
    await pool.execute("DELETE FROM deal_archive WHERE stream_id = 'small-done'")
    await pool.execute("DELETE FROM lobby WHERE stream_id = 'small-done'")
    result = await rebuild(pool, progress=False)
    assert await snapshot(pool) == live
    assert result.tables == len(live["table_views"]) >= 2


async def test_the_archive_holds_each_deal_as_scored(pool: asyncpg.Pool) -> None:
    rng = random.Random(7)
    commands, _ = play_table(rng, "archive")
    tables = Tables(EventStore(pool), project)
    await execute_all(tables, "archive", commands)

    events = [e for _, e in await tables.events("archive")]
    rows = await pool.fetch(
        "SELECT deal_no, record::text FROM deal_archive WHERE stream_id = 'archive'"
        " ORDER BY deal_no"
    )
    records = [msgspec.json.decode(r[1], type=DealRecord) for r in rows]
    scored = [e for e in events if isinstance(e, DealScored)]
    assert [r.deal_no for r in records] == list(range(1, 13))
    for record, event in zip(records, scored, strict=True):
        assert record.score == event.score
        assert record.table == "archive"
        assert len(record.tricks) == 12
        assert sum(t.points for t in record.tricks) == 240
        assert sorted(c for h in record.hands for c in h) == sorted(
            c for t in record.tricks for c in t.cards
        )
        assert record.published_commitment == record.dealing.commitment
        assert record.dealing.seed is not None
        assert all(d is not None for d in record.declarations)


async def test_a_view_in_play_shows_no_secrets(pool: asyncpg.Pool) -> None:
    rng = random.Random(11)
    commands, state = play_table(rng, "secret", stop=5 + 4 + 10)
    await execute_all(Tables(EventStore(pool), project), "secret", commands)
    view = await pool.fetchval("SELECT view::text FROM table_views WHERE stream_id = 'secret'")

    created = state.created
    deal = state.session.deal
    assert created is not None and deal is not None and deal.score is None
    for seed in created.server_seeds:
        assert seed not in view
    for player in state.players:
        assert player is not None and player.token_hash not in view
    decoded = msgspec.json.decode(view)
    assert decoded["deal"]["hand"] == []
    assert decoded["deal"]["dealt"] is None
    assert decoded["seats"][0]["name"] == "secret-0"


def test_deal_record_and_scoresheet_are_functions_of_the_state() -> None:
    rng = random.Random(3)
    commands, _ = play_table(rng, "pure", stop=200)
    state = TableState()
    for command in commands:
        state = table.fold(table.decide(state, command), state)
    sheet = scoresheet_of(state)
    played = len(state.session.sheet)
    assert played >= 2
    assert [row.deal_no for row in sheet.rows] == list(range(1, played + 1))
    assert sheet.rows[0].totals == sheet.rows[0].entries
    assert sheet.rows[-1].totals == state.session.totals
    assert not sheet.finished and sheet.winners is None
    first = state.session.first_dealer
    assert first is not None
    assert [row.dealer for row in sheet.rows] == [first.after(i) for i in range(played)]
    deal = state.session.deal
    assert deal is not None and deal.score is None
    try:
        deal_record(deal, state)
    except ValueError as error:
        assert "not scored" in str(error)
    else:
        raise AssertionError("an open deal has no record")


def test_the_scoresheet_marks_each_deal_as_its_score_event_says() -> None:
    """R10 with R4.3: each row of the scoresheet carries its deal's game type, whether it was
    a solo and the Re seats, as the deal's `DealScored` event recorded them (read off the
    events, not off the state the scoresheet is made from)."""
    rng = random.Random(11)
    commands, _ = play_table(rng, "pure", stop=400)
    state = TableState()
    scored: list[DealScored] = []
    for command in commands:
        events = table.decide(state, command)
        scored += [e for e in events if isinstance(e, DealScored)]
        state = table.fold(events, state)
    rows = scoresheet_of(state).rows
    assert len(rows) == len(scored) >= 2
    assert [(r.deal_no, r.game_type, r.solo, r.re_seats) for r in rows] == [
        (e.deal_no, e.score.game_type, e.score.solo, e.score.re_seats) for e in scored
    ]


SPLIT = (
    ["AC", "9C", "QC", "AS", "KS", "JS", "AH", "9H", "10H", "AD", "9D", "QD"],
    ["10C", "KC", "JC", "10S", "QS", "9S", "KH", "QH", "JH", "10D", "KD", "JD"],
)
"""The 24 different cards in two halves: seats 0 and 2 hold the first (each one QC, so
no silent solo), seats 1 and 3 the second."""

SORTED = {
    GameType.NORMAL: (  # R3.1, R3.2: 10H, queens, jacks, diamonds; clubs, spades, hearts
        ["10H", "QC", "QD", "JS", "AD", "9D", "AC", "9C", "AS", "KS", "AH", "9H"],
        ["QS", "QH", "JC", "JH", "JD", "10D", "KD", "10C", "KC", "10S", "9S", "KH"],
    ),
    GameType.HEARTS_SOLO: (  # R5.2: hearts replace the diamonds, 10H not again among them
        ["10H", "QC", "QD", "JS", "AH", "9H", "AC", "9C", "AS", "KS", "AD", "9D"],
        ["QS", "QH", "JC", "JH", "JD", "KH", "10C", "KC", "10S", "9S", "10D", "KD"],
    ),
    GameType.QUEEN_SOLO: (  # R5.3: only the queens; each suit A 10 K J 9
        ["QC", "QD", "AC", "9C", "AS", "KS", "JS", "AH", "10H", "9H", "AD", "9D"],
        ["QS", "QH", "10C", "KC", "JC", "10S", "9S", "KH", "JH", "10D", "KD", "JD"],
    ),
}
"""Each half sorted by hand from RULES.md for a game type: trumps highest first, then the
plain suits clubs, spades, hearts, diamonds, each highest first."""


def _scored_deal_1(contract: GameType) -> TableState:
    """A preset table whose deal 1 (the halves of `SPLIT`, dealt in no order) is played to its
    score: seat 1 names ``contract`` (the others say healthy, R4.1), then the first legal
    card every turn."""
    rng = random.Random(5)
    dealt = tuple(rng.sample(SPLIT[seat % 2], 12) for seat in SEATS)
    presets = (tuple(tuple(Card(c) for c in hand) for hand in dealt),) * 12
    soloist = Seat(1) if contract is not GameType.NORMAL else None

    def act(seen: Observation, chooser: object) -> DealCommand | None:
        options = seen.options
        assert seen.viewer is not None
        if options.declarations:
            word = Declaration.RESERVATION if seen.viewer == soloist else Declaration.HEALTHY
            return Declare(seen.viewer, word)
        if options.contracts:
            return NameContract(seen.viewer, contract)
        return PlayCard(seen.viewer, options.cards[0]) if options.cards else None

    state = TableState()
    commands: list[TableCommand] = [CreateTable("sorted", Seat(0), presets=presets)]
    commands += [TakeSeat(f"p{s}", f"token-{s}", None, b"") for s in SEATS]
    for command in commands:
        state = table.fold(table.decide(state, command), state)
    while (deal := state.session.deal) is not None and deal.score is None:
        action = next_command(deal, FirstChoice(), act)
        assert action is not None
        state = table.fold(table.decide(state, action), state)
    return state


@pytest.mark.parametrize("contract", list(SORTED))
def test_a_deal_records_its_hands_as_dealt_and_sorted_for_its_game_type(
    contract: GameType,
) -> None:
    state = _scored_deal_1(contract)
    deal = state.session.deal
    assert deal is not None
    record = deal_record(deal, state)
    assert record.game_type is contract
    assert record.hands == deal.dealt  # as dealt, the order the audit recomputes (R2.2)
    assert [[c.value for c in hand] for hand in record.hands] != [
        SORTED[contract][seat % 2] for seat in SEATS
    ]
    assert [[c.value for c in hand] for hand in record.sorted_hands] == [
        SORTED[contract][seat % 2] for seat in SEATS
    ]
