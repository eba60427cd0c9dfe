"""The table page learns its turn from its stream alone (R4.1-R4.3), in a real Chromium.

Seat 0 is a person on the page; seats 1-3 are played through the API. Deal 1 is preset: seat
1 holds both QC and is the first to declare (first dealer 0). Seats 1 and 0 say
`reservation`, then seat 1 names a marriage, which stays hidden from seat 0 (R4.3). The page
asks for its view only when its stream brings something (it never polls): it must learn from
the stream's message of seat 1's contract that it is seat 0's turn to name one, show that seat
1 named a contract without which, and let the person name theirs.
"""

from __future__ import annotations

import asyncio

import asyncpg
from playwright.async_api import Browser

from domain.commands import Declaration, Declare, NameContract
from domain.events import ContractNamed
from domain.game_types import GameType
from domain.seats import Seat
from service.tools.client import DokoClient
from tests.service.sessions import presets_with_both_qc
from tests.web.browsing import full_log, open_tab
from tests.web.conftest import Service

QUIET_SECONDS = 2.0
"""How long the test watches the page do nothing while no event comes."""


async def test_the_page_learns_its_turn_to_name_a_contract_from_its_stream(
    browser: Browser, service: Service, api: DokoClient, pool: asyncpg.Pool
) -> None:
    presets = presets_with_both_qc("page turns")
    presets[0] = presets[1]  # deal 1: seat 1 holds both QC
    table = await api.create_table("turns", first_dealer=0, presets=presets, visibility="public")
    seats = {seat: await table.take_seat(f"p{seat}", seat=seat) for seat in Seat}
    tab = await open_tab(
        browser, service.url, held=(table.table_id, {"seat": 0, "token": seats[Seat(0)].token})
    )
    page = tab.page
    await page.goto(f"/t/{table.table_id}")
    await page.wait_for_selector("#hand [data-card]")
    for seat, said in ((1, "reservation"), (2, "healthy"), (3, "healthy")):
        await seats[Seat(seat)].send(Declare(Seat(seat), Declaration(said)))
    await page.wait_for_selector("#log li[data-id='10']", state="attached")
    assert await tab.move("declare-reservation")
    await page.wait_for_selector("#log li[data-id='11']", state="attached")

    def views() -> int:
        return sum("/seats/0" in r.url and r.method == "GET" for r in tab.requests)

    asked = views()
    await asyncio.sleep(QUIET_SECONDS)
    assert views() == asked, "the page polls its view"
    assert await page.locator("[data-key^='contract-']").count() == 0  # seat 1 names first

    await seats[Seat(1)].send(NameContract(Seat(1), GameType.MARRIAGE))
    await page.wait_for_selector("[data-key^='contract-']")
    named = page.locator("#log li[data-id='12']")
    assert await named.get_attribute("data-type") == "contract_named"
    told = " ".join((await named.text_content() or "").split())  # the log is behind the menu
    assert told.endswith("p1 named a contract"), told
    assert views() > asked, "the stream's message made the page ask for its view"
    said = await page.text_content("#log") or ""
    assert "marriage" not in said.lower(), "R4.3: seat 1's contract stays hidden"
    offered = await page.eval_on_selector_all(
        "[data-key^='contract-']", "l => l.map(e => e.dataset.key)"
    )
    assert "contract-marriage" not in offered and offered  # seat 0 holds no QC pair

    assert await tab.move(offered[0])  # a solo beats the marriage (R4.3)
    await page.wait_for_selector(
        "#log li[data-id='14'][data-type='game_type_fixed']", state="attached"
    )
    log = await full_log(pool, table.table_id)
    assert [int(e.seat) for _, e in log if isinstance(e, ContractNamed)] == [1, 0]
    start = int(await page.get_attribute("#log ol", "data-from") or -1)
    assert await tab.log_ids() == list(range(start + 1, 15)), "no gap"
    assert tab.errors == []
    await tab.close()
