"""A tournament from a browser only: a director creates a tournament on its page, eight
people register through one link each, they play two rounds at two tables with the same
deals, and everyone sees the standings and compares a deal across tables once both tables
scored it.

The director's page (English) creates the tournament, shares the registration link,
registers one player by hand (Bruno, who opens his personal link in a browser of his own)
and starts the rounds, with the reason shown while it may not. Anna registers through the
link in a German browser on a phone (390x844), goes to her seat from "your table now" (the
table page seats her with her tournament credential), sees her table of round 2 there and
later reads the standings, which fit her screen; the six others register through the same
link, each in a browser of their own.

The moves are not made in the browser (24 deals a round): they are the turn clock's
stand-in's (T3.2, `domain.players.stand_in_action`), the service's own way of playing a seat
whose time ran out: the clock's reading is pinned past every deadline
(`tests.web.conftest.TurnClockTime`), so the stand-in plays every seat at once, and before
every deadline while the test looks at a round that must not move. Only deal 1 at table 1 of
round 1 is played otherwise: by its four players through the API with their own tournament
credentials, choosing as the stand-in would, while table 2 waits, so that the comparison
page is seen refusing a deal one table has scored and the other not (E5.3). Rounds 1 and 2
are played to their 12th deal; a third round is abandoned by the director from the
tournament's page at both tables once they scored a deal (E4.2, T4.2: their scored deals
count). A visitor without any credential reads the public tournament's standings and the
comparison. What the pages showed is checked against the tables' full logs read from the
database.
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

from domain.events import DealDealt, DealScored, Score
from domain.players import stand_in_action
from service.tools.client import (
    DokoClient,
)
from tests.web.browsing import (
    Log,
    Tab,
    click_until,
    full_log,
    grave_violations,
    open_tab,
    screenshot,
    send,
)
from tests.web.conftest import Service
from tests.web.test_board import LAYOUT_UNIT, SIZES
from tests.web.test_table_life import LONG_AGO, urls_with

pytestmark = pytest.mark.xdist_group("tournament_pages")
"""Its tests share fixtures that play whole sessions: one worker runs them all
(`--dist loadgroup`, README), so that they are played once."""

PAST_EVERY_DEADLINE = datetime(2100, 1, 1, tzinfo=UTC)
"""A turn clock reading after every deadline: the stand-in acts for every seat at once."""
ROUND_MS = 600_000
"""How long the stand-ins may take at most to play a round's 24 deals (they take seconds; a
bound, not a measure)."""
MOVES = 60
"""More turns than a deal has (4 declarations, a contract or none, 48 cards)."""
OTHERS = ("Bruno", "Carla", "Dirk", "Emma", "Fritz", "Gabi", "Hans")
PHONE = SIZES["phone"]


@dataclass
class Evening:
    """What the pages of the director, of the players and of a visitor did over the tournament."""

    tournament_id: str
    director: Tab
    anna: Tab
    visitor: Tab
    link: str = ""
    personal: str = ""
    typed: str = ""
    credentials: dict[str, str] = field(default_factory=dict)
    """Each player's tournament credential, as the page they registered on keeps it."""
    bruno: dict[str, Any] = field(default_factory=dict)
    anna_seat: dict[str, Any] = field(default_factory=dict)
    ahead: dict[str, str | None] = field(default_factory=dict)
    refused: dict[str, Any] = field(default_factory=dict)
    anna_round_2: str = ""
    anna_over: tuple[str, int] = ("", 0)
    """What Anna's page says of her part once the tournament is over, and its seat buttons."""
    start_why: list[str | None] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, Log] = field(default_factory=dict)
    standings: dict[str, dict[str, Any]] = field(default_factory=dict)
    outside: list[str] = field(default_factory=list)
    compared: dict[str, Any] = field(default_factory=dict)
    visitor_keys: list[str] = field(default_factory=list)
    viewer_link: str = ""
    table_buttons: int = 0
    grave: dict[str, list[str]] = field(default_factory=dict)


def held(text: str | None) -> dict[str, Any]:
    return dict(json.loads(text)) if text else {}


async def storage(tab: Tab, key: str) -> dict[str, Any]:
    return held(await tab.page.evaluate("(key) => localStorage.getItem(key)", key))


