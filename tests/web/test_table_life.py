"""The table's life in a real Chromium: the lobby, a private table joined through its
invitation link, leaving and a bot taking the vacant seat, abandoning, the turn clock.

A host opens a private table in the lobby and shares its invitation link; a guest opens the
link in a browser of their own, sits down, finds Leave disabled on their own turn (T2.3),
declares, and leaves; the host seats a bot on the vacant seat from the host's page, plays
deal 1 to its score, looks at it in the deal viewer, and abandons the session in deal 2;
the guest watches it all as a spectator. What the pages showed and sent is then checked
against the full log read from the database. The turn clock's test pins the clock's time
(`tests.web.conftest.TurnClockTime`), so that the test says when a deadline has passed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from playwright.async_api import Browser

from domain.events import Declared
from domain.players import stand_in_action
from domain.seats import Seat
from domain.table import (
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatTaken,
    SessionAbandoned,
    TableClosed,
    TurnTimedOut,
)
from infra.audit.export import verify_file
from infra.signing import read_keys
from service.routes.pages import WEB
from service.tools.client import (
    DokoClient,
    SeatClient,
    TableClient,
)
from tests.web.browsing import (
    DESKTOP,
    PHONE,
    Tab,
    fits,
    full_log,
    grave_violations,
    open_tab,
    screenshot,
    unseen_cards,
    visible_versions,
)
from tests.web.conftest import Service
from tests.web.test_pages import table_rules_of_the_domain

pytestmark = pytest.mark.xdist_group("table_life")
"""Its tests share fixtures that play whole sessions: one worker runs them all
(`--dist loadgroup`, README), so that they are played once."""

LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)
"""A turn clock reading before every deadline: no turn runs out."""


def stored(text: str) -> dict[str, Any]:
    return dict(json.loads(text)) if text else {}


async def storage(tab: Tab, table_id: str) -> dict[str, Any]:
    """What the tab's local storage holds for the table."""
    return stored(await tab.page.evaluate(f"localStorage.getItem('doko:{table_id}') ?? ''"))


def urls_with(tab: Tab, secret: str) -> list[str]:
    """The requests of the tab whose path or query carry ``secret``."""
    found = []
    for request in tab.requests:
        url = httpx.URL(request.url)
        if secret in url.path or secret in url.query.decode():
            found.append(request.url)
    return found


async def open_table(tab: Tab, player: str, bots: int, **options: str) -> str:
    """Open a table in the lobby (the options by their field's name) and sit down; its id."""
    page = tab.page
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    await page.fill("#player", player)
    await page.select_option("#bots", str(bots))
    for name, value in options.items():
        field = f"#option-{name}"
        if await page.locator(field).evaluate("e => e.tagName") == "SELECT":
            await page.select_option(field, value)
        else:
            await page.fill(field, value)
    await page.click("#create-button")
    await page.wait_for_url("**/t/*")
    await page.wait_for_selector("#seats")
    return page.url.rsplit("/", 1)[1]


@dataclass
class Life:
    """What the host's, the guest's and a visitor's pages did over the private table's life."""

    table_id: str
    host: Tab
    guest: Tab
    visitor: Tab
    link: str = ""
    code: str = ""
    held: dict[str, dict[str, Any]] = field(default_factory=dict)
    guest_url: str = ""
    door: dict[str, Any] = field(default_factory=dict)
    refusal: dict[str, Any] = field(default_factory=dict)
    guest_seat_before_leaving: dict[str, str | None] = field(default_factory=dict)
    sheet_cell: dict[str, Any] = field(default_factory=dict)
    played_by: list[str] = field(default_factory=list)
    export: bytes = b""
    audited: bytes = b""
    policy: list[str] = field(default_factory=list)
    guest_saw: dict[str, Any] = field(default_factory=dict)
    host_shown: list[str] = field(default_factory=list)
    grave: dict[str, list[str]] = field(default_factory=dict)
    phone_fits: dict[str, bool] = field(default_factory=dict)


