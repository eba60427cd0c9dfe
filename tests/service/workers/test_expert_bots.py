"""The `expert` bot in the service: it plays a whole session from the process
pool, and it waits at a human pace only at a table with people."""

from __future__ import annotations

import httpx

from service.app import create_app
from service.tools.client import (
    DokoClient,
)
from service.workers.bots import BotKind, pace
from tests.service.conftest import serve, settings, until


async def test_expert_bots_play_a_whole_session_and_pace_only_near_people(db_url: str) -> None:
    app = create_app(settings(db_url, bot_delay=0.5, bot_workers=1))
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        api = DokoClient(http)
        table = await api.create_table("experts")
        for kind in ("expert", "greedy", "expert", "greedy"):
            await table.seat_bot(kind)
        view = await until(table.view, lambda v: v.winners is not None, lambda _: table.version)
        assert len(view.scoresheet) == 12
        assert all(sum(row) == 0 for row in view.scoresheet)  # R10
        assert [s.bot for s in view.seats] == ["expert", "greedy", "expert", "greedy"]
        for deal_no in (1, 12):
            verification = f"{table.path}/deals/{deal_no}/verification"
            report = (await http.get(verification, headers=table.credential)).json()
            assert report["ok"], report
        services = app.state.services
        alone = (await services.tables.load(table.table_id)).state
        assert pace(alone, 0.5) == 0.0
        mixed = await api.create_table("a person and an expert")
        await mixed.take_seat("person", seat=0)
        await mixed.seat_bot("expert")
        near_people = (await services.tables.load(mixed.table_id)).state
        assert pace(near_people, 0.5) == 0.5
    assert list(BotKind)[-1] is BotKind.EXPERT  # the strongest last: clients default to it