async def register(tab: Tab, link: str, name: str) -> str:
    """Register under ``name`` through the registration link; the credential the page keeps."""
    await tab.page.goto(link)
    await tab.page.fill("#name", name)
    await send(tab.page, "[data-key='register']")
    await tab.page.wait_for_selector("#you")
    tournament_id = link.rsplit("/", 1)[1]
    return str((await storage(tab, f"doko-tournament:{tournament_id}"))["token"])


async def start_round(tab: Tab, round_no: int) -> None:
    """The director starts the round on the page: "Start round n", then "yes"."""
    page = tab.page
    await click_until(
        page,
        "[data-key='start']:not([disabled])",
        "!!document.querySelector(\"[data-key='start-yes']\")",
    )
    await send(page, "[data-key='start-yes']")
    await page.wait_for_selector(f"#rounds [data-round='{round_no}'][data-ended='false']")


async def play_round(service: Service, tab: Tab, round_no: int) -> None:
    """Let the stand-ins play the round to its end, as the director's page shows it (live)."""
    service.clock.pinned = PAST_EVERY_DEADLINE
    ended = f"#rounds [data-round='{round_no}'][data-ended='true']"
    await tab.page.wait_for_selector(ended, timeout=ROUND_MS)
    service.clock.pinned = LONG_AGO


SCORED = """(round) => [...document.querySelectorAll(`[data-round="${round}"] [data-table]`)]
  .every((table) => Number(table.dataset.deals) >= 1)"""


async def abandon_round(service: Service, tab: Tab, round_no: int) -> None:
    """Let the stand-ins play the round until both tables scored a deal, as the director's
    page shows it (live); then the director abandons both tables there (E4.2, T4.2), which
    ends the round."""
    page = tab.page
    service.clock.pinned = PAST_EVERY_DEADLINE
    await page.wait_for_function(SCORED, arg=round_no, timeout=ROUND_MS)
    service.clock.pinned = LONG_AGO
    tables = await page.eval_on_selector_all(
        f"#rounds [data-round='{round_no}'] li[data-table]",
        "l => l.map((e) => [e.dataset.table, e.dataset.tableNo])",
    )
    for table, number in tables:
        await click_until(
            page,
            f"[data-key='abandon-{table}']",
            f"!!document.querySelector(\"[data-key='abandon-{table}-yes']\")",
        )
        await send(page, f"[data-key='abandon-{table}-yes']")
        over = f"[data-round='{round_no}'] li[data-table-no='{number}'][data-over='true']"
        await page.wait_for_selector(over)
    await page.wait_for_selector(f"#rounds [data-round='{round_no}'][data-ended='true']")


async def play_first_deal(api: DokoClient, table_id: str, credentials: list[str]) -> None:
    """The table's four players play deal 1 with their own tournament credentials (E5.2), each
    turn as the stand-in would choose it (T3.2), until it is scored."""
    table = api.table(table_id)
    seats = [table.seat(seat, token) for seat, token in enumerate(credentials)]
    deal = (await seats[0].view()).deal
    for _ in range(MOVES):
        assert deal is not None
        if deal.deal_no != 1 or deal.score is not None:
            return
        assert deal.turn is not None
        seat = seats[int(deal.turn)]
        own = (await seat.view()).deal
        assert own is not None
        action = stand_in_action(own)
        assert action is not None
        deal = (await seat.send(action)).view.deal
    raise AssertionError(f"deal 1 at {table_id} not scored after {MOVES} turns")


