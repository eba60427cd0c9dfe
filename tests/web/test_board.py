"""The board is the page: one deal played by clicking against three bots, on a phone
(390x844) and on a laptop (1280x800), in a German and in an English browser. At every move
the hand, the trick and the move's button are inside the window; after each trick's fourth
card the finished trick is shown with its winner until the pause has passed (the page's
clock driven by Playwright, not by the machine's speed); the deal ends in the result dialog
with the record's value, lines and entries, and "Weiter" ("Next") closes it. The page speaks
the browser's language, and no page (lobby, table, deal viewer, rules) has a serious or
critical accessibility violation in it. The acceptance test below: a whole session of 12
deals on a phone in German, the tab closed in deal 3 and the seat found again through the
lobby's "Meine Tische", to the final standings."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import pytest
from playwright.async_api import Browser, Page

from domain.events import CardPlayed, DealDealt, TrickWon
from tests.web.browsing import Log, Tab, full_log, grave_violations, open_tab, screenshot
from tests.web.conftest import Service
from tests.web.test_browser import SCORE, recorded

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
PAUSE_MS = 1500
"""The finished trick's pause at the default pace (table/settings.js `PACES.short`): the test
runs the page's clock past it."""


FINISHED = """() => {
  const t = document.querySelector('#trick');
  return [+t.dataset.finished, +t.dataset.winner,
          [...t.querySelectorAll('[data-card]')].map((c) => [+c.dataset.seat, c.dataset.card]),
          [...t.querySelectorAll('[data-won]')].map((c) => +c.dataset.seat)];
}"""


def tricks_of(log: Log, deal: int) -> list[tuple[int, list[tuple[int, str]]]]:
    """Each trick of the deal from the full log: its winner and its (seat, card) in order."""
    found: list[tuple[int, list[tuple[int, str]]]] = []
    cards: list[tuple[int, str]] = []
    current = 0
    for _, event in log:
        if isinstance(event, DealDealt):
            current = event.deal_no
        elif current == deal and isinstance(event, CardPlayed):
            cards.append((int(event.seat), event.card.value))
        elif current == deal and isinstance(event, TrickWon):
            found.append((int(event.winner), sorted(cards)))
            cards = []
    return found


BOXES = """(selectors) => selectors.map((s) => {
  const box = document.querySelector(s)?.getBoundingClientRect();
  return box ? [box.left, box.top, box.right, box.bottom] : null;
})"""
"""Where the elements are, all read at one moment (the page redraws on every event)."""


LAYOUT_UNIT = 1 / 64
"""Chromium lays pages out in 1/64 px: a box that ends one unit past the window's edge
(844.015625 of 844) is rounding of a page exactly as tall as the window, nothing hidden."""


async def outside(page: Page, move: str, size: dict[str, int]) -> list[str]:
    """Which of the hand, the trick and the move's element are not wholly inside the
    window (the move's element is left out when a newer view no longer offers it)."""
    selectors = ["#hand", "#trick", f"[data-key='{move}']"]
    boxes = await page.evaluate(BOXES, selectors)
    if boxes[2] is None:
        boxes, selectors = boxes[:2], selectors[:2]
    return [
        f"{selector}: {box}"
        for selector, box in zip(selectors, boxes, strict=True)
        if box is None
        or not (
            box[0] >= 0
            and box[1] >= 0
            and box[2] <= size["width"] + LAYOUT_UNIT
            and box[3] <= size["height"] + LAYOUT_UNIT
        )
    ]


@dataclass
class Board:
    """What the board showed while the person played: each finished trick (its winner and
    its (seat, card)s, as `tricks_of` has them) and every element found outside the window."""

    shown: list[tuple[int, list[tuple[int, str]]]] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    said: list[tuple[str, list[str]]] = field(default_factory=list)
    """Each announcement the person made (its key) with the badges then at their seat."""


