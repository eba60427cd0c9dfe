"""Tournaments in the event store (real PostgreSQL): the tournament's stream, its rounds' tables
opened once with the shared deals, racing processes, the tables' ends and the standings
from the logs (E1-E6)."""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

import asyncpg
import msgspec
import pytest

from domain.dealing import deal_from_seed
from domain.errors import DomainError
from domain.events import DealDealt, DealScored
from domain.seats import Seat
from domain.simulation import next_command
from domain.table import AbandonSession, TableCreated, Visibility
from domain.tournament import (
    CreateTournament,
    EndTable,
    RegisterPlayer,
    RemovePlayer,
    RoundEnded,
    RoundStarted,
    StandingsMethod,
    StartRound,
    TableEnded,
    TournamentCreated,
    TournamentFinished,
    TournamentState,
)
from domain.tournament_view import player_seat
from infra.audit.tournament import verify_tournament_streams
from infra.event_store import EventStore, StoredEvent
from infra.projections import project
from infra.tables import CODEC as TABLE_CODEC
from infra.tables import Tables
from infra.tournaments import (
    CODEC,
    KIND,
    SNAPSHOT_EVERY,
    TournamentNotFound,
    Tournaments,
    TournamentTable,
    rebuild_projections,
    table_id,
)


def seeds() -> tuple[bytes, ...]:
    return tuple(secrets.token_bytes(32) for _ in range(12))


def tournaments_of(pool: asyncpg.Pool) -> Tournaments:
    """One service process's view: its own table cache."""
    return Tournaments(pool, Tables(EventStore(pool), project))


async def new_tournament(
    tournaments: Tournaments, players: int, rounds: int = 2
) -> tuple[str, CreateTournament]:
    tournament_id = secrets.token_hex(16)
    create = CreateTournament(
        "Club night",
        rounds,
        "director",
        secrets.token_bytes(32),
        tuple(seeds() for _ in range(rounds)),
        turn_seconds=60,
    )
    await tournaments.execute(tournament_id, create, actor="director")
    for n in range(players):
        await tournaments.execute(tournament_id, RegisterPlayer(f"player {n}", f"token {n}"))
    return tournament_id, create


async def types(store: EventStore, stream_id: str) -> list[str]:
    return [e.type for e in await store.read_stream(stream_id)]


async def test_a_round_opens_its_tables_with_the_shared_deals(pool: asyncpg.Pool) -> None:
    """E5: every table of the round dealt deal 1 from the round's first seed, seat 0 dealing;
    the tables are private, clocked, listed in tournament_tables, every seat taken."""
    tournaments = tournaments_of(pool)
    tournament_id, create = await new_tournament(tournaments, 7)
    done = await tournaments.start_round(tournament_id, 1)
    assert isinstance(done.events[0], RoundStarted)
    expected = deal_from_seed(create.round_seeds[0][0], Seat.NORTH)
    for table_no in (1, 2):
        stream = table_id(tournament_id, 1, table_no)
        decoded = [TABLE_CODEC.from_stored(e) for e in await tournaments.store.read_stream(stream)]
        created = decoded[0]
        assert isinstance(created, TableCreated)
        assert created.commitments == tuple(
            hashlib.sha256(s).hexdigest() for s in create.round_seeds[0]
        )
        assert created.visibility is Visibility.PRIVATE and created.turn_seconds == 60
        (dealt,) = [e for e in decoded if isinstance(e, DealDealt)]
        assert dealt.hands == expected and dealt.dealer is Seat.NORTH
        row = await pool.fetchrow(
            "SELECT tournament_id, round_no, table_no FROM tournament_tables WHERE table_id = $1",
            stream,
        )
        assert tuple(row) == (tournament_id, 1, table_no)
    listed = await pool.fetchval(
        "SELECT count(*) FROM lobby WHERE public AND stream_id LIKE $1", f"{tournament_id}%"
    )
    assert listed == 0


