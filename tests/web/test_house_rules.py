"""House rules on the pages, in a real Chromium: the lobby offers Schweinchen (V3) and Bock
rounds (V5) as the API's schema does, and at a table with Schweinchen the person holding both
AD shows them with the page's button (V3.1): the log and the board tell everyone, the hand
puts the AD first (V3.2).

Seat 1 is the person; seats 0, 2 and 3 act through the API. Deal 1 is preset (first dealer
0): seat 1 declares and leads first and holds both AD.
"""

from __future__ import annotations

import asyncpg
from playwright.async_api import Browser

from domain.cards import Card
from domain.commands import Declaration, Declare
from domain.events import SchweinchenShown
from domain.seats import Seat
from service.tools.client import DokoClient
from tests.service.sessions import preset_deal, presets_with_both_qc
from tests.web.browsing import full_log, grave_violations, open_tab
from tests.web.conftest import Service


async def test_the_lobby_offers_schweinchen_and_bock_rounds(
    browser: Browser, service: Service
) -> None:
    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    for option in ("schweinchen", "bock_rounds"):
        assert await page.locator(f"#option-{option}").count() == 1, option
    assert "V3" in (await page.inner_text("#option-schweinchen-hint"))
    assert "V5" in (await page.inner_text("#option-bock_rounds-hint"))
    assert tab.errors == []
    await tab.close()


async def test_the_lobby_offers_the_session_length_and_duty_solos(
    browser: Browser, service: Service, api: DokoClient
) -> None:
    """V6: the session length starts at RULES.md's 12, steps by 4 from 4 to 48; a table
    opened with 8 deals and duty solos is listed with both."""
    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    deals = page.locator("#option-session_deals")
    assert await deals.input_value() == "12"
    assert [await deals.get_attribute(a) for a in ("min", "max", "step")] == ["4", "48", "4"]
    assert await page.locator("#option-duty_solo").count() == 1
    assert "V6" in (await page.inner_text("#option-duty_solo-hint"))
    await api.create_table(
        "Pflichtsolo", visibility="public", rules={"session_deals": 8, "duty_solo": True}
    )
    await page.goto("/")
    await page.wait_for_selector("[data-rules]")
    assert "8" in await page.inner_text("[data-rules]")
    assert tab.errors == []
    await tab.close()


async def test_schweinchen_are_shown_with_the_pages_button(
    browser: Browser, service: Service, api: DokoClient, pool: asyncpg.Pool
) -> None:
    presets = presets_with_both_qc("page schweinchen")
    presets[0] = preset_deal((Card.AD, Card.AD))
    table = await api.create_table(
        "swines",
        first_dealer=0,
        presets=presets,
        visibility="public",
        rules={"schweinchen": True, "bock_rounds": True},
    )
    seats = {seat: await table.take_seat(f"p{seat}", seat=seat) for seat in Seat}
    tab = await open_tab(
        browser, service.url, held=(table.table_id, {"seat": 1, "token": seats[Seat(1)].token})
    )
    page = tab.page
    await page.goto(f"/t/{table.table_id}")
    await page.wait_for_selector("#hand [data-card]")
    assert await tab.move("declare-healthy")
    for seat in (2, 3, 0):
        await seats[Seat(seat)].send(Declare(Seat(seat), Declaration.HEALTHY))
    await page.wait_for_selector("[data-key='schweinchen']", timeout=30_000)
    assert await tab.move("schweinchen")
    shown = "#log li[data-type='schweinchen_shown']"
    await page.wait_for_selector(shown, state="attached")
    told = " ".join((await page.text_content(shown) or "").split())
    assert told.startswith("p1 shows Schweinchen"), told
    await page.wait_for_selector("[data-seat-box='1'] .badge.schweinchen")
    assert await page.locator("[data-key='schweinchen']").count() == 0  # once (V3.1)
    first = await page.eval_on_selector_all(
        "#hand [data-card]", "l => l.slice(0, 2).map(e => e.dataset.card)"
    )
    assert first == ["AD", "AD"]
    assert await grave_violations(page) == []
    log = await full_log(pool, table.table_id)
    assert [e for _, e in log if isinstance(e, SchweinchenShown)] == [SchweinchenShown(Seat(1))]
    assert tab.errors == []
    await tab.close()