async def play_to_the_end(tab: Tab, deal: int) -> None:
    """Play the seat's part of a deal from the page until its result is shown, and close it."""
    while (move := await tab.next_move(deal)) != "done":
        await tab.move(move)
    await tab.next_deal()


async def confirm(tab: Tab, key: str) -> None:
    """Click the command ``key``, then its "yes" (answered: a new version or a refusal)."""
    await tab.page.click(f"[data-key='{key}']")
    assert await tab.move(f"{key}-yes")


@pytest.fixture(scope="module")
async def life(browser: Browser, service: Service) -> AsyncIterator[Life]:
    host = await open_tab(browser, service.url)
    guest = await open_tab(browser, service.url, PHONE)
    visitor = await open_tab(browser, service.url)
    # the first dealer is seat 2: the guest, who will sit on seat 3, declares first (R4.1)
    table_id = await open_table(host, "Hana", 1, first_dealer="2", visibility="private")
    lived = Life(table_id, host, guest, visitor)
    page = host.page
    await page.wait_for_selector("#invite[open] #invitation-link")
    lived.link = await page.input_value("#invitation-link")
    lived.code = stored(await page.evaluate(f"localStorage.getItem('doko:{table_id}')"))[
        "invitation"
    ]
    lived.grave["host, inviting"] = await grave_violations(page)
    await screenshot(page, "table-invite")

    # someone with only the table's address finds it closed, and opens it with the link
    await visitor.page.goto(f"/t/{table_id}")
    await visitor.page.wait_for_selector("#enter")
    problem = visitor.page.locator(".problem")
    lived.door = {
        "text": await problem.inner_text(),
        "status": await problem.get_attribute("data-status"),
        "code": await problem.get_attribute("data-code"),
    }
    lived.grave["visitor, at the door"] = await grave_violations(visitor.page)
    await visitor.page.fill("#code", lived.link)
    await visitor.page.click("#enter button")
    await visitor.page.wait_for_selector("#seats form.sit")

    # the guest opens the link and sits down on seat 3
    await guest.page.goto(lived.link)
    await guest.page.wait_for_selector("[data-key='sit-3']")
    lived.guest_url = guest.page.url
    await guest.page.fill("#sit-name", "Gus")
    await guest.page.click("[data-key='sit-3']")
    await guest.page.wait_for_selector("text=You play Gus (seat 3)")

    # the host seats a bot on the last free seat: the session starts
    await page.wait_for_selector("[data-seat-line='3'][data-status='seated']")
    await page.click("[data-key='bots']")
    await guest.page.wait_for_selector("[data-key='declare-healthy']")

    # leaving on one's own turn is not offered (T2.3); after declaring, the guest leaves
    # (the seats part is a dialog of the menu bar once the board is there)
    await guest.page.click("[data-menu='seats']")
    reason = guest.page.locator("#leave-why")
    lived.refusal = {
        "disabled": await guest.page.locator("[data-key='leave']").is_disabled(),
        "code": await guest.page.get_attribute("[data-key='leave']", "data-code"),
        "reason": " ".join((await reason.inner_text()).split()),
        "rule": await reason.locator("[data-rule]").get_attribute("data-rule"),
        "text": " ".join((await reason.locator(".rule-text").inner_text()).split()),
        "link": await reason.locator("a[href='/rules#T2.3']").count(),
    }
    lived.grave["guest, on turn"] = await grave_violations(guest.page)
    await guest.page.click("[data-key='close-seats']")
    assert await guest.move("declare-healthy")
    seat_box = guest.page.locator("[data-seat-box='3']")
    lived.guest_seat_before_leaving = {"status": await seat_box.get_attribute("data-status")}
    await guest.page.click("[data-menu='seats']")
    await confirm(guest, "leave")
    watching = "body[data-seated='false'] [data-seat-box='3'][data-status='vacant']"
    await guest.page.wait_for_selector(watching)
    lived.grave["guest, watching"] = await grave_violations(guest.page)
    lived.phone_fits["guest, watching"] = await fits(guest.page, PHONE["width"])

    # the host seats a bot on the vacant seat (from the host's dialog), and plays deal 1 to
    # its score
    await page.wait_for_selector("[data-seat-line='3'][data-status='vacant']", state="attached")
    await page.click("[data-menu='host']")
    await page.click("[data-key='bots']")
    await page.wait_for_selector("[data-seat-line='3'][data-status='seated']", state="attached")
    await page.click("[data-key='close-host']")
    await play_to_the_end(host, 1)
    cell = page.locator("#sheet tr[data-deal='1'] td").nth(3)
    lived.sheet_cell = {
        "players": json.loads(await cell.get_attribute("data-players") or "[]"),
        "text": await cell.inner_text(),
    }

    # the deal viewer (from the scoresheet's link), with the host's credentials of the table
    lived.host_shown = await host.shown()  # a new page records anew
    await page.click("[data-menu='sheet']")
    await page.click("#sheet tr[data-deal='1'] th a")
    await page.wait_for_selector("#verification")
    by = page.locator("[data-hand='3'] [data-played-by]")
    lived.played_by = json.loads(await by.get_attribute("data-played-by") or "[]")
    lived.grave["deal viewer, private"] = await grave_violations(page)

    # back at the table, the host abandons the session and downloads its export
    await page.goto(f"/t/{table_id}")
    await page.click("[data-menu='host']")
    await page.wait_for_selector("[data-key='abandon']")
    await page.click("[data-key='abandon']")
    lived.grave["host, abandoning"] = await grave_violations(page)
    assert await host.move("abandon-yes")
    await page.wait_for_selector("#ending[data-status='abandoned']")
    async with page.expect_download() as downloading:
        await page.click("#ending [data-key='export']")
    lived.export = Path(await (await downloading.value).path()).read_bytes()
    lived.grave["host, abandoned"] = await grave_violations(page)

    # the deal viewer in another tab with the host's credentials, under the pages' policy
    auditor = await open_tab(
        browser, service.url, held=(table_id, await storage(host, table_id)), bypass_csp=False
    )
    await auditor.page.goto(f"/t/{table_id}/deals/1")
    async with auditor.page.expect_download() as downloading:
        await auditor.page.click("[data-key='export']")
    lived.audited = Path(await (await downloading.value).path()).read_bytes()
    lived.policy = [m for m in auditor.console if "Content Security Policy" in m] + auditor.errors
    await auditor.close()

    await guest.page.wait_for_selector("#ending[data-status='abandoned']")
    lived.guest_saw = {
        "seat 3": await guest.page.get_attribute("[data-seat-line='3']", "data-status"),
        "rows": await guest.page.locator("#sheet tbody tr").count(),
    }
    for name, tab in (("host", host), ("guest", guest), ("visitor", visitor)):
        lived.held[name] = await storage(tab, table_id)
    try:
        yield lived
    finally:
        for tab in (host, guest, visitor):
            await tab.close()


