"""The deployment's signing keys.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30

``signing_keys``
    One row per Ed25519 key that ever signed an export or a report (`infra.keyring`):
    ``kid`` (its RFC 7638 thumbprint), the 32-byte ``public_key``, the 32-byte
    ``private_key`` (NULL for a key given to the service by configuration, which stays
    with the operator), ``created`` and ``retired``. The current key is the one not
    retired; a unique partial index allows at most one, so that service processes
    starting at once end with a single current key.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``signing_keys`` and its one-current-key index."""
    op.execute(
        """
        CREATE TABLE signing_keys (
            kid         text        PRIMARY KEY,
            public_key  bytea       NOT NULL CHECK (length(public_key) = 32),
            private_key bytea       CHECK (length(private_key) = 32),
            created     timestamptz NOT NULL DEFAULT now(),
            retired     timestamptz
        )
        """
    )
    op.execute(
        "CREATE UNIQUE INDEX signing_keys_one_current ON signing_keys ((retired IS NULL))"
        " WHERE retired IS NULL"
    )


def downgrade() -> None:
    """Drop ``signing_keys``."""
    op.execute("DROP TABLE signing_keys")