@pytest.fixture(scope="module")
async def evening(browser: Browser, service: Service, pool: asyncpg.Pool) -> AsyncIterator[Evening]:
    service.clock.pinned = LONG_AGO
    director = await open_tab(browser, service.url)
    anna = await open_tab(browser, service.url, PHONE, locale="de-DE")
    visitor = await open_tab(browser, service.url)
    page = director.page
    await page.goto("/tournament")
    await page.wait_for_selector("#create-tournament")
    grave = {"new tournament, en": await grave_violations(page)}
    await page.fill("#name", "Club night")
    await page.fill("#rounds", "3")
    await page.select_option("#visibility", "public")
    await page.fill("#turn_seconds", "5")
    await page.select_option("#method", "placement_points")
    await page.click("[data-key='create-tournament']")
    await page.wait_for_url("**/tournament/*")
    await page.wait_for_selector("#registration-link")
    tournament_id = page.url.rsplit("/", 1)[1]
    lived = Evening(tournament_id, director, anna, visitor, grave=grave)
    lived.link = await page.input_value("#registration-link")
    lived.start_why.append(await page.get_attribute("#start-why", "data-reason"))

    # the director types Bruno's name; Anna registers through the link, in German, which
    # redraws the director's page (with the name kept) before Bruno is registered by hand
    await page.fill("#who", OTHERS[0])
    lived.credentials["Anna"] = await register(anna, lived.link, "Anna")
    lived.grave["player registered, de"] = await grave_violations(anna.page)
    await page.wait_for_selector("#players li[data-player='0']")
    lived.typed = await page.input_value("#who")
    await send(page, "[data-key='register-for']")
    await page.wait_for_selector("#personal-0")
    lived.personal = await page.input_value("#personal-0")
    # Bruno opens his personal link on a device of his own
    bruno = await open_tab(browser, service.url)
    await bruno.page.goto(lived.personal)
    await bruno.page.wait_for_selector("#you[data-player='1']")
    lived.bruno = {
        "held": await storage(bruno, f"doko-tournament:{tournament_id}"),
        "url": bruno.page.url,
        "heading": await bruno.page.inner_text("#you-h"),
    }
    lived.credentials["Bruno"] = lived.bruno["held"]["token"]
    await bruno.close()
    # the six others register through the link, each in a browser of their own
    for name in OTHERS[1:]:
        own = await open_tab(browser, service.url)
        lived.credentials[name] = await register(own, lived.link, name)
        await own.close()
    await page.wait_for_selector("#players li:nth-child(8)")
    lived.grave["director, registering, en"] = await grave_violations(page)
    await screenshot(page, "tournament-director")

    await start_round(director, 1)
    lived.table_buttons = await page.locator("#rounds [data-key^='table-']").count()
    lived.start_why.append(await page.get_attribute("#start-why", "data-reason"))
    # Anna's table now: the button seats her at the table page with her tournament credential
    await anna.page.click("[data-key='to-seat']")
    await anna.page.wait_for_url("**/t/*")
    await anna.page.wait_for_selector("body[data-seated='true'] #hand")
    table_id = anna.page.url.rsplit("/", 1)[1]
    lived.anna_seat = {
        "table": table_id,
        "held": await storage(anna, f"doko:{table_id}"),
        "tournament": await storage(anna, f"doko-tournament:{tournament_id}"),
        "hand": await anna.page.eval_on_selector_all("#hand [data-card]", "l => l.length"),
    }
    await anna.page.goto(f"/tournament/{tournament_id}")

    # table 1 plays deal 1 while table 2 waits: deal 1 is not public yet (E5.3)
    async with httpx.AsyncClient(base_url=service.url) as http:
        answer = (await http.get(f"/tournaments/{tournament_id}")).json()
        (first,) = [t for t in answer["tables"] if t["table_no"] == 1]
        (seated,) = [t for t in answer["tournament"]["played"][0]["tables"] if t["table_no"] == 1]
        players = [lived.credentials[name] for name in seated["seats"]]
        await play_first_deal(DokoClient(http), first["table_id"], players)
    await page.wait_for_selector("[data-round='1'] li[data-table-no='1'][data-deals='1']")
    lived.ahead = {
        number: await page.get_attribute(
            f"[data-round='1'] li[data-table-no='{number}']", "data-deals"
        )
        for number in ("1", "2")
    }
    await visitor.page.goto(f"/tournament/{tournament_id}/rounds/1/deals/1")
    await visitor.page.wait_for_selector(".problem")
    lived.refused = {
        "code": await visitor.page.get_attribute(".problem", "data-code"),
        "rule": await visitor.page.get_attribute(".problem [data-rule]", "data-rule"),
        "cards": await visitor.page.locator("[data-card]").count(),
    }

    await play_round(service, director, 1)
    await start_round(director, 2)
    now = anna.page.locator("#you p:has(+ p [data-key='to-seat'])", has_text="Runde 2:")
    lived.anna_round_2 = await now.inner_text()
    await play_round(service, director, 2)
    await start_round(director, 3)
    await abandon_round(service, director, 3)
    await page.wait_for_selector("#tournament-facts[data-status='finished']")
    over = anna.page.locator("#you #over")
    lived.anna_over = (
        await over.inner_text(),
        await anna.page.locator("[data-key='to-seat']").count(),
    )
    async with httpx.AsyncClient(base_url=service.url) as http:
        lived.view = (await http.get(f"/tournaments/{tournament_id}")).json()["tournament"]
    for played in lived.view["played"]:
        for table in played["tables"]:  # each with its stream's id, as the database has it
            table["table_id"] = await pool.fetchval(
                TABLE_ID, tournament_id, played["round_no"], table["table_no"]
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
    "SELECT table_id FROM tournament_tables"
    " WHERE tournament_id = $1 AND round_no = $2 AND table_no = $3"
)
STANDINGS = """l => l.map((e) => [e.querySelector('th').textContent,
  [+e.dataset.total, +e.dataset.placement]])"""
