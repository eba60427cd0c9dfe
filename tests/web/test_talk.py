"""Table talk at the table page (T5), in a real Chromium: what one seat types appears at
another seat's page (a German phone and an English laptop), a quick phrase too, a card named
during a deal is refused in the page's words with its rule, the host mutes a seat and its
page says so, and none of it is in the session's export."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from domain.seats import Seat
from service.tools.client import DokoClient
from tests.web.browsing import grave_violations, open_tab, screenshot
from tests.web.conftest import Service

pytestmark = pytest.mark.xdist_group("web_talk")

PHONE = {"width": 390, "height": 844}


async def test_a_message_typed_by_one_seat_appears_at_another_seats_page(
    browser: Browser, service: Service, api: DokoClient
) -> None:
    table = await api.create_table("Freitag", first_dealer=0, visibility="public")
    seats = {
        seat: await table.take_seat(name, seat=seat)
        for seat, name in zip(Seat, "ABCD", strict=True)
    }
    held = {"seat": 0, "token": seats[Seat(0)].token, "host": table.host_token}
    anna = await open_tab(browser, service.url, held=(table.table_id, held))
    ben = await open_tab(
        browser,
        service.url,
        viewport=PHONE,
        locale="de-DE",
        held=(table.table_id, {"seat": 1, "token": seats[Seat(1)].token}),
    )
    for tab in (anna, ben):
        await tab.page.goto(f"/t/{table.table_id}")
        await tab.page.wait_for_selector("#hand [data-card]")
        await tab.page.click("#talk summary")

    await anna.page.fill("#talk-text", "See you on Friday")
    await anna.page.click("[data-key='talk-send']")
    heard = ben.page.locator("#talk li[data-seat='0']")
    await heard.wait_for()
    assert " ".join((await heard.inner_text()).split()) == "A: See you on Friday"
    assert await anna.page.input_value("#talk-text") == ""

    await ben.page.click("[data-key='talk-talk.phrase.well_played']")  # "Gut gespielt!"
    phrase = anna.page.locator("#talk li[data-seat='1']")
    await phrase.wait_for()
    assert " ".join((await phrase.inner_text()).split()) == "B: Gut gespielt!"

    await anna.page.fill("#talk-text", "I have the queen of clubs")
    await anna.page.click("[data-key='talk-send']")
    refusal = anna.page.locator(".problem")
    await refusal.wait_for()
    told = await refusal.inner_text()
    assert "may not name a card" in told and "T5.2" in told
    assert await ben.page.locator("#talk li[data-seat='0']").count() == 1

    await anna.page.click("[data-key='talk-mute-1']")  # the host mutes B
    await ben.page.locator("[data-muted='true']").wait_for()
    assert "stummgeschaltet" in await ben.page.inner_text("#talk")
    assert await ben.page.locator("#talk-text").count() == 0
    for tab, name in ((ben, "talk-phone-de"), (anna, "talk-desktop-en")):
        await tab.page.locator("#talk").scroll_into_view_if_needed()
        await screenshot(tab.page, name, full_page=False)
    for tab in (anna, ben):
        assert await grave_violations(tab.page) == []
        assert tab.errors == []

    await table.abandon()
    export = await api.http.get(
        f"{table.path}/export", headers={"authorization": f"Bearer {table.host_token}"}
    )
    assert export.status_code == 200
    assert "See you on Friday" not in export.text and "Gut gespielt" not in export.text
