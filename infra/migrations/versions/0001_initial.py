"""Initial schema: event log, command results, checkpoints and projection tables.

Revision ID: 0001
Revises:
Create Date: 2025-11-29

``events`` is append-only: the trigger ``events_append_only`` refuses UPDATE, DELETE and TRUNCATE.
Whoever owns the table can still switch it off on purpose (tests that simulate tampering run
``ALTER TABLE events DISABLE TRIGGER events_append_only``); the hash chain (infra.hash_chain)
catches whatever slips past.

One command may append several events, so idempotency is kept in ``commands``: one row per
(stream, command id) holding the result of its first append. ``events.command_id`` repeats the id on
every event of the batch, for auditing only.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UPGRADE = [
    """
    CREATE TABLE events (
        position       bigint      NOT NULL CHECK (position >= 1),
        stream_id      text        NOT NULL,
        version        integer     NOT NULL CHECK (version >= 1),
        type           text        NOT NULL,
        schema_version integer     NOT NULL,
        payload        jsonb       NOT NULL,
        command_id     text,
        actor          text,
        causation      text,
        recorded_at    timestamptz NOT NULL DEFAULT now(),
        hash           bytea       NOT NULL CHECK (octet_length(hash) = 32),
        PRIMARY KEY (stream_id, version),
        CONSTRAINT events_position_key UNIQUE (position)
    )
    """,
    """
    CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'events are append-only: % refused', TG_OP;
    END
    $$
    """,
    """
    CREATE TRIGGER events_append_only
        BEFORE UPDATE OR DELETE OR TRUNCATE ON events
        FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()
    """,
    """
    CREATE TABLE commands (
        stream_id     text        NOT NULL,
        command_id    text        NOT NULL,
        first_version integer     NOT NULL,
        last_version  integer     NOT NULL,
        positions     bigint[]    NOT NULL,
        recorded_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (stream_id, command_id)
    )
    """,
    """
    CREATE TABLE checkpoints (
        name     text   PRIMARY KEY,
        position bigint NOT NULL
    )
    """,
    """
    CREATE TABLE table_views (
        stream_id text    PRIMARY KEY,
        version   integer NOT NULL,
        view      jsonb   NOT NULL
    )
    """,
    """
    CREATE TABLE deal_archive (
        stream_id text    NOT NULL,
        deal_no   integer NOT NULL,
        record    jsonb   NOT NULL,
        PRIMARY KEY (stream_id, deal_no)
    )
    """,
    """
    CREATE TABLE scoresheets (
        stream_id text    PRIMARY KEY,
        version   integer NOT NULL,
        sheet     jsonb   NOT NULL
    )
    """,
]

DOWNGRADE = [
    "DROP TABLE scoresheets",
    "DROP TABLE deal_archive",
    "DROP TABLE table_views",
    "DROP TABLE checkpoints",
    "DROP TABLE commands",
    "DROP TABLE events",
    "DROP FUNCTION events_append_only()",
]


def upgrade() -> None:
    """Create the initial schema."""
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    """Drop the initial schema."""
    for statement in DOWNGRADE:
        op.execute(statement)
