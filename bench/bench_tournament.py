"""Benchmarks of a tournament: at scale over HTTP, and in the event store.

    .venv/bin/python bench/bench_tournament.py [--quick] [--players 1000] [--subscribers 1000]
    nice -n 19 .venv/bin/python bench/bench_tournament.py --store [--players 64] [--rounds 3]

**At scale** (the default): one embedded PostgreSQL (`bench_service.Postgres`, durable) and
``doko serve`` (`bench_service.Server`) on a fresh database, driven from this process over
HTTP (`lean_http`, each player a keep-alive connection from a loopback address of their
own). A public tournament of one round; ``--players`` players (1,000) register one after the
other (`registerPlayer`); the director starts round 1 (`startRound`: 250 tables) and every
player finds their table (`getPlayerTable`) once it is open; the load generator's random
legal players ("bots": `bench_service.drive_table`, one per seat, with the player's
credential as the seat's token) play every table for a window of ``--seconds``, first with
no subscriber of the tournament's stream, then with ``--subscribers`` (1,000, held open
by a process of their own from 50 per loopback address, opened 50 at a time, a refused
open tried again after a second; the window starts once every one has had the stream's
history, so that it measures the commits, not the history's delivery); then `getTournament`
and `getStandings`. The server is started with ``--max-connections`` players + subscribers + 100
(its default of 1,000 would refuse the subscribers' connections with 503
``too_many_connections``). Prints, wall-clock from the client:

- ``registration``: the mean time of registrations 91-100 and of the last ten (991-1,000)
  and their ratio (target: at most 1.5);
- ``startRound``: the request's time, and until every player's table is open;
- ``play``: commands/s and the server's CPU per command (process CPU time / commands) with
  0 and with N subscribers, and their ratio (target: at most 1.5);
- ``getTournament``, ``getStandings``: one request each, after play.

``--quick``: 100 players, 25 tables, 100 subscribers, 5 s windows (registration compares
registrations 11-20 with 91-100).

**In the event store** (``--store``): a fresh database on the tests' PostgreSQL server
(`infra.database.server_url_for_tests`: ``DOKO_TEST_DATABASE_URL``, Docker, or embedded). One
tournament of ``--players`` players (tables of four; bots fill the rest) over ``--rounds``
rounds, its tables opened through `infra.tournaments.Tournaments.start_round`; every seat of
every table is played by the domain's random legal player (`domain.simulation.next_command`)
through `infra.tables.Tables.execute`, the tables of a round side by side (one task each),
``--deals`` deals per table (fewer than 12: the director abandons the table then, T4.2).
Prints, wall-clock but for the first:

- ``register``: the CPU time of this process (`time.process_time`: the service's work for a
  registration without HTTP, not the database's) of the first tenth of the registrations and
  of the last tenth, and their ratio;
- ``play``: the seconds to play the whole tournament, commands per second;
- ``verify``: `infra.audit.tournament.verify_tournament` of the whole tournament, deals per second;
- ``standings``: `infra.tournaments.Tournaments.standings` recomputed from the logs, seconds.

No HTTP there: the service's own cost per command is `bench/bench_service.py`'s.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import random
import secrets
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import asyncpg
import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from domain.simulation import next_command
from domain.table import AbandonSession
from domain.tournament import CreateTournament, RegisterPlayer
from infra.audit.tournament import tournament_summary, verify_tournament
from infra.command_ids import table_id
from infra.database import server_url_for_tests, with_database
from infra.event_store import EventStore
from infra.migrate import upgrade
from infra.projections import project
from infra.tables import Tables
from infra.tournaments import Tournaments


async def play_table(tables: Tables, stream: str, deals: int, rng: random.Random) -> int:
    """Play the table's first ``deals`` deals at random (then abandon it, if fewer than 12);
    the commands it took."""
    commands = 0
    while True:
        state = (await tables.load(stream)).state
        if state.over or len(state.session.sheet) >= deals:
            break
        deal = state.session.deal
        assert deal is not None
        command = next_command(deal, rng)
        assert command is not None
        await tables.execute(stream, command)
        commands += 1
    if not state.over:
        await tables.execute(stream, AbandonSession())
        commands += 1
    return commands


async def bench(url: str, players: int, rounds: int, deals: int) -> None:
    async with asyncpg.create_pool(url, min_size=2, max_size=8) as pool:
        tournaments = Tournaments(pool, Tables(EventStore(pool), project))
        tournament_id = secrets.token_hex(16)
        seeds = tuple(tuple(secrets.token_bytes(32) for _ in range(12)) for _ in range(rounds))
        create = CreateTournament("Bench", rounds, "director", secrets.token_bytes(32), seeds)
        start = time.perf_counter()
        await tournaments.execute(tournament_id, create)
        cpu: list[float] = []
        for n in range(players):
            began = time.process_time()
            await tournaments.execute(tournament_id, RegisterPlayer(f"player {n}", f"token {n}"))
            cpu.append(time.process_time() - began)
        commands = 0
        rng = random.Random(0)
        for round_no in range(1, rounds + 1):
            state = (await tournaments.start_round(tournament_id, round_no)).state
            streams = [table_id(tournament_id, round_no, t) for t in range(1, len(state.ends) + 1)]
            played = await asyncio.gather(
                *(
                    play_table(tournaments.tables, s, deals, random.Random(rng.random()))
                    for s in streams
                )
            )
            commands += sum(played)
            await tournaments.notice_ends(tournament_id)
        play = time.perf_counter() - start
        tables = players // 4 + (players % 4 > 0)
        print(
            f"tournament: {players} players, {tables} tables, {rounds} rounds, {deals} deals each"
        )
        tenth = max(players // 10, 1)
        early, late = sum(cpu[:tenth]) / tenth, sum(cpu[-tenth:]) / tenth
        print(
            f"register   {early * 1000:8.3f} ms CPU at 1-{tenth}, {late * 1000:.3f} ms at "
            f"{players - tenth + 1}-{players}: ratio {late / early:.2f}"
        )
        print(f"play       {play:8.1f} s   {commands / play:8.0f} commands/s ({commands} commands)")
        start = time.perf_counter()
        report = await verify_tournament(tournaments, tournament_id)
        verify = time.perf_counter() - start
        assert report.ok, tournament_summary(report)
        all_deals = sum(len(t.deals) for t in report.tables)
        print(f"verify     {verify:8.2f} s   {all_deals / verify:8.0f} deals/s ({all_deals} deals)")
        start = time.perf_counter()
        _, result = await tournaments.standings(tournament_id)
        print(f"standings  {time.perf_counter() - start:8.2f} s   ({len(result.lines)} lines)")


# --------------------------------------------------------------------------------------
# at scale, over HTTP


class _Registered(msgspec.Struct):
    player: int
    token: str


class _Created(msgspec.Struct):
    tournament_id: str
    host_token: str


class _PlayerTable(msgspec.Struct):
    table_id: str | None = None
    seat: int | None = None
    table_open: bool = False


def _timed_get(player: Any, path: str, token: str | None = None) -> Any:
    """GET ``path`` (with ``token`` as Bearer); awaitable (status, seconds, body)."""
    auth = f"Authorization: Bearer {token}\r\n".encode() if token else b""
    data = f"GET {path} HTTP/1.1\r\n".encode() + player.host_header + auth + b"\r\n"

    async def get() -> tuple[int, float, bytes]:
        began = time.perf_counter()
        status, _, body = await player.request(data)
        return status, time.perf_counter() - began, body

    return get()


def subscriber_process(
    base_url: str, tournament_id: str, n: int, ready: Any, stop: Any, results: Any
) -> None:
    """``n`` subscribers of the tournament's stream, 50 per loopback address (127.3.x.y: a
    per-address cap of streams holds them all), until ``stop``; reports opens and messages.
    Ready once every one has caught up with the stream: a subscriber's first messages are
    what was made before it opened, ended by the standings as of them
    (`service.streams.tournaments.TournamentFeed.resume`), so the window that follows
    measures what the commits cost, not the history's delivery."""
    asyncio.run(_subscribe(base_url, tournament_id, n, ready, stop, results))


