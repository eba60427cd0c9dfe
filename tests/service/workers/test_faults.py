"""Fault injection on a real PostgreSQL: the database killed, stalled, its LISTEN
connection dropped, and `doko serve` stopped by a signal.

The kill and stall tests start their own embedded PostgreSQL in a temporary folder (the
shared test server is never touched), and run a real app on it that owns that server
(``embedded_data_dir``), with bots playing and an HTTP client playing a seat. While the
database is down or stalled, database routes answer 503 ``database_unavailable`` with
``Retry-After`` and ``/health/ready`` answers 503; afterwards the service recovers by
itself (after a kill it starts the server again), the bots finish their tables, every
table verifies (`infra.audit.table.verify_table`), and every command the client got a 200 for
is in the log. Each outage is logged once when it starts and once when it ends.

Waits are on conditions, with generous safety nets; the database timeout is configured
short (1 s) so that a stall outlasts it quickly.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import asyncpg
import httpx
import msgspec
import psutil
import pytest

from infra.audit.table import verify_table
from infra.database import _embedded_server, with_database
from infra.event_store import EventStore
from infra.tables import Tables
from service.app import create_app
from service.edge.idempotency import key_id
from service.tools.client import (
    DokoClient,
    ProblemError,
    SeatClient,
)
from service.tools.play import (
    random_player,
)
from tests.service.conftest import Records, serve, settings
from tests.service.serving import doko_serve, free_port, logged, wait_ready
from tests.service.sessions import all_bot_tables, human_with_bots

DB_TIMEOUT = 1.0
BOT_TABLES = 3
SAFETY = 300.0
"""Seconds after which a wait gives up (a safety net, not a bound on the service)."""


class Server(msgspec.Struct):
    """An embedded PostgreSQL of this module: its data folder and a database's URL."""

    pgdata: Path
    url: str

    def postmaster(self) -> psutil.Process:
        pid = int((self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        return psutil.Process(pid)

    def processes(self) -> list[psutil.Process]:
        """The postmaster and every process it started."""
        postmaster = self.postmaster()
        return [postmaster, *postmaster.children(recursive=True)]


@pytest.fixture
async def own_server() -> AsyncIterator[Server]:
    """A PostgreSQL server of this test alone, in a temporary folder, with a database."""
    with tempfile.TemporaryDirectory(prefix="doko-faults-") as folder:
        pgdata = Path(folder) / "pgdata"
        server = await asyncio.to_thread(_embedded_server, pgdata, cleanup_mode="delete")
        try:
            connection = await asyncpg.connect(server.get_uri())
            try:
                await connection.execute('CREATE DATABASE "doko_faults"')
            finally:
                await connection.close()
            yield Server(pgdata, with_database(server.get_uri(), "doko_faults"))
        finally:
            for process in _processes_or_none(pgdata):
                with contextlib.suppress(psutil.Error):
                    process.resume()
            await asyncio.to_thread(server.cleanup)


def _processes_or_none(pgdata: Path) -> list[psutil.Process]:
    try:
        return Server(pgdata, "").processes()
    except (OSError, ValueError, psutil.Error):
        return []


async def until(condition: Callable[[], object], timeout: float = SAFETY) -> None:
    async with asyncio.timeout(timeout):
        while not await condition():  # type: ignore[misc]
            await asyncio.sleep(0.05)


class Player:
    """An HTTP client playing one seat through outages: a command answered 503 is sent
    again after ``Retry-After`` with the same Idempotency-Key; every 200 is kept."""

    def __init__(self, seat: SeatClient) -> None:
        self.seat = seat
        self.acknowledged: list[tuple[str, int]] = []  # (Idempotency-Key, version)
        self.unavailable = 0
        self.choose = random_player(random.Random(11))

    async def _retrying(self, call: Callable[[], object]) -> object:
        while True:
            try:
                return await call()  # type: ignore[misc]
            except ProblemError as error:
                if error.status != 503:
                    raise
                assert error.code == "database_unavailable", error.problem
                self.unavailable += 1
                await asyncio.sleep(float(error.headers["retry-after"]))

    async def play(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            view = await self._retrying(self.seat.view)
            command = self.choose(view.deal) if view.deal is not None else None  # type: ignore[attr-defined]
            if command is None:
                await asyncio.sleep(0.01)
                continue
            key = uuid.uuid4().hex
            try:
                result = await self._retrying(
                    lambda c=command, k=key: self.seat.send(
                        c, idempotency_key=k, if_match=self.seat.version
                    )
                )
            except ProblemError:  # a bot acted first: look again
                continue
            self.acknowledged.append((key, result.version))  # type: ignore[attr-defined]


async def _finished(http: httpx.AsyncClient, table_id: str) -> bool:
    response = await http.get(f"/tables/{table_id}")
    return response.status_code == 200 and response.json()["winners"] is not None


async def _events(http: httpx.AsyncClient, tables: list[str]) -> int:
    total = 0
    for table_id in tables:
        response = await http.get(f"/tables/{table_id}")
        total += int(response.headers.get("etag", '"0"').strip('"'))
    return total


async def _assert_unavailable(http: httpx.AsyncClient, table_id: str) -> None:
    """Database routes answer 503 with Retry-After, and readiness 503, right now."""
    export, created, ready = await asyncio.gather(
        http.get(f"/tables/{table_id}/export"),
        http.post("/tables", json={"name": "during the outage", "visibility": "public"}),
        http.get("/health/ready"),
    )
    for response in (export, created):
        assert response.status_code == 503, response.text
        assert response.json()["code"] == "database_unavailable"
        assert response.headers["retry-after"] == "1"
        assert response.headers["content-type"].startswith("application/problem+json")
    assert ready.status_code == 503, ready.text
    assert ready.json()["code"] == "not_ready"
    assert "database" in [e["name"] for e in ready.json()["errors"]]


async def _ready(http: httpx.AsyncClient) -> bool:
    return (await http.get("/health/ready")).status_code == 200


async def _check_the_log(url: str, tables: list[str], player: Player) -> None:
    """Every table verifies; every command the player got a 200 for is in the log."""
    async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
        store = Tables(EventStore(pool))
        for table_id in tables:
            report = await verify_table(store, table_id)
            assert report.ok, report
        for key, version in player.acknowledged:
            recorded = await pool.fetchval(
                "SELECT c.last_version FROM idempotency_keys k"
                " JOIN commands c ON c.command_id = k.command_id WHERE k.key_id = $1",
                key_id(player.seat.token, key, "127.0.0.1"),
            )
            assert recorded == version, (key, version, recorded)


async def _run_a_fault(
    server: Server, fault: Callable[[httpx.AsyncClient, str], object]
) -> Records:
    """Bots and a player at work; ``fault(http, a table id)`` breaks the database and
    mends it (or leaves that to the service); then everything must have recovered."""
    app = create_app(
        settings(
            server.url,
            migrate=True,
            db_timeout=DB_TIMEOUT,
            embedded_data_dir=str(server.pgdata),
        )
    )
    with Records().attached("doko.health", "doko.service", "doko.supervisor") as logged:
        async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=60) as http:
            api = DokoClient(http)
            bots = await all_bot_tables(api, BOT_TABLES)
            human = await human_with_bots(api)
            human_table = human.table.table_id
            player = Player(human)
            stop = asyncio.Event()
            playing = asyncio.create_task(player.play(stop))
            try:
                await until(lambda: _progressed(http, bots))
                await fault(http, bots[0])  # type: ignore[misc]
                await until(lambda: _ready(http))
                for table_id in bots:
                    await until(lambda t=table_id: _finished(http, t))
                await until(lambda: _acted(player))
            finally:
                stop.set()
                await playing
        await _check_the_log(server.url, [*bots, human_table], player)
    unexpected = [r for r in logged.records if r.name == "doko.service"]
    assert not unexpected, [(r.getMessage(), r.exc_info and r.exc_info[1]) for r in unexpected]
    return logged


async def _progressed(http: httpx.AsyncClient, bots: list[str]) -> bool:
    return await _events(http, bots) >= 150 * len(bots)


async def _acted(player: Player) -> bool:
    return len(player.acknowledged) >= 10


@pytest.mark.long
async def test_the_database_killed_mid_session_comes_back_and_nothing_is_lost(
    own_server: Server,
) -> None:
    """kill -9 of the postmaster: 503s meanwhile; the service starts the server again.

    Its backends are held stopped while the 503s are checked: an orphaned backend could
    otherwise still answer its connection for a moment, and while one holds the shared
    memory no new server can start, so the outage lasts until they are let go.
    """
    killed: list[int] = []

    async def kill(http: httpx.AsyncClient, table_id: str) -> None:
        postmaster, *backends = own_server.processes()
        for process in (postmaster, *backends):
            process.suspend()
        killed.append(postmaster.pid)
        os.kill(postmaster.pid, signal.SIGKILL)
        try:
            await _assert_unavailable(http, table_id)
        finally:
            for process in backends:  # they see the postmaster gone, and end
                with contextlib.suppress(psutil.Error):
                    process.resume()

    logged = await _run_a_fault(own_server, kill)
    assert own_server.postmaster().pid != killed[0], "the service started it again"
    assert own_server.postmaster().is_running()
    health = logged.messages("doko.health")
    assert len([m for m in health if m.startswith("database unavailable: ")]) == 1, health
    assert len([m for m in health if m.startswith("database available again after ")]) == 1
    assert len([m for m in health if "had stopped: running again" in m]) == 1, health


@pytest.mark.long
async def test_a_stalled_database_answers_503_in_bounded_time_and_recovers(
    own_server: Server,
) -> None:
    """SIGSTOP of every server process: requests are answered 503 while it is still
    stopped (within the 1 s database timeout, twice: a pool wait, then a command), not
    held until it wakes; SIGCONT, and all carries on."""

    async def stall(http: httpx.AsyncClient, table_id: str) -> None:
        stopped = own_server.processes()
        for process in stopped:
            process.suspend()
        try:
            async with asyncio.timeout(60):  # answered while stopped, or the test fails
                await _assert_unavailable(http, table_id)
                await _assert_unavailable(http, table_id)
            assert all(p.status() == psutil.STATUS_STOPPED for p in stopped)
        finally:
            for process in stopped:
                process.resume()

    logged = await _run_a_fault(own_server, stall)
    health = logged.messages("doko.health")
    assert len([m for m in health if m.startswith("database unavailable: ")]) == 1, health
    assert len([m for m in health if m.startswith("database available again after ")]) == 1


@pytest.mark.long
async def test_a_dropped_listen_connection_is_taken_again_and_all_carries_on(
    db_url: str, pool: asyncpg.Pool
) -> None:
    """The backend of the service's LISTEN connection is terminated (only that one: this
    test's database, the LISTEN query): a stream opened before goes on receiving every
    event, and bots finish their table."""
    logged = Records()
    async with (
        serve(create_app(settings(db_url))) as url,
        httpx.AsyncClient(base_url=url, timeout=30) as http,
    ):
        api = DokoClient(http)
        table = await api.create_table("listen", visibility="public")
        received: list[int] = []
        opened = asyncio.Event()

        async def follow() -> None:
            async with table.events() as messages:
                opened.set()
                async for message in messages:
                    if message.id is not None:
                        received.append(int(message.id))

        streaming = asyncio.create_task(follow())
        await asyncio.wait_for(opened.wait(), SAFETY)
        for kind in ("random", "greedy"):
            await table.seat_bot(kind)
        with logged.attached("doko.supervisor"):
            terminated = await pool.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND query LIKE 'LISTEN %'"
            )
            assert terminated == 1
            for kind in ("random", "greedy"):
                await table.seat_bot(kind)
            try:
                await until(lambda: _finished(http, table.table_id))
                final = int((await http.get(table.path)).headers["etag"].strip('"'))
                await until(lambda: _caught_up(received, final))
            finally:
                streaming.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await streaming
        listening = await pool.fetchval(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND query LIKE 'LISTEN %'"
        )
    shown = [stored.version for stored, _ in await Tables(EventStore(pool)).events(table.table_id)]
    assert received == shown, "every event, once, in order"
    assert listening == 1, "listening again"
    assert logged.messages("doko.supervisor") == ["listener ended; starting it again"]


async def _caught_up(received: list[int], final: int) -> bool:
    return bool(received) and received[-1] >= final


# -- doko serve and its embedded PostgreSQL ----------------------------------------------


def _handles(pgdata: Path) -> list[int]:
    handles: list[int] = msgspec.json.decode((pgdata / ".handle_pids.json").read_bytes())
    return handles


async def test_sigterm_stops_the_embedded_postgres_and_kill_9_leaves_nothing_stale() -> None:
    """``doko serve`` killed with -9 leaves its embedded PostgreSQL running and its pid
    among the server's handles; the next ``doko serve`` takes the running server over,
    and when SIGTERM ends it, it stops the server (no live handle is left)."""
    with tempfile.TemporaryDirectory(prefix="doko-serve-") as folder:
        pgdata = Path(folder) / "pgdata"
        port = free_port()
        first = doko_serve(port, "--data-dir", str(pgdata))
        try:
            await wait_ready(port, first)
            postmaster = Server(pgdata, "").postmaster()
            first.kill()
            first.wait()
            assert postmaster.is_running(), "kill -9 leaves the server running"
            assert first.pid in _handles(pgdata), "and its pid among the handles"
            second = doko_serve(port, "--data-dir", str(pgdata))
            try:
                await wait_ready(port, second)
                assert Server(pgdata, "").postmaster().pid == postmaster.pid, "taken over"
                assert first.pid not in _handles(pgdata), "the stale pid is gone"
                second.send_signal(signal.SIGTERM)
                assert await asyncio.to_thread(second.wait, SAFETY) == 0, "a clean stop"
            finally:
                second.kill()
            await asyncio.to_thread(postmaster.wait, SAFETY)
            assert not postmaster.is_running(), "SIGTERM stopped the embedded server"
            assert _handles(pgdata) == []
        finally:
            first.kill()
            for process in _processes_or_none(pgdata):
                with contextlib.suppress(psutil.Error):
                    process.kill()


async def _read_only(admin: asyncpg.Connection, on: bool) -> None:
    """Make the whole server refuse writes, or accept them again (what an operator, a
    standby or a failover does)."""
    await admin.execute("SET default_transaction_read_only = off")  # this session may
    if on:
        await admin.execute("ALTER SYSTEM SET default_transaction_read_only = on")
    else:
        await admin.execute("ALTER SYSTEM RESET default_transaction_read_only")
    await admin.execute("SELECT pg_reload_conf()")


async def _not_ready(http: httpx.AsyncClient) -> bool:
    return (await http.get("/health/ready")).status_code == 503


async def test_a_database_that_refuses_writes_is_unavailable_until_it_takes_them(
    own_server: Server, tmp_path: Path
) -> None:
    """The server made read-only under a running ``doko serve`` (``ALTER SYSTEM SET
    default_transaction_read_only``): readiness is 503, though the database
    answers; a create and a seat command are 503 ``database_unavailable`` with
    ``Retry-After``; one outage line. Writable again, both succeed and readiness is 200."""
    log, port = tmp_path / "serve.log", free_port()
    admin = await asyncpg.connect(with_database(own_server.url, "postgres"))
    process = doko_serve(port, "--database-url", own_server.url, "--db-timeout", "1", log=log)
    try:
        await wait_ready(port, process)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            created = await http.post("/tables", json={"name": "ro", "visibility": "public"})
            seats = f"/tables/{created.json()['table_id']}/seats"
            await _read_only(admin, True)
            try:
                await until(lambda: _not_ready(http))
                refused = [
                    await http.post("/tables", json={"name": "refused"}),
                    await http.post(seats, json={"name": "Anna"}),
                ]
                ready = await http.get("/health/ready")
            finally:
                await _read_only(admin, False)
            for response in refused:
                assert response.status_code == 503, response.text
                assert response.json()["code"] == "database_unavailable"
                assert response.headers["retry-after"] == "1"
            assert [e["name"] for e in ready.json()["errors"]] == ["database"], ready.text
            assert "accepts no writes" in ready.json()["errors"][0]["detail"]
            await until(lambda: _ready(http))
            assert (await http.post(seats, json={"name": "Anna"})).status_code == 201
            assert (await http.post("/tables", json={"name": "again"})).status_code == 201
    finally:
        await admin.close()
        process.terminate()
        await asyncio.to_thread(process.wait, SAFETY)
    health = [line["message"] for line in logged(log) if line["logger"] == "doko.health"]
    assert health == [
        "database unavailable: the database accepts no writes (read-only, or a standby in"
        " recovery)",
        health[1],
    ]
    assert str(health[1]).startswith("database available again after ")
    assert not [line for line in logged(log) if line["level"] == "error"]


@pytest.fixture
def folder() -> Iterator[Path]:
    """A temporary folder outside pytest's (whose root pytest makes 0700 whenever a session
    starts: the embedded server's own user, when run as root, could then not reach it)."""
    with tempfile.TemporaryDirectory(prefix="doko-faults-") as name:
        yield Path(name)


async def test_a_hang_and_a_restart_of_the_embedded_postgres_log_a_line_each(
    folder: Path,
) -> None:
    """``doko serve`` on its own embedded PostgreSQL (its logs): every access line
    names the client's address; a stall (SIGSTOP) outlasting the database timeout leaves no
    "Task exception was never retrieved" behind; a kill -9 of the server, which the service
    starts again, is one line in the log, without the embedded-postgres steps."""
    log, port, pgdata = folder / "serve.log", free_port(), folder / "pgdata"
    process = doko_serve(port, "--data-dir", str(pgdata), "--db-timeout", "1", log=log)
    try:
        await wait_ready(port, process)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            assert (await http.post("/tables", json={"name": "logged"})).status_code == 201
            stopped = Server(pgdata, "").processes()
            for stopped_process in stopped:
                stopped_process.suspend()
            try:  # each readiness answer waits out a command and its release: two in a row
                assert [(await http.get("/health/ready")).status_code for _ in "12"] == [503] * 2
            finally:
                for stopped_process in stopped:
                    stopped_process.resume()
            await until(lambda: _ready(http))
            killed = Server(pgdata, "").processes()
            for killed_process in killed:
                killed_process.kill()
            await until(lambda: _restarted(pgdata, killed[0].pid, http))
    finally:
        process.terminate()
        await asyncio.to_thread(process.wait, SAFETY)
        for left in _processes_or_none(pgdata):
            with contextlib.suppress(psutil.Error):
                left.kill()
    lines = logged(log)
    text = log.read_text()
    assert "never retrieved" not in text
    restarts = [line for line in lines if "embedded PostgreSQL" in str(line["message"])]
    assert len(restarts) == 1, restarts
    assert not [line for line in lines if line["logger"] == "embedded_postgres"]
    access = [line for line in lines if line["logger"] == "doko.access"]
    assert access and all(line["client"] == "127.0.0.1" for line in access)
    assert ("POST", "/tables", 201) in [(a["method"], a["path"], a["status"]) for a in access]


async def _restarted(pgdata: Path, killed: int, http: httpx.AsyncClient) -> bool:
    """Whether another postmaster runs in ``pgdata`` and the service is ready on it."""
    running = [p for p in _processes_or_none(pgdata) if p.pid != killed]
    return bool(running) and await _ready(http)


@contextlib.contextmanager
def _small_disk(folder: Path) -> Iterator[Path]:
    """A 96 MB tmpfs mounted on ``folder`` while the block runs (the test is skipped where
    none can be mounted: it needs root)."""
    folder.mkdir()
    command = ["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(folder)]
    try:
        mounted = subprocess.run(command, capture_output=True, check=False)
    except OSError as error:  # no mount command
        pytest.skip(f"no tmpfs can be mounted here: {error}")
    if mounted.returncode != 0:
        pytest.skip(f"no tmpfs can be mounted here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


async def test_a_full_disk_is_unavailable_until_there_is_room(folder: Path) -> None:
    """The data folder's disk full under a running ``doko serve``: the create
    that finds no room is 503 ``database_unavailable`` with ``Retry-After``, and readiness
    is 503 though the database answers; one outage line. With room again, the next create
    succeeds and readiness is 200."""
    log, port = folder / "serve.log", free_port()
    with _small_disk(folder / "disk") as disk:
        server = await asyncio.to_thread(_embedded_server, disk / "pgdata", cleanup_mode="delete")
        process: subprocess.Popen[bytes] | None = None
        try:
            admin = await asyncpg.connect(server.get_uri())
            await admin.execute('CREATE DATABASE "doko_full"')
            await admin.close()
            url = with_database(server.get_uri(), "doko_full")
            options = ("--db-timeout", "1", "--rate-creations", "1000000")  # tables until full
            process = doko_serve(port, "--database-url", url, *options, log=log)
            await wait_ready(port, process)
            room = os.statvfs(disk)
            (disk / "filler").write_bytes(bytes(room.f_bavail * room.f_frsize - 256 * 1024))
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
                for _ in range(10_000):  # until the disk is full: a few dozen tables
                    refused = await http.post("/tables", json={"name": "full"})
                    if refused.status_code != 201:
                        break
                ready = await http.get("/health/ready")
                (disk / "filler").unlink()
                assert refused.status_code == 503, refused.text
                assert refused.json()["code"] == "database_unavailable"
                assert refused.headers["retry-after"] == "1"
                assert ready.status_code == 503, ready.text
                assert "DiskFullError" in ready.json()["errors"][0]["detail"]
                assert (await http.post("/tables", json={"name": "room"})).status_code == 201
                await until(lambda: _ready(http))
        finally:
            if process is not None:
                process.terminate()
                await asyncio.to_thread(process.wait, SAFETY)
            await asyncio.to_thread(server.cleanup)
    health = [line["message"] for line in logged(log) if line["logger"] == "doko.health"]
    assert len(health) == 2, health
    assert str(health[0]).startswith("database unavailable: DiskFullError: could not extend")
    assert str(health[1]).startswith("database available again after ")
