"""The web client in a real Chromium, on a real service and PostgreSQL.

A person opens a public table with three bots in the lobby and plays deal 1 by clicking and deal 2
with the keyboard alone; the service is restarted in the middle of deal 1. A spectator, who
came in through the lobby's link field, watches both deals on a phone-sized screen. What the
pages showed is then checked against the full log read from the database, and the deal
viewer is stepped through deal 1.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from playwright.async_api import Browser

from domain.events import Announced, CardPlayed, DealDealt, Declared, TrickWon
from domain.table import TableCreated
from tests.web.browsing import (
    PHONE,
    Log,
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

pytestmark = pytest.mark.xdist_group("browser")
"""Its tests share fixtures that play whole sessions: one worker runs them all
(`--dist loadgroup`, README), so that they are played once."""

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "service" / "web" / "RULES.md"


SCORE = """(root) => ({
  deal: +root.dataset.deal,
  value: +root.dataset.value,
  entries: [...root.querySelectorAll('[data-entry-seat]')].map((e) => +e.dataset.entry),
  lines: [...root.querySelectorAll('.lines li')]
    .map((li) => [li.dataset.rule, li.dataset.party, +li.dataset.points, li.dataset.reason]),
})"""
"""A score as a page shows it (the table page's ``#result``, the deal viewer's ``#score``)."""


def recorded(score: dict[str, Any]) -> dict[str, Any]:
    """The same, from a deal record's ``score``."""
    lines = [[x["rule"], x["party"], x["points"], x["reason"]] for x in score["lines"]]
    return {"value": score["value"], "entries": score["entries"], "lines": lines}


@dataclass
class Session:
    """What the person's and the spectator's pages did and showed over two deals."""

    table_id: str
    seat: int
    player: Tab
    spectator: Tab
    results: dict[int, dict[str, Any]] = field(default_factory=dict)
    sheet: list[list[int]] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    restarted_before: int = 0
    stream_while_down: dict[str, str | None] = field(default_factory=dict)
    grave: dict[str, list[str]] = field(default_factory=dict)
    phone_fits: dict[str, bool] = field(default_factory=dict)


async def hand_size(tab: Tab) -> int:
    return await tab.page.locator("#hand button.card").count()


async def play_deal(session: Session, deal: int, *, keyboard: bool, halfway: Any) -> None:
    """Play the person's part of a deal from the page; ``halfway()`` runs once, just before
    the first card played with 8 cards or fewer in hand."""
    done_halfway = False
    while (move := await session.player.next_move(deal)) != "done":
        now_halfway = (
            not done_halfway and move.startswith("card-") and await hand_size(session.player) <= 8
        )
        if now_halfway:
            await halfway()
            done_halfway = True
        problems = await session.player.problems()
        await session.player.move(move, keyboard=keyboard)
        if await session.player.problems() > problems:  # a bot's announcement came first
            session.refusals.append(await session.player.page.inner_text(".problem"))
    session.results[deal] = await session.player.page.eval_on_selector("#result", SCORE)
    await session.player.next_deal()


@pytest.fixture(scope="module")
async def session(browser: Browser, service: Service) -> AsyncIterator[Session]:
    player = await open_tab(browser, service.url)
    page = player.page
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    lobby_grave = await grave_violations(page)
    await page.fill("#table", "Browser test")
    await page.fill("#player", "Tess")
    await page.select_option("#bots", "3")
    await page.select_option("#kind", "random")
    await page.select_option("#option-visibility", "public")  # watched without credentials
    await page.click("#create-button")
    await page.wait_for_url("**/t/*")
    await page.wait_for_selector("#hand")
    table_id = page.url.rsplit("/", 1)[1]
    held = json.loads(await page.evaluate(f"localStorage.getItem('doko:{table_id}')"))

    spectator = await open_tab(browser, service.url, PHONE)
    await spectator.page.goto("/")
    await spectator.page.fill("#where", page.url)
    await spectator.page.press("#where", "Enter")
    await spectator.page.wait_for_url(f"**/t/{table_id}")
    await spectator.page.wait_for_selector("#trick")

    played = Session(table_id, held["seat"], player, spectator)
    played.grave["lobby"] = lobby_grave

    async def restart() -> None:
        """Stop the service and hold it down until both pages show their stream broken (a
        state the pages certainly reach, however fast the machine), then start it again:
        what is committed from then on reaches them only by resuming their streams."""
        played.restarted_before = await player.version()
        await service.stop()
        broken = "#status[data-connection='reconnecting'], #status[data-connection='lost']"
        for name, tab in (("player", player), ("spectator", spectator)):
            status = await tab.page.wait_for_selector(broken, timeout=60_000)
            played.stream_while_down[name] = await status.get_attribute("data-connection")
        await service.start()

    async def look() -> None:
        await screenshot(page, "table-desktop")
        played.grave["table"] = await grave_violations(page)
        await page.set_viewport_size(PHONE)
        played.phone_fits["table"] = await fits(page, PHONE["width"])
        await screenshot(page, "table-phone")
        await page.set_viewport_size({"width": 1280, "height": 900})
        played.grave["spectator"] = await grave_violations(spectator.page)
        played.phone_fits["spectator"] = await fits(spectator.page, PHONE["width"])

    await play_deal(played, 1, keyboard=False, halfway=restart)
    await play_deal(played, 2, keyboard=True, halfway=look)
    played.sheet = await page.eval_on_selector_all(
        "#sheet tbody tr",
        "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => +td.dataset.entry))",
    )
    try:
        yield played
    finally:
        await player.close()
        await spectator.close()


async def test_the_person_plays_two_deals_from_the_page_and_its_scores_are_the_records(
    session: Session, api: Any
) -> None:
    """Deal 1 by clicking, deal 2 by keyboard: each result the page shows (from the stream's
    deal_scored) and its scoresheet rows equal the deal records of the archive."""
    for deal in (1, 2):
        record = (await api.http.get(f"/tables/{session.table_id}/deals/{deal}")).json()
        score = record["score"]
        shown = session.results[deal]
        assert shown.pop("deal") == deal
        assert shown == recorded(score)
        assert session.sheet[deal - 1] == score["entries"]
    # a refusal here can only be a bot's announcement racing the person's (R6.5)
    assert all("R6.5" in text for text in session.refusals), session.refusals
    assert session.player.errors == [] and session.spectator.errors == []


async def test_no_page_ever_shows_a_card_before_its_seat_has_played_it(
    session: Session, pool: asyncpg.Pool
) -> None:
    """Every state the DOM went through (recorded by a MutationObserver), against the full
    log: a card of another seat only once played, the own hand only as dealt (R4.4)."""
    log = await full_log(pool, session.table_id)
    for tab, viewer in ((session.player, session.seat), (session.spectator, None)):
        shown = await tab.shown()
        most = max(len(json.loads(entry)[1]) for entry in shown)
        assert len(shown) > 100 and most >= 12  # every state over two deals, hands and tricks
        assert unseen_cards(shown, log, viewer) == []


async def test_the_page_asks_only_for_what_its_seat_may_see(session: Session) -> None:
    """Only the seat's own view and stream (with tickets got with its own token, which is in
    no URL) and public routes are asked for; of credentials the browser's storage holds this
    table's seat token and host token only (beside them: the name the player sat down with,
    which the lobby fills in next time)."""
    table = f"/tables/{session.table_id}"
    own = f"{table}/seats/{session.seat}"
    for tab, viewer in ((session.player, session.seat), (session.spectator, None)):
        for request in tab.requests:
            path = httpx.URL(request.url).path
            if re.fullmatch(rf"{table}/seats/\d+(/.*)?", path):
                assert viewer is not None and path.startswith(own), path
    token = json.loads(
        await session.player.page.evaluate(f"localStorage.getItem('doko:{session.table_id}')")
    )
    assert set(token) == {"seat", "token", "host"} and token["seat"] == session.seat
    streams = [httpx.URL(r.url) for r in session.player.requests if "/events" in r.url]
    assert streams and all("ticket" in u.params and "token" not in u.params for u in streams)
    assert all(token["token"] not in str(u) for u in streams)
    tickets = [r for r in session.player.requests if r.url.endswith("/stream-tickets")]
    assert len(tickets) >= len(streams)
    for ticket in tickets:
        assert (await ticket.all_headers())["authorization"] == f"Bearer {token['token']}"
    kept = await session.player.page.evaluate("Object.keys(localStorage)")
    assert sorted(kept) == sorted([f"doko:{session.table_id}", "doko-name"])
    assert await session.spectator.page.evaluate("localStorage.length") == 0
    for tab in (session.player, session.spectator):
        assert await tab.page.evaluate("sessionStorage.length") == 0


async def test_a_restart_of_the_service_leaves_no_gap_and_no_repeat_in_the_pages(
    session: Session, pool: asyncpg.Pool
) -> None:
    """The streams resumed after the restart (the spectator's with Last-Event-ID, the seat's
    with a new ticket and ``after``): each page's log holds every event its viewer may see,
    once, in order (contracts named by others without them, R4.3), including those
    committed while the page was disconnected."""
    log = await full_log(pool, session.table_id)
    # both streams broke while the service was down: the card clicked once it was back, and
    # the bots' answers to it, reached the pages only through the resumption
    assert set(session.stream_while_down) == {"player", "spectator"}
    assert set(session.stream_while_down.values()) <= {"reconnecting", "lost"}
    for tab, viewer in ((session.player, session.seat), (session.spectator, None)):
        ids = await tab.log_ids()
        start = int(await tab.page.get_attribute("#log ol", "data-from") or -1)
        assert ids == visible_versions(log, viewer, start, ids[-1])
        assert start < session.restarted_before < ids[-1]
        resumed = [
            max(int((await r.all_headers()).get("last-event-id", 0)), int(after or 0))
            for r in tab.requests
            if "/events" in r.url
            for after in [httpx.URL(r.url).params.get("after")]
        ]
        assert max(resumed) >= session.restarted_before


async def test_the_pages_are_accessible_and_fit_a_phone(session: Session) -> None:
    """No serious or critical axe-core violation on the lobby, the table (a seat's and a
    spectator's); nothing wider than a 360 px screen."""
    assert session.grave == {"lobby": [], "table": [], "spectator": []}
    assert session.phone_fits == {"table": True, "spectator": True}


def _tricks(
    log: Log, deal: int
) -> tuple[list[tuple[str, ...]], list[tuple[tuple[int, str], ...]], list[tuple[int, int]], int]:
    """Deal ``deal`` from the full log: the dealt hands, each trick's (seat, card) in playing
    order, each trick's winner and points, and the number of announcements."""
    hands: list[tuple[str, ...]] = []
    tricks: list[tuple[tuple[int, str], ...]] = []
    won: list[tuple[int, int]] = []
    cards: list[tuple[int, str]] = []
    announced = 0
    current = 0
    for _, event in log:
        if isinstance(event, DealDealt):
            current = event.deal_no
            if current == deal:
                hands = [tuple(c.value for c in hand) for hand in event.hands]
        elif current != deal:
            continue
        elif isinstance(event, CardPlayed):
            cards.append((int(event.seat), event.card.value))
        elif isinstance(event, TrickWon):
            tricks.append(tuple(cards))
            won.append((int(event.winner), event.points))
            cards = []
        elif isinstance(event, Announced):
            announced += 1
    return hands, tricks, won, announced


TRICK = """() => {
  const t = document.querySelector('#trick');
  return [+t.dataset.trick, +t.dataset.winner, +t.dataset.points,
          [...t.querySelectorAll('[data-card]')].map((c) => [+c.dataset.seat, c.dataset.card])];
}"""


async def test_the_deal_viewer_steps_through_the_deal_as_the_log_has_it(
    session: Session, browser: Browser, service: Service, pool: asyncpg.Pool, api: Any
) -> None:
    """The hands as dealt, in the record's order sorted for the game type, each trick (arrow
    keys and buttons) with its cards, winner and points, the announcements, the score lines
    with rule ids, and the seed that matches the commitment published when the table was
    created."""
    log = await full_log(pool, session.table_id)
    hands, tricks, won, announced = _tricks(log, 1)
    record = (await api.http.get(f"/tables/{session.table_id}/deals/1")).json()
    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto(f"/t/{session.table_id}/deals/1")
    await page.wait_for_selector("#score")
    for seat, hand in enumerate(hands):
        shown = await page.eval_on_selector_all(
            f"[data-hand='{seat}'] [data-card]", "l => l.map(c => c.dataset.card)"
        )
        assert sorted(shown) == sorted(hand)  # the cards dealt, in the record's sorted order
        assert shown == record["sorted_hands"][seat] != list(hand)
    for step, (cards, (winner, points)) in enumerate(zip(tricks, won, strict=True), 1):
        await page.keyboard.press("ArrowRight")
        await page.wait_for_selector(f"body[data-step='{step}']")
        number, shown_winner, shown_points, shown_cards = await page.evaluate(TRICK)
        assert (number, shown_winner, shown_points) == (step, winner, points)
        assert [tuple(c) for c in shown_cards] == list(cards)
    assert await page.locator("#announcements li").count() == announced
    await page.keyboard.press("Home")
    await page.wait_for_selector("body[data-step='0']")
    await page.keyboard.press("End")
    await page.wait_for_selector("body[data-step='12']")
    await page.click("[data-key='previous']")
    await page.wait_for_selector("body[data-step='11']")
    shown = await page.eval_on_selector("#score", SCORE)
    assert shown.pop("deal") == 1
    assert shown == recorded(record["score"])
    seed = (await page.inner_text("#seed")).strip()
    created = next(e for _, e in log if isinstance(e, TableCreated))
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == created.commitments[0]
    assert await page.get_attribute("#verification", "data-ok") == "true"

    await page.click("[data-key='first']")
    for _ in range(5):
        await page.click("[data-key='next']")
    await page.wait_for_selector("body[data-step='5']")
    await screenshot(page, "deal-desktop")
    assert await grave_violations(page) == []
    await page.set_viewport_size(PHONE)
    assert await fits(page, PHONE["width"])
    await screenshot(page, "deal-phone")
    await page.goto("/rules#R6.6")
    await page.wait_for_selector("dt#R6\\.6")
    assert await grave_violations(page) == []
    await page.goto("/rules#T2.3")  # the table's rules too (T1-T4)
    await page.wait_for_selector("dt#T2\\.3")
    assert await grave_violations(page) == []
    assert tab.errors == []
    await tab.close()


async def test_the_deal_viewer_shows_the_review_the_api_gives(
    session: Session, browser: Browser, service: Service, api: Any
) -> None:
    """Asked for, the review panel marks for each seat the decisions the API names its
    costliest, in that order, and lists every decision, those marked as costly."""
    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto(f"/t/{session.table_id}/deals/1")
    await page.wait_for_selector("#score")
    await page.click("[data-key='review']")
    await page.wait_for_selector("#review [data-review-seat]")
    review = (await api.http.get(f"/tables/{session.table_id}/deals/1/review")).json()
    for seat in review["seats"]:
        marked = await page.eval_on_selector_all(
            f"[data-review-seat='{seat['seat']}'] .costliest [data-decision]",
            "l => l.map(e => Number(e.dataset.decision))",
        )
        assert marked == seat["costliest"]
    listed = await page.eval_on_selector_all(
        "#review .decisions [data-decision]", "l => l.map(e => e.className)"
    )
    assert len(listed) == len(review["decisions"])
    costly = {i for seat in review["seats"] for i in seat["costliest"]}
    assert {i for i, c in enumerate(listed) if c == "costly"} == costly
    assert await grave_violations(page) == []
    assert tab.errors == []
    await tab.close()


def _rule_text(rule: str) -> str:
    """A rule's text as RULES.md writes it, read with no help from the service: its bullet
    and continuation lines, whitespace and code marks dropped."""
    text = RULES.read_text(encoding="utf-8")
    found = re.search(rf"^- {re.escape(rule)} (.*?)(?=^- |^#|\Z)", text, re.M | re.S)
    assert found
    return " ".join(found[1].replace("`", "").split())


async def test_a_move_from_a_stale_page_is_refused_with_its_rule(
    browser: Browser, service: Service, pool: asyncpg.Pool
) -> None:
    """The same seat open on two devices, one of them without its stream: the stale page
    still offers `healthy` after the other device said it; the click is refused (R4.1),
    shown with the rule's id and text, nothing is written, and the page catches up.
    The table is opened in the lobby without bots (first dealer fixed on seat 3, so the
    person on seat 0 declares first) and the host seats the bots from the table page."""
    stale = await open_tab(browser, service.url)
    await stale.page.route(re.compile(r"/events\?"), lambda route: route.abort())
    page = stale.page
    await page.goto("/")
    await page.fill("#player", "Ida")
    await page.select_option("#bots", "0")
    await page.fill("#option-first_dealer", "3")
    await page.click("#create-button")
    await page.wait_for_url("**/t/*")
    table_id = page.url.rsplit("/", 1)[1]
    await page.click("form.bots button")
    await page.wait_for_selector("[data-key='declare-healthy']")
    held = json.loads(await page.evaluate(f"localStorage.getItem('doko:{table_id}')"))
    assert held["seat"] == 0

    live = await open_tab(browser, service.url, held=(table_id, held))
    await live.page.goto(f"/t/{table_id}")
    await live.move("declare-healthy")
    await live.page.wait_for_selector("#hand button.card:not([disabled])")  # the first lead
    assert await page.locator("[data-key='declare-healthy']").count() == 1  # still offered

    await stale.move("declare-healthy")
    problem = page.locator(".problem")
    assert await problem.get_attribute("data-code") == "phase_closed"
    assert await problem.locator("[data-rule]").get_attribute("data-rule") == "R4.1"
    assert await problem.locator("a[href='/rules#R4.1']").count() == 1
    shown = " ".join((await problem.locator(".rule-text").inner_text()).split())
    assert shown == _rule_text("R4.1")
    await page.wait_for_selector("[data-key='declare-healthy']", state="detached")

    log = await full_log(pool, table_id)
    assert len([e for _, e in log if isinstance(e, Declared) and int(e.seat) == 0]) == 1
    assert await grave_violations(page) == []
    assert stale.errors == [] and live.errors == []
    await stale.close()
    await live.close()


async def test_a_visitor_sits_down_from_the_table_page(
    browser: Browser, service: Service, api: Any
) -> None:
    """A public table opened elsewhere (here through the API): its link shows the free seats; a
    visitor names themself and takes seat 2; the page then plays that seat (its token kept
    in this browser's local storage, its stream opened with a ticket got with it)."""
    table = await api.create_table("sit down", visibility="public")
    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto(f"/t/{table.table_id}")
    await page.fill("#sit-name", "Vera")
    await page.click("[data-key='sit-2']")
    await page.wait_for_selector("text=You play Vera (seat 2)")
    held = json.loads(await page.evaluate(f"localStorage.getItem('doko:{table.table_id}')"))
    assert held["seat"] == 2 and set(held) == {"seat", "token"}
    view = await table.seat(2, held["token"]).view()
    assert view.seats[2].name == "Vera"
    await page.wait_for_function(
        "() => document.querySelector('#status').dataset.connection === 'live'"
    )
    streams = [httpx.URL(r.url).params.get("ticket") for r in tab.requests if "/events" in r.url]
    assert streams[0] is None and streams[-1] is not None  # a spectator's needs no ticket
    last = [r for r in tab.requests if r.url.endswith("/stream-tickets")][-1]
    assert (await last.all_headers())["authorization"] == f"Bearer {held['token']}"
    assert tab.errors == []
    await tab.close()


async def test_the_pages_run_under_their_content_security_policy(
    session: Session, browser: Browser, service: Service
) -> None:
    """With the policy enforced (scripts and styles from the service only, no inline code,
    no eval), every page draws itself, the API reference (``/schema``) included, and the
    browser reports no violation; no page sends a request anywhere but to the service."""
    tab = await open_tab(browser, service.url, bypass_csp=False)
    table = f"/t/{session.table_id}"
    for path, drawn in (
        ("/", "#create-button"),
        (table, "[data-menu='sheet']"),  # the scoresheet's dialog, in the menu bar
        (f"{table}/deals/2", "#verification"),
        ("/rules#R6.6", "dt[id='R6.6']"),
        ("/schema", "text=The lobby: public tables, newest first"),
    ):
        await tab.page.goto(path)
        await tab.page.wait_for_selector(drawn)
    await tab.page.click("text=Create a table")  # an operation opens: its text, its example
    await tab.page.wait_for_selector("text=Draws a secret server seed for every deal")
    await tab.page.wait_for_selector("text=Friday league, table 3")
    assert [m for m in tab.console if "Content Security Policy" in m] == []
    assert tab.errors == []
    elsewhere = [r.url for r in tab.requests if not r.url.startswith(f"{service.url}/")]
    assert elsewhere == []
    assert any(r.url == f"{service.url}/schema/openapi.json" for r in tab.requests)
    await tab.close()