async def test_a_private_table_is_joined_through_its_invitation_link_only(life: Life) -> None:
    """The host sees the invitation link (its code in the fragment), the guest joins with it;
    no request of any page carries the code in its path or query: it goes in a header or
    a body; nor does a seat token: a stream is opened with a ticket. The address bar drops
    the fragment once the tab keeps the code. Without it the table does not exist to a
    visitor (404, T1.1), who is asked for the link and opens the table by pasting it."""
    assert life.link.endswith(f"/t/{life.table_id}#invitation={life.code}") and life.code
    for tab in (life.host, life.guest, life.visitor):
        assert urls_with(tab, life.code) == []
    assert urls_with(life.host, life.held["host"]["token"]) == []
    streams = [r.url for r in life.host.requests if "/events" in r.url]
    assert streams and all("ticket=" in url and "token=" not in url for url in streams)
    assert "#" not in life.guest_url
    assert life.door["code"] == "table_not_found" and life.door["status"] == "404"
    assert "404" not in life.door["text"] and "table_not_found" not in life.door["text"]
    assert life.held["guest"] == {"invitation": life.code}  # the seat was left
    assert life.held["visitor"] == {"invitation": life.code}
    assert set(life.held["host"]) == {"host", "invitation", "seat", "token"}
    assert life.held["host"]["seat"] == 0
    # the guest followed the table before sitting: a ticket got with the code as the Bearer token
    headers = [await r.all_headers() for r in life.guest.requests if "/stream-tickets" in r.url]
    bearers = {h.get("authorization") for h in headers}
    assert f"Bearer {life.code}" in bearers
    sat = next(r for r in life.guest.requests if r.method == "POST" and r.url.endswith("/seats"))
    assert json.loads(sat.post_data or "{}")["invitation"] == life.code
    for tab in (life.host, life.guest, life.visitor):
        assert tab.errors == []