async def test_two_processes_start_a_round_once(pool: asyncpg.Pool) -> None:
    """Two service processes start round 1 at once: one RoundStarted, each table opened
    and seated once; both answer with the round started."""
    first, second = tournaments_of(pool), tournaments_of(pool)
    tournament_id, _ = await new_tournament(first, 8)
    results = await asyncio.gather(
        first.start_round(tournament_id, 1), second.start_round(tournament_id, 1)
    )
    assert sorted(r.duplicate for r in results) == [False, True]
    assert (await types(first.store, tournament_id)).count("round_started") == 1
    for table_no in (1, 2):
        kinds = await types(first.store, table_id(tournament_id, 1, table_no))
        assert (kinds.count("table_created"), kinds.count("seat_taken")) == (1, 4)


async def test_opening_a_round_again_completes_it_and_writes_nothing_twice(
    pool: asyncpg.Pool,
) -> None:
    """A process that died after starting the round: settling the tournament opens the tables;
    opening them once more writes nothing."""
    tournaments = tournaments_of(pool)
    tournament_id, _ = await new_tournament(tournaments, 5)
    started = await tournaments.execute(tournament_id, StartRound(1))
    assert await tournaments.store.stream_version(table_id(tournament_id, 1, 1)) == 0
    _, nothing = await tournaments.standings(tournament_id)  # no table yet: nothing counts
    assert nothing.public_deals == (0,) and all(line.deals == 0 for line in nothing.lines)
    await tournaments.settle(tournament_id)  # as the service does when it starts
    versions = [
        await tournaments.store.stream_version(table_id(tournament_id, 1, t)) for t in (1, 2)
    ]
    assert all(v > 5 for v in versions)  # created, four seats, the session and deal 1
    await tournaments.open_round(tournament_id, started.state, 1)
    await tournaments.settle(tournament_id)
    again = [await tournaments.store.stream_version(table_id(tournament_id, 1, t)) for t in (1, 2)]
    assert again == versions


async def test_a_rejected_command_leaves_the_log_untouched(pool: asyncpg.Pool) -> None:
    tournaments = tournaments_of(pool)
    tournament_id, _ = await new_tournament(tournaments, 2)
    before = await tournaments.store.stream_version(tournament_id)
    with pytest.raises(DomainError) as caught:
        await tournaments.execute(tournament_id, RegisterPlayer("PLAYER 1 ", "x"))
    assert (caught.value.code, caught.value.rule) == ("name_taken", "E2.1")
    assert await tournaments.store.stream_version(tournament_id) == before
    with pytest.raises(PermissionError):
        await tournaments.execute(tournament_id, RegisterPlayer("new", "x"), check=refuse)
    assert await tournaments.store.stream_version(tournament_id) == before
    assert (await tournaments.notice_ends(tournament_id)).version == before  # no round runs
    assert (await tournaments.settle(tournament_id)).version == before
    with pytest.raises(TournamentNotFound):
        await tournaments.load(secrets.token_hex(16))


def refuse(state: TournamentState) -> None:
    raise PermissionError("not the director")


async def test_racing_registrations_are_all_numbered_once(pool: asyncpg.Pool) -> None:
    """Two processes register twelve players at once: every append that lost the race
    (`ConcurrencyConflict`) is decided again, each player gets its own number."""
    first, second = tournaments_of(pool), tournaments_of(pool)
    tournament_id, _ = await new_tournament(first, 0)
    await asyncio.gather(
        *(
            (first, second)[n % 2].execute(tournament_id, RegisterPlayer(f"p{n}", f"t{n}"))
            for n in range(12)
        )
    )
    state = (await first.load(tournament_id)).state
    assert sorted(p.name for p in state.players) == sorted(f"p{n}" for n in range(12))


async def play_deals(tables: Tables, stream: str, deals: int, rng: random.Random) -> None:
    """Play the table's next ``deals`` deals at random, command by command."""
    scored = 0
    while scored < deals:
        deal = (await tables.load(stream)).state.session.deal
        assert deal is not None
        command = next_command(deal, rng)
        assert command is not None
        done = await tables.execute(stream, command)
        scored += sum(isinstance(e, DealScored) for e in done.events)


async def entries(store: EventStore, stream: str) -> list[tuple[int, ...]]:
    """The scoresheet entries of the table's scored deals, read from its log."""
    decoded = [TABLE_CODEC.from_stored(e) for e in await store.read_stream(stream)]
    return [e.score.entries for e in decoded if isinstance(e, DealScored)]


