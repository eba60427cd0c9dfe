"""Read models of tables, kept inside the append transaction and rebuildable from the log.

Four projections, each a function of a table's events:

``table_views``
    one row per table: the spectator's view (`domain.table_view.table_view` with no
    viewer) as JSON, at the table's version. Nothing secret: no hands, no unrevealed seeds.
``scoresheets``
    one row per table: the scoresheet (R10) as played so far, with running totals,
    the players' names and, once the session is over, the winners (R1.3); its version
    is that of the last event that changed it (`SHEET_EVENTS`).
``deal_archive``
    one row per scored deal: the whole deal (`DealRecord`), hidden parts included,
    for audits and history. A deal is public once it is scored.
``lobby``
    one row per table (migration 0005): its `LobbyEntry` (name, status, visibility,
    seats, deal number, options), written with every append (its ``version`` is the
    table's), and the ``position`` and ``created_at`` of the table's first event. The
    lobby lists the public rows (`service.routes.lobby`); the turn clock finds the clocked
    tables in play there (`service.workers.clock`). Tables created before this projection existed
    have a lobby row once they change again, or after ``doko projections rebuild``.

`project` is a `infra.tables.Projector`: it folds the appended events onto the state
before them, taking each scored deal's state at its `DealScored` (before the next
`DealDealt` of the same batch), and returns the rows that the append writes in its own
transaction (`infra.event_store.ProjectionRows`).
`rebuild` recomputes all four from the log with the same pure functions, so a
rebuilt projection equals the live one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import asyncpg
import msgspec
from msgspec import UNSET, UnsetType

from domain import table
from domain.cards import Card
from domain.commands import Declaration
from domain.deal import DealState
from domain.events import (
    Announced,
    DealDealt,
    Dealing,
    DealScored,
    Score,
    SessionFinished,
    SessionStarted,
)
from domain.game_types import GameType, sort_hand
from domain.parties import Party
from domain.rule_set import RuleSet
from domain.seats import Seat
from domain.table import (
    DealingMethod,
    Lineup,
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatTaken,
    SessionAbandoned,
    TableClosed,
    TableCreated,
    TableEvent,
    TableState,
    TableStatus,
    Visibility,
)
from domain.table_view import SeatInfo, seat_infos, table_view
from domain.variants.armut import PovertyView, poverty_view
from domain.variants.schweinchen import sort_shown
from infra.event_store import APPEND_LOCK, EventStore, ProjectionRows
from infra.tables import CODEC

PROJECTION_TABLES = ("table_views", "scoresheets", "deal_archive", "lobby")
"""The tables `rebuild` empties and refills."""

TABLE_CREATED = "table_created"
"""The type of a table stream's first event; other streams are not projected."""


class SheetRow(msgspec.Struct, frozen=True, omit_defaults=True):
    """One deal on the scoresheet: its entries by seat and the totals after it (R10), and
    by seat who played it (everyone who held the seat during the deal, T2.2); its
    ``game_type``, whether it was a ``solo`` and the ``re_seats`` (the soloist alone in a
    solo), public once the deal is scored (R4.3); ``bock`` marks a Bock deal, counted
    double (V5.6), ``duty_solo`` a duty solo (V6.8); as served, also the version and chain
    head of its `DealScored` (`infra.audit.witness`)."""

    deal_no: int
    dealer: Seat
    entries: tuple[int, ...]
    totals: tuple[int, ...]
    players: Lineup = ((), (), (), ())
    scored_version: int | None = None
    chain_head: str | None = None
    game_type: GameType | None = None
    solo: bool = False
    re_seats: tuple[Seat, ...] = ()
    bock: bool = False
    duty_solo: bool = False


class Scoresheet(msgspec.Struct, frozen=True):
    """A table's scoresheet: one row per deal played so far, 4 columns (seats 0-3).
    ``players`` sit there now; an ``abandoned`` session has no winners (T4.2). ``deals``:
    the session's deals (R1.1: 12; V6.1, V6.6: the counted ones and the duty solos); with
    duty solos (V6.2) ``duty_owed``, the seats that still owe theirs (left out otherwise)."""

    name: str
    players: tuple[str | None, ...]
    deals: int
    rows: tuple[SheetRow, ...]
    totals: tuple[int, ...]
    finished: bool
    winners: tuple[Seat, ...] | None
    abandoned: bool = False
    duty_owed: tuple[Seat, ...] | UnsetType = UNSET


