"""The deployment's signing keys: public keys in PostgreSQL, private keys in the key folder;
first start, concurrent starts, rotation, revocation, configured keys, and the move of a
private key out of a database of revision 0006 (each test on its own empty database)."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest
from alembic import command

from infra.key_folder import KeyFolder
from infra.keyring import (
    KeyConfigured,
    Keyring,
    NoSigningKey,
    PrivateKeyInDatabase,
    UnknownKey,
    revoke,
    rotate,
)
from infra.migrate import alembic_config, head_revision, upgrade
from infra.signing import KeyFileError, KeyStatus, Signer
from service.tools.cli import main


@pytest.fixture
async def keys_db(empty_db_url: str) -> AsyncIterator[str]:
    await upgrade(empty_db_url)
    yield empty_db_url


@pytest.fixture
def folder(tmp_path: Path) -> KeyFolder:
    return KeyFolder(tmp_path / "keys")


async def rows(url: str) -> list[tuple[str, bool, bool]]:
    """(kid, configured, current) of every key, oldest first."""
    connection = await asyncpg.connect(url)
    try:
        found = await connection.fetch(
            "SELECT kid, configured, retired IS NULL FROM signing_keys ORDER BY created"
        )
    finally:
        await connection.close()
    return [tuple(r) for r in found]


def kept(folder: KeyFolder) -> set[str]:
    """The key ids whose private keys the folder holds."""
    return {path.stem for path in folder.path.glob("*.pem")}


async def test_the_first_start_makes_one_key_and_later_starts_keep_it(
    keys_db: str, folder: KeyFolder
) -> None:
    async with asyncpg.create_pool(keys_db, min_size=1, max_size=2) as pool:
        first = await Keyring(pool, folder=folder).start()
        again = await Keyring(pool, folder=folder).start()
        signer = await Keyring(pool, folder=folder).signer()

    assert first is not None and first.status is KeyStatus.CURRENT and first.created is not None
    assert again == first
    assert signer.kid == first.kid
    assert await rows(keys_db) == [(first.kid, False, True)]
    assert kept(folder) == {first.kid}
    assert folder.path.stat().st_mode & 0o777 == 0o700
    assert folder.file(first.kid).stat().st_mode & 0o777 == 0o600


async def test_concurrent_first_starts_end_with_one_current_key(
    keys_db: str, folder: KeyFolder
) -> None:
    pools = [await asyncpg.create_pool(keys_db, min_size=1, max_size=1) for _ in range(4)]
    try:
        started = await asyncio.gather(*(Keyring(pool, folder=folder).start() for pool in pools))
    finally:
        await asyncio.gather(*(pool.close() for pool in pools))

    kids = {key.kid for key in started if key is not None}
    assert len(kids) == 1
    assert await rows(keys_db) == [(*kids, False, True)]
    assert kept(folder) == kids


async def test_rotation_retires_the_current_key_for_good_and_keeps_it_published(
    keys_db: str, folder: KeyFolder
) -> None:
    async with asyncpg.create_pool(keys_db, min_size=1, max_size=2) as pool:
        keyring = Keyring(pool, folder=folder)
        first = await keyring.start()
        retired, new = await rotate(pool, folder)
        published = await keyring.keys()
        signer = await keyring.signer()

    assert first is not None and retired is not None and retired.kid == first.kid
    assert retired.status is KeyStatus.RETIRED
    assert new.kid != first.kid and new.status is KeyStatus.CURRENT
    assert [(k.kid, k.status) for k in published] == [
        (first.kid, KeyStatus.RETIRED),
        (new.kid, KeyStatus.CURRENT),
    ]
    assert signer.kid == new.kid
    assert kept(folder) == {new.kid}  # the retired key's private key is gone


async def test_a_process_without_the_current_keys_file_cannot_sign_and_changes_nothing(
    keys_db: str, folder: KeyFolder, tmp_path: Path
) -> None:
    elsewhere = KeyFolder(tmp_path / "another host")
    async with asyncpg.create_pool(keys_db, min_size=1, max_size=2) as pool:
        current = await Keyring(pool, folder=folder).start()
        assert current is not None
        assert await Keyring(pool, folder=elsewhere).start() == current
        with pytest.raises(NoSigningKey, match="is not in the key folder"):
            await Keyring(pool, folder=elsewhere).signer()

    assert await rows(keys_db) == [(current.kid, False, True)]
    assert kept(elsewhere) == set()


async def test_a_configured_key_is_registered_without_its_private_key(
    keys_db: str, folder: KeyFolder
) -> None:
    configured = Signer.generate()
    async with asyncpg.create_pool(keys_db, min_size=1, max_size=2) as pool:
        database_key = await Keyring(pool, folder=folder).start()
        registered = await Keyring(pool, configured, folder).start()
        assert database_key is not None and registered is not None
        assert registered.kid == configured.kid
        assert (await Keyring(pool, configured, folder).signer()) is configured

        # the key is the operator's: it is not rotated here, and a process without it
        # cannot sign for it
        with pytest.raises(KeyConfigured):
            await rotate(pool, folder)
        with pytest.raises(NoSigningKey, match="configured outside the database"):
            await Keyring(pool, folder=folder).signer()
        with pytest.raises(NoSigningKey, match="not one of this deployment's keys"):
            await Keyring(pool, Signer.generate(), folder).signer()

        # a process started without a key file makes a folder key current again, and the
        # retired configured key is not current again when a process starts with it
        replaced = await Keyring(pool, folder=folder).start()
        assert replaced is not None
        assert await Keyring(pool, configured, folder).start() == replaced
        with pytest.raises(NoSigningKey, match="is retired"):
            await Keyring(pool, configured, folder).signer()

    assert await rows(keys_db) == [
        (database_key.kid, False, False),
        (configured.kid, True, False),
        (replaced.kid, False, True),
    ]
    assert kept(folder) == {replaced.kid}


async def test_revoking_a_key_dates_its_compromise_and_replaces_it_if_current(
    keys_db: str, folder: KeyFolder
) -> None:
    since = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    async with asyncpg.create_pool(keys_db, min_size=1, max_size=2) as pool:
        first = await Keyring(pool, folder=folder).start()
        assert first is not None
        revoked, new = await revoke(pool, folder, first.kid, since)
        # a later time does not undo the earlier one
        again, none = await revoke(pool, folder, first.kid, since + timedelta(days=1))
        with pytest.raises(UnknownKey):
            await revoke(pool, folder, "no such key", since)
        with pytest.raises(ValueError, match="in the future"):
            await revoke(pool, folder, first.kid, datetime.now(UTC) + timedelta(hours=1))
        signer = await Keyring(pool, folder=folder).signer()

        configured = Signer.generate()
        await Keyring(pool, configured, folder).start()
        _, after_configured = await revoke(pool, folder, configured.kid, since)
        with pytest.raises(NoSigningKey, match="is revoked"):
            await Keyring(pool, configured, folder).signer()
        # until its processes get a new key file, there is no current key: a process
        # without one makes a folder key when it first signs
        made = await Keyring(pool, folder=folder).signer()
        published = {k.kid: k for k in await Keyring(pool, folder=folder).keys()}

    assert revoked.status is KeyStatus.REVOKED and revoked.revoked_from == since
    assert revoked.retired is not None
    assert again.revoked_from == since and none is None
    assert new is not None and new.status is KeyStatus.CURRENT and signer.kid == new.kid
    assert after_configured is None  # the operator gives the processes a new key file
    assert published[configured.kid].status is KeyStatus.REVOKED
    assert await rows(keys_db) == [
        (first.kid, False, False),
        (new.kid, False, False),
        (configured.kid, True, False),
        (made.kid, False, True),
    ]
    assert kept(folder) == {made.kid}


async def at_revision_0006(url: str) -> None:
    """Migrate an empty database to revision 0006, whose ``signing_keys`` held private keys."""
    buffer = io.StringIO()
    command.upgrade(alembic_config(buffer), "0006", sql=True)
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(buffer.getvalue())
    finally:
        await connection.close()


async def test_a_database_without_a_private_key_needs_no_key_folder(empty_db_url: str) -> None:
    await at_revision_0006(empty_db_url)
    configured = Signer.generate()
    connection = await asyncpg.connect(empty_db_url)
    try:
        await connection.execute(
            "INSERT INTO signing_keys (kid, public_key) VALUES ($1, $2)",
            configured.kid,
            configured.public,
        )
    finally:
        await connection.close()
    await upgrade(empty_db_url)
    assert await rows(empty_db_url) == [(configured.kid, True, True)]


async def test_the_upgrade_moves_the_current_private_key_out_of_the_database(
    empty_db_url: str, folder: KeyFolder
) -> None:
    await at_revision_0006(empty_db_url)
    raw = {name: os.urandom(32) for name in ("retired", "configured", "current")}
    retired, configured, current = (Signer.from_raw(private) for private in raw.values())
    connection = await asyncpg.connect(empty_db_url)
    try:
        for signer, private, gone in (
            (retired, raw["retired"], True),
            (configured, None, True),
            (current, raw["current"], False),
        ):
            await connection.execute(
                "INSERT INTO signing_keys (kid, public_key, private_key, retired)"
                " VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)",
                signer.kid,
                signer.public,
                private,
                gone,
            )
    finally:
        await connection.close()

    # without a key folder, the database is not migrated (the key would be lost)
    with pytest.raises(PrivateKeyInDatabase):
        await upgrade(empty_db_url)
    with pytest.raises(SystemExit):
        await asyncio.to_thread(main, ["keys", "list", "--database-url", empty_db_url])
    options = ["--database-url", empty_db_url, "--key-dir", str(folder.path)]
    assert await asyncio.to_thread(main, ["db", "upgrade", *options]) == 0
    await upgrade(empty_db_url, folder)  # again: nothing more to do

    connection = await asyncpg.connect(empty_db_url)
    try:
        columns = await connection.fetch(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'signing_keys'"
        )
        revision = await connection.fetchval("SELECT version_num FROM alembic_version")
    finally:
        await connection.close()
    assert revision == head_revision()
    assert "private_key" not in {c[0] for c in columns}
    assert kept(folder) == {current.kid}
    assert await rows(empty_db_url) == [
        (retired.kid, False, False),
        (configured.kid, True, False),
        (current.kid, False, True),
    ]
    async with asyncpg.create_pool(empty_db_url, min_size=1, max_size=1) as pool:
        assert (await Keyring(pool, folder=folder).signer()).kid == current.kid


def test_the_key_folder_reads_only_the_key_a_file_is_named_after(folder: KeyFolder) -> None:
    signer, other = Signer.generate(), Signer.generate()
    assert folder.read(signer.kid) is None
    folder.write(signer)
    read = folder.read(signer.kid)
    assert read is not None and read.kid == signer.kid
    folder.file(signer.kid).rename(folder.file(other.kid))
    with pytest.raises(KeyFileError, match=f"holds key {signer.kid}, not {other.kid}"):
        folder.read(other.kid)
    folder.file(signer.kid).mkdir()
    with pytest.raises(KeyFileError, match="cannot read it"):
        folder.read(signer.kid)
    folder.remove(other.kid)
    folder.remove(other.kid)  # already gone: nothing to do
    assert [p.name for p in folder.path.iterdir()] == [f"{signer.kid}.pem"]
