"""``doko_append_batch``: many appends, to one or more streams, in one statement.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29

Every append takes the global append lock (infra.event_store) and holds it until its
commit is flushed, so appends commit one at a time and each pays for its own flush.
``doko_append_batch`` replaces revision 0002's ``doko_append``: it takes a batch of
appends (a process sends the appends that queued up while its previous batch was
being written, see `infra.event_store.EventStore.append`), locks their streams (two-key
advisory locks ``'doko'`` and the stream id's hash, in key order, so batches of
different processes cannot deadlock), then the global lock, and does for each append
in turn what ``doko_append`` did: answer a known command id with its first result,
check the version (against the appends before it in the batch too) and the head hash,
number and insert the events, record the command, write the projection rows and
notify. One commit, one flush and one round trip for the whole batch. A refused append
(conflict, duplicate) does not affect the others; an error (a broken hash chain,
invalid JSON) fails the whole batch, which the caller then retries one append at a
time.

The scoresheet row is written only when the sheet changed; its version is that of the
event that changed it (``p_sheet_offsets``: that event's place among the appended ones).

The public view row (2-4 kB of JSON, rewritten by every append to its table) is kept
inline and uncompressed (``toast_tuple_target``) in half-full pages (``fillfactor``), so
an update stays on its page (a HOT update: no index entry, no TOAST rows to replace).

The notification now carries the stream's version too:
``'<last position>:<last version>:<stream id>'`` (the stream id last: it may contain
colons), so listeners know how far a stream has got without reading it.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from infra.migrate import revision_module

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_LOCK = 0x646F6B6F_6576656E
STREAM_LOCK_CLASS = 0x646F6B6F  # 'doko': the first key of a stream's two-key lock

SIGNATURE_0002 = """doko_append(text, integer, bytea, text, text[], integer[], text[], text[],
    text[], bytea[], text, text, integer[], text[])"""
SIGNATURE = """doko_append_batch(text[], integer[], bytea[], text[], integer[], integer[],
    text[], integer[], text[], text[], text[], bytea[], text[], text[], integer[], integer[],
    integer[], text[])"""

UPGRADE = f"""
CREATE FUNCTION doko_append_batch(
    p_streams text[],
    p_expected integer[],
    p_previous_hashes bytea[],
    p_commands text[],
    p_firsts integer[],
    p_counts integer[],
    p_types text[],
    p_schema_versions integer[],
    p_payloads text[],
    p_actors text[],
    p_causations text[],
    p_hashes bytea[],
    p_views text[],
    p_sheets text[],
    p_sheet_offsets integer[],
    p_deal_items integer[],
    p_deal_nos integer[],
    p_deal_records text[]
) RETURNS TABLE (
    item integer, status text, first_version integer, last_version integer,
    positions bigint[], last_hash bytea
) LANGUAGE plpgsql AS $$
DECLARE
    k integer;
    v_version integer;
    v_head bytea;
    v_last bigint;
    v_first integer;
    v_count integer;
    v_expected integer;
    v_now timestamptz := now();
