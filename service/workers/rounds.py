"""The rounds of events, followed: a table of a running round that is over is recorded in
its event (E4.2; the last one ends the round, E4.3), and the event's stream subscribers
hear of every commit of its tables (`service.routes.events`).

Driven from the log like the bots: every committed append of an event's table (its stream
id is `infra.events.table_id`'s, ``<event id>-r<round>t<table>``) wakes the event's
subscribers and, if the table is over, `infra.events.Events.settle` records its end (once,
whoever notices it: several processes agree by command ids). At start-up, and whenever
notifications may have been lost, every event is settled: a round whose tables a crash
left unopened or half-seated is opened, and a table that ended while no process listened
is noticed. A database error ends `RoundWatch.run` (its supervisor starts it again, with a
fresh scan).
"""

from __future__ import annotations

import asyncio
import logging
import re

from infra.events import EventNotFound, Events, event_ids
from infra.tables import TableNotFound
from service.streams import Hub

TABLE_STREAM = re.compile(r"(?P<event>[0-9A-Za-z_]{1,64})-r(?P<round>\d+)t(?P<table>\d+)")
"""An event table's stream id (`infra.events.table_id`)."""

log = logging.getLogger("doko.rounds")


def event_of(stream_id: str) -> str | None:
    """The event whose table ``stream_id`` would be, if it has the form of one."""
    found = TABLE_STREAM.fullmatch(stream_id)
    return found["event"] if found else None


class RoundWatch:
    """Notices the ends of events' tables (module docstring)."""

    def __init__(self, events: Events, hub: Hub) -> None:
        self.events = events
        self.hub = hub
        self._due: dict[str, str] = {}  # table stream -> its event
        self._scan = True
        self._wake = asyncio.Event()

    def notify(self, stream_id: str) -> None:
        """Called for each committed append (after the tables' cache heard of it)."""
        event_id = event_of(stream_id)
        if event_id is not None:
            self.hub.notify(event_id)
            self._due[stream_id] = event_id
            self._wake.set()

    def wake_all(self) -> None:
        """Appends may have gone unheard: look at every running event again."""
        self._scan = True
        self._wake.set()

    async def run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._scan:
                self._scan = False
                for event_id in await event_ids(self.events.pool):
                    await self._notice(event_id)
            due, self._due = self._due, {}
            for stream_id, event_id in due.items():
                try:
                    loaded = await self.events.tables.load(stream_id)
                except TableNotFound:
                    continue
                if loaded.state.over:
                    await self._notice(event_id)

    async def _notice(self, event_id: str) -> None:
        try:
            await self.events.settle(event_id)
        except EventNotFound:  # a table id of that form that is no event's
            return
        self.hub.notify(event_id)
