"""The append as one statement: ``doko_append`` (lock, checks, insert, notify, projections).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29

One round trip per append keeps the append lock (see infra.event_store) held for the
shortest time: the function takes the lock, answers a known command id with its first
result, checks the stream's version and head hash, numbers and inserts the events,
records the command, notifies listeners and upserts the projection rows given with the
events, all in the caller's transaction (a single statement is a transaction of its own).
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_LOCK = 0x646F6B6F_6576656E

UPGRADE = f"""
CREATE FUNCTION doko_append(
    p_stream text,
    p_expected integer,
    p_previous_hash bytea,
    p_command text,
    p_types text[],
    p_schema_versions integer[],
    p_payloads text[],
    p_actors text[],
    p_causations text[],
    p_hashes bytea[],
    p_view text,
    p_sheet text,
    p_deal_nos integer[],
    p_deal_records text[]
) RETURNS TABLE (
    status text, first_version integer, last_version integer, positions bigint[],
    last_hash bytea
) LANGUAGE plpgsql AS $$
DECLARE
    v_version integer;
    v_head bytea;
    v_last bigint;
    v_count integer := cardinality(p_types);
    v_now timestamptz := now();
BEGIN
    PERFORM pg_advisory_xact_lock({APPEND_LOCK});
    IF p_command IS NOT NULL THEN
        RETURN QUERY
            SELECT 'duplicate', c.first_version, c.last_version, c.positions, e.hash
            FROM commands c
            JOIN events e ON e.stream_id = c.stream_id AND e.version = c.last_version
            WHERE c.stream_id = p_stream AND c.command_id = p_command;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    SELECT e.version, e.hash INTO v_version, v_head
        FROM events e WHERE e.stream_id = p_stream ORDER BY e.version DESC LIMIT 1;
    v_version := coalesce(v_version, 0);
    IF v_version <> p_expected THEN
        RETURN QUERY SELECT 'conflict', v_version, v_version, NULL::bigint[], v_head;
        RETURN;
    END IF;
    IF v_head IS DISTINCT FROM p_previous_hash AND p_expected > 0 THEN
        RAISE EXCEPTION 'hash chain: stream % version % does not end in the given hash',
            p_stream, p_expected;
    END IF;
    SELECT coalesce(max(e.position), 0) INTO v_last FROM events e;
    INSERT INTO events (
        position, stream_id, version, type, schema_version, payload, command_id, actor,
        causation, recorded_at, hash
    )
    SELECT v_last + i, p_stream, p_expected + i, p_types[i], p_schema_versions[i],
           p_payloads[i]::jsonb, p_command, p_actors[i], p_causations[i], v_now, p_hashes[i]
    FROM generate_series(1, v_count) AS i;
    IF p_command IS NOT NULL THEN
        INSERT INTO commands (stream_id, command_id, first_version, last_version, positions,
                              recorded_at)
        VALUES (p_stream, p_command, p_expected + 1, p_expected + v_count,
                ARRAY(SELECT v_last + i FROM generate_series(1, v_count) AS i), v_now);
    END IF;
    PERFORM pg_notify('doko_events', p_stream || ':' || (v_last + v_count));
    IF p_view IS NOT NULL THEN
        INSERT INTO table_views (stream_id, version, view)
        VALUES (p_stream, p_expected + v_count, p_view::jsonb)
        ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, view = EXCLUDED.view;
    END IF;
    IF p_sheet IS NOT NULL THEN
        INSERT INTO scoresheets (stream_id, version, sheet)
        VALUES (p_stream, p_expected + v_count, p_sheet::jsonb)
        ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, sheet = EXCLUDED.sheet;
    END IF;
    IF cardinality(p_deal_nos) > 0 THEN
        INSERT INTO deal_archive (stream_id, deal_no, record)
        SELECT p_stream, d.deal_no, d.record::jsonb
        FROM unnest(p_deal_nos, p_deal_records) AS d(deal_no, record)
        ON CONFLICT (stream_id, deal_no) DO UPDATE SET record = EXCLUDED.record;
    END IF;
    RETURN QUERY SELECT 'appended', p_expected + 1, p_expected + v_count,
        ARRAY(SELECT v_last + i FROM generate_series(1, v_count) AS i), p_hashes[v_count];
END
$$
"""

DOWNGRADE = """
DROP FUNCTION doko_append(text, integer, bytea, text, text[], integer[], text[], text[], text[],
    bytea[], text, text, integer[], text[])
"""


def upgrade() -> None:
    """Create ``doko_append``."""
    op.execute(UPGRADE)


def downgrade() -> None:
    """Drop ``doko_append``."""
    op.execute(DOWNGRADE)