async def play_on_board(
    tab: Tab, deal: int, window: dict[str, int], *, shots: str = "", until: int = 12
) -> Board:
    """Play the person's part of ``deal`` by clicking (the moves of `Tab.next_move`), from
    where the page stands (a deal begun in another tab goes on), until its trick ``until``
    is finished (12: the last card is played). Before each move the hand, the trick and the
    move's element must be inside ``window``; each finished trick but the last must be on
    the board with its winner marked until the page's clock (installed and paused by the
    caller) has run for the pause; each announcement made is then a badge at the person's
    seat. ``shots``: the screenshots' name, to take them of the first trick and the first
    finished one."""
    page = tab.page
    board = Board()
    played = 12 - await page.locator("#hand button.card").count()
    if played and await page.locator("#trick[data-finished]").count():
        await page.clock.run_for(PAUSE_MS)  # a new page shows the last trick's pause again
    while played < until and (move := await tab.next_move(deal)) != "done":
        for problem in await outside(page, move, window):
            board.wrong.append(f"deal {deal} {move}: {problem}")
        if not move.startswith("card-"):
            problems = await tab.problems()
            moved = await tab.move(move)
            # an announcement not refused (a bot's word may have come first) is at the seat
            if moved and move.startswith("announce-") and await tab.problems() == problems:
                badges = page.locator(".seat.bottom .badge.said")
                board.said.append((move, await badges.all_inner_texts()))
            continue
        if shots and played == 0:
            await screenshot(page, f"board-{shots}-trick", full_page=False)
        await tab.move(move)
        played += 1
        if played == 12:
            break
        await page.wait_for_selector(f"#trick[data-finished='{played}']")
        number, winner, cards, won = await page.evaluate(FINISHED)
        assert number == played and won == [winner]
        board.shown.append((winner, sorted((seat, code) for seat, code in cards)))
        if shots and played == 1:
            await screenshot(page, f"board-{shots}-finished", full_page=False)
        await page.clock.run_for(PAUSE_MS)
        await page.wait_for_selector("#trick:not([data-finished])")
    return board


WORDS = {
    "de": {
        "next": "Weiter",
        "title": "Spiel 1",
        "lobby": "Einen Tisch eröffnen",
        "rules": "Das Spiel",
        "R9.1": "Gegen die Alten",
    },
    "en": {
        "next": "Next",
        "title": "Deal 1",
        "lobby": "Open a table",
        "rules": "The game",
        "R9.1": "Against the old ladies",
    },
}
"""A few words of each page in each language, as a player reads them (not the catalogues')."""

SAID = {"announce-re": "Re", "announce-kontra": "Kontra"}
"""The badge of each announcement the person makes (`browsing.NEXT_MOVE`), in German."""


@pytest.mark.parametrize(
    ("size", "locale"),
    [("phone", "de-DE"), ("desktop", "de-DE"), ("phone", "en-US"), ("desktop", "en-US")],
)
@pytest.mark.long
async def test_a_deal_is_played_on_the_board_without_scrolling(
    size: str, locale: str, browser: Browser, service: Service, pool: asyncpg.Pool, api: Any
) -> None:
    window = SIZES[size]
    lang = locale[:2]
    words = WORDS[lang]
    name = f"{size}-{lang}"
    tab = await open_tab(browser, service.url, window, locale=locale)
    page = tab.page
    await page.clock.install()
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    assert await page.get_attribute("html", "lang") == lang
    assert await page.inner_text("#new-h") == words["lobby"]
    grave = {"lobby": await grave_violations(page)}
    await page.fill("#player", "Tess")
    await page.select_option("#bots", "3")
    await page.click("#create-button")
    await page.wait_for_selector("#hand")
    table_id = page.url.rsplit("/", 1)[1]
    await page.clock.pause_at(await page.evaluate("Date.now()"))

    board = await play_on_board(tab, 1, window, shots=name)
    await page.wait_for_selector("dialog#result[open][data-deal='1'] .last-trick")
    result = await page.eval_on_selector("dialog#result", SCORE)
    result["last"] = int(await page.get_attribute("dialog#result .last-trick", "data-winner") or -1)
    await screenshot(page, f"board-{name}-result", full_page=False)
    assert (await page.inner_text("dialog#result h2")).startswith(words["title"])
    assert await page.inner_text("dialog#result [data-key='next']") == words["next"]
    await page.clock.resume()  # axe-core waits on timers of its own
    grave["table"] = await grave_violations(page)

    assert board.wrong == []
    log = await full_log(pool, table_id)
    tricks = tricks_of(log, 1)
    assert board.shown == tricks[:11]
    held = await page.evaluate(f"JSON.parse(localStorage.getItem('doko:{table_id}'))")
    bearer = {"authorization": f"Bearer {held['host']}"}  # a private table (the default)
    record = (await api.http.get(f"/tables/{table_id}/deals/1", headers=bearer)).json()
    score = record["score"]
    assert result == {
        "deal": 1,
        "value": score["value"],
        "entries": score["entries"],
        "lines": [[x["rule"], x["party"], x["points"], x["reason"]] for x in score["lines"]],
        "last": tricks[11][0],
    }
    await tab.next_deal()
    await page.goto(f"/t/{table_id}/deals/1")
    await page.wait_for_selector("#verification")
    grave["deal viewer"] = await grave_violations(page)
    await page.goto("/rules#R9.1")
    await page.wait_for_selector("dt[id='R9.1']")
    assert await page.inner_text("#part-R") == words["rules"]
    assert (await page.inner_text("dt[id='R9.1'] + dd")).startswith(words["R9.1"])
    grave["rules"] = await grave_violations(page)
    assert grave == {"lobby": [], "table": [], "deal viewer": [], "rules": []}
    assert tab.errors == []
    await tab.close()


