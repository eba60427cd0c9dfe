"""The two "bot in 50 lines" examples (examples/python, examples/typescript) play a whole
session against a live service, from their stream alone, over the preset deals of
`tests.examples.harness.PLAN`: a marriage, every solo, a silent solo, two seats reserving with
the hidden contract outranked (R4.3), a seat the turn clock acted for (T3.2), a seat left for a
newcomer (T2) and a restart of the service in the middle.

What happened is read from the table's export (the log, not the bots' output); the session's
end from the service's final view (its scoresheet: 12 rows, each summing to 0, R1.3, totals
their sums); that the example never polled from the requests the service received: an
example may sit down, get stream tickets, read the stream and send its commands, nothing else
(a GET of a view would be a ``GET /tables/{id}`` or ``/tables/{id}/seats/{seat}``).

The TypeScript example needs node and npm (the client's own tests install its dependencies
the same way); without them its test is skipped, except under CI (``CI=true``).
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from domain.cards import Card
from domain.game_types import SOLOS, GameType
from service.tools.client import TableClient
from tests.examples.harness import (
    EXAMPLE_SEAT,
    PLAN,
    RESTART_AT,
    TURN_SECONDS,
    Scripted,
    Service,
    harness_client,
    presets,
    run_example,
    watch,
)
from tests.web.conftest import in_ci

pytestmark = pytest.mark.xdist_group("examples")
"""Each test plays a whole session on its own live service: one worker runs them."""

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "typescript"
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


@pytest.fixture
async def service(db_url: str) -> AsyncIterator[Service]:
    live = Service(db_url)
    await live.start()
    try:
        yield live
    finally:
        await live.stop()


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


async def test_a_view_asked_for_by_anyone_but_the_harness_is_seen(service: Service) -> None:
    """The request log tells an example's GET of a view from the harness's: the check that
    the examples never poll can fail."""
    async with harness_client(service.url) as api:
        table = await api.create_table("polled", visibility="public")
        await table.view()
    async with httpx.AsyncClient(base_url=service.url) as http:  # as an example would
        assert (await http.get(table.path)).status_code == 200
        assert (await http.get(f"{table.path}/seats/0")).status_code in (401, 404)
    assert service.requests is not None
    asked = set(service.requests.of_examples(table.table_id))
    assert asked == {("GET", "/tables/{id}"), ("GET", "/tables/{id}/seats/{seat}")}
    assert not asked <= ALLOWED


def test_the_plan_covers_every_contract_kind() -> None:
    """The plan names every contract but the silent solo (which nobody names, R4.5) and
    normal; its presets are 12 decks (R2.2) with both QC where the plan puts them."""
    named = {c for deal in PLAN for c in deal.contracts.values()}
    assert named == set(GameType) - {GameType.NORMAL, GameType.SILENT_SOLO}
    for plan, deal in zip(PLAN, presets(), strict=True):
        holders = [seat for seat, hand in enumerate(deal) if "QC" in hand]
        assert holders == ([plan.both_qc] if plan.both_qc is not None else holders)
        assert len(holders) == (1 if plan.both_qc is not None else 2)
        assert sorted(c for hand in deal for c in hand) == sorted(2 * [c.value for c in Card])


async def test_the_python_example_plays_a_session_from_its_stream(service: Service) -> None:
    bot = str(ROOT / "examples" / "python" / "bot.py")
    played = await play(service, lambda url, table, code: [sys.executable, bot, url, table, code])
    check(played)


@pytest.fixture(scope="module")
async def typescript_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The TypeScript example compiled (``tsc --strict``) in a fresh project that installed
    the client from its path, as the example's README says."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        if in_ci():
            pytest.fail("CI=true but no node/npm")
        pytest.skip("the TypeScript example needs node and npm (apt-get install nodejs npm)")
    if not (CLIENT / "dist" / "index.js").exists():
        code, output = await run_example([npm, "ci", "--no-audit", "--no-fund"], cwd=str(CLIENT))
        assert code == 0, output
    folder = tmp_path_factory.mktemp("example")
    for name in ("bot.ts", "tsconfig.json"):
        shutil.copy(ROOT / "examples" / "typescript" / name, folder / name)
    (folder / "package.json").write_text('{"name": "bot", "private": true, "type": "module"}')
    install = [npm, "install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts"]
    code, output = await run_example([*install, str(CLIENT)], cwd=str(folder))
    assert code == 0, output
    (folder / "node_modules" / "@types").symlink_to(CLIENT / "node_modules" / "@types")
    compiler = str(CLIENT / "node_modules" / "typescript" / "bin" / "tsc")
    code, output = await run_example([node, compiler, "-p", "tsconfig.json"], cwd=str(folder))
    assert code == 0, output
    return folder / "build" / "bot.js"


async def test_the_typescript_example_plays_a_session_from_its_stream(
    service: Service, typescript_example: Path
) -> None:
    node = shutil.which("node") or "node"
    script = str(typescript_example)
    played = await play(service, lambda url, table, code: [node, script, url, table, code])
    check(played)
