"""Without nines (V1) on the pages, in a real Chromium: the lobby offers the option as the
API's schema does, and at a table without nines the seat's hand shows its 10 cards, no nine
among them, and the heading names the house rule."""

from __future__ import annotations

from playwright.async_api import Browser

from service.tools.client import DokoClient
from tests.web.browsing import open_tab
from tests.web.conftest import Service


async def test_the_lobby_offers_the_game_without_nines(browser: Browser, service: Service) -> None:
    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    assert await page.locator("#option-without_nines").count() == 1
    assert "V1" in (await page.inner_text("#option-without_nines-hint"))
    assert tab.errors == []
    await tab.close()


async def test_a_table_without_nines_shows_ten_cards(
    browser: Browser, service: Service, api: DokoClient
) -> None:
    table = await api.create_table("ohne", visibility="public", rules={"without_nines": True})
    seats = [await table.take_seat(f"p{seat}", seat=seat) for seat in range(4)]
    tab = await open_tab(
        browser, service.url, held=(table.table_id, {"seat": 1, "token": seats[1].token})
    )
    page = tab.page
    await page.goto(f"/t/{table.table_id}")
    await page.wait_for_selector("#hand [data-card]")
    cards = await page.eval_on_selector_all("#hand [data-card]", "l => l.map(e => e.dataset.card)")
    assert len(cards) == 10 and not any(c.startswith("9") for c in cards), cards
    assert "without nines" in (await page.inner_text(".house-rules"))
    assert tab.errors == []
    await tab.close()
