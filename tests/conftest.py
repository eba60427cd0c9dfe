"""Shared fixtures: one PostgreSQL server per session, a fresh migrated database per test module.

The server comes from :func:`infra.database.server_url_for_tests` (``DOKO_TEST_DATABASE_URL``,
else a Docker container, else embedded PostgreSQL in a temporary folder); it is only started
when a test asks for a database. Databases are named ``doko_test_<pid>_<n>`` so that several
test runs can share one server, and are dropped afterwards (PostgreSQL 13+, CREATEDB needed).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import coverage
import pytest

from infra.database import server_url_for_tests, with_database
from infra.key_folder import KEY_DIR_VARIABLE
from infra.migrate import upgrade

_numbers = itertools.count(1)


async def _admin(server_url: str, statement: str) -> None:
    """Run one statement on the server's maintenance database."""
    connection = await asyncpg.connect(server_url)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@asynccontextmanager
async def _fresh_database(server_url: str) -> AsyncIterator[str]:
    """Create an empty database on the server, yield its URL, drop it afterwards."""
    name = f"doko_test_{os.getpid()}_{next(_numbers)}"
    await _admin(server_url, f'CREATE DATABASE "{name}"')
    try:
        yield with_database(server_url, name)
    finally:
        await _admin(server_url, f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own, which names the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules that stay on one worker (marked ``xdist_group``: their fixtures play whole
    sessions) go first, each in its order, then the single tests marked ``long``: the workers
    start on the longest work and finish on the short tests, instead of one worker playing a
    long test while the other waits. Every worker collects the same order (the scheduler
    needs that).

    Under ``--dist loadgroup`` pytest-xdist keeps a group on one worker by the ``@group``
    suffix it gives the node ids; a pytest that ignores it (pytest 9 with pytest-xdist 3.8)
    would spread the groups and play their sessions once per worker: refused here."""
    grouped = [item for item in items if item.get_closest_marker("xdist_group")]
    if getattr(config.option, "loadgroup", False):
        lost = [item.nodeid for item in grouped if "@" not in item.nodeid]
        assert not lost, f"pytest-xdist could not group these (check the versions): {lost[:3]}"
    items.sort(
        key=lambda item: (
            item.get_closest_marker("xdist_group") is None,
            item.get_closest_marker("long") is None,
        )
    )


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """In a pytest-xdist worker, coverage is pytest-cov's worker collector alone, started after
    this: the collectors already running are stopped. A worker had two more (one that
    pytest-cov starts from the worker's command line, one that coverage's ``patch =
    ["subprocess"]`` starts in every Python subprocess), and pausing pytest-cov's collector
    for a test marked ``no_cover`` handed the tracing to them: the test ran traced anyway
    (`tests/service/test_house_rules.py` marked so: 53 s alone, 150 s in one worker)."""
    if not hasattr(session.config, "workerinput"):
        return
    while (running := coverage.Coverage.current()) is not None:
        running.stop()


@pytest.fixture(scope="session", autouse=True)
def key_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The key folder of every service, ``doko`` command and subprocess of the session
    (`infra.key_folder`): private keys go to a temporary folder, not the user's."""
    path = tmp_path_factory.mktemp("keys")
    os.environ[KEY_DIR_VARIABLE] = str(path)
    return path


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """URL of the PostgreSQL server used by the whole test session."""
    with server_url_for_tests() as url:
        yield url


@pytest.fixture(scope="module")
async def db_url(pg_server_url: str) -> AsyncIterator[str]:
    """URL of a fresh database, migrated to head, shared by the tests of one module."""
    async with _fresh_database(pg_server_url) as url:
        await upgrade(url)
        yield url


@pytest.fixture
async def own_db_url(pg_server_url: str) -> AsyncIterator[str]:
    """URL of a fresh database, migrated to head, for one test alone (one that changes what
    the module's other tests would see)."""
    async with _fresh_database(pg_server_url) as url:
        await upgrade(url)
        yield url


@pytest.fixture
async def empty_db_url(pg_server_url: str) -> AsyncIterator[str]:
    """URL of a fresh database with no schema at all, for one test."""
    async with _fresh_database(pg_server_url) as url:
        yield url


@pytest.fixture(scope="module")
async def pool(db_url: str) -> AsyncIterator[asyncpg.Pool]:
    """An asyncpg pool on the module's database."""
    async with asyncpg.create_pool(db_url, min_size=1, max_size=8) as pool:
        yield pool