async def test_leaving_on_ones_own_turn_is_not_offered_and_says_why(life: Life) -> None:
    """T2.3: on the guest's own turn the Leave button is disabled, as the seat view's
    `actions` refuse it (code ``leave_on_turn``), with the reason: the refusal's words from
    the catalogue (what happened, what to do), the rule's id, its link and its text as
    domain/table.py states it."""
    text = table_rules_of_the_domain()["T2.3"].replace("`", "")
    words = json.loads((WEB / "i18n" / "en.json").read_text(encoding="utf-8"))
    reason = life.refusal.pop("reason")
    said = f"{words['problem.leave_on_turn']}. {words['remedy.leave_on_turn']} T2.3"
    assert reason.startswith(said), reason
    assert life.refusal == {
        "disabled": True,
        "code": "leave_on_turn",
        "rule": "T2.3",
        "text": text,
        "link": 1,
    }


async def test_the_guest_leaves_and_the_host_seats_a_bot_on_the_vacant_seat(
    life: Life, pool: asyncpg.Pool, api: DokoClient
) -> None:
    """The log has the guest declaring, then leaving (once: the refused leave wrote nothing),
    then the host's bot on seat 3; the scoresheet and the deal viewer name both as seat 3's
    players of deal 1, as the deal record does (T2.2)."""
    log = await full_log(pool, life.table_id)
    left = [(s.version, e) for s, e in log if isinstance(e, SeatLeft)]
    assert [(e.seat, e.name, e.by_host) for _, e in left] == [(Seat(3), "Gus", False)]
    declared = next(s.version for s, e in log if isinstance(e, Declared) and e.seat == Seat(3))
    assert declared < left[0][0]
    taken = [e for s, e in log if isinstance(e, SeatTaken) and e.seat == Seat(3)]
    assert [(e.name, bool(e.bot)) for e in taken] == [("Gus", False), (taken[1].name, True)]
    assert life.guest_seat_before_leaving == {"status": "seated"}
    lineup = ["Gus", taken[1].name]
    assert life.sheet_cell["players"] == lineup and "Gus" in life.sheet_cell["text"]
    assert life.played_by == lineup
    record = (
        await api.http.get(
            f"/tables/{life.table_id}/deals/1",
            headers={"authorization": f"Bearer {life.code}"},
        )
    ).json()
    assert record["played_by"][3] == lineup


async def test_the_host_abandons_the_session_and_its_export_verifies(
    life: Life, pool: asyncpg.Pool, api: DokoClient
) -> None:
    """T4.2 from the host's page: the log ends with the abandonment after one scored deal;
    the guest's page (a spectator's, through the invitation) shows it live; the export
    downloaded from the table page, and from the deal viewer in another tab (with the host's
    credentials, under the pages' Content-Security-Policy), is the whole log and verifies
    offline with the service's key."""
    log = await full_log(pool, life.table_id)
    assert isinstance(log[-1][1], SessionAbandoned) and log[-1][1].deals == 1
    assert life.guest_saw == {"seat 3": "seated", "rows": 1}
    keys = read_keys((await api.http.get("/.well-known/doko-keys")).content)
    for export in (life.export, life.audited):  # from the table page, and the deal viewer
        report = verify_file(export, keys)
        assert report.events == len(log) and report.failures == ()
    assert life.policy == []


