"""The server's bots at a table without nines (V1): the expert (from the process pool),
greedy and random bots play a whole session of 10-card deals, which the service verifies."""

from __future__ import annotations

import httpx

from service.app import create_app
from service.tools.client import DokoClient
from tests.service.conftest import serve, settings, until


async def test_the_bots_play_a_whole_session_without_nines(db_url: str) -> None:
    app = create_app(settings(db_url, bot_delay=0.5, bot_workers=1))
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        api = DokoClient(http)
        table = await api.create_table("ohne Neunen", rules={"without_nines": True})
        for kind in ("expert", "greedy", "random", "expert"):
            await table.seat_bot(kind)
        view = await until(table.view, lambda v: v.winners is not None, lambda _: table.version)
        assert len(view.scoresheet) == 12 and all(sum(row) == 0 for row in view.scoresheet)
        for deal_no in (1, 12):
            deal = f"{table.path}/deals/{deal_no}"
            record = (await http.get(deal, headers=table.credential)).json()
            assert [len(hand) for hand in record["hands"]] == [10, 10, 10, 10], record
            assert len(record["tricks"]) == 10
            assert record["dealing"]["algorithm"] == "doko-deal-v1-40"
            verification = f"{table.path}/deals/{deal_no}/verification"
            report = (await http.get(verification, headers=table.credential)).json()
            assert report["ok"], report
