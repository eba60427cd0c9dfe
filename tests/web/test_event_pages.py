"""An event from a browser only (issue 19's acceptance): a director creates an event on its
page, eight people register through one link each, they play two rounds at two tables with
the same deals, and everyone sees the standings and compares a deal across tables once both
tables scored it.

The director's page (English) creates the event, shares the registration link, registers
one player by hand (the personal link) and starts both rounds, with the reason shown while
it may not. Anna registers through the link in a German browser on a phone, goes to her seat
from "your table now" (the table page seats her with her event credential) and later reads
the standings; the six others register through the same link as the page's own request
does. Nobody acts at the tables: the turn clock's reading is pinned past every deadline
(`tests.web.conftest.TurnClockTime`), so the stand-in plays every seat at once (T3.2,
T3.3), and pinned before every deadline while the test looks at a round that must not move.
Once both tables of a round have scored a deal, the director abandons them from the event's
page (E4.2, T4.2: their scored deals count), which keeps the test short.
A visitor without any credential reads the public event's standings and the comparison.
What the pages showed is checked against the tables' full logs read from the database.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx
import pytest
from playwright.async_api import Browser

from domain.events import DealDealt, DealScored
from tests.web.browsing import PHONE, Tab, full_log, grave_violations, open_tab, screenshot
from tests.web.conftest import Service
from tests.web.test_table_life import LONG_AGO, urls_with

PAST_EVERY_DEADLINE = datetime(2100, 1, 1, tzinfo=UTC)
"""A turn clock reading after every deadline: the stand-in acts for every seat at once."""
ROUND_MS = 60_000
"""How long the stand-ins may take at most to score a deal at both tables of a round (a few
seconds, usually)."""
OTHERS = ("Bruno", "Carla", "Dirk", "Emma", "Fritz", "Gabi", "Hans")


@dataclass
class Evening:
    """What the pages of the director, of Anna and of a visitor did over the event."""

    event_id: str
    director: Tab
    anna: Tab
    visitor: Tab
    link: str = ""
    personal: str = ""
    anna_seat: dict[str, Any] = field(default_factory=dict)
    refused: dict[str, Any] = field(default_factory=dict)
    start_why: list[str | None] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, list[Any]] = field(default_factory=dict)
    standings: dict[str, dict[str, Any]] = field(default_factory=dict)
    compared: dict[str, Any] = field(default_factory=dict)
    visitor_keys: list[str] = field(default_factory=list)
    viewer_link: str = ""
    table_buttons: int = 0
    grave: dict[str, list[str]] = field(default_factory=dict)


def held(text: str | None) -> dict[str, Any]:
    return dict(json.loads(text)) if text else {}


async def storage(tab: Tab, key: str) -> dict[str, Any]:
    return held(await tab.page.evaluate("(key) => localStorage.getItem(key)", key))


async def start_round(tab: Tab, round_no: int) -> None:
    """The director starts the round on the page: "Start round n", then "yes"."""
    page = tab.page
    await page.click("[data-key='start']:not([disabled])")
    await page.click("[data-key='start-yes']")
    await page.wait_for_selector(f"#rounds [data-round='{round_no}'][data-ended='false']")


SCORED = """(round) => [...document.querySelectorAll(`[data-round="${round}"] [data-table]`)]
  .every((table) => Number(table.dataset.deals) >= 1)"""


async def play_round(service: Service, tab: Tab, round_no: int) -> None:
    """Let the stand-ins play the round until both tables scored a deal, as the director's
    page shows it (live); then the director abandons both tables there (E4.2, T4.2), which
    ends the round."""
    page = tab.page
    service.clock.pinned = PAST_EVERY_DEADLINE
    await page.wait_for_function(SCORED, arg=round_no, timeout=ROUND_MS)
    tables = await page.eval_on_selector_all(
        f"#rounds [data-round='{round_no}'] li[data-table]",
        "l => l.map((e) => [e.dataset.table, e.dataset.tableNo])",
    )
    for table, number in tables:
        await page.click(f"[data-key='abandon-{table}']")
        await page.click(f"[data-key='abandon-{table}-yes']")
        over = f"[data-round='{round_no}'] li[data-table-no='{number}'][data-over='true']"
        await page.wait_for_selector(over)
    await page.wait_for_selector(f"#rounds [data-round='{round_no}'][data-ended='true']")
    service.clock.pinned = LONG_AGO


@pytest.fixture(scope="module")
async def evening(browser: Browser, service: Service, pool: asyncpg.Pool) -> AsyncIterator[Evening]:
    service.clock.pinned = LONG_AGO
    director = await open_tab(browser, service.url)
    anna = await open_tab(browser, service.url, PHONE, locale="de-DE")
    visitor = await open_tab(browser, service.url)
    page = director.page
    await page.goto("/e")
    await page.wait_for_selector("#create-event")
    grave = {"new event, en": await grave_violations(page)}
    await page.fill("#name", "Club night")
    await page.fill("#rounds", "2")
    await page.select_option("#visibility", "public")
    await page.fill("#turn_seconds", "5")
    await page.select_option("#method", "placement_points")
    await page.click("[data-key='create-event']")
    await page.wait_for_url("**/e/*")
    await page.wait_for_selector("#registration-link")
    event_id = page.url.rsplit("/", 1)[1]
    lived = Evening(event_id, director, anna, visitor, grave=grave)
    lived.link = await page.input_value("#registration-link")
    lived.start_why.append(await page.get_attribute("#start-why", "data-reason"))

    # Anna registers through the link, in German
    await anna.page.goto(lived.link)
    await anna.page.fill("#name", "Anna")
    await anna.page.click("[data-key='register']")
    await anna.page.wait_for_selector("#you")
    lived.grave["player registered, de"] = await grave_violations(anna.page)
    # the director registers Bruno by hand; the others register through the link
    await page.fill("#who", OTHERS[0])
    await page.click("[data-key='register-for']")
    await page.wait_for_selector("#personal-0")
    lived.personal = await page.input_value("#personal-0")
    async with httpx.AsyncClient(base_url=service.url) as http:
        for name in OTHERS[1:]:
            answer = await http.post(f"/events/{event_id}/players", json={"name": name})
            assert answer.status_code == 201
    await page.wait_for_selector("#players li:nth-child(8)")
    lived.grave["director, registering, en"] = await grave_violations(page)
    await screenshot(page, "event-director")

    await start_round(director, 1)
    lived.table_buttons = await page.locator("#rounds [data-key^='table-']").count()
    lived.start_why.append(await page.get_attribute("#start-why", "data-reason"))
    # Anna's table now: the button seats her at the table page with her event credential
    await anna.page.click("[data-key='to-seat']")
    await anna.page.wait_for_url("**/t/*")
    await anna.page.wait_for_selector("body[data-seated='true'] #hand")
    table_id = anna.page.url.rsplit("/", 1)[1]
    lived.anna_seat = {
        "table": table_id,
        "held": await storage(anna, f"doko:{table_id}"),
        "event": await storage(anna, f"doko-event:{event_id}"),
        "hand": await anna.page.eval_on_selector_all("#hand [data-card]", "l => l.length"),
    }
    # nothing of round 1 may be compared before both tables scored it (E5.3)
    await visitor.page.goto(f"/e/{event_id}/rounds/1/deals/1")
    await visitor.page.wait_for_selector(".problem")
    lived.refused = {
        "code": await visitor.page.get_attribute(".problem", "data-code"),
        "rule": await visitor.page.get_attribute(".problem [data-rule]", "data-rule"),
        "cards": await visitor.page.locator("[data-card]").count(),
    }

    await play_round(service, director, 1)
    await start_round(director, 2)
    await play_round(service, director, 2)
    await page.wait_for_selector("#event-facts[data-status='finished']")
    async with httpx.AsyncClient(base_url=service.url) as http:
        lived.view = (await http.get(f"/events/{event_id}")).json()["event"]
    for played in lived.view["played"]:
        for table in played["tables"]:  # each with its stream's id, as the database has it
            table["table_id"] = await pool.fetchval(
                TABLE_ID, event_id, played["round_no"], table["table_no"]
            )
            lived.tables[table["table_id"]] = await full_log(pool, table["table_id"])
    await everyone_looks(lived)
    try:
        yield lived
    finally:
        service.clock.pinned = None
        for tab in (director, anna, visitor):
            await tab.close()


TABLE_ID = (
    "SELECT table_id FROM event_tables WHERE event_id = $1 AND round_no = $2 AND table_no = $3"
)
STANDINGS = """l => l.map((e) => [e.querySelector('th').textContent, +e.dataset.total])"""
COMPARED = """(table) => {
  const column = document.querySelector(`.columns [data-table="${table}"]`);
  return [[...column.querySelectorAll('.score [data-entry]')].map((e) => +e.dataset.entry),
          column.querySelectorAll('.tricks li').length];
}"""


async def everyone_looks(lived: Evening) -> None:
    """The visitor and Anna read the standings; the visitor compares deal 1 of round 1 from
    the event's page, Anna deal 1 from the deal viewer of her table; Anna opens /e again."""
    event_id = lived.event_id
    for tab, name in ((lived.visitor, "visitor, en"), (lived.anna, "player, de")):
        page = tab.page
        await page.goto(f"/e/{event_id}")
        await page.wait_for_selector("#standings tbody tr:nth-child(8)")
        lived.standings[name] = {
            "totals": dict(await page.eval_on_selector_all("#standings tbody tr", STANDINGS)),
            "method": await page.get_attribute("#standings", "data-method"),
            "tie_break": await page.locator("#standings [data-rule='E6.4']").count(),
            "heading": await page.inner_text("#standings-h"),
            "abandoned": await page.get_attribute("#abandoned", "data-tables"),
        }
        lived.grave[f"standings, {name}"] = await grave_violations(page)
    await screenshot(lived.anna.page, "event-standings-de")
    page = lived.visitor.page
    await page.click("#compare a[data-compare='1/1']")
    await page.wait_for_selector(".columns [data-table]")
    lived.compared["hands"] = [
        await page.eval_on_selector_all(
            f"#hands [data-hand='{seat}'] [data-card]", "l => l.map((e) => e.dataset.card)"
        )
        for seat in range(4)
    ]
    for table in lived.view["played"][0]["tables"]:
        lived.compared[table["table_id"]] = await page.evaluate(COMPARED, table["table_id"])
    lived.grave["comparison, en"] = await grave_violations(page)
    await screenshot(page, "event-compare")
    lived.visitor_keys = await page.evaluate("Object.keys(localStorage)")
    page = lived.anna.page
    await page.goto(f"/t/{lived.anna_seat['table']}/deals/1")
    await page.wait_for_selector("#score")  # the deal is drawn, with its link if it has one
    if await page.locator("#compare-link").count():
        lived.viewer_link = await page.get_attribute("#compare-link", "href") or ""
    await page.goto(f"/e/{event_id}/rounds/1/deals/1")
    await page.wait_for_selector(".columns [data-table]")
    lived.grave["comparison, de"] = await grave_violations(page)
    await page.goto("/e")
    await page.wait_for_selector("#my-events [data-my-event]")
    lived.grave["new event, de"] = await grave_violations(page)


