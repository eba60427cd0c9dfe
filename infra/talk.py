"""Table talk as stored: ``table_talk`` (migration 0015), beside the event log (T5.1).

What was said at a table and what its host muted, one row each, in ``talk_id`` order. Each
insert notifies ``doko_talk`` (`CHANNEL`) in its transaction, so that every service process
that listens (`infra.event_store.EventStore.listen_once`) wakes the table's streams. Nothing
here is read by the log, its hash chain, the exports or the deal records.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import asyncpg
import msgspec

from domain.seats import Seat
from domain.talk import Mutes

CHANNEL = "doko_talk"
"""The PostgreSQL NOTIFY channel announcing talk: payload ``<stream_id>:<talk_id>``."""

RECENT = 50
"""The most messages one read returns."""


class TalkKind(StrEnum):
    """What a talk entry is: a message ``said``, or the host's ``muted``/``unmuted`` (T5.3)."""

    SAID = "said"
    MUTED = "muted"
    UNMUTED = "unmuted"


class TalkEntry(msgspec.Struct, frozen=True):
    """One entry of a table's talk: ``seat`` is the speaker's (None: a spectator), or for a
    mute the muted seat (None: the spectators)."""

    talk_id: int
    kind: TalkKind
    seat: Seat | None
    name: str
    text: str
    sent_at: datetime


_COLUMNS = "talk_id, kind, seat, name, text, sent_at"

_INSERT = f"""
    WITH kept AS (
        INSERT INTO table_talk (stream_id, kind, seat, name, text)
        VALUES ($1, $2, $3, $4, $5)
        RETURNING {_COLUMNS}
    )
    SELECT kept.*, pg_notify('{CHANNEL}', $1 || ':' || kept.talk_id) FROM kept
"""


def _entry(row: asyncpg.Record) -> TalkEntry:
    seat = row["seat"]
    return TalkEntry(
        row["talk_id"],
        TalkKind(row["kind"]),
        None if seat is None else Seat(seat),
        row["name"],
        row["text"],
        row["sent_at"],
    )


class TalkStore:
    """A table's talk in ``table_talk``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def add(
        self, stream_id: str, kind: TalkKind, seat: Seat | None, name: str = "", text: str = ""
    ) -> TalkEntry:
        """Keep one entry (and tell the listening processes)."""
        row = await self._pool.fetchrow(
            _INSERT, stream_id, kind.value, None if seat is None else int(seat), name, text
        )
        assert row is not None
        return _entry(row)

    async def after(self, stream_id: str, talk_id: int, limit: int = RECENT) -> list[TalkEntry]:
        """The table's entries after ``talk_id``, oldest first, at most ``limit``."""
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM table_talk WHERE stream_id = $1 AND talk_id > $2"
            " ORDER BY talk_id LIMIT $3",
            stream_id,
            talk_id,
            limit,
        )
        return [_entry(r) for r in rows]

    async def recent(self, stream_id: str, limit: int = RECENT) -> list[TalkEntry]:
        """The table's newest ``limit`` entries, oldest first."""
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM table_talk WHERE stream_id = $1"
            " ORDER BY talk_id DESC LIMIT $2",
            stream_id,
            limit,
        )
        return [_entry(r) for r in reversed(rows)]

    async def head(self, stream_id: str) -> int:
        """The table's newest talk id (0: none yet)."""
        found: int | None = await self._pool.fetchval(
            "SELECT max(talk_id) FROM table_talk WHERE stream_id = $1", stream_id
        )
        return found or 0

    async def mutes(self, stream_id: str) -> Mutes:
        """T5.3: whom the host's last mute or unmute of each seat (and of the spectators)
        left muted."""
        rows = await self._pool.fetch(
            "SELECT DISTINCT ON (seat) seat, kind FROM table_talk"
            " WHERE stream_id = $1 AND kind <> 'said' ORDER BY seat, talk_id DESC",
            stream_id,
        )
        mutes = Mutes()
        for row in rows:
            seat = row["seat"]
            mutes = mutes.with_mute(None if seat is None else Seat(seat), row["kind"] == "muted")
        return mutes
