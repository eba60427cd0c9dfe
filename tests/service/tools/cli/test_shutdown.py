"""``doko serve`` stopped by a signal while streams are open and a request is in flight.

Each test starts ``doko serve`` as a process of its own on a free port, with an embedded
PostgreSQL in a data folder of its own, an expert bot (so that the bots' process pool runs)
and real SSE clients: a private table's stream opened with a stream ticket, the feed and a
tournament's stream. A request is held in flight deterministically: the test holds the
advisory lock every append takes (`infra.event_store.APPEND_LOCK`) in a transaction of its
own, and ``POST /tables`` waits for it in the database (``--db-timeout`` is long) until the
test lets go.

Waits are on what happened (a stream's end, the process's exit), each with a generous
safety net (`SAFETY`) that only tells a hang; none is a bound on the machine's speed.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import httpx
import msgspec
import psutil
import pytest

from infra.event_store import APPEND_LOCK
from service.edge.shutdown import TRACKER
from service.streams.hub import FAREWELL, RECONNECT_MS
from service.tools.client import DokoClient
from tests.service.serving import doko_serve, free_port, wait_ready

SAFETY = 60.0
"""Seconds after which a wait gives up: a hang, not a slow machine."""

FAREWELL_LINE = f": {FAREWELL}"


@pytest.fixture
def folder() -> Iterator[Path]:
    """A temporary folder outside pytest's (whose root pytest makes 0700 whenever a session
    starts: the embedded server's own user, when run as root, could then not reach it)."""
    with tempfile.TemporaryDirectory(prefix="doko-shutdown-") as name:
        yield Path(name)


