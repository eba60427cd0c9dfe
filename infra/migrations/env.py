r"""Alembic environment for doko: offline (SQL-generating) mode only.

:func:`infra.migrate.upgrade` asks Alembic for the SQL script between the database's current
revision and head (``alembic upgrade <current>:head --sql``) and executes that script itself
through asyncpg, so no synchronous driver and no SQLAlchemy engine are needed. Consequently
migrations must be plain DDL/DML (``op.execute``, ``op.create_table``, ...) that does not read
from the database while running. ``BEGIN``/``COMMIT`` are left out of the script because the
caller runs it inside its own transaction. SQL given to ``op.execute`` is compiled as a SQLAlchemy
``text()`` with the "named" paramstyle: ``%`` needs no escaping, but a colon directly before a
word (``:name``) is taken for a bind parameter and must be written ``\:name``.
"""

from alembic import context

if not context.is_offline_mode():
    raise RuntimeError("doko migrations run through `doko db upgrade` (infra.migrate.upgrade)")

context.configure(
    dialect_name="postgresql",
    dialect_opts={"paramstyle": "named"},
    transactional_ddl=False,
    literal_binds=True,
)
with context.begin_transaction():
    context.run_migrations()
