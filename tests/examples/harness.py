"""What the examples are played against: a live service that can be restarted, a table of 12
preset deals, three scripted seats and the requests the service received.

`PLAN` is the session, deal by deal (first dealer 0; the example sits down last, on seat 0):
who holds both club queens, who reserves and names what, who lets the turn clock act and who
leaves for a newcomer; the service restarts once deal `RESTART_AT` is dealt. The scripted
seats read their own stream (`SeatClient.follow`) and act as the plan says; whatever the plan
leaves open they do as the examples do (healthy, the first legal card, no announcement).
`play` runs an example on such a table and `check` holds what it played to the plan: every
covered case in the table's log (`cases`), the scoresheet of the final view, and nothing asked
of the service but `ALLOWED`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import httpx
import msgspec

from domain.cards import Card
from domain.commands import DealCommand, Declaration, Declare, NameContract, PlayCard
from domain.dealing import deal_from_seed
from domain.events import DealDealt, SessionFinished
from domain.game_types import SOLOS, GameType
from domain.seats import Seat
from service.app import close_streams, create_app
from service.tools.client import DokoClient, ProblemError, SeatClient, TableClient
from service.tools.messages import TableMessage
from service.tools.retry import RetryingTransport
from tests.service.conftest import serve, settings
from tests.service.serving import free_port

HARNESS = "doko-examples-harness"
"""The harness's own User-Agent: every other request is an example's."""

EXAMPLE_SEAT = 0
TURN_SECONDS = 10
"""The turn clock (T3.1): long enough that a busy machine's players act in time (a timeout
of theirs would only let the stand-in act: the session still finishes)."""
RESTART_AT = 6
"""The service restarts once this deal is dealt."""


class Deal(msgspec.Struct, frozen=True):
    """One deal of the plan: who holds both QC (None: nobody), who names what (the seats that
    reserve), whose first turn the clock takes, who leaves (for a newcomer)."""

    both_qc: int | None = None
    contracts: dict[int, GameType] = {}
    times_out: int | None = None
    leaves: int | None = None


PLAN: tuple[Deal, ...] = (
    Deal(both_qc=1, contracts={1: GameType.MARRIAGE}),
    Deal(contracts={2: GameType.DIAMONDS_SOLO}),
    Deal(contracts={3: GameType.HEARTS_SOLO}),
    Deal(contracts={1: GameType.SPADES_SOLO}),
    Deal(contracts={2: GameType.CLUBS_SOLO}),
    Deal(contracts={3: GameType.QUEEN_SOLO}),
    Deal(contracts={1: GameType.JACK_SOLO}),
    Deal(contracts={2: GameType.FLEISCHLOS}),
    Deal(both_qc=EXAMPLE_SEAT),  # the example says healthy: a silent solo (R4.5)
    Deal(both_qc=1, contracts={1: GameType.MARRIAGE, 3: GameType.CLUBS_SOLO}),  # R4.3
    Deal(times_out=2),
    Deal(leaves=3),
)


def presets() -> list[list[list[str]]]:
    """The 12 deals of `PLAN`: seeded hands, both QC moved to the deal's ``both_qc`` seat, or
    split between two seats when it has none."""
    deals = []
    for k, plan in enumerate(PLAN):
        seed = hashlib.sha256(f"examples:{k}".encode()).digest()
        hands = [list(hand) for hand in deal_from_seed(seed, Seat(0))]
        holder = hands[plan.both_qc if plan.both_qc is not None else 0]
        for other in hands:  # all QC to the holder first
            while other is not holder and Card.QC in other:
                give = next(c for c in holder if c is not Card.QC)
                other[other.index(Card.QC)], holder[holder.index(give)] = give, Card.QC
        if plan.both_qc is None:  # then one of them to the next seat
            other, give = hands[1], next(c for c in hands[1] if c is not Card.QC)
            other[other.index(give)], holder[holder.index(Card.QC)] = Card.QC, give
        deals.append([[c.value for c in hand] for hand in hands])
    return deals


class Requests:
    """An ASGI app in front of the service that notes each request's method, path and
    whether the harness sent it (its User-Agent)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[tuple[str, str, bool]] = []

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            agent = dict(scope["headers"]).get(b"user-agent", b"").decode()
            self.seen.append((scope["method"], scope["path"], agent == HARNESS))
        await self.app(scope, receive, send)

    def of_examples(self, table_id: str) -> list[tuple[str, str]]:
        """What the examples asked of the table: (method, path with ids as ``{…}``)."""
        prefix = f"/tables/{table_id}"
        return [
            (method, re.sub(r"/seats/\d+", "/seats/{seat}", path.replace(prefix, "/tables/{id}")))
            for method, path, harness in self.seen
            if not harness and path.startswith(prefix)
        ]