BEGIN
    PERFORM pg_advisory_xact_lock({STREAM_LOCK_CLASS}, keys.h)
        FROM (SELECT DISTINCT hashtext(s) AS h FROM unnest(p_streams) AS s ORDER BY 1) AS keys;
    PERFORM pg_advisory_xact_lock({APPEND_LOCK});
    FOR k IN 1 .. cardinality(p_streams) LOOP
        IF p_commands[k] IS NOT NULL THEN
            RETURN QUERY
                SELECT k, 'duplicate', c.first_version, c.last_version, c.positions, e.hash
                FROM commands c
                JOIN events e ON e.stream_id = c.stream_id AND e.version = c.last_version
                WHERE c.stream_id = p_streams[k] AND c.command_id = p_commands[k];
            CONTINUE WHEN FOUND;
        END IF;
        v_version := NULL;
        v_head := NULL;
        SELECT e.version, e.hash INTO v_version, v_head
            FROM events e WHERE e.stream_id = p_streams[k] ORDER BY e.version DESC LIMIT 1;
        v_version := coalesce(v_version, 0);
        v_expected := p_expected[k];
        IF v_version <> v_expected THEN
            RETURN QUERY SELECT k, 'conflict', v_version, v_version, NULL::bigint[], v_head;
            CONTINUE;
        END IF;
        IF v_head IS DISTINCT FROM p_previous_hashes[k] AND v_expected > 0 THEN
            RAISE EXCEPTION 'hash chain: stream % version % does not end in the given hash',
                p_streams[k], v_expected;
        END IF;
        v_first := p_firsts[k];
        v_count := p_counts[k];
        SELECT coalesce(max(e.position), 0) INTO v_last FROM events e;
        INSERT INTO events (
            position, stream_id, version, type, schema_version, payload, command_id, actor,
            causation, recorded_at, hash
        )
        SELECT v_last + i, p_streams[k], v_expected + i, p_types[v_first + i - 1],
               p_schema_versions[v_first + i - 1], p_payloads[v_first + i - 1]::jsonb,
               p_commands[k], p_actors[v_first + i - 1], p_causations[v_first + i - 1], v_now,
               p_hashes[v_first + i - 1]
        FROM generate_series(1, v_count) AS i;
        IF p_commands[k] IS NOT NULL THEN
            INSERT INTO commands (stream_id, command_id, first_version, last_version, positions,
                                  recorded_at)
            VALUES (p_streams[k], p_commands[k], v_expected + 1, v_expected + v_count,
                    ARRAY(SELECT v_last + i FROM generate_series(1, v_count) AS i), v_now);
        END IF;
        IF p_views[k] IS NOT NULL THEN
            INSERT INTO table_views (stream_id, version, view)
            VALUES (p_streams[k], v_expected + v_count, p_views[k]::jsonb)
            ON CONFLICT (stream_id) DO UPDATE
                SET version = EXCLUDED.version, view = EXCLUDED.view;
        END IF;
        IF p_sheets[k] IS NOT NULL THEN
            INSERT INTO scoresheets (stream_id, version, sheet)
            VALUES (p_streams[k], v_expected + p_sheet_offsets[k], p_sheets[k]::jsonb)
            ON CONFLICT (stream_id) DO UPDATE
                SET version = EXCLUDED.version, sheet = EXCLUDED.sheet;
        END IF;
        INSERT INTO deal_archive (stream_id, deal_no, record)
        SELECT p_streams[k], d.deal_no, d.record::jsonb
        FROM unnest(p_deal_items, p_deal_nos, p_deal_records) AS d(item, deal_no, record)
        WHERE d.item = k
        ON CONFLICT (stream_id, deal_no) DO UPDATE SET record = EXCLUDED.record;
        PERFORM pg_notify(
            'doko_events',
            (v_last + v_count) || ':' || (v_expected + v_count) || ':' || p_streams[k]
        );
        RETURN QUERY SELECT k, 'appended', v_expected + 1, v_expected + v_count,
            ARRAY(SELECT v_last + i FROM generate_series(1, v_count) AS i),
            p_hashes[v_first + v_count - 1];
    END LOOP;
END
$$
"""


def _revision_0002() -> str:
    """The function as revision 0002 created it (for the downgrade)."""
    return str(revision_module("0002_append_function.py").UPGRADE)


def upgrade() -> None:
    """Replace ``doko_append`` with ``doko_append_batch``; store views for in-page updates."""
    op.execute(f"DROP FUNCTION {SIGNATURE_0002}")
    op.execute(UPGRADE)
    op.execute("ALTER TABLE table_views SET (fillfactor = 50, toast_tuple_target = 8160)")


def downgrade() -> None:
    """Back to revision 0002's ``doko_append`` and the default storage."""
    op.execute("ALTER TABLE table_views RESET (fillfactor, toast_tuple_target)")
    op.execute(f"DROP FUNCTION {SIGNATURE}")
    op.execute(_revision_0002())
