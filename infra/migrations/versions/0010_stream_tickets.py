"""Stream tickets: single-use, short-lived permissions to open a table's stream.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

``stream_tickets``
    One row per ticket issued and not used yet (`service.edge.tickets`): the SHA-256
    ``ticket_hash`` of the ticket (never the ticket), the table (``stream_id``) whose
    stream it opens, the SHA-256 ``credential_hash`` of the credential it was obtained with
    (empty: none, at a public table) and when it expires. Using a ticket deletes its row,
    so whichever service process sees it first opens the stream, once; expired rows are
    deleted whenever a ticket is issued.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``stream_tickets`` and the index that finds expired tickets."""
    op.execute(
        """
        CREATE TABLE stream_tickets (
            ticket_hash     text        PRIMARY KEY,
            stream_id       text        NOT NULL,
            credential_hash text        NOT NULL,
            expires_at      timestamptz NOT NULL
        )
        """
    )
    op.execute("CREATE INDEX stream_tickets_expiry ON stream_tickets (expires_at)")


def downgrade() -> None:
    """Drop ``stream_tickets``."""
    op.execute("DROP TABLE stream_tickets")
