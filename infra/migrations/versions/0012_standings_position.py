"""The stored standings say as of which log position they hold (E6).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01

``event_standings.log_position``
    The global position up to which the log was read when the standings were computed: the
    last event of the event's stream or of one of its tables that the standings depend on
    (`infra.events.STANDINGS_TYPES`). A reader serves the row while no such event has a
    later position, and rebuilds it from the log otherwise (`infra.events.Events
    .current_standings`). Rows written before this column existed have 0: rebuilt on their
    first read.
``events_standings``
    A partial index of the table events the standings depend on, by stream and position,
    so that the latest of them is found without reading a table's other events.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STANDINGS_TYPES = "('deal_scored', 'session_finished', 'session_abandoned')"
"""`infra.events.STANDINGS_TYPES` as this revision found them."""


def upgrade() -> None:
    """Add ``event_standings.log_position`` and the index ``events_standings``."""
    op.execute("ALTER TABLE event_standings ADD COLUMN log_position bigint NOT NULL DEFAULT 0")
    op.execute(
        "CREATE INDEX events_standings ON events (stream_id, position) "
        f"WHERE type IN {STANDINGS_TYPES}"
    )


def downgrade() -> None:
    """Drop them."""
    op.execute("DROP INDEX events_standings")
    op.execute("ALTER TABLE event_standings DROP COLUMN log_position")
