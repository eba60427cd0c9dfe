"""Apply doko's Alembic migrations (``infra/migrations``) programmatically, through asyncpg.

Alembic needs a synchronous SQLAlchemy driver (or greenlet, for its asyncio bridge) to talk to a
database, and doko installs neither. So :func:`upgrade` does the database side itself, in one
asyncpg transaction:

1. take a transaction-scoped advisory lock, so concurrent upgrades of one database take turns;
2. read the current revision from ``alembic_version`` (absent on an empty database);
3. if it is not head, let Alembic render the SQL script from there to head in offline mode
   (what ``alembic upgrade <current>:head --sql`` prints, including the ``alembic_version``
   bookkeeping) and execute it; before revision 0007 drops the private keys from the
   database, the current one is written to the key folder
   (`infra.keyring.move_out_of_database`).

Running it again finds head and does nothing. See ``infra/migrations/env.py`` for what this
implies for migration scripts.
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from types import ModuleType

import asyncpg
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from infra.database import plain_url
from infra.key_folder import KeyFolder
from infra.keyring import move_out_of_database

MIGRATIONS = Path(__file__).with_name("migrations")
UPGRADE_LOCK = 0x646F6B6F6D696772  # "dokomigr": advisory lock key that serialises upgrades


def revision_module(filename: str) -> ModuleType:
    """The migration script ``versions/<filename>`` as a module (a later revision's downgrade
    reads the SQL an earlier one created)."""
    path = MIGRATIONS / "versions" / filename
    spec = importlib.util.spec_from_file_location(f"doko_migration_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def alembic_config(output_buffer: io.StringIO | None = None) -> Config:
    """Return the Alembic configuration of ``infra/migrations``, rendering SQL into a buffer."""
    return Config(MIGRATIONS / "alembic.ini", output_buffer=output_buffer)


def head_revision() -> str | None:
    """Return the newest revision id in ``infra/migrations/versions``."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def upgrade_script(current: str | None) -> str:
    """Return the SQL that migrates a database from revision *current* (``None``: empty) to head."""
    buffer = io.StringIO()
    start = f"{current}:" if current else ""
    command.upgrade(alembic_config(buffer), f"{start}head", sql=True)
    return buffer.getvalue()


async def current_revision(connection: asyncpg.Connection) -> str | None:
    """Return the database's revision, or ``None`` if it was never migrated."""
    if await connection.fetchval("SELECT to_regclass('alembic_version')") is None:
        return None
    revision: str | None = await connection.fetchval("SELECT version_num FROM alembic_version")
    return revision


async def upgrade(url: str, keys: KeyFolder | None = None) -> None:
    """Migrate the database at *url* to the newest revision; a no-op when it is already there.
    A private key the database held moves to the key folder ``keys``; without one, such a
    database is not migrated (`infra.keyring.PrivateKeyInDatabase`)."""
    connection = await asyncpg.connect(plain_url(url))
    try:
        async with connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock($1)", UPGRADE_LOCK)
            current = await current_revision(connection)
            if current != head_revision():
                await move_out_of_database(connection, keys)
                await connection.execute(upgrade_script(current))
    finally:
        await connection.close()
