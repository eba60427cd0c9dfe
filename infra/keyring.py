"""The deployment's signing keys, kept in the ``signing_keys`` table (migration 0006).

One key is current (not retired): it signs exports and deal verification reports
(`infra.signing`). A retired key signs nothing new and stays published, so that what it
signed keeps verifying. Every change takes the advisory lock `KEYS_LOCK` in its
transaction, and a unique index allows one current key: processes starting at once end
with one current key.

Where the current key comes from (`Keyring.start`, when a service process starts):

* no key configured: a database key. The first start makes one (its private key is kept
  in the database); a start that finds a configured key current (one whose private key is
  not in the database) retires it and makes a new database key current.
* a key configured (a PEM file: ``doko serve --signing-key FILE`` or
  ``DOKO_SIGNING_KEY_FILE``; for several processes or hosts sharing one key): its public
  key is registered as the current key, retiring the one before; its private key stays
  out of the database. Every process of a deployment must be started the same way.

`rotate` (``doko keys rotate``) retires the current database key and makes a new one; a
configured key is rotated by giving every process a new key file.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from infra.signing import PublicKey, Signer

KEYS_LOCK = 0x646F6B6F_6B657973  # "dokokeys": advisory lock key of every key change

_PUBLIC = "SELECT kid, public_key, created, retired FROM signing_keys"


class NoSigningKey(Exception):
    """No key this process may sign with (see the message)."""


class KeyConfigured(Exception):
    """The current key is configured outside the database: rotate it by configuration."""


def _public(row: asyncpg.Record) -> PublicKey:
    return PublicKey(row[0], bytes(row[1]), row[2], row[3])


async def _current(conn: Any) -> asyncpg.Record | None:
    """The current key's row: kid, public key, created, retired, private key (or NULL)."""
    row: asyncpg.Record | None = await conn.fetchrow(
        "SELECT kid, public_key, created, retired, private_key FROM signing_keys"
        " WHERE retired IS NULL"
    )
    return row


async def _make_current(conn: Any, signer: Signer, *, keep_private: bool) -> None:
    """Retire the current key; make ``signer``'s key current (again, if it was before)."""
    await conn.execute("UPDATE signing_keys SET retired = now() WHERE retired IS NULL")
    await conn.execute(
        "INSERT INTO signing_keys (kid, public_key, private_key) VALUES ($1, $2, $3)"
        " ON CONFLICT (kid) DO UPDATE SET retired = NULL",
        signer.kid,
        signer.public,
        signer.raw() if keep_private else None,
    )


class Keyring:
    """The keys of one process: the configured key, if any, and the database's."""

    def __init__(self, pool: asyncpg.Pool, configured: Signer | None = None) -> None:
        self._pool = pool
        self._configured = configured

    async def start(self) -> PublicKey:
        """Make the key this process signs with the current one (see the module
        docstring); return it."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", KEYS_LOCK)
            current = await _current(conn)
            if self._configured is not None:
                if current is None or current[0] != self._configured.kid:
                    await _make_current(conn, self._configured, keep_private=False)
            elif current is None or current[4] is None:
                await _make_current(conn, Signer.generate(), keep_private=True)
            row = await _current(conn)
        assert row is not None
        return _public(row)

    async def signer(self) -> Signer:
        """The key to sign with now: the configured one, else the current database key
        (made on first use). Raises `NoSigningKey` when the configured key is not one of
        the deployment's keys, or the current key is configured elsewhere."""
        if self._configured is not None:
            kid = self._configured.kid
            if await self._pool.fetchval("SELECT 1 FROM signing_keys WHERE kid = $1", kid):
                return self._configured
            raise NoSigningKey(
                f"the configured key {kid} is not one of this deployment's keys "
                "(a service started with it registers it)"
            )
        current = await _current(self._pool)
        if current is None:
            await self.start()
            current = await _current(self._pool)
        if current is None or current[4] is None:
            raise NoSigningKey(
                "the current signing key is configured outside the database: "
                "sign with that key file"
            )
        return Signer.from_raw(bytes(current[4]))

    async def keys(self) -> list[PublicKey]:
        """Every public key, current and retired, oldest first."""
        return [_public(row) for row in await self._pool.fetch(f"{_PUBLIC} ORDER BY created, kid")]


async def rotate(pool: asyncpg.Pool) -> tuple[PublicKey | None, PublicKey]:
    """Retire the current database key and make a new one current: (retired, new).

    Raises `KeyConfigured` when the current key was given by configuration."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", KEYS_LOCK)
        current = await _current(conn)
        if current is not None and current[4] is None:
            raise KeyConfigured(
                f"the current key {current[0]} is given to the service by configuration: "
                "give every service process a new key file instead"
            )
        await _make_current(conn, Signer.generate(), keep_private=True)
        new = await _current(conn)
        old = (
            await conn.fetchrow(f"{_PUBLIC} WHERE kid = $1", current[0])
            if current is not None
            else None
        )
    assert new is not None
    return (_public(old) if old is not None else None), _public(new)
