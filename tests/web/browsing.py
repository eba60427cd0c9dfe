"""Driving the pages as a person would, and checking what they showed against the full log.

A `Tab` records every request its page sent, every script error, and (through a
MutationObserver installed before the page's own scripts) every state of the DOM's
cards: each card element's deal, seat and code together with the table version the
page had reached (``body[data-version]``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import asyncpg
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page, Request
from playwright.async_api import TimeoutError as PlaywrightTimeout

from domain.events import CardPlayed, DealDealt
from domain.table import TableEvent
from infra.event_store import EventStore, StoredEvent
from infra.tables import CODEC

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 780}
CLICKS = 3
"""How often `Tab.move` and `until_taken` press a button the page did not take (see
`Tab.taken`)."""
WAIT_MS = 120_000
"""How long a page may take to show what it will show (every wait's default, `open_tab`): a
bound against a hang, not a measure. Pinned to one core beside other suites, three expert
bots took more than Playwright's own 30 s to declare and lead."""
SENT = "Number(document.body.dataset.sent || 0)"
"""How many commands the page has sent (api.js `commands`; counted in the click's handler)."""


async def until_taken(page: Page, act: Callable[[], Awaitable[bool]], done: str, what: str) -> bool:
    """Do ``act`` (a click, a key press) until the page shows it took it: ``done``, a script
    read at once after it (its handler has run by then), holds; at most `CLICKS` times. False
    when ``act`` found nothing to act on (it returned False). The pages hold a redraw back
    while a button is pressed (ui.js `steady`, `tests.web.test_clicks`), so news does not take
    a press away between press and release; but Playwright aims (or focuses), then presses: a
    redraw in between that moves the button (a new line above it) sends the press elsewhere,
    and the button is pressed again."""
    for _ in range(CLICKS):
        if not await act():
            return False
        if await page.evaluate(done):
            return True
    raise AssertionError(f"{what}: {CLICKS} presses, none taken")


async def click_until(page: Page, selector: str, done: str) -> None:
    """Click ``selector`` until ``done`` holds (`until_taken`)."""

    async def click() -> bool:
        await page.click(selector)
        return True

    await until_taken(page, click, done, selector)


async def send(page: Page, selector: str) -> None:
    """Click the button ``selector`` until the page sends its command (`SENT` grows)."""
    sent = int(await page.evaluate(SENT))
    await click_until(page, selector, f"{SENT} > {sent}")


ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("DOKO_SCREENSHOTS") or ROOT / "build" / "screenshots")
"""Where the tests save their screenshots (git ignores build/; the README shows copies
kept in docs/screenshots)."""
GRAVE = {"serious", "critical"}

Log = list[tuple[StoredEvent, TableEvent]]


async def full_log(pool: asyncpg.Pool, table_id: str) -> Log:
    """The table's whole log, secrets included, read from the database."""
    stored = await EventStore(pool).read_stream(table_id)
    return [(record, CODEC.from_stored(record)) for record in stored]


async def grave_violations(page: Page) -> list[str]:
    """The serious and critical axe-core violations on the page, with where they are."""
    results = await Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}"
        for v in results.response["violations"]
        if v["impact"] in GRAVE
    ]


async def fits(page: Page, width: int) -> bool:
    """Whether the page fits its width without scrolling sideways."""
    return bool(await page.evaluate(f"document.documentElement.scrollWidth <= {width}"))