async def _subscribe(
    base_url: str, tournament_id: str, n: int, ready: Any, stop: Any, results: Any
) -> None:
    import httpx

    from service.tools.client import DokoClient

    per_address = 50
    clients = [
        httpx.AsyncClient(
            base_url=base_url,
            timeout=httpx.Timeout(60.0),
            limits=httpx.Limits(max_connections=per_address + 2),
            transport=httpx.AsyncHTTPTransport(
                local_address=f"127.3.{k // 250}.{k % 250 + 1}",
                limits=httpx.Limits(max_connections=per_address + 2),
            ),
        )
        for k in range((n + per_address - 1) // per_address)
    ]
    received = 0
    caught_up = 0  # the subscribers that have had the history (its closing standings)
    refused: Counter[str] = Counter()  # opens refused (then tried again), by status and code
    lost: Counter[str] = Counter()  # streams that ended after they opened
    opened: set[int] = set()

    async def listen(k: int, wave: asyncio.Event) -> None:
        """Open stream ``k``, trying again a second after a refusal (an open refused does not
        count as a subscriber), then count its messages."""
        nonlocal received, caught_up
        stream = DokoClient(clients[k // per_address]).tournament(tournament_id).events()
        while True:
            try:
                async with stream as messages:
                    opened.add(k)
                    wave.set()
                    behind = True
                    async for message in messages:
                        if message.id is not None:
                            received += 1
                        if behind and message.event == "standings":
                            behind = False
                            caught_up += 1
                lost["ended"] += 1
                return
            except asyncio.CancelledError:
                raise
            except Exception as error:
                key = f"{getattr(error, 'status', '')} {getattr(error, 'code', '')}".strip()
                if k in opened:
                    lost[key or type(error).__name__] += 1
                    return
                refused[key or type(error).__name__] += 1
                wave.set()
                await asyncio.sleep(1.0)

    tasks = []
    began = time.perf_counter()
    for first in range(0, n, per_address):  # a wave of 50 at a time
        waves = [asyncio.Event() for _ in range(first, min(n, first + per_address))]
        tasks += [asyncio.create_task(listen(first + i, w)) for i, w in enumerate(waves)]
        for wave in waves:
            await wave.wait()
    while (len(opened) < n or caught_up < n) and time.perf_counter() - began < 300:
        await asyncio.sleep(0.2)
    ready.put(
        {
            "open": len(opened),
            "caught_up": caught_up,
            "history": received,
            "seconds": round(time.perf_counter() - began, 1),
            "refused": dict(refused),
        }
    )
    await asyncio.to_thread(stop.wait)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for client in clients:
        await client.aclose()
    results.put({"messages": received, "lost": dict(lost)})


async def _register(players: list[Any], tournament_id: str) -> tuple[list[str], list[float]]:
    """Every player registers, one after the other: their credentials and each time."""
    tokens, times = [], []
    for n, player in enumerate(players):
        began = time.perf_counter()
        answer = await player.post_json(
            f"/tournaments/{tournament_id}/players", {"name": f"player {n}"}
        )
        times.append(time.perf_counter() - began)
        tokens.append(msgspec.json.decode(answer, type=_Registered).token)
    return tokens, times


async def _seat_everyone(
    players: list[Any], tokens: list[str], tournament_id: str
) -> dict[str, list[Any]]:
    """Each player's seat once their table is open (asking again while it is not, or when
    the server closed the player's idle keep-alive connection as the question went): the
    tables' seats (`lean_http.LeanSeat`s, by seat number)."""
    from lean_http import LeanSeat, TransportError

    from domain.seats import Seat

    tables: dict[str, list[Any]] = {}

    async def seat(player: Any, token: str) -> None:
        while True:
            try:
                status, _, body = await _timed_get(
                    player, f"/tournaments/{tournament_id}/table", token
                )
            except TransportError:  # the server closed the idle connection as we sent: again
                continue
            where = msgspec.json.decode(body, type=_PlayerTable) if status == 200 else None
            if where is not None and where.table_open and where.table_id and where.seat is not None:
                break
            await asyncio.sleep(0.2)
        leaned = LeanSeat(player, where.table_id, Seat(where.seat), token, 0, None)  # type: ignore[arg-type]
        await leaned.view()
        tables.setdefault(where.table_id, [None] * 4)[where.seat] = leaned

    await asyncio.gather(*(seat(p, t) for p, t in zip(players, tokens, strict=True)))
    return tables


async def _play_window(
    tables: dict[str, list[Any]], seconds: float, server: Any, pg: Any, rng: random.Random
) -> dict[str, Any]:
    """Every table played by its four random seats over one window (after 1 s of warm-up);
    commands/s and the server's CPU per command in the window."""
    from bench_service import CpuMeter, Stats, Window, drive_table
    from lean_http import Problem, TransportError

    async def refresh(seat: Any) -> None:
        """What the seat holds now (after the last window); a closed idle connection or a
        503 (the database busy with opening streams) is tried again."""
        for _ in range(30):
            try:
                await seat.view()
                return
            except (TransportError, Problem):
                await asyncio.sleep(1.0)
        await seat.view()

    for seats in tables.values():
        for seat in seats:
            await refresh(seat)
    begin = time.time() + 1.0
    window = Window(begin, begin + seconds)
    stats = Stats()
    meter = CpuMeter(server.pid, pg.postmaster, [])
    playing = [
        asyncio.create_task(
            drive_table(
                [s.player for s in seats],
                random.Random(rng.random()),
                window,
                stats,
                (table, seats, seats[-1].held, seats[-1].version),
                off_turn_announce=0.0,
                renew=False,
            )
        )
        for table, seats in tables.items()
    ]
    await asyncio.sleep(max(0.0, begin - time.time()))
    before = meter.snapshot()
    await asyncio.sleep(max(0.0, window.end - time.time()))
    after = meter.snapshot()
    await asyncio.gather(*playing)
    cpu = CpuMeter.used(before, after)
    commands = len(stats.command_latency)
    return {
        "commands": commands,
        "commands_per_second": round(commands / seconds, 1),
        "server_cpu_ms_per_command": round(cpu["server_cores"] * seconds * 1000 / commands, 3)
        if commands
        else None,
        "cpu": cpu,
        "errors": dict(stats.errors),
    }


async def _scale(server: Any, pg: Any, players_n: int, subscribers: int, seconds: float) -> None:
    from urllib.parse import urlsplit

    from bench_service import player_address
    from lean_http import Player

    address = urlsplit(server.base_url)
    host, port = address.hostname or "127.0.0.1", address.port or 80
    players = [Player(host, port, player_address(n)) for n in range(players_n)]
    director = Player(host, port, "127.2.0.1")
    created = msgspec.json.decode(
        await director.post_json("/tournaments", {"name": "Bench", "rounds": 1}), type=_Created
    )
    tid = created.tournament_id
    tokens, times = await _register(players, tid)
    early = max(20, players_n // 10)  # registrations early-9 .. early (91-100 of 1,000)
    first = sum(times[early - 10 : early]) / 10
    last = sum(times[-10:]) / 10
    print(
        f"registration  {first * 1000:8.1f} ms at {early - 9}-{early}, {last * 1000:8.1f} ms at "
        f"{players_n - 9}-{players_n}: ratio {last / first:.2f} (target <= 1.5)",
        flush=True,
    )
    auth = f"Authorization: Bearer {created.host_token}\r\n".encode()
    body = msgspec.json.encode({"round_no": 1})
    began = time.perf_counter()
    status, _, answer = await director.request(
        f"POST /tournaments/{tid}/rounds HTTP/1.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n".encode()
        + director.host_header
        + auth
        + b"\r\n"
        + body
    )
    started = time.perf_counter() - began
    assert status == 200, (status, answer[:300])
    tables = await _seat_everyone(players, tokens, tid)
    ready = time.perf_counter() - began
    print(
        f"startRound    {started:8.2f} s ({len(tables)} tables); every table open and every "
        f"player seated after {ready:.2f} s",
        flush=True,
    )
    rng = random.Random(0)
    quiet = await _play_window(tables, seconds, server, pg, rng)
    ctx = mp.get_context("spawn")
    opened, results, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
    listener = ctx.Process(
        target=subscriber_process,
        args=(server.base_url, tid, subscribers, opened, stop, results),
    )
    listener.start()
    try:
        open_errors = opened.get(timeout=300)
        busy = await _play_window(tables, seconds, server, pg, rng)
    finally:
        stop.set()
    heard = results.get(timeout=120)
    listener.join(60)
    for label, window in ((0, quiet), (subscribers, busy)):
        print(
            f"play          {window['commands_per_second']:8.1f} commands/s, server "
            f"{window['server_cpu_ms_per_command']} ms CPU/command with {label} subscribers "
            f"(cores: {window['cpu']}; errors {window['errors']})",
            flush=True,
        )
    if quiet["server_cpu_ms_per_command"] and busy["server_cpu_ms_per_command"]:
        ratio = busy["server_cpu_ms_per_command"] / quiet["server_cpu_ms_per_command"]
        print(f"subscribers   CPU per command ratio {ratio:.2f} (target <= 1.5)")
    print(
        f"              {open_errors['open']} of {subscribers} subscribers open and "
        f"{open_errors['caught_up']} caught up after {open_errors['seconds']} s (opens refused "
        f"and tried again: {open_errors['refused']}; {open_errors['history']} messages of "
        f"history); {heard['messages'] - open_errors['history']} messages received in the "
        f"window; streams lost {heard['lost']}"
    )
    status, took, answer = await _timed_get(director, f"/tournaments/{tid}")
    print(f"getTournament {took * 1000:8.1f} ms ({status}, {len(answer):,} bytes)")
    status, took, answer = await _timed_get(director, f"/tournaments/{tid}/standings")
    print(f"getStandings  {took * 1000:8.1f} ms ({status}, {len(answer):,} bytes)")
    for player in [*players, director]:
        player.close()


def scale(players: int, subscribers: int, seconds: float) -> None:
    """The benchmark at scale (module docstring), on its own embedded PostgreSQL."""
    import shutil
    import tempfile

    import uvloop
    from bench_service import WORKER_ARGS, Postgres, Server

    # every player's connection and every subscriber's at once: more than the default 1,000
    WORKER_ARGS[:] = ["--max-connections", str(players + subscribers + 100)]

    folder = Path(tempfile.mkdtemp(prefix="doko-bench-tournament-"))
    pg = Postgres(folder)
    server = None
    try:
        url = asyncio.run(pg.create_database("doko_bench"))
        server = Server(url, folder / "server.log")
        server.wait_ready()
        uvloop.run(_scale(server, pg, players, subscribers, seconds))
    except Exception:
        log = folder / "server.log"
        if log.exists():  # what the server said, before the folder goes
            print("server log (last 40 lines):", *log.read_text().splitlines()[-40:], sep="\n")
        raise
    finally:
        if server is not None:
            server.stop()
        pg.stop()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", action="store_true", help="in the event store, no HTTP")
    parser.add_argument("--quick", action="store_true", help="100 players, 100 subscribers")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--subscribers", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=None, help="each play window")
    parser.add_argument("--rounds", type=int, default=3, help="--store: rounds")
    parser.add_argument("--deals", type=int, default=12, help="--store: deals per table")
    args = parser.parse_args()
    if args.store:
        asyncio.run(store(args.players or 64, args.rounds, args.deals))
        return
    quick = args.quick
    scale(
        args.players or (100 if quick else 1000),
        args.subscribers if args.subscribers is not None else (100 if quick else 1000),
        args.seconds or (5.0 if quick else 20.0),
    )


async def store(players: int, rounds: int, deals: int) -> None:
    """The benchmark in the event store (module docstring)."""
    with server_url_for_tests() as server:
        name = f"doko_bench_tournament_{secrets.token_hex(4)}"
        admin = await asyncpg.connect(server)
        await admin.execute(f'CREATE DATABASE "{name}"')
        try:
            url = with_database(server, name)
            await upgrade(url)
            await bench(url, players, rounds, deals)
        finally:
            await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            await admin.close()


if __name__ == "__main__":
    main()
