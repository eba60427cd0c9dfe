"""A click is never lost to news: when the stream brings news while a button is pressed, the
page draws it after the release (ui.js `steady`), so the press and the release land on the same
button and the browser delivers the click. Drawn at once, the news would replace the button
under the pointer, and the click would be dropped: the player clicks, nothing happens.

Each test presses a button with the mouse (`mouse.down`) or the Space key, has someone else
act through the API meanwhile, waits until the page holds back the redraw that news asked for
(``body[data-held]``), releases the button and checks that the page sent its
command once and the service took it; then that the news is drawn.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page

from service.tools.client import DokoClient
from tests.web.browsing import SENT, open_tab
from tests.web.conftest import Service
from tests.web.test_table_life import open_table


async def press(page: Page, selector: str) -> None:
    """The mouse pressed on the middle of ``selector``, not yet released."""
    box = await page.locator(selector).bounding_box()
    assert box is not None, selector
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.down()


async def test_registering_on_a_tournaments_page_survives_another_registration(
    browser: Browser, service: Service, api: DokoClient
) -> None:
    """E2.1: Anna presses "Register" while Ben registers elsewhere; she is registered once
    her button is released, and the page then shows both."""
    tournament = await api.create_tournament("Clicks", visibility="public")
    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto(f"/tournament/{tournament.tournament_id}")
    await page.wait_for_selector("#status[data-connection='live']")
    await page.fill("#name", "Anna")
    await press(page, "[data-key='register']")
    await tournament.register("Ben")
    await page.wait_for_selector("body[data-held]", state="attached")
    assert await page.evaluate(SENT) == 0
    await page.mouse.up()
    await page.wait_for_selector("#you")
    assert await page.evaluate(SENT) == 1, "one command for one click"
    names = list((await tournament.view()).tournament.players)
    assert names == ["Ben", "Anna"]
    await page.wait_for_selector("#players >> text=Ben")
    assert await page.locator("body[data-held]").count() == 0
    assert tab.errors == []
    await tab.close()


@pytest.mark.parametrize("hand", ["mouse", "space"])
async def test_seating_a_bot_survives_a_player_sitting_down(
    browser: Browser, service: Service, api: DokoClient, hand: str
) -> None:
    """The host presses "bot on seat 3" (with the mouse, or with the Space key, which clicks
    on its release) while Ben takes seat 1 (T1.1); the bot sits on seat 3 once the button is
    released, and the page then shows both."""
    tab = await open_tab(browser, service.url)
    page = tab.page
    table_id = await open_table(tab, "Rita", 0, visibility="public")
    await page.wait_for_selector("#status[data-connection='live']")
    if hand == "mouse":
        await press(page, "[data-key='bot-3']")
    else:
        await page.focus("[data-key='bot-3']")
        await page.keyboard.down(" ")
    await api.table(table_id).take_seat("Ben", 1)
    await page.wait_for_selector("body[data-held]", state="attached")
    assert await page.evaluate(SENT) == 0
    await (page.mouse.up() if hand == "mouse" else page.keyboard.up(" "))
    await page.wait_for_selector("#seats >> text=Ben")
    await page.wait_for_selector("[data-key='bot-3']", state="detached")
    assert await page.evaluate(SENT) == 1, "one command for one click"
    seats = (await api.table(table_id).view()).seats
    assert [(s.name, s.bot is not None) for s in seats[:2]] == [("Rita", False), ("Ben", False)]
    assert seats[2].name is None and seats[3].bot is not None
    assert await page.locator("body[data-held]").count() == 0
    assert tab.errors == []
    await tab.close()
