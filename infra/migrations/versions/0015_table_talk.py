"""Table talk: the messages said at a table and its mutes, kept beside the log (T5).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02

``table_talk``
    One row per message said at a table, and per mute or unmute by its host (T5.3), in the
    order they were kept (``talk_id``, one sequence for all tables: a table's talk ids grow,
    with gaps). ``kind`` is ``said``, ``muted`` or ``unmuted``; ``seat`` the speaker's seat
    or the muted one (null: a spectator, the spectators); ``name`` the speaker's; ``text``
    the message (empty for a mute). No event of the log refers to a row: talk is never in
    the hash chain, an export or a deal record (T5.1). Each insert tells the listening
    service processes ``pg_notify('doko_talk', '<stream_id>:<talk_id>')``
    (`infra.talk.CHANNEL`).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``table_talk`` and the index that reads a table's talk in order."""
    op.execute(
        """
        CREATE TABLE table_talk (
            talk_id   bigserial   PRIMARY KEY,
            stream_id text        NOT NULL,
            kind      text        NOT NULL CHECK (kind IN ('said', 'muted', 'unmuted')),
            seat      smallint    CHECK (seat BETWEEN 0 AND 3),
            name      text        NOT NULL DEFAULT '',
            text      text        NOT NULL DEFAULT '',
            sent_at   timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute("CREATE INDEX table_talk_by_table ON table_talk (stream_id, talk_id)")


def downgrade() -> None:
    """Drop ``table_talk``."""
    op.execute("DROP TABLE table_talk")
