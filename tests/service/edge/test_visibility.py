"""The feed's visibilities (T1.1): only public tables, never another kind of stream."""

from __future__ import annotations

import secrets

import asyncpg

from domain.seats import Seat
from domain.table import CreateTable, Visibility
from domain.tournament import CreateTournament, RegisterPlayer
from infra.event_store import EventStore
from infra.tables import Tables
from infra.tournaments import Tournaments
from service.edge.visibility import Visibilities


async def test_a_public_tournaments_stream_is_no_public_table(pool: asyncpg.Pool) -> None:
    """A tournament's first event has a public ``visibility`` too; its stream (which holds the
    tournament's secret seeds) is still not shown in the feed."""
    tables = Tables(EventStore(pool))
    tournaments = Tournaments(pool, tables)
    tournament_id, table_id = secrets.token_hex(16), secrets.token_hex(16)
    seeds = tuple(secrets.token_bytes(32) for _ in range(12))
    create = CreateTournament("Open night", 1, "d", secrets.token_bytes(32), (seeds,))
    await tournaments.execute(tournament_id, create)
    await tournaments.execute(tournament_id, RegisterPlayer("Ann", "a"))
    await tables.execute(
        table_id, CreateTable("open", Seat.NORTH, seeds, visibility=Visibility.PUBLIC)
    )
    assert await Visibilities(pool).public({tournament_id, table_id}) == {table_id}
