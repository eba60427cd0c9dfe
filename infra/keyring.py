"""The deployment's signing keys: public keys and their validity in the ``signing_keys``
table (migrations 0006, 0007), private keys apart from the database.

One key is current (not retired): it signs exports and deal verification reports
(`infra.signing`). A retired key signs nothing new and stays published, so that what it
signed before its retirement keeps verifying; a retired key is never current again. A key
revoked from a time on (`revoke`, its private key was or may have been stolen then) is
refused for what is dated from then, and flagged for what is dated before. Every change
takes the advisory lock `KEYS_LOCK` in its transaction, and a unique index allows one
current key: processes starting at once end with one current key.

No private key is in the database, so that reading it is not enough to sign.
Where the current key comes from (`Keyring.start`, when a service process starts):

* no key configured: a key of the key folder (`infra.key_folder`). The first start makes
  one and keeps its private key in the folder; a start that finds a configured key
  current retires it and makes a folder key current. A process whose folder lacks the
  current folder key's file (another host's folder) changes nothing and cannot sign.
* a key configured (a PEM file: ``doko serve --signing-key FILE`` or
  ``DOKO_SIGNING_KEY_FILE``; for several processes or hosts sharing one key): its public
  key is registered as the current key (``configured``), retiring the one before,
  unless it was retired or revoked before; its private key stays with the operator.
  Every process of a deployment must be started the same way.

`rotate` (``doko keys rotate``) retires the current folder key (its file is deleted) and
makes a new one; a configured key is rotated by giving every process a new key file.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import asyncpg

from infra.key_folder import KeyFolder
from infra.signing import PublicKey, Signer

KEYS_LOCK = 0x646F6B6F_6B657973  # "dokokeys": advisory lock key of every key change

log = logging.getLogger("doko.keys")

_COLUMNS = "kid, public_key, created, retired, revoked_from, configured"


class NoSigningKey(Exception):
    """No key this process may sign with (see the message)."""


class KeyConfigured(Exception):
    """The current key is configured outside the database: rotate it by configuration."""


class UnknownKey(LookupError):
    """No key of the deployment has this id."""


def _public(row: asyncpg.Record) -> PublicKey:
    return PublicKey(
        row["kid"], bytes(row["public_key"]), row["created"], row["retired"], row["revoked_from"]
    )


async def _row(conn: Any, where: str, *arguments: object) -> asyncpg.Record | None:
    row: asyncpg.Record | None = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM signing_keys WHERE {where}", *arguments
    )
    return row


async def _current(conn: Any) -> asyncpg.Record | None:
    """The current key's row."""
    return await _row(conn, "retired IS NULL")


async def _retire_current(conn: Any) -> str | None:
    """Retire the current key; its id. Its file is deleted once the transaction has
    committed (`_forget`): a transaction rolled back leaves the key current."""
    kid: str | None = await conn.fetchval(
        "UPDATE signing_keys SET retired = now() WHERE retired IS NULL RETURNING kid"
    )
    return kid


async def _make_current(
    conn: Any, signer: Signer, folder: KeyFolder, *, configured: bool
) -> str | None:
    """Retire the current key; register ``signer``'s key as current (a new folder key is
    kept in ``folder`` first). The retired key's id."""
    retired = await _retire_current(conn)
    if not configured:
        folder.write(signer)
    await conn.execute(
        "INSERT INTO signing_keys (kid, public_key, configured) VALUES ($1, $2, $3)",
        signer.kid,
        signer.public,
        configured,
    )
    return retired


def _forget(folder: KeyFolder, retired: str | None) -> None:
    """Delete a retired key's private key from ``folder`` (after the commit)."""
    if retired is not None:
        folder.remove(retired)