async def test_no_page_of_the_private_table_shows_what_its_viewer_may_not_see(
    life: Life, pool: asyncpg.Pool
) -> None:
    """Every DOM state of the host's page (seat 0), of the guest's (seat 3 until the guest
    left, a spectator after) and of the visitor's (a spectator), against the full log: no
    card of another seat before it is played. The guest's page received every event it may
    see, once, in order."""
    log = await full_log(pool, life.table_id)
    left = next(s.version for s, e in log if isinstance(e, SeatLeft))
    host_shown = [*life.host_shown, *await life.host.shown()]  # before and after the viewer
    assert unseen_cards(host_shown, log, 0) == []
    assert max(len(json.loads(s)[1]) for s in life.host_shown) >= 12
    guest_shown = await life.guest.shown()
    # the seat's own stream ends with its leaving: up to it the page is seat 3's
    before = [s for s in guest_shown if json.loads(s)[0] <= left]
    after = [s for s in guest_shown if json.loads(s)[0] > left]
    assert before and after
    assert unseen_cards(before, log, 3) == [] and unseen_cards(after, log, None) == []
    assert any(c.startswith("1/3/") for s in before for c in json.loads(s)[1])  # its hand
    visitor_shown = await life.visitor.shown()  # a spectator through the invitation
    assert unseen_cards(visitor_shown, log, None) == []
    assert any(c.startswith("1/") for s in visitor_shown for c in json.loads(s)[1])
    ids = await life.guest.log_ids()
    start = int(await life.guest.page.get_attribute("#log ol", "data-from") or -1)
    assert ids == visible_versions(log, 3, start, left) + visible_versions(log, None, left, ids[-1])


async def test_the_pages_of_the_tables_life_are_accessible(life: Life) -> None:
    assert life.grave == {name: [] for name in life.grave}
    assert len(life.grave) == 7
    assert life.phone_fits == {"guest, watching": True}


async def tables_shown(tab: Tab) -> list[str]:
    script = "l => l.map(e => e.dataset.table)"
    return list(await tab.page.eval_on_selector_all("#tables li[data-table]", script))


async def test_the_lobby_lists_the_public_tables_page_by_page_and_no_private_one(
    browser: Browser, service: Service, api: DokoClient
) -> None:
    """The lobby shows what `GET /tables` lists (open tables by default; then playing ones),
    20 a page, its next page through `next`; a private table is never shown. A table of
    the list is joined from it: its link leads to the table's seats."""
    private = await api.create_table("lobby: private")
    public = [await api.create_table(f"lobby {n}", visibility="public") for n in range(21)]
    playing = await api.create_table("lobby: playing", visibility="public")
    for _ in range(3):
        await playing.seat_bot("greedy")
    await playing.take_seat("Pia")  # who does not act: the session stays in play
    first = await api.lobby(["open"], limit=20)
    assert first.next is not None
    second = await api.lobby(["open"], before=first.next, limit=20)

    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto("/")
    await page.wait_for_selector("#tables li[data-table]")
    assert await tables_shown(tab) == [t.table_id for t in first.tables]
    await screenshot(page, "lobby-desktop", full_page=False)
    assert await grave_violations(page) == []
    await page.click("[data-key='older']")
    await page.wait_for_selector("[data-key='newest']")
    assert await tables_shown(tab) == [t.table_id for t in second.tables]
    await page.select_option("#status-filter", "playing")
    await page.click("[data-key='list']")
    await page.wait_for_selector(f"#tables li[data-table='{playing.table_id}']")
    assert playing.table_id in await tables_shown(tab)
    assert not {t.table_id for t in public} & set(await tables_shown(tab))
    await page.select_option("#status-filter", label="every status")
    await page.click("[data-key='list']")
    await page.wait_for_selector(f"#tables li[data-table='{public[-1].table_id}']")
    shown: list[str] = []
    while True:  # every page of every listed status: the private table is on none
        shown += await tables_shown(tab)
        older = page.locator("[data-key='older']")
        if not await older.count():
            break
        last = shown[-1]
        await older.click()
        await page.wait_for_selector(f"#tables li[data-table='{last}']", state="detached")
    assert {t.table_id for t in public} | {playing.table_id} <= set(shown)
    assert private.table_id not in shown and len(shown) == len(set(shown))

    await page.set_viewport_size(PHONE)
    assert await fits(page, PHONE["width"])
    await page.set_viewport_size(DESKTOP)
    await page.select_option("#status-filter", "open")
    await page.click("[data-key='list']")
    await page.click(f"#tables li[data-table='{public[-1].table_id}'] a.go")
    await page.wait_for_url(f"**/t/{public[-1].table_id}")
    await page.fill("#sit-name", "Lou")
    await page.click("[data-key='sit-1']")
    await page.wait_for_selector("text=You play Lou (seat 1)")
    assert (await public[-1].view()).seats[1].name == "Lou"
    assert tab.errors == []
    await tab.close()


