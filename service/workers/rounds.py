"""The rounds of tournaments, followed: a table of a running round that is over is recorded in
its tournament (E4.2; the last one ends the round, E4.3), and the tournament's stream subscribers
hear of each of its tables' start, scored deals and end (`service.routes.tournaments`).

Driven from the log like the bots: after a committed append of a tournament's table (its stream
id is `infra.command_ids.table_id`'s, ``<tournament id>-r<round>t<table>``) the table is looked at;
if the table is over, `infra.tournaments.Tournaments.settle` records its end (once, whoever
notices it: several processes agree by command ids); if it has scored a deal, the deals that
are public by now are recorded in the tournament (`Tournaments.publish`, E6.6: its standings
follow from them). The tournament's subscribers are woken only when the table started its
session, scored a deal or is over, the only events of a table its stream shows
(`service.streams.tournaments`): the cards and words of a deal, most of a round's commits, wake
none of them, however many they are. At start-up, and whenever
notifications may have been lost, every tournament is settled: a round whose tables a crash
left unopened or half-seated is opened, and a table that ended while no process listened
is noticed. A database error ends `RoundWatch.run` (its supervisor starts it again, with a
fresh scan).
"""

from __future__ import annotations

import asyncio
import logging

from infra.command_ids import tournament_of
from infra.tables import TableNotFound
from infra.tournaments import TournamentNotFound, Tournaments, tournament_ids
from service.streams.hub import Hub
from service.workers.follower import Worker

log = logging.getLogger("doko.rounds")


class RoundWatch(Worker):
    """Notices the ends of tournaments' tables (module docstring)."""

    def __init__(self, tournaments: Tournaments, hub: Hub) -> None:
        self.tournaments = tournaments
        self.hub = hub
        self._due: dict[str, str] = {}  # table stream -> its tournament
        self._seen: dict[str, tuple[bool, int]] = {}
        """Per table not yet over: whether its session had started, and the deals it had
        scored, when last looked at."""
        self._scan = True
        self._wake = asyncio.Event()

    def notify(self, stream_id: str) -> None:
        """Called for each committed append (after the tables' cache heard of it)."""
        tournament_id = tournament_of(stream_id)
        if tournament_id is not None:
            self._due[stream_id] = tournament_id
            self._wake.set()

    def wake_all(self) -> None:
        """Appends may have gone unheard: look at every running tournament again."""
        self._scan = True
        self._wake.set()

    async def run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._scan:
                self._scan = False
                for tournament_id in await tournament_ids(self.tournaments.pool):
                    await self._notice(tournament_id)
            due, self._due = self._due, {}
            for stream_id, tournament_id in due.items():
                try:
                    loaded = await self.tournaments.tables.load(stream_id)
                except TableNotFound:
                    continue
                session = loaded.state.session
                seen = self._seen.get(stream_id)
                scored = len(session.sheet)
                if loaded.state.over:
                    self._seen.pop(stream_id, None)
                    await self._notice(tournament_id)
                elif (session.started, scored) != seen:
                    self._seen[stream_id] = (session.started, scored)
                    self.hub.notify(tournament_id)
                    if scored > (0 if seen is None else seen[1]):
                        await self._publish(tournament_id)

    async def _publish(self, tournament_id: str) -> None:
        try:
            await self.tournaments.publish(tournament_id)
        except TournamentNotFound:
            return
        self.hub.notify(tournament_id)

    async def _notice(self, tournament_id: str) -> None:
        try:
            await self.tournaments.settle(tournament_id)
        except TournamentNotFound:  # a table id of that form that is no tournament's
            return
        self.hub.notify(tournament_id)