COMPARED = """(table) => {
  const column = document.querySelector(`.columns [data-table="${table}"]`);
  return [column.querySelector('.contract [data-game]').dataset.game,
          +column.querySelector('.score').dataset.value,
          [...column.querySelectorAll('.score [data-entry]')].map((e) => +e.dataset.entry),
          column.querySelectorAll('.tricks li').length];
}"""
OUTSIDE = """(width) => [...document.querySelectorAll(
  '#standings th, #standings td, #standings p, #standings abbr')]
  .map((e) => [e.textContent, e.getBoundingClientRect()])
  .filter(([, box]) => box.left < 0 || box.right > width)
  .map(([text, box]) => `${text}: ${box.left}..${box.right}`)"""
"""The cells and lines of the standings not wholly inside the window's width (``width``: the
window's, plus the layout unit a box may end past it by rounding)."""


async def everyone_looks(lived: Evening) -> None:
    """The visitor and Anna read the standings (Anna's must fit her phone); the visitor
    compares deal 1 of round 1 from the tournament's page, Anna deal 1 from the deal viewer of
    her table; Anna opens /tournament again."""
    tournament_id = lived.tournament_id
    for tab, name in ((lived.visitor, "visitor, en"), (lived.anna, "player, de")):
        page = tab.page
        await page.goto(f"/tournament/{tournament_id}")
        await page.wait_for_selector("#standings tbody tr:nth-child(8)")
        lived.standings[name] = {
            "lines": dict(await page.eval_on_selector_all("#standings tbody tr", STANDINGS)),
            "method": await page.get_attribute("#standings", "data-method"),
            "tie_break": await page.locator("#standings [data-rule='E6.4']").count(),
            "heading": await page.inner_text("#standings-h"),
            "abandoned": await page.get_attribute("#abandoned", "data-tables"),
        }
        lived.grave[f"standings, {name}"] = await grave_violations(page)
    lived.outside = await lived.anna.page.evaluate(OUTSIDE, PHONE["width"] + LAYOUT_UNIT)
    await screenshot(lived.anna.page, "tournament-standings-de")
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
    await screenshot(page, "tournament-compare")
    lived.visitor_keys = await page.evaluate("Object.keys(localStorage)")
    page = lived.anna.page
    await page.goto(f"/t/{lived.anna_seat['table']}/deals/1")
    await page.wait_for_selector("#score")  # the deal is drawn, with its link if it has one
    if await page.locator("#compare-link").count():
        lived.viewer_link = await page.get_attribute("#compare-link", "href") or ""
    await page.goto(f"/tournament/{tournament_id}/rounds/1/deals/1")
    await page.wait_for_selector(".columns [data-table]")
    lived.grave["comparison, de"] = await grave_violations(page)
    await page.goto("/tournament")
    await page.wait_for_selector("#my-tournaments [data-my-tournament]")
    lived.grave["new tournament, de"] = await grave_violations(page)


def scores_of(log: Log) -> list[Score]:
    return [e.score for _, e in log if isinstance(e, DealScored)]


def entries_of(log: Log) -> list[tuple[int, ...]]:
    return [tuple(score.entries) for score in scores_of(log)]


def hands_of(log: Log) -> dict[int, tuple[tuple[str, ...], ...]]:
    """Each deal's hands by seat, as dealt."""
    return {
        e.deal_no: tuple(tuple(c.value for c in hand) for hand in e.hands)
        for _, e in log
        if isinstance(e, DealDealt)
    }


PLACES = (3, 1, -1, -3)
"""E6.2: the placement points of places 1-4."""


def placed(totals: list[int]) -> list[float]:
    """E6.2 by hand: each seat's placement points at a table with these totals; seats with
    equal totals share the mean of the points of the places they span."""
    ranked = sorted(totals, reverse=True)
    points = []
    for total in totals:
        first, count = ranked.index(total), ranked.count(total)
        points.append(sum(PLACES[first : first + count]) / count)
    return points


