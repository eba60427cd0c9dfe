"""A club night at the browser table, as a club player sees it, on a German phone (390x844)
and on an English desktop (1280x800): a table opened in the lobby against three bots (the
lobby keeps the player's name for the next table), a deal played to its result, the
scoresheet, and the session abandoned by its host.

Checked as a player reads the page, never from the page's own code: the hand shows card
pictures; no seat, announcement line or spoken line says a word twice ("Re Re", "Kontra
(Kontra)"); the result names both parties as the deal record has them; the scoresheet and
the header fit the phone; no text carries a raw problem code or an HTTP status; a German
page says no "expert" or "greedy"; after the abandonment, and after a reload, no card and no
announcement is offered; no page has a serious or critical axe-core violation. The
screenshots (lobby, a deal in play, the result, the scoresheet) are saved for docs/."""

from __future__ import annotations

import re
from typing import Any

import asyncpg
import pytest
from playwright.async_api import Browser, Page

from tests.web.browsing import fits, grave_violations, open_tab, screenshot
from tests.web.conftest import Service
from tests.web.test_board import SIZES, play_on_board

pytestmark = pytest.mark.xdist_group("club")

REPEATS = """
window.__repeats = [];
new MutationObserver(() => {
  if (!document.body) return;
  const texts = [
    ...[...document.querySelectorAll('.seat .badges')].map((b) => [...b.querySelectorAll('.badge')]
      .map((x) => x.textContent.trim()).join(' ')),
    ...[...document.querySelectorAll('.announcements li, #live')].map((e) => e.textContent),
  ];
  for (const text of texts) {
    if (/\\b(Re|Kontra)\\b[^.]*\\b\\1\\b/.test(text)) window.__repeats.push(text);
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""
"""Records every seat's badges, announcement line and spoken line that says Re or Kontra
twice, as the page drew it."""

RAW = re.compile(r"\(\d{3}\)|\b[a-z]+_[a-z_]+\b|\b[RTE]\d+\.\d+\)")
"""A raw problem code (``session_over``), an HTTP status in brackets, or a rule id at the
end of a bracket in a sentence (``(R8.1)``): none of them belongs in a page's words."""

LANGUAGES = {
    ("phone", "de-DE"): {"re": "Re:", "kontra": "Kontra:", "gegen": "allein gegen"},
    ("desktop", "en-US"): {"re": "Re:", "kontra": "Kontra:", "gegen": "alone against"},
}


async def visible_text(page: Page) -> str:
    """The words the page shows now (its open dialogs included), as a reader sees them."""
    return str(await page.evaluate("document.body.innerText"))


async def nothing_offered(page: Page) -> dict[str, int]:
    """How many playable cards, announcement, declaration and contract buttons the page
    offers, and how many seats it marks as the one to play."""
    return {
        "cards": await page.locator("#hand button.card:not([disabled])").count(),
        "words": await page.locator("[data-key^='announce-']").count(),
        "declarations": await page.locator("[data-key^='declare-']").count(),
        "contracts": await page.locator("[data-key^='contract-']").count(),
        "turns": await page.locator(".seat.turn, .to-play").count(),
    }


NONE = {"cards": 0, "words": 0, "declarations": 0, "contracts": 0, "turns": 0}


