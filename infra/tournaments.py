"""Tournaments (club nights, competitions) in the event store: the tournament's own stream, the
tables of its rounds and its standings (`domain.tournament`, E1-E6).

Streams
    A tournament is the stream ``tournament_id``, beginning with ``event_created``; the tables
    of its rounds are ordinary table streams, table ``t`` of round ``r`` at
    `infra.command_ids.table_id` (the tournament's id, ``-r<r>t<t>``), listed in
    ``tournament_tables`` (migration 0011) before they exist.

Commands
    `Tournaments` is `infra.streams.Streams` for tournaments: `Tournaments.execute` is the one
    entry for changing a tournament, with the table's retry loop, turns, cache and command ids
    (`infra.streams`); the rules are `domain.tournament.decide` and ``evolve``
    (`domain.tournament.TOURNAMENT`), and `domain.tournament.CreateTournament` opens a new
    stream.

Rounds, exactly once
    `Tournaments.start_round` starts a round under the command id ``tournament:round:<r>``, so
    that of several processes (or retries) one starts it and the others get its result, and then
    `Tournaments.open_round` opens the round's tables from the tournament (`domain.tournament_tables
    .table_commands`: the round's shared seeds, seat 0 dealing first, the tournament's turn
    clock, every seat taken) through `Tables.execute`, each command under its own command
    id: opening a round again, after a crash half-way or in another process, completes it
    and writes nothing twice. `Tournaments.notice_ends` records the end of every table of the
    running round that is over (E4.2) under ``tournament:end:<r>:<t>``: the last one ends the
    round (and the last round the tournament) once, whoever notices it.

Standings
    Once a deal of a round is public (E5.3), `Tournaments.publish` records every table's
    entries of it in the tournament's stream (`domain.tournament.DealPublished`, E6.6, under
    ``tournament:deal:<r>:<d>``), so the standings are a function of the tournament's stream
    alone (`domain.standings.recorded_standings`). The tournament's projector (`project`)
    writes them to ``tournament_standings`` in the append's transaction whenever an append
    changes them (`counts`; migration 0014), as the tables' projections are written.
    `Tournaments.publish` is called on the write path: by the rounds' watcher after a commit of
    a tournament's table (`service.workers.rounds`) and by `settle`. Reading the standings
    writes nothing: `Tournaments.current_standings`, what the routes and the tournament's
    stream read, serves the row (or, ranked by another method or while the row is older than
    the tournament, the standings computed from the tournament as loaded, kept by version).
    `Tournaments.standings` computes them the other way, from the tables' logs, as the audit
    (`infra.audit.tournament`) does to compare.
    `rebuild_projections` writes every tournament's rows (its tables', its standings, its
    snapshot) again from the log.

The round's tables at a glance
    `Tournaments.round_rows` reads a round's tables in one statement from the tables' own
    projections (`infra.projections`: each table's ``lobby`` status and ``scoresheets``
    entries, written in that table's appends): how many deals each has scored, whether it is
    open or over. The tournament's view, a player's table, the public deals (E5.3) and the
    publication of the deals (E6.6) read them, not the tables' logs.

Snapshots
    A tournament is loaded from its snapshot and the events after it (`infra.streams
    .Snapshots`, every `SNAPSHOT_EVERY` events), so a registration reads a bounded number
    of events whatever the field; `getTournament`, `getStandings`, `getPlayerTable` read
    that and a bounded number of rows besides (the round's tables' rows for the view).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TypeAlias

import asyncpg
import msgspec

from domain.standings import (
    Standings,
    TableSheet,
    public_deals,
    recorded_standings,
    standings,
)
from domain.table import TableState, TableStatus
from domain.tournament import (
    TOURNAMENT,
    CreateTournament,
    DealPublished,
    EndTable,
    PublishDeal,
    RoundEnded,
    RoundStarted,
    StandingsMethod,
    StartRound,
    TableEnded,
    TournamentCommand,
    TournamentEvent,
    TournamentFinished,
    TournamentState,
)
from domain.tournament_tables import table_commands
from infra import command_ids as ids
from infra import streams
from infra.codec import EventCodec
from infra.command_ids import table_id
from infra.event_store import BATCH_LIMIT, ProjectionRows
from infra.tables import TableNotFound, Tables

CODEC: EventCodec[TournamentEvent] = EventCodec(TournamentEvent)
"""How tournament events are written to and read from the log."""

TOURNAMENT_CREATED = "event_created"
"""The type of a tournament stream's first event."""

