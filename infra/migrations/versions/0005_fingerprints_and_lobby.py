"""Idempotency keys bound to their request, and the lobby projection.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30

``commands.fingerprint``
    What a command id was first used for (route, seat and canonical body, hashed by the
    caller, see `infra.event_store.EventStore.append`). Appending again with a known
    command id and the same fingerprint answers the first result, as before; with another
    fingerprint the append is refused as ``reused`` and writes nothing. A row without a
    fingerprint (recorded before this revision, or by a caller that gives none) matches
    any request, as before.

``lobby``
    One row per table, written in the append's transaction like the other projections
    (`infra.projections`): ``entry`` is the table's lobby entry as JSON, whose ``status``
    and ``visibility`` fields are copied into columns for the listing's index. Like the
    scoresheet it is written only when it changed, and ``version`` is that of the event that
    changed it (``p_lobby_offsets``: its place among the appended events). ``position``
    and ``created_at`` are those of the table's first event (its creation), so a listing
    ordered by ``position`` is stable while tables are created concurrently: a new table
    always sorts after every table a reader has seen.

``doko_append_batch`` takes three more arrays: ``p_fingerprints`` (one per append),
``p_lobby`` and ``p_lobby_offsets`` (one lobby entry, or NULL, per append, and its offset).
Everything else is as in revision 0004.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from infra.migrate import revision_module

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_LOCK = 0x646F6B6F_6576656E
STREAM_LOCK_CLASS = 0x646F6B6F  # 'doko': the first key of a stream's two-key lock

SIGNATURE_0004 = """doko_append_batch(text[], integer[], bytea[], text[], integer[], integer[],
    text[], integer[], text[], text[], text[], bytea[], text[], text[], integer[], integer[],
    integer[], text[])"""
SIGNATURE = """doko_append_batch(text[], integer[], bytea[], text[], text[], integer[],
    integer[], text[], integer[], text[], text[], text[], bytea[], text[], text[], integer[],
    text[], integer[], integer[], integer[], text[])"""

LOBBY = """
CREATE TABLE lobby (
    stream_id  text        PRIMARY KEY,
    position   bigint      NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    version    integer     NOT NULL,
    status     text        NOT NULL,
    public     boolean     NOT NULL,
    entry      jsonb       NOT NULL
)
"""
LOBBY_INDEX = "CREATE INDEX lobby_listing ON lobby (status, position) WHERE public"

UPGRADE = f"""
CREATE FUNCTION doko_append_batch(
    p_streams text[],
    p_expected integer[],
    p_previous_hashes bytea[],
    p_commands text[],
    p_fingerprints text[],
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
    p_lobby text[],
    p_lobby_offsets integer[],
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
    v_entry jsonb;
    v_now timestamptz := now();
BEGIN
    PERFORM pg_advisory_xact_lock({STREAM_LOCK_CLASS}, keys.h)
        FROM (SELECT DISTINCT hashtext(s) AS h FROM unnest(p_streams) AS s ORDER BY 1) AS keys;
    PERFORM pg_advisory_xact_lock({APPEND_LOCK});
    FOR k IN 1 .. cardinality(p_streams) LOOP
        IF p_commands[k] IS NOT NULL THEN
            RETURN QUERY
                SELECT k,
                       CASE WHEN c.fingerprint IS NULL OR p_fingerprints[k] IS NULL
                                 OR c.fingerprint = p_fingerprints[k]
                            THEN 'duplicate' ELSE 'reused' END,
                       c.first_version, c.last_version, c.positions, e.hash
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
            INSERT INTO commands (stream_id, command_id, fingerprint, first_version,
                                  last_version, positions, recorded_at)
            VALUES (p_streams[k], p_commands[k], p_fingerprints[k], v_expected + 1,
                    v_expected + v_count,
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
        IF p_lobby[k] IS NOT NULL THEN
            v_entry := p_lobby[k]::jsonb;
            INSERT INTO lobby (stream_id, position, created_at, version, status, public, entry)
            SELECT p_streams[k], e.position, e.recorded_at, v_expected + p_lobby_offsets[k],
                   v_entry->>'status', v_entry->>'visibility' = 'public', v_entry
            FROM events e WHERE e.stream_id = p_streams[k] AND e.version = 1
            ON CONFLICT (stream_id) DO UPDATE
                SET version = EXCLUDED.version, status = EXCLUDED.status,
                    public = EXCLUDED.public, entry = EXCLUDED.entry;
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


def _revision_0004() -> str:
    """The function as revision 0004 created it (for the downgrade)."""
    return str(revision_module("0004_stream_locks.py").UPGRADE)


def upgrade() -> None:
    """Add the fingerprint column and the lobby; replace ``doko_append_batch``."""
    op.execute("ALTER TABLE commands ADD COLUMN fingerprint text")
    op.execute(LOBBY)
    op.execute(LOBBY_INDEX)
    op.execute(f"DROP FUNCTION {SIGNATURE_0004}")
    op.execute(UPGRADE)


def downgrade() -> None:
    """Back to revision 0004's function; drop the lobby and the fingerprints."""
    op.execute(f"DROP FUNCTION {SIGNATURE}")
    op.execute(_revision_0004())
    op.execute("DROP TABLE lobby")
    op.execute("ALTER TABLE commands DROP COLUMN fingerprint")