async def screenshot(page: Page, name: str, *, full_page: bool = True) -> None:
    """Save the page (the whole page, or what its window shows) as ``SCREENSHOTS/name.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=full_page)


RECORD_CARDS = """
window.__shown = [];
new MutationObserver(() => {
  if (!document.body) return;
  const cards = [...document.querySelectorAll('[data-card]')]
    .map((e) => `${e.dataset.deal}/${e.dataset.seat}/${e.dataset.card}`);
  const version = Number(document.body.dataset.version || 0);
  const entry = JSON.stringify([version, [...new Set(cards)].sort()]);
  if (window.__shown.at(-1) !== entry) window.__shown.push(entry);
}).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
"""

NEXT_MOVE = """(deal) => {
  if (document.querySelector(`#result[data-deal="${deal}"]`)) return 'done';
  if (document.body.dataset.sending === 'true') return null;
  // the view may show the next deal before the stream brought this one's result
  const dealt = document.querySelector('#hand [data-card]')?.dataset.deal;
  if (dealt && Number(dealt) !== deal) return null;
  const card = document.querySelector('#hand button.card:not([disabled])');
  const word = '[data-key="announce-re"], [data-key="announce-kontra"]';
  const pick = document.querySelector('[data-key="declare-healthy"]')
    ?? (card && document.querySelector(word))
    ?? card;
  return pick ? pick.dataset.key : null;
}"""
"""The page's next move in deal ``deal``, as a person reads it off the page: say healthy,
announce re/kontra when offered on one's turn, else play the first enabled card; 'done'
once the deal's result is shown; null while there is nothing to do (or the page's last
command is not answered yet, or the page shows the next deal before this one's result)."""


class Tab:
    """A page in its own browser context, with what it sent and what went wrong in it."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.requests: list[Request] = []
        self.errors: list[str] = []
        self.console: list[str] = []
        page.on("request", lambda request: self.requests.append(request))
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda message: self.console.append(message.text))

    async def version(self) -> int:
        return int(await self.page.evaluate("Number(document.body.dataset.version || 0)"))

    async def shown(self) -> list[str]:
        """Every state of the page's cards so far (JSON ``[version, ["deal/seat/card", ...]]``)."""
        return list(await self.page.evaluate("window.__shown"))

    async def log_ids(self) -> list[int]:
        """The ids of the events in the page's table log, in order."""
        return list(
            await self.page.eval_on_selector_all("#log li", "l => l.map(e => +e.dataset.id)")
        )

    async def next_move(self, deal: int) -> str:
        handle = await self.page.wait_for_function(NEXT_MOVE, arg=deal)
        return str(await handle.json_value())

    async def problems(self) -> int:
        """How many refusals the page has shown."""
        return int(await self.page.evaluate("Number(document.body.dataset.problems || 0)"))

    async def move(self, key: str, *, keyboard: bool = False) -> bool:
        """Make a move by clicking the element with data-key ``key``, or with the keyboard
        alone (Tab to it, then Enter for a card, Space for anything else); return once
        the command is answered: the page is past its version, or shows a new refusal.
        False when the element went away first (a newer view no longer offers it)."""
        version, problems = await self.version(), await self.problems()
        if keyboard:

            async def press() -> bool:
                if not await self.press_until_focused(key):
                    return False
                await self.page.keyboard.press("Enter" if key.startswith("card-") else " ")
                return True

            sent = int(await self.page.evaluate(SENT))
            if not await until_taken(self.page, press, f"{SENT} > {sent}", key):
                return False
        else:
            for _ in range(CLICKS):
                try:
                    # no page navigates on a move: no wait for one after the click
                    await self.page.click(f'[data-key="{key}"]', timeout=2_000, no_wait_after=True)
                except PlaywrightTimeout:
                    if await self.page.locator(f'[data-key="{key}"]').count():
                        raise
                    return False
                if await self.taken(version, problems):
                    break
        await self.page.wait_for_function(
            """([v, p]) => document.body.dataset.sending !== 'true'
                && (Number(document.body.dataset.version) > v
                    || Number(document.body.dataset.problems) > p)""",
            arg=[version, problems],
        )
        return True

    async def taken(self, version: int, problems: int) -> bool:
        """Whether the page took the click: it is sending the command (set in the click's
        handler, until answered), or already past ``version`` or ``problems``. If not, the
        click went elsewhere (`click_until`): the button is clicked again."""
        try:
            await self.page.wait_for_function(
                """([v, p]) => document.body.dataset.sending === 'true'
                    || Number(document.body.dataset.version) > v
                    || Number(document.body.dataset.problems) > p""",
                arg=[version, problems],
                timeout=5_000,
            )
        except PlaywrightTimeout:
            return False
        return True

    async def press_until_focused(self, key: str, limit: int = 150) -> bool:
        """Tab through the page until the element with data-key ``key`` has the focus;
        False if it is no longer on the page."""
        passed = []
        for _ in range(limit):
            focused, there = await self.page.evaluate(
                """(key) => [
                  document.activeElement?.dataset?.key ?? document.activeElement?.tagName,
                  Boolean(document.querySelector(`[data-key="${key}"]`)),
                ]""",
                key,
            )
            if focused == key or not there:
                return bool(there)
            passed.append(focused)
            await self.page.keyboard.press("Tab")
        raise AssertionError(f"{limit} Tabs never reached {key}: {passed}")

    async def next_deal(self) -> None:
        """Close the result dialog of the deal just scored ("Next")."""
        await self.page.click("dialog#result[open] [data-key='next']")
        await self.page.wait_for_selector("dialog#result:not([open])", state="attached")

    async def close(self) -> None:
        await self.page.context.close()