async def turn_of(table: TableClient) -> int:
    view = await table.view()
    assert view.clock is not None
    return int(view.clock.seat)


async def until_turn_of_seat_0(table: TableClient, others: dict[int, SeatClient]) -> datetime:
    """Let the seats the test plays (1-3) act, as the stand-in would, until it is seat 0's
    turn; that turn's deadline."""
    while (seat := await turn_of(table)) != 0:
        view = await others[seat].view()
        assert view.deal is not None
        action = stand_in_action(view.deal)
        assert action is not None
        await others[seat].send(action)
    view = await table.view()
    assert view.clock is not None and view.clock.deadline is not None
    return view.clock.deadline


async def timeouts(pool: asyncpg.Pool, table_id: str) -> list[TurnTimedOut]:
    return [e for _, e in await full_log(pool, table_id) if isinstance(e, TurnTimedOut)]


SHOWS_DEADLINE = """(ms) => {
  const timer = document.querySelector('.your-clock [role=timer]');
  return timer !== null && Math.abs(Date.parse(timer.dataset.deadline) - ms) < 1;
}"""
"""Whether the page counts the seat's own time down to this deadline (ms since 1970)."""

COUNTED_DOWN = """(first) => {
  const seconds = (text) => text.split(':').reduce((m, s) => 60 * m + Number(s), 0);
  const timer = document.querySelector('.your-clock [role=timer]');
  return timer !== null && seconds(timer.textContent) < seconds(first);
}"""