class LobbyOptions(msgspec.Struct, frozen=True):
    """What a table plays with: its turn clock (T3.1), how its deals come about (R2.2) and
    its rule set (`domain.rule_set`: its house rules; left out for RULES.md exactly)."""

    turn_seconds: int | None
    dealing_method: DealingMethod
    rules: RuleSet | UnsetType = UNSET


class LobbyEntry(msgspec.Struct, frozen=True):
    """A table as the lobby shows it: its ``status``, who may join (T1.1), its seats (who
    sits, bot kinds, free, vacant or away), the deal in play (0 before the first) of
    ``deals`` (its session's, V6.6 included), and its options."""

    name: str
    status: TableStatus
    visibility: Visibility
    seats: tuple[SeatInfo, ...]
    deal: int
    deals: int
    options: LobbyOptions


class TrickRecord(msgspec.Struct, frozen=True):
    """A complete trick: who led, the cards in playing order, who won it, its card points."""

    trick_no: int
    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat
    points: int


class DealRecord(msgspec.Struct, frozen=True):
    """Everything about a scored deal, for the archive.

    ``dealing`` holds the revealed seed, the players' entropy and the commitment
    recorded with the deal; ``published_commitment`` is the one published when the
    table was created (None for preset deals). ``players`` sat at the table when the
    deal was scored; ``played_by`` names, by seat, everyone who held the seat during
    the deal (T2.2). ``hands`` are as dealt (R2.2: in the order the seed deals them, so
    that anyone can recompute them); ``sorted_hands`` are the same cards sorted for the
    deal's game type (`domain.game_types.sort_hand`: trumps highest first, R3.1, R5.2-R5.5,
    then the plain suits; the AD first where Schweinchen were shown), for showing them.
    Records archived before it have it after ``doko projections rebuild``.
    ``schweinchen``: the seat that showed both AD (V3.1; left out where nobody did).
    ``poverty``: the Armut offered, its answers and the cards exchanged, public once the
    deal is scored (V4.6; left out where none was offered).
    ``forced``: the seat vorgeführt (V6.7; left out otherwise; a duty solo's score says
    ``duty_solo``).
    """

    table: str
    deal_no: int
    dealer: Seat
    players: tuple[str | None, ...]
    hands: tuple[tuple[Card, ...], ...]
    dealing: Dealing
    published_commitment: str | None
    declarations: tuple[Declaration | None, ...]
    contracts: tuple[GameType | None, ...]
    game_type: GameType
    declarer: Seat | None
    parties: tuple[Party | None, ...]
    marriage_clarified_in: int | None
    tricks: tuple[TrickRecord, ...]
    announcements: tuple[Announced, ...]
    score: Score
    played_by: Lineup = ((), (), (), ())
    sorted_hands: tuple[tuple[Card, ...], ...] = ()
    schweinchen: Seat | UnsetType = UNSET
    poverty: PovertyView | UnsetType = UNSET
    forced: Seat | UnsetType = UNSET


class RebuildResult(msgspec.Struct, frozen=True):
    """What `rebuild` wrote."""

    events: int
    tables: int
    deals: int


def _created(state: TableState) -> table.TableCreated:
    if state.created is None:
        raise ValueError("the table has not been created")
    return state.created


def _names(state: TableState) -> tuple[str | None, ...]:
    return tuple(p.name if p is not None else None for p in state.players)


def public_view(state: TableState) -> bytes:
    """The table as a spectator sees it, as JSON (`domain.table_view.table_view`)."""
    return msgspec.json.encode(table_view(state, None))


def scoresheet_of(state: TableState) -> Scoresheet:
    """R10, R1.3: the scoresheet as played so far, with running totals and the winners."""
    created = _created(state)
    current = state.session
    rows: list[SheetRow] = []
    totals: tuple[int, ...] = (0, 0, 0, 0)
    counted = 0  # R1.2, V6.6: the dealer moves on after a counted deal only
    for index, entries in enumerate(current.sheet):
        totals = tuple(t + e for t, e in zip(totals, entries, strict=True))
        assert current.first_dealer is not None
        dealer = current.first_dealer.after(counted)
        game = current.games[index]
        counted += not game.duty_solo
        rows.append(
            SheetRow(
                index + 1,
                dealer,
                entries,
                totals,
                state.lineups[index],
                game_type=game.game_type,
                solo=game.solo,
                re_seats=game.re_seats,
                bock=game.bock,
                duty_solo=game.duty_solo,
            )
        )
    return Scoresheet(
        name=created.name,
        players=_names(state),
        deals=created.rule_set.all_deals,
        rows=tuple(rows),
        totals=current.totals,
        finished=current.finished,
        winners=current.winners,
        abandoned=state.abandoned,
        duty_owed=current.owed if current.rules.duty_solo else UNSET,
    )


