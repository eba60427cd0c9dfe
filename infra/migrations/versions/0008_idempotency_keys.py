"""Idempotency keys of every unsafe request.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01

``idempotency_keys``
    One row per Idempotency-Key a client sent with a POST or a DELETE (`infra.idempotency`):
    ``key_id``, the SHA-256 of the key within its scope (the credential it came with, see
    `service.edge.idempotency`), never the key itself; ``fingerprint``, the SHA-256 of the
    request it was first used for (method, path, canonical body); ``command_id``, the id the
    request's appends carry (``commands``), so that a request run again writes nothing;
    ``salt``, random, with the request's own secrets the input of the key that seals the
    first answer and derives the credentials it issued; ``answer``, that first answer,
    sealed (AES-GCM), or NULL while it is not known; ``leased_until``, until when the run
    that holds the key counts as running; ``expires_at``, when the key is forgotten (rows
    past it are purged and may be claimed again).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``idempotency_keys`` and the index its purge uses."""
    op.execute(
        """
        CREATE TABLE idempotency_keys (
            key_id       bytea       PRIMARY KEY CHECK (length(key_id) = 32),
            fingerprint  bytea       NOT NULL CHECK (length(fingerprint) = 32),
            command_id   text        NOT NULL,
            salt         bytea       NOT NULL CHECK (length(salt) = 32),
            answer       bytea,
            leased_until timestamptz NOT NULL,
            expires_at   timestamptz NOT NULL
        )
        """
    )
    op.execute("CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)")


def downgrade() -> None:
    """Drop ``idempotency_keys``."""
    op.execute("DROP TABLE idempotency_keys")