class Service:
    """A live doko service on one port and database that the harness can restart."""

    def __init__(self, db_url: str) -> None:
        self.db_url = db_url
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.requests: Requests | None = None
        self.restarts = 0
        self._stack = contextlib.AsyncExitStack()

    async def start(self) -> None:
        app = create_app(settings(self.db_url))
        self.requests = self.requests or Requests(app)
        self.requests.app = app
        await self._stack.enter_async_context(serve(self.requests, port=self.port))

    async def stop(self) -> None:
        """Stop as ``doko serve`` stops (`service.edge.shutdown.Server`): the open streams
        end with the service's farewell first."""
        if self.requests is not None:
            close_streams(self.requests.app)
        await self._stack.aclose()

    async def restart(self) -> None:
        await self.stop()
        self._stack = contextlib.AsyncExitStack()
        await self.start()
        self.restarts += 1


@contextlib.asynccontextmanager
async def harness_client(url: str) -> AsyncIterator[DokoClient]:
    """The harness's API client: retries as the service asks, says who it is."""
    transport = RetryingTransport(attempts=20, max_delay=2.0)
    headers = {"user-agent": HARNESS}
    async with httpx.AsyncClient(
        base_url=url, transport=transport, headers=headers, timeout=30
    ) as http:
        yield DokoClient(http)


class Scripted:
    """A seat played by the plan, from its stream alone; a newcomer takes it over when the
    plan says its player leaves."""

    def __init__(self, table: TableClient, seat: SeatClient) -> None:
        self.table = table
        self.seat = seat
        self.deal = 0
        self.skipped: set[int] = set()
        self.newcomer: SeatClient | None = None
        self.stays = False

    def leaving(self, message: TableMessage) -> bool:
        """Whether the plan has the seat's player leave now (T2.3: not on its turn)."""
        turn, me = message.prompt.turn, self.seat.seat
        plan = PLAN[self.deal - 1] if self.deal else None
        return bool(plan and plan.leaves == me and not self.stays and turn not in (None, me))

    def choose(self, message: TableMessage) -> DealCommand | None:
        options, me = message.prompt.options, self.seat.seat
        plan = PLAN[self.deal - 1]
        if options is None or message.prompt.turn != me:
            return None
        if plan.times_out == me and self.deal not in self.skipped:
            self.skipped.add(self.deal)  # this turn is the clock's (T3.2)
            return None
        if options.declarations:
            reserve = me in plan.contracts
            return Declare(me, Declaration.RESERVATION if reserve else Declaration.HEALTHY)
        if options.contracts:
            return NameContract(me, plan.contracts.get(me, options.contracts[0]))
        if options.cards:
            return PlayCard(me, options.cards[0])
        return None

    async def play(self, after: int | None = None) -> None:
        """Play until the session is over (or the seat's player left)."""
        acted = 0
        async for message in self.seat.follow(after=after, max_delay=2.0):
            if isinstance(message.event, DealDealt):
                self.deal = message.event.deal_no
            if isinstance(message.event, SessionFinished):
                return
            if self.leaving(message):
                await self._hand_over()
                return
            if message.version < acted or (command := self.choose(message)) is None:
                continue
            with contextlib.suppress(ProblemError):  # the clock may have acted first
                acted = (await self.seat.send(command)).version

    async def _hand_over(self) -> None:
        """Leave the seat (not on its turn, T2.3) and let a newcomer sit down there and play
        on, from the message of its own sitting down."""
        await self.seat.leave()
        newcomer = await self.table.take_seat("newcomer", seat=int(self.seat.seat))
        self.newcomer = newcomer
        following = Scripted(self.table, newcomer)
        following.deal, following.stays = self.deal, True
        await following.play(after=newcomer.version - 1)


async def watch(table: TableClient, at_deal: Callable[[int], Awaitable[None]]) -> None:
    """Follow the table as its host until the session is over, calling ``at_deal`` with
    each deal's number once it is dealt."""
    async for message in table.follow(max_delay=2.0):
        if isinstance(message.event, DealDealt):
            await at_deal(message.event.deal_no)
        if isinstance(message.event, SessionFinished):
            return


