"""The competition is called a tournament: its read models are renamed to say so.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02

In an event-sourced service an *event* is what the log stores; the competition of several
tables over several rounds was called an event too. It is a *tournament* now, everywhere
(`domain.tournament`, `infra.tournaments`). The log itself is untouched: a tournament's stored
events keep their types (``event_created``, ``event_finished``), which every stored link of
the hash chain covers (`infra.hash_chain`), so old logs verify as they were written.

``event_tables`` -> ``tournament_tables``
    ``event_id`` -> ``tournament_id``; the unique constraint and the primary key keep their
    columns.
``event_standings`` -> ``tournament_standings``
    ``event_id`` -> ``tournament_id``, ``event_version`` -> ``tournament_version``.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RENAMES = (
    ("event_tables", "tournament_tables", (("event_id", "tournament_id"),)),
    (
        "event_standings",
        "tournament_standings",
        (("event_id", "tournament_id"), ("event_version", "tournament_version")),
    ),
)
"""(old table, new table, ((old column, new column), ...))."""


def upgrade() -> None:
    """Rename the tables and their columns."""
    for old, new, columns in RENAMES:
        op.execute(f"ALTER TABLE {old} RENAME TO {new}")
        for before, after in columns:
            op.execute(f"ALTER TABLE {new} RENAME COLUMN {before} TO {after}")


def downgrade() -> None:
    """Give them their old names back."""
    for old, new, columns in RENAMES:
        for before, after in columns:
            op.execute(f"ALTER TABLE {new} RENAME COLUMN {after} TO {before}")
        op.execute(f"ALTER TABLE {new} RENAME TO {old}")