def lobby_entry(state: TableState) -> LobbyEntry:
    """The table as the lobby lists it."""
    created = _created(state)
    current = state.session
    return LobbyEntry(
        name=created.name,
        status=state.status,
        visibility=created.visibility,
        seats=seat_infos(state),
        deal=current.deal.deal_no if current.deal is not None else 0,
        deals=created.rule_set.all_deals,
        options=LobbyOptions(created.turn_seconds, created.dealing_method, created.rules),
    )


LOBBY_EVENTS = (
    TableCreated,
    SeatTaken,
    SeatLeft,
    SeatAway,
    SeatBack,
    TableClosed,
    SessionStarted,
    DealDealt,
    SessionFinished,
    SessionAbandoned,
)
"""The events that change a lobby entry (`lobby_entry` reads nothing else: the table's
options, status, seats and deal number); its row is written, at the version of the last of
them, only when an append holds one."""


SHEET_EVENTS = (
    TableCreated,
    SeatTaken,
    SeatLeft,
    SessionStarted,
    DealScored,
    SessionFinished,
    SessionAbandoned,
)
"""The events that change a scoresheet (`scoresheet_of` reads nothing else); its row is
written, at the version of the last of them, only when an append holds one."""


def scoresheet(state: TableState) -> bytes:
    """`scoresheet_of` as JSON."""
    return msgspec.json.encode(scoresheet_of(state))


def deal_record(deal: DealState, state: TableState) -> DealRecord:
    """The archive record of a scored deal; ``state`` is the table it was played at."""
    scored = deal.score
    if scored is None or deal.game_type is None:
        raise ValueError(f"deal {deal.deal_no} is not scored")
    created = _created(state)
    index = deal.deal_no - 1
    published = created.commitments[index] if index < len(created.commitments) else None
    tricks = tuple(
        TrickRecord(number, t.leader, t.cards, w, t.points)
        for number, (t, w) in enumerate(zip(deal.tricks, deal.winners, strict=True), 1)
    )
    return DealRecord(
        table=created.name,
        deal_no=deal.deal_no,
        dealer=deal.dealer,
        players=_names(state),
        hands=deal.dealt,
        dealing=deal.dealing,
        published_commitment=published,
        declarations=deal.declarations,
        contracts=deal.contracts,
        game_type=deal.game_type,
        declarer=deal.declarer,
        parties=deal.parties,
        marriage_clarified_in=deal.clarified_in,
        tricks=tricks,
        announcements=deal.announcements,
        score=scored.score,
        played_by=state.lineups[index],
        sorted_hands=tuple(
            sort_hand(hand, deal.game_type)
            if deal.schweinchen is None
            else sort_shown(hand, deal.game_type)
            for hand in deal.dealt
        ),
        schweinchen=UNSET if deal.schweinchen is None else deal.schweinchen,
        poverty=UNSET if deal.poverty is None else poverty_view(deal.poverty, None, scored=True),
        forced=UNSET if deal.duty.forced is None else deal.duty.forced,
    )


def apply(state: TableState, events: Sequence[TableEvent]) -> tuple[TableState, list[DealRecord]]:
    """Fold ``events`` onto ``state``; also the record of every deal scored on the way."""
    records: list[DealRecord] = []
    for event in events:
        state = table.evolve(state, event)
        if isinstance(event, DealScored):
            deal = state.session.deal
            assert deal is not None
            records.append(deal_record(deal, state))
    return state, records


_UPSERT_VIEW = """
    INSERT INTO table_views (stream_id, version, view) VALUES ($1, $2, $3::jsonb)
    ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, view = EXCLUDED.view
"""
_UPSERT_SHEET = """
    INSERT INTO scoresheets (stream_id, version, sheet) VALUES ($1, $2, $3::jsonb)
    ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, sheet = EXCLUDED.sheet
"""
_UPSERT_DEAL = """
    INSERT INTO deal_archive (stream_id, deal_no, record) VALUES ($1, $2, $3::jsonb)
    ON CONFLICT (stream_id, deal_no) DO UPDATE SET record = EXCLUDED.record
"""


