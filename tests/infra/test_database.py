"""Where the PostgreSQL URL comes from, and that asyncpg takes every form we hand out."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from infra.database import (
    UNAVAILABLE,
    database_url,
    default_data_dir,
    docker_available,
    plain_url,
    server_url_for_tests,
    unavailable_sqlstate,
    with_database,
)

SOCKET_URL = "postgresql://postgres:@/postgres?host=/tmp/x/pgdata"


async def test_asyncpg_connects_and_pools_with_the_server_url(pg_server_url: str) -> None:
    connection = await asyncpg.connect(pg_server_url)
    try:
        assert await connection.fetchval("SELECT 1") == 1
    finally:
        await connection.close()
    async with asyncpg.create_pool(pg_server_url, min_size=1, max_size=2) as pool:
        assert await pool.fetchval("SELECT 2") == 2


async def test_with_database_keeps_the_socket_host(db_url: str) -> None:
    connection = await asyncpg.connect(db_url)
    try:
        assert (await connection.fetchval("SELECT current_database()")).startswith("doko_test_")
    finally:
        await connection.close()


def test_url_helpers() -> None:
    assert with_database(SOCKET_URL, "doko_test_1") == (
        "postgresql://postgres:@/doko_test_1?host=/tmp/x/pgdata"
    )
    assert (
        with_database("postgresql://u:p@db:5432/app", "other") == "postgresql://u:p@db:5432/other"
    )
    assert plain_url("postgresql+asyncpg://u@db/app") == "postgresql://u@db/app"
    assert plain_url(SOCKET_URL) == SOCKET_URL


def test_explicit_url_beats_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres+asyncpg://env@db/app")
    assert database_url() == "postgres://env@db/app"
    assert database_url("postgresql://explicit@db/app") == "postgresql://explicit@db/app"


def test_default_data_dir_is_per_user() -> None:
    assert default_data_dir().parts[-2:] == ("doko", "pgdata")


def test_test_server_url_prefers_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOKO_TEST_DATABASE_URL", "postgresql+psycopg://ci@db/ci")
    with server_url_for_tests() as url:
        assert url == "postgresql://ci@db/ci"


class _Ping(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        self.rfile.readline()
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK")


@pytest.fixture
def fake_docker(tmp_path: Path) -> Iterator[str]:
    """A Unix socket answering one Docker ping."""
    path = tmp_path / "docker.sock"
    with socketserver.UnixStreamServer(str(path), _Ping) as server:
        thread = threading.Thread(target=server.handle_request, daemon=True)
        thread.start()
        yield f"unix://{path}"
        thread.join(timeout=5)


def test_docker_detection(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_docker: str
) -> None:
    monkeypatch.setenv("DOCKER_HOST", fake_docker)
    assert docker_available()
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/absent.sock")
    assert not docker_available()
    monkeypatch.setenv("DOCKER_HOST", "ssh://someone@somewhere")
    assert not docker_available()


# SQLSTATEs from PostgreSQL's "Appendix A. PostgreSQL Error Codes": whether each means that
# the database cannot do the work now (503 database_unavailable, one outage), or that the
# request itself was wrong.
SQLSTATES = [
    ("25006", asyncpg.ReadOnlySQLTransactionError, True),  # read_only_sql_transaction
    ("53100", asyncpg.DiskFullError, True),  # disk_full
    ("53200", asyncpg.OutOfMemoryError, True),  # out_of_memory
    ("53300", asyncpg.TooManyConnectionsError, True),  # too_many_connections
    ("57P01", asyncpg.AdminShutdownError, True),  # admin_shutdown
    ("57P02", asyncpg.CrashShutdownError, True),  # crash_shutdown
    ("57P03", asyncpg.CannotConnectNowError, True),  # cannot_connect_now
    ("57014", asyncpg.QueryCanceledError, True),  # query_canceled (statement_timeout)
    ("08006", asyncpg.ConnectionFailureError, True),  # connection_failure
    ("58030", asyncpg.PostgresIOError, True),  # io_error
    ("25P02", asyncpg.InFailedSQLTransactionError, False),  # in_failed_sql_transaction
    ("23505", asyncpg.UniqueViolationError, False),  # unique_violation
    ("40001", asyncpg.SerializationError, False),  # serialization_failure
    ("42P01", asyncpg.UndefinedTableError, False),  # undefined_table
    ("P0001", asyncpg.RaiseError, False),  # raise_exception (doko's own checks)
    ("XX000", asyncpg.InternalServerError, False),  # internal_error: a bug, not an outage
]


@pytest.mark.parametrize(("sqlstate", "error", "unavailable"), SQLSTATES)
def test_which_database_errors_mean_it_is_unavailable(
    sqlstate: str, error: type[Exception], unavailable: bool
) -> None:
    """A database that refuses writes, runs out of room or connections, or is shut down is
    unavailable (503 ``database_unavailable``); the request's own mistakes are not."""
    assert error.sqlstate == sqlstate  # type: ignore[attr-defined]
    assert unavailable_sqlstate(sqlstate) is unavailable
    assert issubclass(error, UNAVAILABLE) is unavailable
