"""Events: which tables belong to which event, and the events' standings.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01

An event is a stream of the ``events`` log like a table (`domain.event`, `infra.events`);
these are read models beside it, both rebuildable from the log.

``event_tables``
    One row per table of an event (``table_id``, its stream): the event (``event_id``), the
    round and the table's number in it. Written before the table's stream, so that a table
    of an event is never taken for an ordinary one; whoever serves a table asks here whether
    the secrecy of shared deals (E5.3) applies.
``event_standings``
    One row per event: its standings (`domain.standings.Standings` as JSON), computed from
    the event's stream at ``event_version`` and its tables' logs.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``event_tables`` (with the index finding an event's tables) and
    ``event_standings``."""
    op.execute(
        """
        CREATE TABLE event_tables (
            table_id text    PRIMARY KEY,
            event_id text    NOT NULL,
            round_no integer NOT NULL,
            table_no integer NOT NULL,
            UNIQUE (event_id, round_no, table_no)
        )
        """
    )
    op.execute(
        """
        CREATE TABLE event_standings (
            event_id      text    PRIMARY KEY,
            event_version integer NOT NULL,
            standings     jsonb   NOT NULL
        )
        """
    )


def downgrade() -> None:
    """Drop ``event_standings`` and ``event_tables``."""
    op.execute("DROP TABLE event_standings")
    op.execute("DROP TABLE event_tables")