def entries_of(log: list[Any]) -> list[tuple[int, ...]]:
    return [tuple(e.score.entries) for _, e in log if isinstance(e, DealScored)]


def hands_of(log: list[Any], deal: int) -> tuple[tuple[str, ...], ...]:
    dealt = [e for _, e in log if isinstance(e, DealDealt) and e.deal_no == deal]
    return tuple(tuple(c.value for c in hand) for hand in dealt[0].hands)


async def test_the_director_creates_registers_by_hand_and_starts_the_rounds(
    evening: Evening,
) -> None:
    view = evening.view
    assert view["name"] == "Club night" and view["rounds"] == 2
    assert view["method"] == "placement_points" and view["turn_seconds"] == 5
    assert view["status"] == "finished"
    assert view["players"] == ["Anna", *OTHERS]
    assert evening.link == f"{evening.director.page.url}"  # a public event: its page
    assert evening.personal.startswith(f"{evening.link}#player=")
    # before anyone registered, and while round 1 ran, starting was offered with the reason
    assert evening.start_why == ["director.no_players", "director.running"]
    assert [len(r["tables"]) for r in view["played"]] == [2, 2]
    tables = [t for r in view["played"] for t in r["tables"]]
    assert all(t["deals"] >= 1 and t["ended"] and t["abandoned"] for t in tables)
    assert evening.table_buttons == 2  # the running round's tables, to open as their host


