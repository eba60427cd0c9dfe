"""Never lose a seat: the browser keeps a table's seat and host role per table, a new tab
(or a browser restart) is still the seat, the personal rejoin link opens it on another
device, "My tables" in the lobby leads back, and "forget" gives it up."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser

from tests.web.browsing import grave_violations, open_tab
from tests.web.conftest import Service
from tests.web.test_table_life import open_table


async def test_a_seat_and_the_host_role_survive_the_tab_and_move_to_another_device(
    browser: Browser, service: Service
) -> None:
    first = await open_tab(browser, service.url)
    page = first.page
    table_id = await open_table(first, "Rita", 0, visibility="private")
    await page.wait_for_selector("#host")
    context = page.context
    await page.close()

    # the tab is closed: a new one in the same browser is still the seat and the host
    again = await context.new_page()
    await again.goto(f"/t/{table_id}")
    await again.wait_for_selector("text=You play Rita (seat 0)")
    assert await again.locator("#host").count() == 1
    link = await again.input_value("#rejoin-link")
    held = await again.evaluate(f"JSON.parse(localStorage.getItem('doko:{table_id}'))")
    assert link == (f"{service.url}/t/{table_id}#rejoin={held['token']}&host={held['host']}")

    # the lobby lists the table under "My tables", whatever the filter shows
    await again.goto("/")
    entry = again.locator(f"[data-my-table='{table_id}']")
    await entry.wait_for()
    assert "your seat 0" in await entry.inner_text()
    assert "host" in await entry.inner_text()
    assert await grave_violations(again) == []
    await entry.locator("a").click()
    await again.wait_for_selector("text=You play Rita (seat 0)")

    # another device opens the personal link: the seat and the host role, the tokens taken
    # out of the address bar and never sent in a URL (the stream is opened with a ticket)
    other = await open_tab(browser, service.url)
    await other.page.goto(link)
    await other.page.wait_for_selector("text=You play Rita (seat 0)")
    assert await other.page.locator("#host").count() == 1
    assert "#" not in other.page.url
    for request in other.requests:
        url = httpx.URL(request.url)
        assert held["host"] not in str(url) and held["token"] not in str(url)
    assert await grave_violations(other.page) == []

    # forgetting it there leaves that device at the private table's door
    await other.page.click("[data-key='forget']")
    await other.page.click("[data-key='forget-yes']")
    await other.page.wait_for_selector("#enter")
    assert await other.page.evaluate(f"localStorage.getItem('doko:{table_id}')") is None
    await other.page.goto("/")
    await other.page.wait_for_selector("#create-button")
    assert await other.page.locator("#my-tables").count() == 0
    # and the first device still holds it
    await again.reload()
    await again.wait_for_selector("text=You play Rita (seat 0)")
    assert first.errors == [] and other.errors == []
    await first.close()
    await other.close()