@pytest.mark.parametrize(("size", "locale"), list(LANGUAGES))
async def test_a_club_night_at_the_table(
    size: str, locale: str, browser: Browser, service: Service, pool: asyncpg.Pool, api: Any
) -> None:
    window = SIZES[size]
    lang = locale[:2]
    words = LANGUAGES[(size, locale)]
    name = f"club-{lang}-{size}"
    tab = await open_tab(browser, service.url, window, locale=locale)
    page = tab.page
    await page.context.add_init_script(REPEATS)
    await page.clock.install()
    grave: dict[str, list[str]] = {}
    raw: dict[str, list[str]] = {}

    # the lobby: the player's name, remembered for the next table
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    await page.fill("#player", "Tess")
    await screenshot(page, f"{name}-lobby", full_page=False)
    grave["lobby"] = await grave_violations(page)
    await page.select_option("#bots", "3")
    await page.click("#create-button")
    await page.wait_for_selector("#hand [data-card]")
    table_id = page.url.rsplit("/", 1)[1]
    await page.clock.pause_at(await page.evaluate("Date.now()"))
    hand = page.locator("#hand button.card")
    pictures = page.locator("#hand button.card img.picture[src^='/web/vendor/cards/']")
    assert await hand.count() == 12 and await pictures.count() == 12
    names = await hand.evaluate_all("cards => cards.map((c) => c.getAttribute('aria-label'))")
    assert all(names), names  # every card keeps its name in words

    # a deal in play, then its result
    await play_on_board(tab, 1, window, until=3)
    await screenshot(page, f"{name}-deal", full_page=False)
    raw["deal"] = RAW.findall(await visible_text(page))
    await page.clock.resume()
    grave["deal"] = await grave_violations(page)
    # in seconds, ahead: the page's clock runs on while the answer comes back
    await page.clock.pause_at(await page.evaluate("Date.now() / 1000 + 5"))
    await play_on_board(tab, 1, window)
    await page.wait_for_selector("dialog#result[open][data-deal='1'] .last-trick")
    await screenshot(page, f"{name}-result", full_page=False)
    parties = await page.inner_text("#result-parties")
    raw["result"] = RAW.findall(await page.inner_text("dialog#result"))
    await page.clock.resume()
    grave["result"] = await grave_violations(page)
    held = await page.evaluate(f"JSON.parse(localStorage.getItem('doko:{table_id}'))")
    bearer = {"authorization": f"Bearer {held['host']}"}
    record = (await api.http.get(f"/tables/{table_id}/deals/1", headers=bearer)).json()
    await tab.next_deal()

    # the parties as the record has them: Re and Kontra by name, or the soloist
    players = record["players"]
    re_names = [players[s] for s in record["score"]["re_seats"]]
    others = [p for s, p in enumerate(players) if s not in record["score"]["re_seats"]]
    if record["score"]["solo"]:
        assert words["gegen"] in parties and parties.startswith(re_names[0]), parties
    else:
        re_part, kontra_part = parties.split(words["kontra"])
        assert re_part.startswith(words["re"]), parties
        assert all(n in re_part for n in re_names) and all(n in kontra_part for n in others)

    # the scoresheet, from the menu bar: it and the header fit the window
    await page.click("[data-menu='sheet']")
    await page.wait_for_selector("#sheet tr[data-deal='1']")
    sheet_fits = await page.eval_on_selector(
        "#sheet table", "t => t.scrollWidth <= t.parentElement.clientWidth"
    )
    await screenshot(page, f"{name}-sheet", full_page=False)
    grave["sheet"] = await grave_violations(page)
    raw["sheet"] = RAW.findall(await page.inner_text("#sheet-dialog"))
    await page.click("[data-key='close-sheet']")
    menu_fits = await page.eval_on_selector_all(
        "header.top nav a, .menu [data-menu]",
        f"l => l.every((e) => e.getBoundingClientRect().right <= {window['width']})",
    )
    page_fits = await fits(page, window["width"])

    # the host abandons the session in deal 2: nothing is offered any more, also after a reload
    await page.click("[data-menu='host']")
    await page.click("[data-key='abandon']")
    assert await tab.move("abandon-yes")
    await page.wait_for_selector("#ending[data-status='abandoned']")
    offered = {"abandoned": await nothing_offered(page)}
    await page.reload()
    await page.wait_for_selector("#ending[data-status='abandoned']")
    await page.wait_for_selector("#hand [data-card]", state="attached")
    offered["reloaded"] = await nothing_offered(page)
    raw["abandoned"] = RAW.findall(await visible_text(page))
    everything = str(await page.evaluate("document.body.textContent"))
    grave["abandoned"] = await grave_violations(page)

    assert offered == {"abandoned": NONE, "reloaded": NONE}
    assert await page.evaluate("window.__repeats") == []
    assert raw == {"deal": [], "result": [], "sheet": [], "abandoned": []}
    assert (sheet_fits, menu_fits, page_fits) == (True, True, True)
    if lang == "de":
        assert "expert" not in everything.lower() and "greedy" not in everything.lower()
    assert grave == {k: [] for k in ("lobby", "deal", "result", "sheet", "abandoned")}

    # the next table: the lobby fills in the name
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    assert await page.input_value("#player") == "Tess"
    assert tab.errors == []
    await tab.close()


async def test_a_private_table_shows_its_link_only_as_the_invitation(
    browser: Browser, service: Service
) -> None:
    """At a private table (the lobby's default) the seats part offers no plain link to the
    table, which would open nothing for others (T1.1); the host has the invitation link."""
    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    await page.fill("#player", "Hanna")
    await page.select_option("#bots", "0")
    await page.click("#create-button")
    await page.wait_for_selector("#seats")
    table_id = page.url.rsplit("/", 1)[1]
    assert await page.locator(f"#seats a[href='/t/{table_id}']").count() == 0
    link = await page.input_value("#invitation-link")
    assert link.startswith(f"{service.url}/t/{table_id}#")
    assert tab.errors == []
    await tab.close()
