"""Snapshots of streams and a tournament's standings, written in the append's transaction.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02

``stream_snapshots``
    One row per stream whose kind keeps snapshots (`infra.streams.Kind.snapshot`; the
    tournaments): ``state`` is the stream's state at ``version`` as the kind encodes it
    (its shape tag first, so that a state of another shape is read as none). The command
    service writes it with an append that reaches a multiple of the kind's interval, and
    loads a stream it has not cached from it and the events after it, so that a load reads a
    bounded number of events however long the stream is. A read model like the others:
    rebuilt from the log (``doko projections rebuild``), never the truth.

``tournament_standings``
    written in the append's transaction too (`infra.tournaments`: its projector computes them
    from the tournament's own records of its public deals, E6.6), at the append's last
    version and position; before, the service computed them from its tables' logs outside
    the append.

``doko_append_batch`` takes two more arrays, ``p_snapshots`` (one snapshot, or NULL, per
append) and ``p_standings`` (one tournament's standings as JSON, or NULL, per append), stored
at the append's last version. Everything else is as in revision 0009.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from infra.migrate import revision_module

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_0009 = revision_module("0009_chain_versions.py")
SIGNATURE_0009 = str(_0009.SIGNATURE)
SIGNATURE = SIGNATURE_0009.replace(
    "timestamptz[], integer[])", "timestamptz[], integer[], bytea[], text[])"
)

SNAPSHOTS = """
CREATE TABLE stream_snapshots (
    stream_id text    PRIMARY KEY,
    version   integer NOT NULL,
    state     bytea   NOT NULL
)
"""

CHANGES = (
    (
        "    p_chains integer[]\n) RETURNS TABLE",
        "    p_chains integer[],\n    p_snapshots bytea[],\n    p_standings text[]\n"
        ") RETURNS TABLE",
    ),
    (
        "        PERFORM pg_notify(\n",
        "        IF p_snapshots[k] IS NOT NULL THEN\n"
        "            INSERT INTO stream_snapshots (stream_id, version, state)\n"
        "            VALUES (p_streams[k], v_expected + v_count, p_snapshots[k])\n"
        "            ON CONFLICT (stream_id) DO UPDATE\n"
        "                SET version = EXCLUDED.version, state = EXCLUDED.state;\n"
        "        END IF;\n"
        "        IF p_standings[k] IS NOT NULL THEN\n"
        "            INSERT INTO tournament_standings\n"
        "                (tournament_id, tournament_version, log_position, standings)\n"
        "            VALUES (p_streams[k], v_expected + v_count, v_last + v_count,\n"
        "                    p_standings[k]::jsonb)\n"
        "            ON CONFLICT (tournament_id) DO UPDATE\n"
        "                SET tournament_version = EXCLUDED.tournament_version,\n"
        "                    log_position = EXCLUDED.log_position,\n"
        "                    standings = EXCLUDED.standings;\n"
        "        END IF;\n"
        "        PERFORM pg_notify(\n",
    ),
)
"""What this revision changes in revision 0009's function, as (old text, new text)."""


def _function() -> str:
    """Revision 0009's function with `CHANGES`."""
    text = str(_0009._function())
    for old, new in CHANGES:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def upgrade() -> None:
    """Add ``stream_snapshots``; replace ``doko_append_batch``."""
    op.execute(SNAPSHOTS)
    op.execute(f"DROP FUNCTION {SIGNATURE_0009}")
    op.execute(_function())


def downgrade() -> None:
    """Back to revision 0009's function; drop ``stream_snapshots``."""
    op.execute(f"DROP FUNCTION {SIGNATURE}")
    op.execute(str(_0009._function()))
    op.execute("DROP TABLE stream_snapshots")