async def open_tab(
    browser: Browser,
    base_url: str,
    viewport: dict[str, int] = DESKTOP,
    held: tuple[str, dict[str, Any]] | None = None,
    bypass_csp: bool = True,
    locale: str = "en-US",
) -> Tab:
    """A new tab in a fresh context; ``held``: (table, what its localStorage holds for it, set
    once), as when the same player opens the table on a second device with the seat token.
    ``bypass_csp``: Playwright's waits for conditions evaluate script text, which the pages'
    Content-Security-Policy forbids; a tab that keeps the policy can only wait for selectors.
    ``locale``: the browser's language (``navigator.languages``), which the pages speak."""
    context = await browser.new_context(
        base_url=base_url, viewport=viewport, bypass_csp=bypass_csp, locale=locale
    )
    if held is not None:
        key, value = json.dumps(f"doko:{held[0]}"), json.dumps(json.dumps(held[1]))
        once = f"localStorage.getItem({key}) ?? localStorage.setItem({key}, {value});"
        await context.add_init_script(f"try {{ {once} }} catch {{}}")
    await context.add_init_script(RECORD_CARDS)
    context.set_default_timeout(WAIT_MS)
    return Tab(await context.new_page())


def visible_versions(
    log: Sequence[tuple[StoredEvent, TableEvent]], viewer: int | None, after: int, upto: int
) -> list[int]:
    """The versions in (after, upto] a viewer's stream carries: every one (a contract another
    seat named too, without it: R4.3)."""
    return [stored.version for stored, _ in log if after < stored.version <= upto]


def unseen_cards(
    shown: Sequence[str], log: Sequence[tuple[StoredEvent, TableEvent]], viewer: int | None
) -> list[str]:
    """The cards a page showed that its viewer could not know at the version it had reached:
    a card of another seat before that seat played it (by the full log), or a card of the
    viewer's own that was not dealt to it."""
    dealt: dict[int, tuple[tuple[str, ...], ...]] = {}
    played: dict[tuple[int, int, str], int] = {}
    deal = 0
    for stored, event in log:
        if isinstance(event, DealDealt):
            deal = event.deal_no
            dealt[deal] = tuple(tuple(c.value for c in hand) for hand in event.hands)
        elif isinstance(event, CardPlayed):
            played.setdefault((deal, int(event.seat), event.card.value), stored.version)
    wrong = []
    for entry in shown:
        version, cards = json.loads(entry)
        for item in cards:
            deal_text, seat_text, code = item.split("/")
            deal_no, seat = int(deal_text), int(seat_text)
            if seat == viewer:
                ok = code in dealt[deal_no][seat]
            else:
                ok = played.get((deal_no, seat, code), version + 1) <= version
            if not ok:
                wrong.append(f"{item} at version {version}")
    return wrong
