"""axe-core on every page the service serves, in German and in English: no serious or
critical violation on the lobby, the table (as its seated host, with the scoresheet and the
talk open, and as a spectator), the deal viewer and its review, the rules (the house rules
and the names' too), the tournaments, a tournament's page with its standings, a shared
deal's comparison and the API reference.

The pages are the ones the service routes (`tests/web/test_pages.py`'s ``PAGES``, which
keeps that list equal to the routes' modules); each is drawn as a person would meet it: a
public table whose first deal is played and scored, a private table met without its
invitation (a refusal), a one-table tournament whose first deal is public. Each page's
screenshot is saved as ``page-<page>-<language>``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import httpx
import pytest
from playwright.async_api import Browser, Page

from service.tools.client import DokoClient
from tests.web.browsing import DESKTOP, PHONE, grave_violations, open_tab, screenshot
from tests.web.conftest import Service
from tests.web.test_pages import PAGES
from tests.web.test_tournament_pages import play_first_deal

pytestmark = pytest.mark.xdist_group("every_page")

LOCALES = ("de-DE", "en-US")
HOUSE_RULES = {"second_heart_ten": "except_last_trick"}


@dataclass(frozen=True)
class Evening:
    """A public table playing a house rule (V2.2), with deal 1 scored (its host's seat token
    and host token), another open one for the lobby, and a public one-table tournament with
    deal 1 of round 1 public."""

    table: str
    seat_token: str
    host_token: str
    tournament: str
    private: str


@pytest.fixture(scope="module")
async def evening(service: Service) -> AsyncIterator[Evening]:
    async with httpx.AsyncClient(base_url=service.url, timeout=30.0) as http:
        api = DokoClient(http)
        table = await api.create_table("Freitag", visibility="public", rules=HOUSE_RULES)
        seats = [await table.take_seat(name) for name in ("Anna", "Ben", "Cem", "Dora")]
        await api.create_table("Offen", visibility="public", rules=HOUSE_RULES)  # in the lobby
        private = await api.create_table("Geschlossen")
        await play_first_deal(api, table.table_id, [s.token for s in seats])
        tournament = await api.create_tournament("Vereinsabend", rounds=1, visibility="public")
        players = [await tournament.register(name) for name in ("Eva", "Finn", "Gül", "Hans")]
        await tournament.start_round(1)
        places = [await p.table() for p in players]
        by_seat = {int(place.seat or 0): p.token for place, p in zip(places, players, strict=True)}
        assert places[0].table_id is not None
        await play_first_deal(api, places[0].table_id, [by_seat[s] for s in range(4)])
        assert table.host_token is not None
        yield Evening(
            table.table_id,
            seats[0].token,
            table.host_token,
            tournament.tournament_id,
            private.table_id,
        )


Open = Callable[[Page, Evening], Awaitable[None]]


async def shown(page: Page, path: str, selector: str) -> None:
    await page.goto(path)
    await page.wait_for_selector(selector)


async def lobby(page: Page, _: Evening) -> None:
    await shown(page, "/", "#create-button")
    await page.locator(".house-rules").scroll_into_view_if_needed()


async def seated(page: Page, lived: Evening) -> None:
    link = f"/t/{lived.table}#rejoin={lived.seat_token}&host={lived.host_token}"
    await shown(page, link, "body[data-seated='true'] #hand [data-card]")
    await page.click("#talk summary")
    await page.wait_for_selector("#talk[open] #talk-text")


async def scoresheet(page: Page, lived: Evening) -> None:
    await seated(page, lived)
    await page.click("[data-menu='sheet']")
    await page.wait_for_selector("dialog[open] table")


async def spectator(page: Page, lived: Evening) -> None:
    await shown(page, f"/t/{lived.table}", "body[data-seated='false'] .seat")
    await page.click("#talk summary")
    await page.wait_for_selector("#talk[open] #talk-name")


async def door(page: Page, lived: Evening) -> None:
    await shown(page, f"/t/{lived.private}", "#enter .problem, .problem")


async def deal_viewer(page: Page, lived: Evening) -> None:
    await shown(page, f"/t/{lived.table}/deals/1", "#score[data-deal='1']")


async def review(page: Page, lived: Evening) -> None:
    await deal_viewer(page, lived)
    await page.click("[data-key='review']")
    await page.wait_for_selector("#review [data-review-seat]")
    await page.click("#review details summary")


async def rules(page: Page, _: Evening) -> None:
    await shown(page, "/rules", "#part-R")
    # the names' rules too: a refused name links to N2 or N3
    named = page.locator("section[aria-labelledby='part-N'] dt#N2 + dd")
    assert "U+202A" in await named.inner_text()


async def house_rules(page: Page, _: Evening) -> None:
    await shown(page, "/rules#part-V", "#V2\\.1")


async def tournaments(page: Page, _: Evening) -> None:
    await shown(page, "/tournament", "#create-tournament")


async def tournament(page: Page, lived: Evening) -> None:
    await shown(page, f"/tournament/{lived.tournament}", "#standings, #rounds [data-round='1']")


async def comparison(page: Page, lived: Evening) -> None:
    await shown(page, f"/tournament/{lived.tournament}/rounds/1/deals/1", "#hands")


async def reference(page: Page, _: Evening) -> None:
    await shown(page, "/schema", ".swagger-ui .opblock")


SHOWN: dict[str, tuple[str, Open]] = {
    "lobby": ("lobby", lobby),
    "table, seated host": ("table", seated),
    "table, scoresheet": ("table", scoresheet),
    "table, spectator": ("table", spectator),
    "private table, at the door": ("table", door),
    "deal viewer": ("deal", deal_viewer),
    "deal review": ("deal", review),
    "rules": ("rules", rules),
    "house rules": ("rules", house_rules),
    "tournaments": ("tournaments", tournaments),
    "tournament, standings": ("tournament", tournament),
    "shared deal compared": ("compare", comparison),
    "API reference": ("reference", reference),
}
"""Each page as it is met: its module (as ``PAGES`` names it) and how it is opened."""


def test_every_page_the_service_serves_is_checked() -> None:
    assert {module for module, _ in SHOWN.values()} == set(PAGES.values())


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", list(SHOWN))
async def test_no_page_has_a_serious_or_critical_axe_violation(
    name: str, locale: str, browser: Browser, service: Service, evening: Evening
) -> None:
    window = PHONE if locale == "de-DE" else DESKTOP
    tab = await open_tab(browser, service.url, window, locale=locale)
    try:
        await SHOWN[name][1](tab.page, evening)
        assert await tab.page.evaluate("document.documentElement.lang") == locale[:2]
        slug = "-".join(name.replace(",", "").split()).lower()
        await screenshot(tab.page, f"page-{slug}-{locale[:2]}", full_page=False)
        assert await grave_violations(tab.page) == []
        assert tab.errors == []
    finally:
        await tab.page.context.close()
