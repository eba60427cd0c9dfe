"""Private keys out of the database; keys revoked from a time on.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

``signing_keys.private_key`` is dropped: a reader of the database must not be able to
sign. Before this script runs, `infra.migrate.upgrade` writes the current key's private key
(when the database held it) to the key folder (`infra.keyring.move_out_of_database`), in
the transaction that runs the script: if the script fails, the database keeps the key and
the next upgrade writes the same file again. The private keys of retired keys are dropped
with the column: a retired key signs nothing valid any more (`infra.signing`, Validity),
and a copy of it could only sign back-dated forgeries.

``signing_keys.configured``
    true for a key given to the service by configuration (before: ``private_key`` NULL).
``signing_keys.revoked_from``
    the time from which the key is compromised (``doko keys revoke``), NULL if it is not.

The downgrade brings back an empty ``private_key``: revision 0006 then takes every key for
a configured one, and its service makes a new key on its first start.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``configured`` and ``revoked_from``; drop ``private_key``."""
    op.execute("ALTER TABLE signing_keys ADD COLUMN configured boolean NOT NULL DEFAULT false")
    op.execute("UPDATE signing_keys SET configured = (private_key IS NULL)")
    op.execute("ALTER TABLE signing_keys DROP COLUMN private_key")
    op.execute("ALTER TABLE signing_keys ADD COLUMN revoked_from timestamptz")


def downgrade() -> None:
    """Bring back an empty ``private_key``; drop ``configured`` and ``revoked_from``."""
    op.execute(
        "ALTER TABLE signing_keys ADD COLUMN private_key bytea CHECK (length(private_key) = 32)"
    )
    op.execute("ALTER TABLE signing_keys DROP COLUMN configured")
    op.execute("ALTER TABLE signing_keys DROP COLUMN revoked_from")
