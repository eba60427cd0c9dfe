"""``doko_append`` holds the global append lock only to number, insert and announce events.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29

The global lock (infra.event_store) is held from the moment it is taken until the
transaction's commit is flushed, so appends commit one at a time and the time a
holder spends under it caps the append rate. Before this revision everything ran
under it. Now the function first takes the stream's own lock (a two-key advisory
lock: ``'doko'`` and the stream id's hash) and, holding only that, answers a known
command id, checks the version and head hash and writes the projection rows. Only
then does it take the global lock to number the events, insert them with the
command record and notify. Appends to one stream still take turns from the start;
appends to different streams overlap everywhere but in the numbering and the commit.

The scoresheet row is written only when the sheet changed; its version is that of the
event that changed it (``p_sheet_offset``: that event's place among the appended ones).

The public view row (2-4 kB of JSON, rewritten by every append to its table) is kept
inline and uncompressed (``toast_tuple_target``) in half-full pages (``fillfactor``), so
an update stays on its page (a HOT update: no index entry, no TOAST rows to replace).

The notification now carries the stream's version too:
``'<last position>:<last version>:<stream id>'`` (the stream id last: it may contain
colons), so listeners know how far a stream has got without reading it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_LOCK = 0x646F6B6F_6576656E
STREAM_LOCK_CLASS = 0x646F6B6F  # 'doko': the first key of a stream's two-key lock

SIGNATURE_0002 = """doko_append(text, integer, bytea, text, text[], integer[], text[], text[],
    text[], bytea[], text, text, integer[], text[])"""
SIGNATURE = """doko_append(text, integer, bytea, text, text[], integer[], text[], text[],
    text[], bytea[], text, text, integer, integer[], text[])"""

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
    p_sheet_offset integer,
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
    PERFORM pg_advisory_xact_lock({STREAM_LOCK_CLASS}, hashtext(p_stream));
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
    IF p_view IS NOT NULL THEN
        INSERT INTO table_views (stream_id, version, view)
        VALUES (p_stream, p_expected + v_count, p_view::jsonb)
        ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, view = EXCLUDED.view;
    END IF;
    IF p_sheet IS NOT NULL THEN
        INSERT INTO scoresheets (stream_id, version, sheet)
        VALUES (p_stream, p_expected + p_sheet_offset, p_sheet::jsonb)
        ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, sheet = EXCLUDED.sheet;
    END IF;
    IF cardinality(p_deal_nos) > 0 THEN
        INSERT INTO deal_archive (stream_id, deal_no, record)
        SELECT p_stream, d.deal_no, d.record::jsonb
        FROM unnest(p_deal_nos, p_deal_records) AS d(deal_no, record)
        ON CONFLICT (stream_id, deal_no) DO UPDATE SET record = EXCLUDED.record;
    END IF;
    PERFORM pg_advisory_xact_lock({APPEND_LOCK});
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
    PERFORM pg_notify(
        'doko_events', (v_last + v_count) || ':' || (p_expected + v_count) || ':' || p_stream
    );
    RETURN QUERY SELECT 'appended', p_expected + 1, p_expected + v_count,
        ARRAY(SELECT v_last + i FROM generate_series(1, v_count) AS i), p_hashes[v_count];
END
$$
"""


def _revision_0002() -> str:
    """The function as revision 0002 created it (for the downgrade)."""
    path = Path(__file__).with_name("0002_append_function.py")
    spec = importlib.util.spec_from_file_location("doko_migration_0002", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.UPGRADE)


def upgrade() -> None:
    """Replace ``doko_append`` with the two-lock version; store views for in-page updates."""
    op.execute(f"DROP FUNCTION {SIGNATURE_0002}")
    op.execute(UPGRADE)
    op.execute("ALTER TABLE table_views SET (fillfactor = 50, toast_tuple_target = 8160)")


def downgrade() -> None:
    """Back to revision 0002's ``doko_append`` and the default storage."""
    op.execute("ALTER TABLE table_views RESET (fillfactor, toast_tuple_target)")
    op.execute(f"DROP FUNCTION {SIGNATURE}")
    op.execute(_revision_0002())
