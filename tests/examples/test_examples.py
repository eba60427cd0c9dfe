"""The "bot in 50 lines" examples (examples/python, examples/typescript) play a whole
session against a live service, from their stream alone, over the preset deals of
`tests.examples.harness.PLAN`: a marriage, every solo, a silent solo, two seats reserving with
the hidden contract outranked (R4.3), a seat the turn clock acted for (T3.2), a seat left for a
newcomer (T2) and a restart of the service in the middle.

What happened is read from the table's export (the log, not the bots' output); the session's
end from the service's final view (its scoresheet: 12 rows, each summing to 0, R1.3, totals
their sums); that the example never polled from the requests the service received: an
example may sit down, get stream tickets, read the stream and send its commands, nothing else
(a GET of a view would be a ``GET /tables/{id}`` or ``/tables/{id}/seats/{seat}``).

The TypeScript example's test is `tests.examples.test_typescript_example`.
"""

from __future__ import annotations

import sys

import httpx
import pytest

from domain.cards import Card
from domain.game_types import GameType
from tests.examples.harness import (
    ALLOWED,
    PLAN,
    ROOT,
    Service,
    check,
    harness_client,
    play,
    presets,
)

pytestmark = pytest.mark.xdist_group("examples")
"""Each test plays a whole session on its own live service: one worker runs them."""


async def test_a_view_asked_for_by_anyone_but_the_harness_is_seen(service: Service) -> None:
    """The request log tells an example's GET of a view from the harness's: the check that
    the examples never poll can fail."""
    async with harness_client(service.url) as api:
        table = await api.create_table("polled", visibility="public")
        await table.view()
    async with httpx.AsyncClient(base_url=service.url) as http:  # as an example would
        assert (await http.get(table.path)).status_code == 200
        assert (await http.get(f"{table.path}/seats/0")).status_code in (401, 404)
    assert service.requests is not None
    asked = set(service.requests.of_examples(table.table_id))
    assert asked == {("GET", "/tables/{id}"), ("GET", "/tables/{id}/seats/{seat}")}
    assert not asked <= ALLOWED


def test_the_plan_covers_every_contract_kind() -> None:
    """The plan names every contract of RULES.md but the silent solo (which nobody names,
    R4.5) and normal (Armut is a house rule, V4.1); its presets are 12 decks (R2.2) with both
    QC where the plan puts them."""
    named = {c for deal in PLAN for c in deal.contracts.values()}
    assert named == set(GameType) - {GameType.NORMAL, GameType.SILENT_SOLO, GameType.POVERTY}
    for plan, deal in zip(PLAN, presets(), strict=True):
        holders = [seat for seat, hand in enumerate(deal) if "QC" in hand]
        assert holders == ([plan.both_qc] if plan.both_qc is not None else holders)
        assert len(holders) == (1 if plan.both_qc is not None else 2)
        assert sorted(c for hand in deal for c in hand) == sorted(2 * [c.value for c in Card])


async def test_the_python_example_plays_a_session_from_its_stream(service: Service) -> None:
    """examples/python/bot.py, run with the doko package's Python, plays seat 0 of the plan
    to the end of the session (`check`)."""
    bot = str(ROOT / "examples" / "python" / "bot.py")
    played = await play(service, lambda url, table, code: [sys.executable, bot, url, table, code])
    check(played)