async def run_example(command: list[str], *, cwd: str | None = None) -> tuple[int, str]:
    """Run an example to its end; its exit code and output (stdout and stderr)."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    return process.returncode or 0, output.decode()


ROOT = Path(__file__).resolve().parents[2]
SAFETY = 900.0
"""Seconds after which a session is called stuck (a safety net, not a bound on the speed)."""

ALLOWED = {
    ("POST", "/tables/{id}/seats"),
    ("POST", "/tables/{id}/stream-tickets"),
    ("GET", "/tables/{id}/events"),
    ("POST", "/tables/{id}/seats/{seat}/reservation"),
    ("POST", "/tables/{id}/seats/{seat}/contract"),
    ("POST", "/tables/{id}/seats/{seat}/play"),
}
"""What an example may ask of its table: no view, no scoresheet, no polling."""

CASES = {
    "marriage",
    *(str(solo) for solo in SOLOS),
    "silent_solo",
    "two seats reserving",
    "a hidden contract outranked",
    "a timed-out seat",
    "a seat left and a newcomer sat down",
}


class Played(msgspec.Struct):
    code: int
    output: str
    events: list[dict[str, Any]]
    view: Any
    asked: list[tuple[str, str]]
    restarts: int


async def play(service: Service, example: Callable[[str, str, str], list[str]]) -> Played:
    """A table of the plan's deals, three scripted seats, the example on the fourth (the
    command ``example(url, table_id, invitation)``), the service restarted once."""
    async with harness_client(service.url) as api:
        table = await api.create_table(
            "examples", first_dealer=0, presets=presets(), turn_seconds=TURN_SECONDS
        )
        assert table.invitation is not None
        scripted = [
            Scripted(table, await table.take_seat(f"scripted {s}", seat=s))
            for s in range(4)
            if s != EXAMPLE_SEAT
        ]

        async def at_deal(deal_no: int) -> None:
            if deal_no == RESTART_AT and not service.restarts:
                await service.restart()

        async with asyncio.timeout(SAFETY):
            others = [asyncio.create_task(s.play()) for s in scripted]
            others.append(asyncio.create_task(watch(table, at_deal)))
            code, output = await run_example(example(service.url, table.table_id, table.invitation))
            await asyncio.gather(*others)
        assert service.requests is not None
        asked = service.requests.of_examples(table.table_id)
        return Played(
            code, output, await _events(table), await table.view(), asked, service.restarts
        )


async def _events(table: TableClient) -> list[dict[str, Any]]:
    """The table's log from its export (as the host): each event's type and payload."""
    response = await table.api.http.get(f"{table.path}/export", headers=table.credential)
    assert response.status_code == 200, response.text
    return [
        {"type": e["type"], **msgspec.json.decode(msgspec.json.encode(e["payload"]))}
        for e in response.json()["events"]
    ]


def cases(events: list[dict[str, Any]]) -> set[str]:
    """The covered cases that the log shows, deal by deal."""
    found: set[str] = set()
    deal = 0
    reserving: dict[int, int] = defaultdict(int)
    named: dict[int, list[tuple[int, str]]] = defaultdict(list)
    started = False
    left: set[int] = set()
    for event in events:
        kind = event["type"]
        if kind == "session_started":
            started = True
        elif kind == "deal_dealt":
            deal = event["deal_no"]
        elif kind == "declared" and event["declaration"] == "reservation":
            reserving[deal] += 1
            if reserving[deal] == 2:
                found.add("two seats reserving")
        elif kind == "contract_named":
            named[deal].append((event["seat"], event["contract"]))
        elif kind == "game_type_fixed":
            found.add(event["game_type"])
            winner = (event.get("declarer"), event["game_type"])
            if winner in named[deal] and any(n != winner for n in named[deal]):
                found.add("a hidden contract outranked")
        elif kind == "turn_timed_out":
            found.add("a timed-out seat")
        elif kind == "seat_left" and started and not event.get("by_host"):
            left.add(event["seat"])
        elif kind == "seat_taken" and event["seat"] in left:
            found.add("a seat left and a newcomer sat down")
    return found


def check(played: Played) -> None:
    assert played.code == 0, played.output
    assert "the session is over" in played.output, played.output
    types = [e["type"] for e in played.events]
    assert types.count("deal_scored") == len(PLAN) == 12 and types[-1] == "session_finished"
    found = cases(played.events)
    assert found >= CASES, sorted(CASES - found)
    view = played.view
    assert view.winners is not None and len(view.scoresheet) == 12
    assert all(sum(row) == 0 for row in view.scoresheet), view.scoresheet
    assert list(view.totals) == [sum(column) for column in zip(*view.scoresheet, strict=True)]
    scored = [tuple(e["score"]["entries"]) for e in played.events if e["type"] == "deal_scored"]
    assert scored == [tuple(row) for row in view.scoresheet]
    assert played.restarts == 1
    assert set(played.asked) <= ALLOWED, sorted(set(played.asked) - ALLOWED)
    streams = played.asked.count(("GET", "/tables/{id}/events"))
    tickets = played.asked.count(("POST", "/tables/{id}/stream-tickets"))
    assert streams >= 2 and tickets == streams, (streams, tickets)  # resumed, a ticket each