async def test_the_turn_clock_counts_down_and_the_stand_in_plays_for_a_silent_seat(
    browser: Browser, service: Service, api: DokoClient, pool: asyncpg.Pool
) -> None:
    """T3: a person who does not act, at a table with a turn clock, and three players the
    test plays through the API. The page counts the person's time down from the view's
    deadline; each time the test lets that deadline pass (the clock's reading pinned just
    past it), the stand-in acts for the person and the page shows it; after three timeouts
    in a row the seat is away (T3.3), the page offers "I'm back", and the person is back.
    The clock is pinned before every deadline otherwise: the test, not the machine's speed,
    decides when a turn runs out. (30 s turns: the countdown has time to be seen counting,
    however slow the machine.)"""
    service.clock.pinned = LONG_AGO
    tab = await open_tab(browser, service.url)
    try:
        page = tab.page
        table_id = await open_table(
            tab, "Cleo", 0, visibility="public", turn_seconds="30", first_dealer="3"
        )
        table = api.table(table_id)
        others = {seat: await table.take_seat(name, seat) for seat, name in enumerate("ABC", 1)}
        first = await page.inner_text(".your-clock [role=timer]")
        # the page counts by the service's clock (`server_time`), pinned long before the
        # deadline: more than the turn's 30 s are left, as no browser clock would say
        minutes, seconds = first.split(":")
        assert 60 * int(minutes) + int(seconds) > 30, first
        await page.wait_for_function(COUNTED_DOWN, arg=first)
        assert await page.get_attribute("#clock [role=timer]", "data-clock-seat") == "0"
        for count in (1, 2, 3):
            deadline = await until_turn_of_seat_0(table, others)
            await page.wait_for_function(SHOWS_DEADLINE, arg=deadline.timestamp() * 1000)
            service.clock.pinned = deadline + timedelta(milliseconds=1)
            await tab.page.wait_for_function(
                "(n) => document.querySelectorAll('#log li[data-type=turn_timed_out]').length >= n",
                arg=count,
            )
            if count < 3:  # the third makes the seat away: its next turns go at once (T3.3)
                assert len(await timeouts(pool, table_id)) == count
        service.clock.pinned = LONG_AGO
        # the back button is offered from the first timeout on; the seat is away after the
        # third, which may reach the page a message later than that timeout's log line
        await page.wait_for_selector("[data-seat-box='0'][data-status='away']")
        await page.wait_for_selector("[data-key='back']")
        assert await grave_violations(page) == []
        await screenshot(page, "table-away")
        assert await tab.move("back")
        await page.wait_for_selector("[data-key='back']", state="detached")
        await page.wait_for_selector("[data-seat-box='0'][data-status='seated']")
        log = await full_log(pool, table_id)
        await page.wait_for_selector(f"#log li[data-id='{log[-1][0].version}']", state="attached")
    finally:
        service.clock.pinned = None
    clocked = [e for _, e in log if isinstance(e, TurnTimedOut | SeatAway | SeatBack)]
    stand_in = [e for e in clocked if isinstance(e, TurnTimedOut)]
    assert [(e.seat, e.deal_no) for e in stand_in[:3]] == [(Seat(0), 1)] * 3
    assert all(e.action is not None and e.seat == Seat(0) for e in stand_in)
    # away after the third; any timeout after it is an away seat's turn taken at once (T3.3)
    assert clocked[:4] == [*stand_in[:3], SeatAway(Seat(0))] and clocked[-1] == SeatBack(Seat(0))
    assert [type(e) for e in clocked if isinstance(e, SeatAway | SeatBack)] == [SeatAway, SeatBack]
    assert unseen_cards(await tab.shown(), log, 0) == []
    ids = await tab.log_ids()
    start = int(await page.get_attribute("#log ol", "data-from") or -1)
    assert ids == visible_versions(log, 0, start, ids[-1]) and ids[-1] == log[-1][0].version
    assert tab.errors == []
    await tab.close()


async def test_the_host_closes_a_table_before_its_session_starts(
    browser: Browser, service: Service, pool: asyncpg.Pool
) -> None:
    """T4.1 from the host's page: a public table opened in the lobby is listed there until
    its host closes it; then the page says so, and the lobby lists it no more."""
    host = await open_tab(browser, service.url)
    table_id = await open_table(host, "Otto", 0, visibility="public")
    lobby = await open_tab(browser, service.url)
    await lobby.page.goto("/")
    await lobby.page.wait_for_selector(f"#tables li[data-table='{table_id}']")
    await host.page.click("[data-key='close']")
    assert await grave_violations(host.page) == []
    assert await host.move("close-yes")
    await host.page.wait_for_selector("#ending[data-status='closed']")
    assert await host.page.locator("#seats form.sit, #host").count() == 0
    await lobby.page.select_option("#status-filter", label="every status")
    await lobby.page.click("[data-key='list']")
    await lobby.page.wait_for_selector(f"#tables li[data-table='{table_id}']", state="detached")
    log = await full_log(pool, table_id)
    assert isinstance(log[-1][1], TableClosed)
    assert host.errors == [] and lobby.errors == []
    await host.close()
    await lobby.close()
