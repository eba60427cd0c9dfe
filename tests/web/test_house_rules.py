"""House rules on the pages, in a real Chromium: the lobby offers Schweinchen (V3), Armut
(V4) and Bock rounds (V5) as the API's schema does; at a table with Schweinchen the person
holding both AD shows them with the page's button (V3.1): the log and the board tell
everyone, the hand puts the AD first (V3.2); at a table with Armut the person asked takes
it with the page's button and chooses the cards to give back in its moves (V4.3, V4.4).

Seat 1 is the person; seats 0, 2 and 3 act through the API. Deal 1 is preset (first dealer
0): seat 1 declares and leads first and holds both AD.
"""

from __future__ import annotations

import random

import asyncpg
import pytest
from playwright.async_api import Browser

from domain.cards import Card
from domain.commands import Declaration, Declare, NameContract
from domain.events import PovertyAnswered, PovertyReturned, SchweinchenShown
from domain.game_types import GameType
from domain.players import greedy_action
from domain.seats import Seat
from service.tools.client import DokoClient
from service.tools.play import Player, play_session
from tests.service.sessions import armut_deal, preset_deal, presets_with_both_qc
from tests.web.browsing import full_log, grave_violations, open_tab, screenshot
from tests.web.conftest import Service


async def test_the_lobby_offers_schweinchen_and_bock_rounds(
    browser: Browser, service: Service
) -> None:
    tab = await open_tab(browser, service.url)
    page = tab.page
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    for option in ("schweinchen", "armut", "bock_rounds"):
        assert await page.locator(f"#option-{option}").count() == 1, option
    assert "V3" in (await page.inner_text("#option-schweinchen-hint"))
    assert "V4" in (await page.inner_text("#option-armut-hint"))
    assert "V5" in (await page.inner_text("#option-bock_rounds-hint"))
    refused = page.locator("#option-armut_refused")  # V4.7 by default, V4.8 to choose
    assert await refused.input_value() == "play_on"
    assert await refused.locator("option").evaluate_all("o => o.map(x => x.value)") == [
        "play_on",
        "redeal",
    ]
    assert "V4.8" in (await page.inner_text("#option-armut_refused-hint"))
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
    await page.wait_for_selector("[data-key='schweinchen']")
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


@pytest.mark.long
async def test_an_armut_is_taken_and_cards_given_back_with_the_pages_buttons(
    browser: Browser, service: Service, api: DokoClient, pool: asyncpg.Pool
) -> None:
    """Seat 1 (through the API) offers an Armut of three trumps; the person on seat 2 is
    asked first: it takes it with the page's button (V4.3), chooses three cards of its hand
    in its moves and gives them back (V4.4); the log tells it with the cards, which the
    person may see (V4.6)."""
    presets = presets_with_both_qc("page armut")
    presets[0] = armut_deal()
    table = await api.create_table(
        "poverty", first_dealer=0, presets=presets, visibility="public", rules={"armut": True}
    )
    seats = {seat: await table.take_seat(f"p{seat}", seat=seat) for seat in Seat}
    tab = await open_tab(
        browser, service.url, held=(table.table_id, {"seat": 2, "token": seats[Seat(2)].token})
    )
    page = tab.page
    await page.goto(f"/t/{table.table_id}")
    await page.wait_for_selector("#hand [data-card]")
    await seats[Seat(1)].send(Declare(Seat(1), Declaration.RESERVATION))
    assert await tab.move("declare-healthy")
    for seat in (3, 0):
        await seats[Seat(seat)].send(Declare(Seat(seat), Declaration.HEALTHY))
    await seats[Seat(1)].send(NameContract(Seat(1), GameType.POVERTY))
    await page.wait_for_selector("[data-key='poverty-accept']")
    assert await tab.move("poverty-accept")
    await page.wait_for_selector("[data-key='give-0']")
    assert await page.locator("[data-key='poverty-return']").is_disabled()
    for i in range(3):
        await page.click(f"[data-key='give-{i}']")
        await page.wait_for_selector(f"[data-key='give-{i}'][aria-pressed='true']")
    chosen = await page.eval_on_selector_all(
        "[aria-pressed='true'][data-key^='give-']", "l => l.map(e => e.dataset.card)"
    )
    await screenshot(page, "table-armut-give-back")
    assert await tab.move("poverty-return")
    told = "#log li[data-type='poverty_returned']"
    await page.wait_for_selector(told, state="attached")
    text = " ".join((await page.text_content(told) or "").split())
    assert text.startswith("p2 gives back 3 cards"), text
    assert await grave_violations(page) == []
    log = [e for _, e in await full_log(pool, table.table_id)]
    assert PovertyAnswered(Seat(2), True) in log
    (returned,) = [e for e in log if isinstance(e, PovertyReturned)]
    assert returned.cards is not None and sorted(c.value for c in returned.cards) == sorted(chosen)
    await play_session([seats[s] for s in Seat], [_greedy(s) for s in Seat], deals=1)
    await page.goto(f"/t/{table.table_id}/deals/1")  # the deal viewer: the whole exchange
    await page.wait_for_selector("#trick .poverty")
    said = " ".join((await page.text_content("#trick .poverty") or "").split())
    assert said.startswith("p1 offered an Armut of 3 trumps"), said
    assert "p2 took it and gave back 3 cards" in said, said
    shown = await page.eval_on_selector_all(
        "#trick .poverty [data-card]", "l => l.map(e => e.dataset.card)"
    )
    assert shown == ["AD", "10D", "9D", *(c.value for c in returned.cards)]
    assert tab.errors == []
    await tab.close()


def _greedy(seat: Seat) -> Player:
    chooser = random.Random(int(seat))
    return lambda observation: greedy_action(observation, chooser)