async def test_abandoned_tables_end_the_round_once_and_count_their_deals(
    pool: asyncpg.Pool,
) -> None:
    """E5.3: a deal is public once both tables scored it, or the other is over. E4.2,
    E4.3, E6: table 1 abandoned after two deals, table 2 after one (T4.2); two processes
    notice it, the stream records each end and the round's once; the standings come from
    the tables' logs: each player's entries, and deal 1's minus the other table's."""
    first, second = tournaments_of(pool), tournaments_of(pool)
    tournament_id, _ = await new_tournament(first, 8, rounds=1)
    state = (await first.start_round(tournament_id, 1)).state
    assert await first.table_of(table_id(tournament_id, 1, 2)) == TournamentTable(
        tournament_id, 1, 2
    )
    assert await first.table_of(tournament_id) is None
    await play_deals(first.tables, table_id(tournament_id, 1, 1), 2, random.Random(1))
    assert await first.public_deals(tournament_id, state, 1) == 0  # E5.3: table 2 has not
    await play_deals(first.tables, table_id(tournament_id, 1, 2), 1, random.Random(2))
    assert await first.public_deals(tournament_id, state, 1) == 1
    await first.tables.execute(table_id(tournament_id, 1, 2), AbandonSession())
    assert await first.public_deals(tournament_id, state, 1) == 2  # table 2 plays no more
    await first.tables.execute(table_id(tournament_id, 1, 1), AbandonSession())
    await asyncio.gather(first.notice_ends(tournament_id), second.notice_ends(tournament_id))
    decoded = [CODEC.from_stored(e) for e in await first.store.read_stream(tournament_id)]
    created = decoded[0]
    assert isinstance(created, TournamentCreated)
    ends = sorted(decoded[-4:-2], key=lambda e: getattr(e, "table_no", 0))
    assert ends == [TableEnded(1, 1, 2, True), TableEnded(1, 2, 1, True)]
    assert decoded[-2:] == [RoundEnded(1), TournamentFinished(1, created.seating_seed)]
    sheets = [await entries(first.store, table_id(tournament_id, 1, t)) for t in (1, 2)]
    loaded, result = await second.standings(tournament_id)
    assert loaded.state.finished
    lines = {line.player: line for line in result.lines}
    for t, seats in enumerate(state.seatings[0]):
        for seat, player in enumerate(seats):
            assert player is not None
            mine = [row[seat] for row in sheets[t]]
            other = sheets[1 - t][0][seat]
            # deal 2 was scored at table 1 only: compared with nobody (E6.3)
            assert (lines[player].total, lines[player].duplicate) == (sum(mine), mine[0] - other)
    with pytest.raises(DomainError):
        await first.execute(tournament_id, EndTable(1, 1, 1, True))


async def test_the_stored_standings_are_rebuilt_from_the_log(pool: asyncpg.Pool) -> None:
    tournaments = tournaments_of(pool)
    tournament_id, _ = await new_tournament(tournaments, 4, rounds=1)
    await tournaments.start_round(tournament_id, 1)
    stream = table_id(tournament_id, 1, 1)
    await play_deals(tournaments.tables, stream, 1, random.Random(7))
    await tournaments.publish(tournament_id)  # E6.6: deal 1 is public (the only table)
    computed = await tournaments.project_standings(tournament_id)
    assert await tournaments.stored_standings(tournament_id) == computed
    assert sum(line.total for line in computed.lines) == 0 and computed.public_deals == (1,)
    await pool.execute("DELETE FROM tournament_standings")
    await pool.execute("DELETE FROM tournament_tables WHERE tournament_id = $1", tournament_id)
    assert await tournaments.stored_standings(tournament_id) is None
    assert tournament_id in await rebuild_projections(tournaments)
    assert await tournaments.stored_standings(tournament_id) == computed
    assert await tournaments.table_of(stream) == TournamentTable(tournament_id, 1, 1)