def _deal_row(stream_id: str, record: DealRecord) -> tuple[str, int, str]:
    return (stream_id, record.deal_no, msgspec.json.encode(record).decode())


def project(state_before: TableState, events: Sequence[TableEvent]) -> ProjectionRows | None:
    """The `infra.tables.Projector` of the three projections: the rows the append writes.

    None for events that are not a table's (nothing to project).
    """
    state, records = apply(state_before, events)
    if not events or state.created is None:
        return None
    deals = tuple([(r.deal_no, msgspec.json.encode(r)) for r in records]) if records else ()
    changed = _last_of(events, SHEET_EVENTS)
    sheet = (changed, scoresheet(state)) if changed else None
    listed = _last_of(events, LOBBY_EVENTS)
    lobby = (listed, msgspec.json.encode(lobby_entry(state))) if listed else None
    return ProjectionRows(public_view(state), sheet, deals, lobby)


def _last_of(events: Sequence[TableEvent], kinds: tuple[type, ...]) -> int:
    """The number (from 1) of the last of ``events`` of one of these kinds; 0 if none."""
    for n in range(len(events), 0, -1):
        if isinstance(events[n - 1], kinds):
            return n
    return 0


class _Stream(msgspec.Struct):
    state: TableState
    version: int
    position: int
    created_at: datetime
    sheet_version: int = 0
    lobby_version: int = 0


_UPSERT_LOBBY = """
    INSERT INTO lobby (stream_id, position, created_at, version, status, public, entry)
    VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
"""


def _lobby_row(stream_id: str, stream: _Stream) -> tuple[str, int, datetime, int, str, bool, str]:
    """The lobby row of a rebuilt table, as the append function writes it (migration 0005)."""
    entry = lobby_entry(stream.state)
    public = entry.visibility is Visibility.PUBLIC
    encoded = msgspec.json.encode(entry).decode()
    return (
        stream_id,
        stream.position,
        stream.created_at,
        stream.lobby_version,
        entry.status,
        public,
        encoded,
    )


async def rebuild(pool: asyncpg.Pool, progress: bool = True, *, page: int = 2000) -> RebuildResult:
    """Empty the projections and recompute them from the whole log, in one transaction.

    Appends wait meanwhile (the transaction holds the append lock), so the result is
    what the live projector would have written. Events are read in pages of ``page``
    through `EventStore.read_all` on a second pool connection: the pool needs two.
    Streams that do not start with ``table_created`` are not tables and are skipped.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    store = EventStore(pool)
    streams: dict[str, _Stream] = {}
    skipped: set[str] = set()
    events = deals = 0
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", APPEND_LOCK)
        await conn.execute(f"TRUNCATE {', '.join(PROJECTION_TABLES)}")
        total = await conn.fetchval("SELECT count(*) FROM events")
        bar = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            disable=not progress,
        )
        with bar:
            task = bar.add_task("rebuilding projections", total=total)
            position = 0
            while batch := await store.read_all(position, page):
                rows: list[tuple[str, int, str]] = []
                for stored in batch:
                    stream_id = stored.stream_id
                    current = streams.get(stream_id)
                    if current is None:
                        if stream_id in skipped or stored.type != TABLE_CREATED:
                            skipped.add(stream_id)
                            continue
                        current = streams[stream_id] = _Stream(
                            TableState(), 0, stored.position, stored.recorded_at
                        )
                    event = CODEC.from_stored(stored)
                    current.state, records = apply(current.state, [event])
                    current.version = stored.version
                    if isinstance(event, SHEET_EVENTS):
                        current.sheet_version = stored.version
                    if isinstance(event, LOBBY_EVENTS):
                        current.lobby_version = stored.version
                    rows.extend(_deal_row(stream_id, r) for r in records)
                if rows:
                    await conn.executemany(_UPSERT_DEAL, rows)
                    deals += len(rows)
                events += len(batch)
                position = batch[-1].position
                bar.update(task, advance=len(batch))
        views = [(s, t.version, public_view(t.state).decode()) for s, t in streams.items()]
        sheets = [(s, t.sheet_version, scoresheet(t.state).decode()) for s, t in streams.items()]
        await conn.executemany(_UPSERT_VIEW, views)
        await conn.executemany(_UPSERT_SHEET, sheets)
        await conn.executemany(_UPSERT_LOBBY, [_lobby_row(s, t) for s, t in streams.items()])
    return RebuildResult(events=events, tables=len(streams), deals=deals)