async def test_the_director_creates_registers_by_hand_and_starts_the_rounds(
    evening: Evening,
) -> None:
    view = evening.view
    assert view["name"] == "Club night" and view["rounds"] == 3
    assert view["method"] == "placement_points" and view["turn_seconds"] == 5
    assert view["status"] == "finished"
    assert view["players"] == ["Anna", *OTHERS]
    assert evening.link == f"{evening.director.page.url}"  # a public tournament: its page
    assert evening.personal.startswith(f"{evening.link}#player=")
    # before anyone registered, and while round 1 ran, starting was offered with the reason
    assert evening.start_why == ["director.no_players", "director.running"]
    assert [len(r["tables"]) for r in view["played"]] == [2, 2, 2]
    played, abandoned = view["played"][:2], view["played"][2]
    assert all(t["deals"] == 12 and t["ended"] for r in played for t in r["tables"])
    assert not any(t["abandoned"] for r in played for t in r["tables"])
    assert all(t["deals"] >= 1 and t["ended"] and t["abandoned"] for t in abandoned["tables"])
    assert evening.table_buttons == 2  # the running round's tables, to open as their host


async def test_every_player_registers_through_a_link_of_their_own(evening: Evening) -> None:
    """E2.1: one credential a player; Bruno's personal link carries his (in its fragment,
    which leaves the address bar)."""
    credentials = evening.credentials
    assert list(credentials) == ["Anna", *OTHERS]
    assert len(set(credentials.values())) == 8
    assert evening.typed == "Bruno"  # the name typed on the director's page was kept
    assert evening.personal.endswith(f"#player={credentials['Bruno']}")
    assert evening.bruno["url"] == evening.link
    assert evening.bruno["heading"] == "You: Bruno"


async def test_a_player_goes_to_the_seat_the_tournament_gives_with_the_tournament_credential(
    evening: Evening,
) -> None:
    seat = evening.anna_seat
    credential = seat["tournament"]["token"]
    assert credential == evening.credentials["Anna"]
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


async def test_a_players_page_shows_their_table_of_the_next_round_then_the_end(
    evening: Evening,
) -> None:
    (table,) = [t for t in evening.view["played"][1]["tables"] if "Anna" in t["seats"]]
    seat = table["seats"].index("Anna")
    assert evening.anna_round_2 == f"Runde 2: Tisch {table['table_no']}, Platz {seat}."
    # once the tournament is over (E4.3) her part says so, and offers no seat of the last round
    assert evening.anna_over == ("Das Turnier ist vorbei: danke fürs Mitspielen.", 0)


async def test_every_table_of_a_round_held_the_same_deals(evening: Evening) -> None:
    """E5.1: seat s of deal n holds the same cards at both tables of a round, read from each
    table's log; the rounds' deals differ."""
    rounds = []
    for played in evening.view["played"][:2]:
        first, second = (hands_of(evening.tables[t["table_id"]]) for t in played["tables"])
        assert sorted(first) == list(range(1, 13))
        assert first == second
        rounds.append(first)
    assert all(rounds[0][n] != rounds[1][n] for n in range(1, 13))


async def test_a_deal_is_compared_only_once_both_tables_scored_it(evening: Evening) -> None:
    assert evening.ahead == {"1": "1", "2": "0"}  # table 1 had scored deal 1, table 2 not
    assert evening.refused == {"code": "deal_not_public", "rule": "E5.3", "cards": 0}
    round_1 = evening.view["played"][0]["tables"]
    logs = [evening.tables[t["table_id"]] for t in round_1]
    shown = [sorted(cards) for cards in evening.compared["hands"]]
    assert shown == [sorted(cards) for cards in hands_of(logs[0])[1]]
    for table, log in zip(round_1, logs, strict=True):  # each table's contract and score
        score = scores_of(log)[0]
        expected = [score.game_type.value, score.value, list(score.entries), 12]
        assert evening.compared[table["table_id"]] == expected


async def test_everyone_sees_the_standings_of_the_tables_logs(evening: Evening) -> None:
    """Total points (E6.1) and placement points (E6.2) by hand: each player's entries at the
    seats the rounds gave, each table's seats placed by their totals there."""
    totals = dict.fromkeys(evening.view["players"], 0)
    placements = dict.fromkeys(evening.view["players"], 0.0)
    for played in evening.view["played"]:
        for table in played["tables"]:
            at_table = [0, 0, 0, 0]
            for entries in entries_of(evening.tables[table["table_id"]]):
                at_table = [a + e for a, e in zip(at_table, entries, strict=True)]
            for name, total, points in zip(table["seats"], at_table, placed(at_table), strict=True):
                totals[name] += total
                placements[name] += points
    lines = {name: [totals[name], placements[name]] for name in totals}
    for name, heading in (("visitor, en", "Standings"), ("player, de", "Rangliste")):
        seen = evening.standings[name]
        assert seen == {
            "lines": lines,
            "method": "placement_points",
            "tie_break": 1,
            "heading": heading,
            "abandoned": "3/1 3/2",
        }
    assert [k for k in evening.visitor_keys if k.startswith("doko")] == []