def _spawned(process: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return "spawn_main" in " ".join(process.cmdline())
    return False


class Service:
    """A running ``doko serve``: its process, port, data folder and log."""

    def __init__(self, folder: Path, *options: str) -> None:
        self.port = free_port()
        self.pgdata = folder / "pgdata"
        self.log = folder / "serve.log"
        self.process = doko_serve(self.port, "--data-dir", str(self.pgdata), *options, log=self.log)
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = int(options[options.index("--workers") + 1]) if "--workers" in options else 1

    @property
    def database_url(self) -> str:
        """The embedded server's database that the service uses (on its Unix socket)."""
        return f"postgresql://postgres:@/postgres?host={self.pgdata}"

    def postmaster(self) -> psutil.Process:
        pid = int((self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        return psutil.Process(pid)

    def descendants(self) -> list[psutil.Process]:
        return psutil.Process(self.process.pid).children(recursive=True)

    def thinking(self) -> list[psutil.Process]:
        """The bots' pool workers: processes that a process serving the app (this one, or
        with ``--workers`` its workers) started with multiprocessing's spawn."""
        main = psutil.Process(self.process.pid)
        serving = [p for p in main.children() if _spawned(p)] if self.workers > 1 else [main]
        return [p for s in serving for p in s.children() if _spawned(p)]

    async def exit_code(self) -> int:
        """The process's exit code, once it has exited by itself."""
        return await asyncio.wait_for(asyncio.to_thread(self.process.wait), SAFETY)

    def records(self) -> list[dict[str, object]]:
        """The JSON lines of the log (after a stop at once, the resource tracker that cleans
        up after the killed bots' pool may add a line of its own)."""
        lines = self.log.read_bytes().splitlines()
        return [msgspec.json.decode(line) for line in lines if line.startswith(b"{")]

    def messages(self, logger: str) -> list[str]:
        """What ``logger`` logged."""
        return [str(line["message"]) for line in self.records() if line["logger"] == logger]


@contextlib.asynccontextmanager
async def serving(folder: Path, *options: str) -> AsyncIterator[Service]:
    """``doko serve`` with ``options``, ready; killed afterwards if still running (and its
    embedded PostgreSQL with it), so that a failed test leaves nothing behind."""
    settings = ("--bot-workers", "1", "--bot-delay", "600", "--db-timeout", "600")
    service = Service(folder, *settings, *options)
    try:
        await wait_ready(service.port, service.process)
        yield service
    finally:
        leftovers = [] if service.process.poll() is not None else service.descendants()
        service.process.kill()
        await asyncio.to_thread(service.process.wait)
        for process in leftovers:
            with contextlib.suppress(psutil.Error):
                process.kill()
        with contextlib.suppress(OSError, ValueError, psutil.Error):
            postmaster = service.postmaster()
            postmaster.terminate()
            await asyncio.to_thread(postmaster.wait, SAFETY)


class Stream:
    """A raw SSE client: every line the stream sends, until the service ends it."""

    def __init__(self, http: httpx.AsyncClient, path: str) -> None:
        self.path = path
        self.lines: list[str] = []
        self.opened = asyncio.Event()
        self.task = asyncio.create_task(self._read(http))

    async def _read(self, http: httpx.AsyncClient) -> None:
        timeout = httpx.Timeout(10.0, read=None)
        async with http.stream("GET", self.path, timeout=timeout) as response:
            assert response.status_code == 200, self.path
            self.opened.set()
            async for line in response.aiter_lines():
                self.lines.append(line)

    async def ended(self) -> list[str]:
        """The lines, once the stream ended (an abrupt close raises here)."""
        await asyncio.wait_for(self.task, SAFETY)
        return self.lines


def assert_farewell(stream: Stream, lines: list[str]) -> None:
    """The stream's last message is the farewell: the shutdown comment and a retry time."""
    assert FAREWELL_LINE in lines, (stream.path, lines)
    last = [line for line in lines[lines.index(FAREWELL_LINE) :] if line]
    assert len(last) == 2 and last[1].startswith("retry: "), (stream.path, lines)
    assert RECONNECT_MS[0] <= int(last[1].removeprefix("retry: ")) <= RECONNECT_MS[1]


async def open_streams(http: httpx.AsyncClient) -> list[Stream]:
    """A private table's stream opened with a ticket, the feed and a tournament's stream,
    each open (its answer's head received)."""
    api = DokoClient(http)
    table = await api.create_table("streamed")
    ticket = await table.stream_ticket()
    tournament = await api.create_tournament("streamed", visibility="public")
    streams = [
        Stream(http, f"/tables/{table.table_id}/events?ticket={ticket}"),
        Stream(http, "/feed"),
        Stream(http, f"/tournaments/{tournament.tournament_id}/events"),
    ]
    await asyncio.wait_for(asyncio.gather(*(s.opened.wait() for s in streams)), SAFETY)
    return streams


async def start_thinking(http: httpx.AsyncClient, service: Service) -> None:
    """An expert bot that is the first to act at a table of people: it decides in the bots'
    process pool, which starts, and then waits ``--bot-delay`` (longer than any test) before
    it acts, so that no append of a bot waits for the test's lock (`in_flight` counts those
    that wait)."""
    table = await DokoClient(http).create_table("thinking", visibility="public", first_dealer=3)
    await table.seat_bot("expert", seat=0)
    for seat in (1, 2, 3):
        await table.take_seat(f"player {seat}", seat=seat)
    async with asyncio.timeout(SAFETY):
        while not service.thinking():
            await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def appends_held(service: Service) -> AsyncIterator[asyncpg.Connection]:
    """Every append waits while the block runs (the test's transaction holds their lock)."""
    connection = await asyncpg.connect(service.database_url)
    try:
        transaction = connection.transaction()
        await transaction.start()
        await connection.execute("SELECT pg_advisory_xact_lock($1)", APPEND_LOCK)
        try:
            yield connection
        finally:
            with contextlib.suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                await transaction.rollback()
    finally:
        with contextlib.suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
            await connection.close()


async def in_flight(connection: asyncpg.Connection, http: httpx.AsyncClient) -> asyncio.Task:
    """``POST /tables``, sent and waiting in the database for the held lock."""
    waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'advisory'"
    before = await connection.fetchval(waiting)
    request = asyncio.create_task(http.post("/tables", json={"name": "in flight"}))
    async with asyncio.timeout(SAFETY):
        while await connection.fetchval(waiting) <= before:
            assert not request.done(), request
            await asyncio.sleep(0.05)
    return request


def refused(port: int) -> bool:
    """Whether a new connection to the port is refused."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except ConnectionRefusedError:
        return True
    return False


async def closed(port: int) -> None:
    """Wait until new connections to the port are refused (with ``--workers``, each worker
    closes its copy of the listening socket as it takes the main process's SIGTERM: one
    that serves none of the test's streams may not have done so yet when they ended)."""
    async with asyncio.timeout(SAFETY):
        while not refused(port):
            await asyncio.sleep(0.05)


CHECKS = 1200
"""How often `nothing_left` looks (in /proc) before it gives up: a hang, not a slow machine."""


async def nothing_left(processes: list[psutil.Process]) -> None:
    """Every one of ``processes`` ends (a zombie counts as ended: only its parent, gone
    now, could have reaped it): looked for at most `CHECKS` times, a pause between."""

    def running(process: psutil.Process) -> bool:
        try:
            return process.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    left = processes
    for _ in range(CHECKS):
        left = [p for p in left if running(p)]
        if not left:
            break
        await asyncio.sleep(0.05)
    assert not left, [p.pid for p in left]


@pytest.mark.parametrize(
    ("stop", "workers"),
    [(signal.SIGTERM, 1), (signal.SIGINT, 1), (signal.SIGTERM, 2)],
    ids=["sigterm", "sigint", "sigterm-2-workers"],
)
async def test_a_signal_ends_the_streams_drains_requests_and_stops_everything(
    folder: Path, stop: signal.Signals, workers: int
) -> None:
    """The streams end at once, each with the farewell (a ``shutdown`` comment and a
    ``retry`` time), though a request is still in flight; new connections are refused
    meanwhile; the request in flight is answered once it can be; then the process exits
    with 0, having stopped the bots' pool (and, with ``--workers``, the workers) and its
    embedded PostgreSQL."""
    async with (
        serving(folder, "--workers", str(workers)) as service,
        httpx.AsyncClient(base_url=service.url, timeout=SAFETY) as http,
    ):
        await start_thinking(http, service)
        streams = await open_streams(http)
        if workers > 1:  # streams on every worker, as the kernel spreads the connections
            streams += [Stream(http, "/feed") for _ in range(6)]
            await asyncio.wait_for(asyncio.gather(*(s.opened.wait() for s in streams)), SAFETY)
        postmaster, processes = service.postmaster(), service.descendants()
        async with appends_held(service) as connection:
            request = await in_flight(connection, http)
            service.process.send_signal(stop)
            for stream in streams:
                assert_farewell(stream, await stream.ended())
            await closed(service.port)
            assert service.process.poll() is None, "waiting for the request in flight"
            assert not request.done()
        answered = await asyncio.wait_for(request, SAFETY)
        assert answered.status_code == 201, answered.text
        assert await service.exit_code() == 0
    await nothing_left(processes)
    await asyncio.to_thread(postmaster.wait, SAFETY)
    assert refused(service.port)
    assert not [line for line in service.records() if line["level"] == "error"]
    assert "leaked" not in service.log.read_text()  # every semaphore was released
    stopping = service.messages("doko.shutdown")
    assert [m for m in stopping if m.startswith(f"{stop.name}: stopping")], stopping


@pytest.mark.parametrize("workers", [1, 2], ids=["1-worker", "2-workers"])
async def test_a_second_signal_during_a_slow_stop_ends_the_process_at_once(
    folder: Path, workers: int
) -> None:
    """The stop waits for a request the test holds in flight (with a bound of 600 s); a
    second SIGTERM ends the process at once, with 143 (128 + SIGTERM): the processes it
    started are gone (the bots' pool; the workers), and the embedded PostgreSQL it started
    is told to stop and does (its fast shutdown)."""
    options = ("--workers", str(workers), "--shutdown-seconds", "600")
    async with (
        serving(folder, *options) as service,
        httpx.AsyncClient(base_url=service.url, timeout=SAFETY) as http,
    ):
        await start_thinking(http, service)
        streams = await open_streams(http)
        postmaster, processes = service.postmaster(), service.descendants()
        async with appends_held(service) as connection:
            request = await in_flight(connection, http)
            service.process.send_signal(signal.SIGTERM)
            for stream in streams:
                assert_farewell(stream, await stream.ended())
            await closed(service.port)
            assert service.process.poll() is None, "the stop waits for the request"
            service.process.send_signal(signal.SIGTERM)
            assert await service.exit_code() == 128 + signal.SIGTERM
            with pytest.raises(httpx.TransportError):
                await asyncio.wait_for(request, SAFETY)
        await nothing_left(processes)
        await asyncio.to_thread(postmaster.wait, SAFETY)
    assert "SIGTERM again: stopping at once" in service.messages("doko.shutdown")


@pytest.mark.long
async def test_a_request_held_past_its_share_of_the_bound_does_not_hold_the_stop(
    folder: Path,
) -> None:
    """With ``--shutdown-seconds 24`` a request in flight has 12 s: the test never lets it
    go, yet the process stops by itself, cleanly (0): the request is cancelled and answered
    503 ``unavailable`` with ``Retry-After``, its write that still waits in the database is
    cut off when the database pool is closed (after a quarter of the bound, 6 s), and the
    embedded PostgreSQL is stopped. The last quarter (6 s) is for the rest of the stop: with
    a bound of 12, a machine busy with three other suites took longer, and the bound stopped
    the process at once (1)."""
    async with (
        serving(folder, "--shutdown-seconds", "24") as service,
        httpx.AsyncClient(base_url=service.url, timeout=SAFETY) as http,
    ):
        streams = await open_streams(http)
        postmaster = service.postmaster()
        async with appends_held(service) as connection:
            request = await in_flight(connection, http)
            service.process.send_signal(signal.SIGTERM)
            for stream in streams:
                assert_farewell(stream, await stream.ended())
            cut_off = await asyncio.wait_for(request, SAFETY)
            assert await service.exit_code() == 0
        await asyncio.to_thread(postmaster.wait, SAFETY)
    assert cut_off.status_code == 503, cut_off.text
    assert cut_off.json()["code"] == "unavailable"
    assert cut_off.headers["retry-after"] == "1"
    assert "Cancel 1 running task(s)" in " ".join(service.messages("uvicorn.error"))
    closed = service.messages("doko.shutdown")[-1]
    assert closed.startswith("database connections still busy after 6.0 s: closed"), closed


def _tracker(process: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return TRACKER in " ".join(process.cmdline())
    return False


@pytest.mark.parametrize("workers", [1, 2], ids=["1-worker", "2-workers"])
async def test_kill_9_leaves_no_process_behind(folder: Path, workers: int) -> None:
    """``kill -9`` of ``doko serve`` (nothing of it runs): the bots' pool workers (spawned by
    multiprocessing), multiprocessing's resource tracker and, with ``--workers``, the
    workers end all the same, none left to init; each is looked for in /proc a bounded
    number of times."""
    async with (
        serving(folder, "--workers", str(workers)) as service,
        httpx.AsyncClient(base_url=service.url, timeout=SAFETY) as http,
    ):
        await start_thinking(http, service)
        descendants = service.descendants()
        pool, trackers = service.thinking(), [p for p in descendants if _tracker(p)]
        assert pool and trackers, [p.cmdline() for p in descendants]
        left = [p for p in descendants if p.pid != service.postmaster().pid]
        left = [p for p in left if service.postmaster() not in p.parents()]
        service.process.kill()
        assert await service.exit_code() == -signal.SIGKILL
        await nothing_left(left)


def test_shutdown_seconds_must_be_positive() -> None:
    command = [sys.executable, "-m", "service.tools.cli", "serve", "--shutdown-seconds", "0"]
    answer = subprocess.run(command, capture_output=True, check=False)
    assert answer.returncode == 2
    assert b"--shutdown-seconds: must be more than 0" in answer.stderr