class Keyring:
    """The keys of one process: the configured key, if any, and those of its key folder."""

    def __init__(
        self, pool: asyncpg.Pool, configured: Signer | None = None, folder: KeyFolder | None = None
    ) -> None:
        self._pool = pool
        self._configured = configured
        self._folder = folder or KeyFolder()

    async def start(self) -> PublicKey | None:
        """Make the key this process signs with the current one (see the module
        docstring); return the current key. Logs a warning when this process cannot sign."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", KEYS_LOCK)
            current = await _current(conn)
            retired: str | None = None
            configured = self._configured
            if configured is not None:
                if await _row(conn, "kid = $1", configured.kid) is None:
                    retired = await _make_current(conn, configured, self._folder, configured=True)
            elif current is None or current["configured"]:
                new = Signer.generate()
                retired = await _make_current(conn, new, self._folder, configured=False)
            now = await _current(conn)
        _forget(self._folder, retired)
        try:
            await self.signer()
        except NoSigningKey as error:
            log.warning("this process cannot sign exports and reports: %s", error)
        return _public(now) if now is not None else None

    async def signer(self) -> Signer:
        """The key to sign with now: the configured one, else the current folder key (made
        on first use). Raises `NoSigningKey` when the configured key is not the current
        one, or the current key is configured elsewhere or kept in another folder."""
        if self._configured is not None:
            kid = self._configured.kid
            known = await _row(self._pool, "kid = $1", kid)
            if known is None:
                raise NoSigningKey(
                    f"the configured key {kid} is not one of this deployment's keys "
                    "(a service started with it registers it)"
                )
            if known["retired"] is not None:
                raise NoSigningKey(
                    f"the configured key {kid} is {_public(known).status} (since "
                    f"{known['retired']:%Y-%m-%d %H:%M:%S %Z}): give every process a new key file"
                )
            return self._configured
        current = await _current(self._pool)
        if current is None:
            await self.start()
            current = await _current(self._pool)
        if current is None or current["configured"]:
            raise NoSigningKey(
                "the current signing key is configured outside the database: "
                "sign with that key file"
            )
        signer = self._folder.read(current["kid"])
        if signer is None:
            raise NoSigningKey(
                f"the current key {current['kid']} is not in the key folder "
                f"{self._folder.path}: give this process the folder that holds it "
                "(--key-dir), or make a new key with `doko keys rotate --key-dir FOLDER`"
            )
        return signer

    async def keys(self) -> list[PublicKey]:
        """Every public key, current, retired and revoked, oldest first."""
        rows = await self._pool.fetch(f"SELECT {_COLUMNS} FROM signing_keys ORDER BY created, kid")
        return [_public(row) for row in rows]


async def rotate(pool: asyncpg.Pool, folder: KeyFolder) -> tuple[PublicKey | None, PublicKey]:
    """Retire the current folder key and make a new one current: (retired, new).

    Raises `KeyConfigured` when the current key was given by configuration."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", KEYS_LOCK)
        current = await _current(conn)
        if current is not None and current["configured"]:
            raise KeyConfigured(
                f"the current key {current[0]} is given to the service by configuration: "
                "give every service process a new key file instead"
            )
        new = Signer.generate()
        retired = await _make_current(conn, new, folder, configured=False)
        old = await _row(conn, "kid = $1", retired) if retired is not None else None
        made = await _row(conn, "kid = $1", new.kid)
    _forget(folder, retired)
    assert made is not None
    return (_public(old) if old is not None else None), _public(made)


async def revoke(
    pool: asyncpg.Pool, folder: KeyFolder, kid: str, compromised_from: datetime
) -> tuple[PublicKey, PublicKey | None]:
    """Mark key ``kid`` compromised from ``compromised_from`` on (an earlier revocation time
    it had stays); a current key is retired too, and a folder key is replaced by a new
    one: (the revoked key, the new current key or None). Raises `UnknownKey`, and
    `ValueError` for a time in the future (a key is revoked for what happened)."""
    if compromised_from > datetime.now(UTC):
        raise ValueError(f"{compromised_from.isoformat()} is in the future")
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", KEYS_LOCK)
        row = await _row(conn, "kid = $1", kid)
        if row is None:
            raise UnknownKey(f"no key {kid} in this deployment")
        await conn.execute(
            "UPDATE signing_keys SET revoked_from = LEAST(revoked_from, $2) WHERE kid = $1",
            kid,
            compromised_from,
        )
        new: Signer | None = None
        retired: str | None = None
        if row["retired"] is None:
            if row["configured"]:
                retired = await _retire_current(conn)
            else:
                new = Signer.generate()
                retired = await _make_current(conn, new, folder, configured=False)
        revoked = await _row(conn, "kid = $1", kid)
        made = await _row(conn, "kid = $1", new.kid) if new is not None else None
    _forget(folder, retired)
    assert revoked is not None
    return _public(revoked), (_public(made) if made is not None else None)


class PrivateKeyInDatabase(Exception):
    """The database holds a private key, and no key folder was given to move it to."""


async def move_out_of_database(conn: asyncpg.Connection, folder: KeyFolder | None) -> None:
    """Write the current key's private key, if the database holds it (revision 0006), to
    ``folder``, before migration 0007 drops it; the private keys of retired keys are not
    kept (see that migration). Raises `PrivateKeyInDatabase` without a ``folder``."""
    if not await conn.fetchval(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
        " AND table_name = 'signing_keys' AND column_name = 'private_key'"
    ):
        return
    rows = await conn.fetch(
        "SELECT private_key FROM signing_keys WHERE retired IS NULL AND private_key IS NOT NULL"
    )
    if not rows:
        return
    if folder is None:
        raise PrivateKeyInDatabase(
            "the database holds the current private signing key: move it to the key folder "
            "with `doko db upgrade --key-dir FOLDER` (or start `doko serve` with its folder)"
        )
    for (private,) in rows:
        signer = Signer.from_raw(bytes(private))
        folder.write(signer)
        log.info("moved private key %s out of the database to %s", signer.kid, folder.path)