async def test_the_standings_fit_a_phone_in_german(evening: Evening) -> None:
    assert evening.outside == []


async def test_the_deal_viewer_links_a_tournament_tables_deal_to_its_comparison(
    evening: Evening,
) -> None:
    assert evening.viewer_link == f"/tournament/{evening.tournament_id}/rounds/1/deals/1"


async def test_the_tournament_pages_are_accessible_in_both_languages(evening: Evening) -> None:
    assert len(evening.grave) == 8
    assert evening.grave == {name: [] for name in evening.grave}


async def test_a_private_tournaments_page_follows_its_stream_with_tickets(
    browser: Browser, service: Service
) -> None:
    """A player's page of a private tournament follows the tournament's stream through stream
    tickets (the credential only in the ticket request's header, never in a URL): when the
    director starts the round, "your table now" offers the seat once the stream says the
    table is open, without the page asking the seat's view before."""
    async with httpx.AsyncClient(base_url=service.url) as http:
        body = {"name": "Closed club", "visibility": "private"}
        created = (await http.post("/tournaments", json=body)).json()
        tournament_id, code = created["tournament_id"], created["invitation"]
        tokens = []
        for name in ("Anna", *OTHERS[:3]):
            joined = {"name": name, "invitation": code}
            answer = await http.post(f"/tournaments/{tournament_id}/players", json=joined)
            tokens.append(answer.json()["token"])
        tab = await open_tab(browser, service.url)
        try:
            await tab.page.goto(f"/tournament/{tournament_id}#player={tokens[0]}")
            await tab.page.wait_for_selector("#status[data-connection='live']")
            await tab.page.wait_for_selector("#you")
            director = {"authorization": f"Bearer {created['host_token']}"}
            started = await http.post(
                f"/tournaments/{tournament_id}/rounds", json={"round_no": 1}, headers=director
            )
            assert started.status_code == 200, started.text
            await tab.page.wait_for_selector("[data-key='to-seat']")
            path = f"/tournaments/{tournament_id}/stream-tickets"
            tickets = [r for r in tab.requests if r.url.endswith(path)]
            sent = [(await r.all_headers()).get("authorization") for r in tickets]
        finally:
            await tab.close()
    assert sent and set(sent) == {f"Bearer {tokens[0]}"}
    assert any("ticket=" in r.url and "/events?" in r.url for r in tab.requests)
    assert not [r for r in tab.requests if "/seats/" in r.url], "no seat asked before it opens"
    assert urls_with(tab, tokens[0]) == [] and urls_with(tab, code) == []


async def test_a_tournament_kept_under_its_former_key_stays_kept(
    browser: Browser, service: Service
) -> None:
    """A browser that kept a tournament's credentials before the service called it a
    tournament (``doko-event:<id>``) keeps them: the tournament pages move them to
    ``doko-tournament:<id>`` once, and the director still finds the tournament under "My
    tournaments" with its link."""
    async with httpx.AsyncClient(base_url=service.url) as http:
        body = {"name": "Old club", "visibility": "private"}
        created = (await http.post("/tournaments", json=body)).json()
    tournament_id = created["tournament_id"]
    kept = {"host": created["host_token"], "invitation": created["invitation"]}
    tab = await open_tab(browser, service.url)
    try:
        await tab.page.goto("/rules")
        await tab.page.evaluate(
            "([key, value]) => localStorage.setItem(key, value)",
            [f"doko-event:{tournament_id}", json.dumps(kept)],
        )
        await tab.page.goto("/tournament")
        await tab.page.wait_for_selector(f"[data-my-tournament='{tournament_id}'] a.go")
        keys = await tab.page.evaluate("() => Object.keys(localStorage)")
        moved = await storage(tab, f"doko-tournament:{tournament_id}")
    finally:
        await tab.close()
    assert moved == kept
    assert f"doko-event:{tournament_id}" not in keys
