"""Alembic migrations, run programmatically against a real PostgreSQL."""

from __future__ import annotations

import asyncio

import asyncpg

from infra.migrate import head_revision, upgrade

TABLES = {
    "alembic_version",
    "events",
    "commands",
    "checkpoints",
    "table_views",
    "deal_archive",
    "scoresheets",
    "lobby",
    "signing_keys",
    "idempotency_keys",
    "stream_tickets",
    "table_talk",
    "tournament_tables",
    "tournament_standings",
    "stream_snapshots",
}


async def schema(url: str) -> tuple[set[str], str | None]:
    """The public tables of the database and its Alembic revision."""
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        tables = {row[0] for row in rows}
        revision = None
        if "alembic_version" in tables:
            revision = await connection.fetchval("SELECT version_num FROM alembic_version")
        return tables, revision
    finally:
        await connection.close()


async def test_upgrade_from_empty_and_again_is_a_no_op(empty_db_url: str) -> None:
    assert await schema(empty_db_url) == (set(), None)

    await upgrade(empty_db_url)
    assert await schema(empty_db_url) == (TABLES, head_revision())
    connection = await asyncpg.connect(empty_db_url)
    try:
        await connection.execute("INSERT INTO checkpoints VALUES ('kept', 42)")
        await upgrade(empty_db_url)
        kept = await connection.fetchval("SELECT position FROM checkpoints WHERE name = 'kept'")
    finally:
        await connection.close()
    assert kept == 42
    assert await schema(empty_db_url) == (TABLES, head_revision())


async def test_concurrent_upgrades_take_turns(empty_db_url: str) -> None:
    await asyncio.gather(upgrade(empty_db_url), upgrade(empty_db_url))
    assert await schema(empty_db_url) == (TABLES, head_revision())


async def test_events_are_append_only(pool: asyncpg.Pool) -> None:
    for statement in ("DELETE FROM events", "UPDATE events SET actor = 'x'", "TRUNCATE events"):
        try:
            await pool.execute(statement)
        except asyncpg.RaiseError as refused:
            assert "append-only" in str(refused)
        else:
            raise AssertionError(f"{statement} was allowed")
