"""Chain versions: each event says by which version of the hash chain it was linked.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

``events.chain``
    The chain version of the event's link (`infra.hash_chain`): 1 for every event written
    before this revision (the column's default), 2 for those the service writes now, whose
    link covers ``recorded_at`` and seals the secrets.

``doko_append_batch`` takes two more arrays, one item per append: ``p_recorded_ats``, the
time the caller hashed, stored as the events' ``recorded_at`` (instead of the
transaction's ``now()``, which the caller cannot know before it hashes), and ``p_chains``,
the chain version it linked them by. Everything else is as in revision 0005 (the
commands' ``recorded_at`` stays the transaction's time).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from infra.migrate import revision_module

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SIGNATURE_0005 = str(revision_module("0005_fingerprints_and_lobby.py").SIGNATURE)
SIGNATURE = SIGNATURE_0005.replace(
    "integer[], text[])", "integer[], text[], timestamptz[], integer[])"
)

CHANGES = (
    (
        "    p_deal_records text[]\n) RETURNS TABLE",
        "    p_deal_records text[],\n    p_recorded_ats timestamptz[],\n    p_chains integer[]\n"
        ") RETURNS TABLE",
    ),
    (
        "            causation, recorded_at, hash\n        )",
        "            causation, recorded_at, hash, chain\n        )",
    ),
    (
        "p_causations[v_first + i - 1], v_now,\n               p_hashes[v_first + i - 1]\n",
        "p_causations[v_first + i - 1],\n               p_recorded_ats[k], "
        "p_hashes[v_first + i - 1], p_chains[k]\n",
    ),
)
"""What this revision changes in revision 0005's function, as (old text, new text)."""


def _revision_0005() -> str:
    """The function as revision 0005 created it."""
    return str(revision_module("0005_fingerprints_and_lobby.py").UPGRADE)


def _function() -> str:
    """Revision 0005's function with `CHANGES`."""
    text = _revision_0005()
    for old, new in CHANGES:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def upgrade() -> None:
    """Add ``events.chain`` (1 for what exists); replace ``doko_append_batch``."""
    op.execute(
        "ALTER TABLE events ADD COLUMN chain smallint NOT NULL DEFAULT 1 CHECK (chain IN (1, 2))"
    )
    op.execute(f"DROP FUNCTION {SIGNATURE_0005}")
    op.execute(_function())


def downgrade() -> None:
    """Back to revision 0005's function; drop ``events.chain``."""
    op.execute(f"DROP FUNCTION {SIGNATURE}")
    op.execute(_revision_0005())
    op.execute("ALTER TABLE events DROP COLUMN chain")