FILL_BOT = "greedy"
"""The bot kind that takes a tournament table's bot seats (E3.4)."""

Check = Callable[[TournamentState], None]
"""``check(state)``: raises if the command may not be given at this state (authorization)."""


class TournamentTable(msgspec.Struct, frozen=True):
    """A table's place in a tournament (``tournament_tables``): table ``table_no`` of round
    ``round_no`` of tournament ``tournament_id``."""

    tournament_id: str
    round_no: int
    table_no: int


OVER = frozenset({TableStatus.FINISHED, TableStatus.ABANDONED, TableStatus.CLOSED})
"""The statuses of a table at which nothing more happens (`domain.table.TableState.over`)."""
STARTED = frozenset({TableStatus.PLAYING, TableStatus.FINISHED, TableStatus.ABANDONED})
"""The statuses of a table whose session has started: every seat was taken."""


class RoundTable(msgspec.Struct, frozen=True):
    """Table ``table_no`` of a round as the tables' projections have it (`Tournaments
    .round_rows`): its ``status`` (None: not created yet) and the scoresheet entries of its
    scored deals (by deal, by seat)."""

    table_no: int
    status: TableStatus | None
    entries: tuple[tuple[int, ...], ...] = ()

    @property
    def over(self) -> bool:
        """Nothing more will happen at the table: finished, abandoned or closed."""
        return self.status in OVER

    @property
    def opened(self) -> bool:
        """Its session has started (`Tournaments.open_round` took every seat)."""
        return self.status in STARTED

    def sheet(self, round_no: int) -> TableSheet | None:
        """The table's sheet for the standings (None: not created yet)."""
        if self.status is None:
            return None
        return TableSheet(round_no, self.table_no, self.entries, self.over)


class TournamentNotFound(streams.StreamNotFound):
    """No tournament has this id."""

    kind = "tournament"

    @property
    def tournament_id(self) -> str:
        return self.stream_id


LoadedTournament: TypeAlias = streams.Loaded[TournamentState]
ExecutedTournament: TypeAlias = streams.Executed[TournamentState, TournamentEvent]

SNAPSHOT_EVERY = 64
"""A tournament's snapshot is written every this many events (`infra.streams.Snapshots`): a
load of a tournament this process has not cached reads it and fewer events than this."""

KIND: streams.Kind[TournamentState, TournamentEvent] = streams.Kind(
    TOURNAMENT,
    CODEC,
    TOURNAMENT_CREATED,
    TournamentNotFound,
    begins=lambda command: isinstance(command, CreateTournament),
    snapshot=streams.Snapshots(TournamentState, "tournament", SNAPSHOT_EVERY),
)
"""A tournament as the command service sees it (module docstring)."""


OPENING_TOGETHER = BATCH_LIMIT
"""How many tables of a round `Tournaments.open_round` opens at once: as many as the event
store sends in one batch."""

STANDINGS_TYPES = ("deal_scored", "session_finished", "session_abandoned")
"""The events of a tournament's tables that may change its standings: a scored deal, a
table's end (E6.5, T4.2), each of which may make deals public (E5.3) for `Tournaments.publish`
to record (E6.6)."""

_REGISTER_TABLE = """
    INSERT INTO tournament_tables (table_id, tournament_id, round_no, table_no)
    VALUES ($1, $2, $3, $4)
    ON CONFLICT DO NOTHING
"""
_UPSERT_STANDINGS = """
    INSERT INTO tournament_standings (tournament_id, tournament_version, log_position, standings)
    SELECT $1, $2, e.position, $3::jsonb FROM events AS e WHERE e.stream_id = $1 AND e.version = $2
    ON CONFLICT (tournament_id) DO UPDATE
    SET tournament_version = EXCLUDED.tournament_version, log_position = EXCLUDED.log_position,
        standings = EXCLUDED.standings
    WHERE tournament_standings.tournament_version <= EXCLUDED.tournament_version
"""
_ROUND_ROWS = """
    SELECT t.table_no, l.status,
           coalesce(jsonb_path_query_array(s.sheet, '$.rows[*].entries'), '[]'::jsonb)::text
    FROM tournament_tables AS t
    LEFT JOIN lobby AS l ON l.stream_id = t.table_id
    LEFT JOIN scoresheets AS s ON s.stream_id = t.table_id
    WHERE t.tournament_id = $1 AND t.round_no = $2
"""
_TABLE_STATUS = "SELECT status FROM lobby WHERE stream_id = $1"
_ENTRIES = msgspec.json.Decoder(tuple[tuple[int, ...], ...])
_STORED_STANDINGS = """
    SELECT tournament_version, standings::text FROM tournament_standings WHERE tournament_id = $1
"""
RANKED_KEPT = 256
"""How many standings ranked by another method than their tournament's a process keeps (by
tournament, version and method)."""