async def test_a_player_goes_to_the_seat_the_event_gives_with_the_event_credential(
    evening: Evening,
) -> None:
    seat = evening.anna_seat
    credential = seat["event"]["token"]
    assert seat["held"]["token"] == credential
    round_1 = evening.view["played"][0]["tables"]
    where = [
        (t["table_id"], seat)
        for t in round_1
        for seat, name in enumerate(t["seats"])
        if name == "Anna"
    ]
    assert where == [(seat["table"], seat["held"]["seat"])]
    assert seat["hand"] == 12
    # no credential went into a URL
    for tab in (evening.director, evening.anna, evening.visitor):
        assert urls_with(tab, credential) == []


async def test_every_table_of_a_round_held_the_same_deals(evening: Evening) -> None:
    for played in evening.view["played"]:
        logs = [evening.tables[t["table_id"]] for t in played["tables"]]
        assert hands_of(logs[0], 1) == hands_of(logs[1], 1)
    first, second = (evening.view["played"][r]["tables"][0]["table_id"] for r in (0, 1))
    assert hands_of(evening.tables[first], 1) != hands_of(evening.tables[second], 1)


async def test_a_deal_is_compared_only_once_both_tables_scored_it(evening: Evening) -> None:
    assert evening.refused == {"code": "deal_not_public", "rule": "E5.3", "cards": 0}
    round_1 = evening.view["played"][0]["tables"]
    logs = [evening.tables[t["table_id"]] for t in round_1]
    shown = [sorted(cards) for cards in evening.compared["hands"]]
    assert shown == [sorted(cards) for cards in hands_of(logs[0], 1)]
    for table, log in zip(round_1, logs, strict=True):
        assert evening.compared[table["table_id"]] == [list(entries_of(log)[0]), 12]


async def test_everyone_sees_the_standings_of_the_tables_logs(evening: Evening) -> None:
    """Total points (E6.1) by hand: each player's entries at the seats the rounds gave."""
    totals = dict.fromkeys(evening.view["players"], 0)
    for played in evening.view["played"]:
        for table in played["tables"]:
            for entries in entries_of(evening.tables[table["table_id"]]):
                for seat, name in enumerate(table["seats"]):
                    totals[name] += entries[seat]
    for name, heading in (("visitor, en", "Standings"), ("player, de", "Rangliste")):
        seen = evening.standings[name]
        assert seen == {
            "totals": totals,
            "method": "placement_points",
            "tie_break": 1,
            "heading": heading,
            "abandoned": "1/1 1/2 2/1 2/2",
        }
    assert [k for k in evening.visitor_keys if k.startswith("doko")] == []


async def test_the_deal_viewer_links_an_event_tables_deal_to_its_comparison(
    evening: Evening,
) -> None:
    assert evening.viewer_link == f"/e/{evening.event_id}/rounds/1/deals/1"


async def test_the_event_pages_are_accessible_in_both_languages(evening: Evening) -> None:
    assert len(evening.grave) == 8
    assert evening.grave == {name: [] for name in evening.grave}
