"""The deployment's signing keys in PostgreSQL: first start, concurrent starts, rotation,
configured keys (each test on its own empty database)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from infra.keyring import KeyConfigured, Keyring, NoSigningKey, rotate
from infra.migrate import upgrade
from infra.signing import KeyStatus, Signer


@pytest.fixture
async def keys_db(empty_db_url: str) -> AsyncIterator[str]:
    await upgrade(empty_db_url)
    yield empty_db_url


async def rows(url: str) -> list[asyncpg.Record]:
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetch(
            "SELECT kid, private_key IS NOT NULL, retired IS NULL FROM signing_keys"
            " ORDER BY created"
        )
    finally:
        await connection.close()


async def test_the_first_start_makes_one_key_and_later_starts_keep_it(keys_db: str) -> None:
    async with asyncpg.create_pool(keys_db, min_size=1, max_size=2) as pool:
        first = await Keyring(pool).start()
        again = await Keyring(pool).start()
        signer = await Keyring(pool).signer()

    assert first.status is KeyStatus.CURRENT and first.created is not None
    assert again == first
    assert signer.kid == first.kid
    assert [tuple(r) for r in await rows(keys_db)] == [(first.kid, True, True)]


async def test_concurrent_first_starts_end_with_one_current_key(keys_db: str) -> None:
    pools = [await asyncpg.create_pool(keys_db, min_size=1, max_size=1) for _ in range(4)]
    try:
        started = await asyncio.gather(*(Keyring(pool).start() for pool in pools))
    finally:
        await asyncio.gather(*(pool.close() for pool in pools))

    assert len({key.kid for key in started}) == 1
    assert [tuple(r) for r in await rows(keys_db)] == [(started[0].kid, True, True)]


async def test_rotation_retires_the_current_key_and_keeps_it_published(keys_db: str) -> None:
    async with asyncpg.create_pool(keys_db, min_size=1, max_size=2) as pool:
        keyring = Keyring(pool)
        first = await keyring.start()
        retired, new = await rotate(pool)
        published = await keyring.keys()
        signer = await keyring.signer()

    assert retired is not None and retired.kid == first.kid
    assert retired.status is KeyStatus.RETIRED
    assert new.kid != first.kid and new.status is KeyStatus.CURRENT
    assert [(k.kid, k.status) for k in published] == [
        (first.kid, KeyStatus.RETIRED),
        (new.kid, KeyStatus.CURRENT),
    ]
    assert signer.kid == new.kid


async def test_a_configured_key_is_registered_without_its_private_key(keys_db: str) -> None:
    configured = Signer.generate()
    async with asyncpg.create_pool(keys_db, min_size=1, max_size=2) as pool:
        database_key = await Keyring(pool).start()
        registered = await Keyring(pool, configured).start()
        assert registered.kid == configured.kid
        assert (await Keyring(pool, configured).signer()) is configured

        # the key is the operator's: it is not rotated here, and a process without it
        # cannot sign for it
        with pytest.raises(KeyConfigured):
            await rotate(pool)
        with pytest.raises(NoSigningKey):
            await Keyring(pool).signer()
        with pytest.raises(NoSigningKey, match="not one of this deployment's keys"):
            await Keyring(pool, Signer.generate()).signer()

        # a process started without a key file makes a database key current again
        replaced = await Keyring(pool).start()

    assert [tuple(r) for r in await rows(keys_db)] == [
        (database_key.kid, True, False),
        (configured.kid, False, False),
        (replaced.kid, True, True),
    ]
    stored = await asyncpg.connect(keys_db)
    try:
        private = await stored.fetchval(
            "SELECT private_key FROM signing_keys WHERE kid = $1", replaced.kid
        )
    finally:
        await stored.close()
    assert Signer.from_raw(private).kid == replaced.kid