async def test_the_standings_read_are_the_stored_ones_while_the_log_has_nothing_newer(
    pool: asyncpg.Pool,
) -> None:
    """E6: `current_standings` serves the row the projector keeps: a deal scored at one
    table only changes nothing (E6.5, E5.3: deal 1 counts once both tables scored it, and
    is recorded then, E6.6, by `publish` on the write path: a read appends nothing, however
    public the deal is); after the round the row is the one the audit recomputes on its own
    from the tables' logs."""
    tournaments = tournaments_of(pool)
    tournament_id, _ = await new_tournament(tournaments, 8, rounds=1)
    await tournaments.start_round(tournament_id, 1)
    first = await tournaments.current_standings(tournament_id)
    assert first.public_deals == (0,) and await tournaments.stored_standings(tournament_id) == first
    planted = msgspec.structs.replace(first, rounds_ended=7)
    await pool.execute(
        "UPDATE tournament_standings SET standings = $2::jsonb WHERE tournament_id = $1",
        tournament_id,
        msgspec.json.encode(planted).decode(),
    )
    assert await tournaments.current_standings(tournament_id) == planted, "read, not recomputed"
    one, two = table_id(tournament_id, 1, 1), table_id(tournament_id, 1, 2)
    await play_deals(tournaments.tables, one, 1, random.Random(3))
    hidden = await tournaments.current_standings(tournament_id)
    assert hidden == planted, "nothing public changed: the row is served as it is"
    await play_deals(tournaments.tables, two, 1, random.Random(4))
    logged = await pool.fetchval("SELECT count(*) FROM events")
    for method in (None, *StandingsMethod):
        assert (await tournaments.current_standings(tournament_id, method)).public_deals == (0,)
    assert await pool.fetchval("SELECT count(*) FROM events") == logged, "a read appends nothing"
    await tournaments.publish(tournament_id)  # E6.6: the rounds' watcher's, after a commit
    public = await tournaments.current_standings(tournament_id)
    assert public.public_deals == (1,) and all(line.deals == 1 for line in public.lines)
    for stream in (one, two):
        await tournaments.tables.execute(stream, AbandonSession())
    assert (await tournaments.notice_ends(tournament_id)).state.finished
    final = await tournaments.current_standings(tournament_id)
    assert final.rounds_ended == 1 and len(final.abandoned) == 2
    logs = {s: await tournaments.store.read_stream(s) for s in (one, two)}
    report = verify_tournament_streams(
        await tournaments.store.read_stream(tournament_id), logs, final
    )
    assert report.ok and report.checks[-1].name == "standings", report.checks


class CountingStore(EventStore):
    """The event store, counting the events its stream reads return (a spy at the infra
    level: whatever reads a stream goes through `EventStore.read_stream`)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        super().__init__(pool)
        self.read = 0

    async def read_stream(self, stream_id: str, from_version: int = 1) -> list[StoredEvent]:
        stored = await super().read_stream(stream_id, from_version)
        self.read += len(stored)
        return stored


async def events_read_by_a_registration(pool: asyncpg.Pool, tournament_id: str, n: int) -> int:
    """The events a registration reads in a process that has not seen the tournament yet
    (the worst case: nothing cached), and then in the same process again."""
    store = CountingStore(pool)
    tournaments = Tournaments(pool, Tables(store, project))
    await tournaments.execute(tournament_id, RegisterPlayer(f"late {n}", f"late {n}"))
    cold = store.read
    await tournaments.execute(tournament_id, RegisterPlayer(f"later {n}", f"later {n}"))
    return max(cold, store.read - cold)


async def test_a_registration_reads_a_bounded_number_of_events_whatever_the_field(
    pool: asyncpg.Pool,
) -> None:
    """However many players have registered (10 or 300), a registration reads fewer events
    than the snapshot interval: the snapshot and the events after it."""
    writer = tournaments_of(pool)
    small, _ = await new_tournament(writer, 10)
    large, _ = await new_tournament(writer, 300)
    assert (await writer.load(large)).version == 301
    for field in (small, large):
        assert await events_read_by_a_registration(pool, field, 1) < SNAPSHOT_EVERY
    fresh = Tournaments(pool, Tables(EventStore(pool), project))
    assert (await fresh.load(large)).state == (await writer.load(large)).state


async def test_the_snapshot_rebuilt_from_the_log_is_the_one_the_appends_wrote(
    pool: asyncpg.Pool,
) -> None:
    """The snapshot kept by the appends equals the one the rebuild writes from the log, and
    both equal the fold of the whole log; a snapshot of another shape is read as none."""
    tournaments = tournaments_of(pool)
    tournament_id, _ = await new_tournament(tournaments, SNAPSHOT_EVERY + 5)
    store = tournaments.store
    kept = await store.snapshot(tournament_id)
    assert kept is not None and kept[0].version == SNAPSHOT_EVERY
    log = [CODEC.from_stored(e) for e in await store.read_stream(tournament_id)]
    folded = tournaments.fold(log)
    await pool.execute("DELETE FROM stream_snapshots WHERE stream_id = $1", tournament_id)
    await rebuild_projections(tournaments)
    rebuilt = await store.snapshot(tournament_id)
    assert rebuilt is not None and rebuilt[0].version == SNAPSHOT_EVERY + 6
    snapshots = KIND.snapshot
    assert snapshots is not None
    assert snapshots.decode(rebuilt[1]) == folded
    assert snapshots.decode(kept[1]) == tournaments.fold(log[:SNAPSHOT_EVERY])
    other = msgspec.msgpack.encode(("tournament:another shape", folded))
    await store.put_snapshot(tournament_id, SNAPSHOT_EVERY + 6, other)
    again = Tournaments(pool, Tables(EventStore(pool), project))
    assert (await again.load(tournament_id)).state == folded


class BatchCountingStore(EventStore):
    """The event store, recording how many appends each round trip to the database held."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        super().__init__(pool)
        self.batches: list[int] = []

    async def _send(self, conn: Any, batch: Sequence[Any]) -> list[asyncpg.Record]:
        self.batches.append(len(batch))
        return await super()._send(conn, batch)