async def test_the_end_of_the_session_shows_the_final_standings(
    browser: Browser, service: Service, api: Any
) -> None:
    """Four bots play a whole session (R1.1) by themselves; its host's page then shows the
    final standings in German: every seat's total, highest first, as the scoresheet has
    them, and its winners (R1.3)."""
    table = await api.create_table("standings", visibility="public")
    for seat in range(4):
        await table.seat_bot("random", seat, name=f"Bot {seat}")
    sheet: dict[str, Any] = {}
    for _ in range(600):  # 12 deals of random bots: bounded by a count, not by a clock
        sheet = (await api.http.get(f"/tables/{table.table_id}/scoresheet")).json()
        if sheet.get("winners"):
            break
        await asyncio.sleep(0.1)
    assert sheet["winners"]
    held = (table.table_id, {"host": table.host_token})
    tab = await open_tab(browser, service.url, SIZES["desktop"], held=held, locale="de-DE")
    page = tab.page
    await page.goto(f"/t/{table.table_id}")
    dialog = page.locator("dialog#standings[open]")
    await dialog.wait_for()
    assert (await dialog.locator("h2").inner_text()).startswith("Die Sitzung ist vorbei")
    rows = await dialog.locator("[data-standing-seat]").evaluate_all(
        "l => l.map(r => [+r.dataset.standingSeat, +r.dataset.total])"
    )
    totals = sheet["totals"]
    assert [total for _, total in rows] == sorted(totals, reverse=True)
    assert all(totals[seat] == total for seat, total in rows)
    seats = (await api.http.get(f"/tables/{table.table_id}")).json()["seats"]
    winners = await dialog.locator(".winners").inner_text()
    assert all(seats[s]["name"] in winners for s in sheet["winners"])
    await screenshot(page, "standings-desktop-de", full_page=False)
    assert await grave_violations(page) == []
    await page.click("[data-key='standings-close']")
    await page.wait_for_selector("dialog#standings:not([open])", state="attached")
    assert tab.errors == []
    await tab.close()


