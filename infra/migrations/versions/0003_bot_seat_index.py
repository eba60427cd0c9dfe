"""An index of the tables that have bot seats, for the bot driver's periodic scan.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Index the ``seat_taken`` events that seat a bot (`service.workers.bots.Bots`)."""
    op.execute(
        "CREATE INDEX events_bot_seats ON events (stream_id)"
        " WHERE type = 'seat_taken' AND coalesce(payload->>'bot', '') <> ''"
    )


def downgrade() -> None:
    """Drop the index."""
    op.execute("DROP INDEX events_bot_seats")