async def test_a_round_opens_its_tables_together_in_batched_appends(pool: asyncpg.Pool) -> None:
    """A round of 16 tables is opened in batches: the 16 tables' creations go to the database
    in one round trip (each table's seats follow its creation), and every table is opened
    and seated once, its hash chain intact (the audit verifies the streams)."""
    store = BatchCountingStore(pool)
    tournaments = Tournaments(pool, Tables(store, project))
    tournament_id, _ = await new_tournament(tournaments, 64)
    store.batches.clear()
    done = await tournaments.start_round(tournament_id, 1)
    assert len(done.state.seatings[0]) == 16
    assert store.batches[1] == 16  # after the round's start: the 16 tables' creations
    assert sum(store.batches) == 1 + 16 * 5
    for table_no in range(1, 17):
        stream = table_id(tournament_id, 1, table_no)
        assert (await types(store, stream)).count("seat_taken") == 4
    written = await pool.fetchval("SELECT count(*) FROM events")
    assert await tournaments.open_round(tournament_id, done.state, 1)
    assert await pool.fetchval("SELECT count(*) FROM events") == written  # nothing twice


class CountingPool:
    """The pool, counting the statements that read through it (``fetch``, ``fetchrow``,
    ``fetchval``) and the rows they return: a spy at the boundary to PostgreSQL, through which
    the event store's reads (events, snapshots) and the tournaments' (projection rows) go."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.statements = 0
        self.rows = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pool, name)

    async def fetch(self, query: str, *args: Any) -> list[asyncpg.Record]:
        rows: list[asyncpg.Record] = await self.pool.fetch(query, *args)
        self.statements, self.rows = self.statements + 1, self.rows + len(rows)
        return rows

    async def fetchrow(self, query: str, *args: Any) -> asyncpg.Record | None:
        row = await self.pool.fetchrow(query, *args)
        self.statements, self.rows = self.statements + 1, self.rows + (row is not None)
        return row

    async def fetchval(self, query: str, *args: Any) -> Any:
        self.statements, self.rows = self.statements + 1, self.rows + 1
        return await self.pool.fetchval(query, *args)


class Reads(msgspec.Struct, frozen=True):
    """What one action read: statements sent, rows returned (events, snapshots, projection
    rows)."""

    statements: int
    rows: int


Action = Callable[[Tournaments], Awaitable[object]]


async def reads_of(pool: asyncpg.Pool, action: Action) -> Reads:
    """What ``action`` reads in a process that has not seen the tournament (nothing cached:
    the worst case), as `CountingPool` counts it."""
    counting = CountingPool(pool)
    spied = cast(asyncpg.Pool, counting)
    await action(Tournaments(spied, Tables(EventStore(spied), project)))
    return Reads(counting.statements, counting.rows)


def routes_reads(tournament_id: str, token: str) -> dict[str, Action]:
    """What the routes read, each as its route does it (`service.routes.tournaments`):
    ``getTournament`` loads the tournament and its running round's tables' rows,
    ``getStandings`` (by every method) the tournament and the standings, ``getPlayerTable``
    the tournament and its player's table's status; ``registerPlayer`` (before round 1) loads
    the tournament and appends."""

    async def tournament(t: Tournaments) -> object:
        state = (await t.load(tournament_id)).state
        return await t.round_rows(tournament_id, state, state.round_no)

    async def player_table(t: Tournaments) -> object:
        state = (await t.load(tournament_id)).state
        number = next(n for n, p in enumerate(state.players) if p.token_hash == token)
        seat = player_seat(state, number)
        assert seat is not None
        return await t.table_open(table_id(tournament_id, seat.round_no, seat.table_no))

    def standings(method: StandingsMethod | None) -> Action:
        return lambda t: t.current_standings(tournament_id, method)

    ranked = {f"getStandings {m or 'tournament'}": standings(m) for m in (None, *StandingsMethod)}
    return {"getTournament": tournament, "getPlayerTable": player_table, **ranked}


async def test_the_routes_read_as_much_whatever_the_field(pool: asyncpg.Pool) -> None:
    """A registration, getTournament, getStandings (every method) and getPlayerTable send as
    many statements and read as many rows at a tournament of 72 players as at one of 136 (8
    more than one and than two snapshot intervals: a snapshot and as many events after it),
    but for the answer itself (getTournament's rows of the running round's tables: 18 and
    34); and fewer rows than the snapshot interval besides (the snapshot and the events after
    it)."""
    writer = tournaments_of(pool)
    fields = (8 + SNAPSHOT_EVERY, 8 + 2 * SNAPSHOT_EVERY)
    registering: list[Reads] = []
    playing: list[dict[str, Reads]] = []
    for field in fields:
        tournament_id, _ = await new_tournament(writer, field, rounds=1)

        async def register(t: Tournaments, tournament_id: str = tournament_id) -> object:
            await t.load(tournament_id)
            return await t.execute(tournament_id, RegisterPlayer("late", "late"))

        registering.append(await reads_of(pool, register))
        await writer.execute(tournament_id, RemovePlayer(field))  # the field again
        await writer.start_round(tournament_id, 1)
        actions = routes_reads(tournament_id, "token 3")
        playing.append({name: await reads_of(pool, action) for name, action in actions.items()})
    assert registering[0] == registering[1] and registering[0].rows < SNAPSHOT_EVERY
    small, large = playing
    tables = [field // 4 for field in fields]
    assert small["getTournament"] == msgspec.structs.replace(
        large["getTournament"], rows=large["getTournament"].rows - tables[1] + tables[0]
    )
    assert small == {**large, "getTournament": small["getTournament"]}, (small, large)
    assert all(r.rows < SNAPSHOT_EVERY for name, r in small.items() if name != "getTournament")


async def test_reading_the_standings_writes_nothing(pool: asyncpg.Pool) -> None:
    """A read of the standings, of the tournament's view or of a player's table appends nothing
    and writes no row, also when a deal has become public that is not recorded yet (the
    rounds' watcher records it on the write path, E6.6): the log's length and the stored
    standings are as they were."""
    tournaments = tournaments_of(pool)
    tournament_id, _ = await new_tournament(tournaments, 4, rounds=1)
    await tournaments.start_round(tournament_id, 1)
    await play_deals(tournaments.tables, table_id(tournament_id, 1, 1), 1, random.Random(5))
    logged = await pool.fetchval("SELECT count(*) FROM events")
    stored = await tournaments.stored_standings(tournament_id)
    for action in routes_reads(tournament_id, "token 0").values():
        await action(tournaments)
        await action(tournaments_of(pool))
    assert await pool.fetchval("SELECT count(*) FROM events") == logged
    assert await tournaments.stored_standings(tournament_id) == stored
    assert stored is not None and stored.public_deals == (0,)
    assert (await tournaments.publish(tournament_id)).version > 0
    assert await pool.fetchval("SELECT count(*) FROM events") == logged + 1  # deal_published