def counts(event: TournamentEvent) -> bool:
    """Whether the event changes a started tournament's standings (E6.5, E6.6): a round's
    start or end, a deal recorded, a table abandoned, the tournament's end."""
    if isinstance(event, TableEnded):
        return event.abandoned
    return isinstance(event, RoundStarted | DealPublished | RoundEnded | TournamentFinished)


def project(
    state_before: TournamentState, events: Sequence[TournamentEvent]
) -> ProjectionRows | None:
    """The tournament's projector (`infra.streams.Projector`): when the events change the
    standings of a started tournament (`counts`), the standings after them (E6, from the
    tournament's records, E6.6), written in the append's transaction to
    ``tournament_standings``."""
    if not any(counts(e) for e in events):
        return None
    after = state_before
    for event in events:
        after = KIND.aggregate.evolve(after, event)
    return ProjectionRows(standings=msgspec.json.encode(recorded_standings(after)))


class Tournaments(streams.Streams[TournamentState, TournamentEvent, TournamentCommand]):
    """Loads and changes tournaments through the event store; opens their tables through
    ``tables``."""

    def __init__(self, pool: asyncpg.Pool, tables: Tables, *, retries: int = 8) -> None:
        super().__init__(tables.store, KIND, project, retries=retries)
        self.pool = pool
        self.tables = tables
        self._ranked: OrderedDict[tuple[str, int, StandingsMethod], Standings] = OrderedDict()

    async def load(self, stream_id: str, *, fresh: bool | None = True) -> LoadedTournament:
        """The tournament as its log has it now: by default what another process appended is
        read too (only the events after the cached version), so a tournament's answers never
        lag behind a notification; ``fresh=False`` as `infra.streams.Streams.load`."""
        return await super().load(stream_id, fresh=fresh)

    async def start_round(
        self, tournament_id: str, round_no: int, *, actor: str | None = None
    ) -> ExecutedTournament:
        """E4.1: start round ``round_no`` once (see the module docstring) and open its tables."""
        done = await self.execute(
            tournament_id, StartRound(round_no), command_id=ids.round_start(round_no), actor=actor
        )
        await self.open_round(tournament_id, done.state, round_no)
        return done

    async def open_round(
        self, tournament_id: str, state: TournamentState, round_no: int
    ) -> tuple[str, ...]:
        """E5: open every table of the started round ``round_no`` and seat it, completing
        what an earlier run left undone; the tables' ids.

        The tables are listed in ``tournament_tables`` in one statement, then opened
        `OPENING_TOGETHER` at a time: their appends (each table's in its order, under its
        own command ids) meet in the event store's batches, one round trip and one commit
        for many tables (`infra.event_store`), each in its own stream and hash chain."""
        count = len(state.seatings[round_no - 1])
        streams = [table_id(tournament_id, round_no, n) for n in range(1, count + 1)]
        await self.pool.executemany(
            _REGISTER_TABLE,
            [(stream, tournament_id, round_no, n) for n, stream in enumerate(streams, 1)],
        )

        async def open_table(table_no: int) -> None:
            stream = streams[table_no - 1]
            create, seats = table_commands(state, round_no, table_no, FILL_BOT)
            opening = ids.table_open(tournament_id)
            await self.tables.execute(stream, create, command_id=opening, actor="tournament")
            for seat, take in enumerate(seats):
                key = ids.seat_taken(tournament_id, seat)
                await self.tables.execute(stream, take, command_id=key, actor="tournament")

        for first in range(1, count + 1, OPENING_TOGETHER):
            last = min(first + OPENING_TOGETHER, count + 1)
            await asyncio.gather(*(open_table(n) for n in range(first, last)))
        return tuple(streams)

    async def round_tables(
        self, tournament_id: str, state: TournamentState, round_no: int
    ) -> list[TableState | None]:
        """The tables of round ``round_no`` as their logs have them now (None: not opened),
        one load per table: for the audit's way (`sheets`); the service reads `round_rows`."""
        found: list[TableState | None] = []
        for table_no in range(1, len(state.seatings[round_no - 1]) + 1):
            try:
                loaded = await self.tables.load(
                    table_id(tournament_id, round_no, table_no), fresh=True
                )
            except TableNotFound:  # registered, not opened yet (`open_round` completes it)
                found.append(None)
            else:
                found.append(loaded.state)
        return found

    async def round_rows(
        self, tournament_id: str, state: TournamentState, round_no: int
    ) -> list[RoundTable]:
        """The tables of round ``round_no`` as the tables' projections have them now (one
        statement, whatever the number of tables; module docstring): a table not listed or
        not created yet has no status."""
        rows = await self.pool.fetch(_ROUND_ROWS, tournament_id, round_no)
        found = {
            row[0]: RoundTable(row[0], TableStatus(row[1]), _ENTRIES.decode(row[2]))
            for row in rows
            if row[1] is not None
        }
        count = len(state.seatings[round_no - 1])
        return [found.get(n, RoundTable(n, None)) for n in range(1, count + 1)]

    async def table_open(self, stream_id: str) -> bool:
        """Whether the tournament's table ``stream_id`` is open: created and every seat taken (its
        session started, as `open_round` leaves it), as its lobby row (`infra.projections`),
        written in its appends, has it."""
        status = await self.pool.fetchval(_TABLE_STATUS, stream_id)
        return status is not None and TableStatus(status) in STARTED

    async def table_of(self, stream_id: str) -> TournamentTable | None:
        """The tournament, round and number of a table of a tournament; None for any other table."""
        row = await self.pool.fetchrow(
            "SELECT tournament_id, round_no, table_no FROM tournament_tables WHERE table_id = $1",
            stream_id,
        )
        return None if row is None else TournamentTable(row[0], row[1], row[2])

    async def public_deals(self, tournament_id: str, state: TournamentState, round_no: int) -> int:
        """E5.3: how many deals of round ``round_no`` are public now: every table of the round
        has scored them or is over (and some table scored them). Whoever serves a tournament
        table's deal records, replays, verifications or seeds shows none of a later deal."""
        rows = await self.round_rows(tournament_id, state, round_no)
        return public_deals([row.sheet(round_no) for row in rows])

    async def publish(self, tournament_id: str) -> LoadedTournament:
        """E6.6: record every deal of every round started that is public (E5.3) and not
        recorded yet, in order, each under ``tournament:deal:<r>:<d>``; the tournament after
        it. A round that has ended is looked at only if its records fall short of its
        tables' ends (every deal a table scored is public once the round has ended). For
        the write path only (module docstring): a read never calls it."""
        loaded = await self.load(tournament_id)
        state = loaded.state
        for round_no in range(1, state.round_no + 1):
            recorded = len(state.published[round_no - 1])
            ended = state.ended[round_no - 1] if round_no <= len(state.ended) else None
            if ended is not None and recorded >= max((e.deals for e in ended), default=0):
                continue
            rows = await self.round_rows(tournament_id, state, round_no)
            sheets = [row.sheet(round_no) for row in rows]
            for deal_no in range(recorded + 1, public_deals(sheets) + 1):
                entries = tuple(
                    s.entries[deal_no - 1] if s and len(s.entries) >= deal_no else None
                    for s in sheets
                )
                command = PublishDeal(round_no, deal_no, entries)
                key = ids.deal_published(round_no, deal_no)
                done = await self.execute(
                    tournament_id, command, command_id=key, actor="tournament"
                )
                loaded = streams.Loaded(done.state, done.version)
        return loaded

    async def notice_ends(self, tournament_id: str) -> LoadedTournament:
        """E6.6, E4.2, E4.3: record the public deals not recorded yet (`publish`), then the end
        of every table of the running round that is over; the tournament after it."""
        loaded = await self.publish(tournament_id)
        state = loaded.state
        if not state.running:
            return loaded
        round_no = state.round_no
        rows = await self.round_rows(tournament_id, state, round_no)
        for table_no, (end, at) in enumerate(zip(state.ends, rows, strict=True), 1):
            if end is None and at.over:
                abandoned = at.status is TableStatus.ABANDONED
                command = EndTable(round_no, table_no, len(at.entries), abandoned)
                key = ids.table_end(round_no, table_no)
                await self.execute(tournament_id, command, command_id=key, actor="tournament")
        return await self.load(tournament_id)

    async def settle(self, tournament_id: str) -> LoadedTournament:
        """Bring the running round up to date with its tables: open and seat those a crash
        left unopened or half-seated (`open_round`), record the ends of those over
        (`notice_ends`); the tournament after it. For the service to call for every tournament with
        a running round when it starts, and for a table's tournament (`table_of`) whenever that
        table's session ends."""
        loaded = await self.publish(tournament_id)
        state = loaded.state
        if not state.running:
            return loaded
        rows = await self.round_rows(tournament_id, state, state.round_no)
        if not all(row.opened for row in rows):
            await self.open_round(tournament_id, state, state.round_no)
        return await self.notice_ends(tournament_id)

    async def sheets(self, tournament_id: str, state: TournamentState) -> list[TableSheet]:
        """The scoresheets of every opened table of every round started (`domain.standings`),
        from the tables' logs."""
        sheets: list[TableSheet] = []
        for round_no in range(1, state.round_no + 1):
            tables = await self.round_tables(tournament_id, state, round_no)
            sheets += [
                TableSheet(round_no, n, t.session.sheet, t.over)
                for n, t in enumerate(tables, 1)
                if t is not None
            ]
        return sheets

    async def standings(self, tournament_id: str) -> tuple[LoadedTournament, Standings]:
        """E6: the tournament and its standings, from its stream and its tables' logs (the
        audit's way: `domain.standings.standings`)."""
        loaded = await self.load(tournament_id)
        return loaded, standings(loaded.state, await self.sheets(tournament_id, loaded.state))

    async def project_standings(self, tournament_id: str) -> Standings:
        """Compute the tournament's standings from its records (E6.6) and store them in
        ``tournament_standings`` as of its version (a row as of a later one stays): the
        rebuild of what the projector writes in the append."""
        loaded = await self.load(tournament_id)
        result = recorded_standings(loaded.state)
        encoded = msgspec.json.encode(result).decode()
        await self.pool.execute(_UPSERT_STANDINGS, tournament_id, loaded.version, encoded)
        return result

    async def current_standings(
        self, tournament_id: str, method: StandingsMethod | None = None
    ) -> Standings:
        """E6: the tournament's standings now, from its records (E6.6), ranked by its method
        (the row the projector keeps, while it is as of the tournament's version) or by
        ``method``. A read: it writes nothing, and reads the tournament (`load`: its snapshot
        and the events after it, or the cached tournament and the events after that) and at
        most one row. What is not in the row is computed from the tournament as loaded, once
        per version, method and process (`RANKED_KEPT`)."""
        loaded = await self.load(tournament_id)
        created = loaded.state.created
        assert created is not None
        ranked_by = created.method if method is None else method
        if ranked_by is created.method and loaded.state.seatings:
            row = await self.pool.fetchrow(_STORED_STANDINGS, tournament_id)
            if row is not None and row["tournament_version"] >= loaded.version:
                return msgspec.json.decode(row["standings"], type=Standings)
        key = (tournament_id, loaded.version, ranked_by)
        ranked = self._ranked.get(key)
        if ranked is None:
            ranked = self._ranked[key] = recorded_standings(loaded.state, ranked_by)
            while len(self._ranked) > RANKED_KEPT:
                self._ranked.popitem(last=False)
        return ranked

    async def stored_standings(self, tournament_id: str) -> Standings | None:
        """The standings ``tournament_standings`` holds for the tournament, if any."""
        row = await self.pool.fetchval(
            "SELECT standings::text FROM tournament_standings WHERE tournament_id = $1",
            tournament_id,
        )
        return None if row is None else msgspec.json.decode(row, type=Standings)


async def tournament_ids(pool: asyncpg.Pool) -> list[str]:
    """The streams that are tournaments (their first event is ``event_created``), oldest first."""
    rows = await pool.fetch(
        "SELECT stream_id FROM events WHERE version = 1 AND type = $1 ORDER BY position",
        TOURNAMENT_CREATED,
    )
    return [row[0] for row in rows]


async def rebuild_projections(tournaments: Tournaments) -> Sequence[str]:
    """Recompute every tournament's rows of ``tournament_tables`` and ``tournament_standings``
    and its snapshot (``stream_snapshots``) from the log; the tournaments' ids."""
    ids = await tournament_ids(tournaments.pool)
    for tournament_id in ids:
        state = (await tournaments.load(tournament_id)).state
        rows = [
            (table_id(tournament_id, round_no, table_no), tournament_id, round_no, table_no)
            for round_no, seating in enumerate(state.seatings, 1)
            for table_no in range(1, len(seating) + 1)
        ]
        await tournaments.pool.executemany(_REGISTER_TABLE, rows)
        await tournaments.project_standings(tournament_id)
        await tournaments.rebuild_snapshot(tournament_id)
    return ids