@pytest.mark.long
async def test_a_whole_session_is_played_on_a_phone_in_german_and_the_seat_outlives_the_tab(
    browser: Browser, service: Service, pool: asyncpg.Pool, api: Any
) -> None:
    """The acceptance test: a person in a German browser on a phone (who tries the
    language switch: English, remembered, and back) opens a table in the lobby with three
    bots of the lobby's default kind and plays the whole session of 12 deals (R1.1) by
    clicking, the board inside the window at every move; every finished trick is seen with
    its winner, the last one looked at again from the board once (without card points), each
    announcement made is a badge at the seat, every deal's result dialog shows the record's
    score (each line's rule id a link to its text) and is closed with "Weiter". In deal 3
    the tab is closed; a new one finds the table under "Meine Tische" in the lobby, is still
    the seat, and plays on; at the end the final standings."""
    window = SIZES["phone"]
    tab = await open_tab(browser, service.url, window, locale="de-DE")
    page = tab.page
    await page.clock.install()
    await page.goto("/")
    await page.wait_for_selector("#create-button")
    languages = [await page.get_attribute("html", "lang")]
    for _ in range(2):  # to English, remembered over a reload, and back to German
        await page.click("#language")
        await page.wait_for_selector(f"html[lang='{'en' if languages[-1] == 'de' else 'de'}']")
        await page.reload()
        await page.wait_for_selector("#create-button")
        languages.append(await page.get_attribute("html", "lang"))
    assert languages == ["de", "en", "de"]
    await page.fill("#player", "Tess")
    await page.select_option("#bots", "3")
    kind = await page.input_value("#kind")
    await page.click("#create-button")
    await page.wait_for_selector("#hand")
    table_id = page.url.rsplit("/", 1)[1]
    await page.clock.pause_at(await page.evaluate("Date.now()"))
    held = await page.evaluate(f"JSON.parse(localStorage.getItem('doko:{table_id}'))")
    bearer = {"authorization": f"Bearer {held['host']}"}  # a private table (the default)

    boards: dict[int, Board] = {}
    results: dict[int, dict[str, Any]] = {}
    errors: list[str] = []
    peeked: list[Any] = []
    for deal in range(1, 13):
        board = boards[deal] = await play_on_board(
            tab, deal, window, until={1: 2, 3: 5}.get(deal, 12)
        )
        if deal == 1:  # the last trick, looked at from the board
            await page.click("[data-key='last-trick']")
            await page.wait_for_selector("#trick[data-finished='2']")
            peeked = [await page.evaluate(FINISHED), await page.inner_text(".board")]
            await page.click("[data-key='dismiss-trick']")
            await page.wait_for_selector("#trick:not([data-finished])")
        if deal == 3:  # the tab is closed mid-deal; a new one comes back through the lobby
            errors += tab.errors
            context = page.context
            await page.close()
            tab = Tab(await context.new_page())
            page = tab.page
            await page.goto("/")
            assert await page.inner_text("#mine-h") == "Meine Tische"
            await page.click(f"[data-my-table='{table_id}'] a")
            await page.wait_for_selector("#hand [data-card]")
        if deal in (1, 3):
            more = await play_on_board(tab, deal, window)
            board.shown, board.wrong = board.shown + more.shown, board.wrong + more.wrong
            board.said += more.said
        await page.wait_for_selector(f"dialog#result[open][data-deal='{deal}'] .last-trick")
        results[deal] = await page.eval_on_selector("dialog#result", SCORE)
        last = await page.get_attribute("dialog#result .last-trick", "data-winner")
        results[deal]["last"] = int(last or -1)
        results[deal]["links"] = await page.eval_on_selector_all(
            "dialog#result .lines li",
            "l => l.map(li => li.querySelector('a').getAttribute('href'))",
        )
        assert await page.inner_text("dialog#result [data-key='next']") == "Weiter"
        await tab.next_deal()
    standings = page.locator("dialog#standings[open]")
    await standings.wait_for()
    assert (await standings.locator("h2").inner_text()).startswith("Die Sitzung ist vorbei")

    assert [w for board in boards.values() for w in board.wrong] == []
    said = [(move, texts) for board in boards.values() for move, texts in board.said]
    assert said and all(SAID[move] in texts for move, texts in said), said
    seats = (await api.http.get(f"/tables/{table_id}", headers=bearer)).json()["seats"]
    assert [seat["bot"] for seat in seats if seat["bot"]] == [kind] * 3
    assert kind == "expert"  # the strongest kind the API offers (BotKind's last value)
    log = await full_log(pool, table_id)
    for deal in range(1, 13):
        tricks = tricks_of(log, deal)
        assert boards[deal].shown == tricks[:11], deal
        record = (await api.http.get(f"/tables/{table_id}/deals/{deal}", headers=bearer)).json()
        links = [f"/rules#{line['rule']}" for line in record["score"]["lines"]]
        score = {**recorded(record["score"]), "last": tricks[11][0], "links": links}
        assert results[deal] == {"deal": deal, **score}
    (number, winner, cards, won), text = peeked
    assert (number, won) == (2, [winner])
    assert (winner, sorted((seat, code) for seat, code in cards)) == tricks_of(log, 1)[1]
    assert "Augen" not in text  # no running card points on the board
    assert errors + tab.errors == []
    await tab.close()
