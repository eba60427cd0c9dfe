"""A tournament's live stream (``GET /tournaments/{id}/events``): the tournament's messages, the
chain heads of its tables' scoresheets as they publish them, and the standings.

Message ids are global positions (`infra.event_store`: a reader asking for the events after
a position never skips one), so a client resumes with Last-Event-ID. What it sends:

* every event of the tournament's own stream (`domain.tournament`) with its ``chain_head`` (the
  tournament stream's hash chain value at it), its secrets emptied: the seeds, preset deals,
  token and invitation hashes (`public_tournament_event`; the seating seed is public in
  ``event_finished``, E4.3);
* ``table_opened`` for the ``session_started`` of one of its tables: every seat is taken,
  so each seat's view and commands answer its player's tournament credential from then on
  (E5.2: the page of a player waits for it after a round starts);
* ``table_scored`` for every ``deal_scored`` of one of its tables and ``table_finished``
  for every ``session_finished``, each with the table's chain head at that version (as
  ``/feed`` publishes a public table's, `infra.audit.witness`): that a table scored a deal, never
  what it scored (E5.3);
* ``standings`` (`domain.standings`: only what is final counts, E6.5) after every message
  that may change them, once they are the standings as of that message (read from the
  stored projection, `infra.tournaments.Tournaments.current_standings`, and then checked that
  nothing that counts was committed since; else they follow the next one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import msgspec
from litestar.response.sse import ServerSentEventMessage

from domain.standings import Standings
from domain.tournament import PlayerRegistered, TournamentCreated, TournamentEvent
from infra.command_ids import table_id
from infra.tournaments import STANDINGS_TYPES, Tournaments

TABLE_TYPES = ("session_started", *STANDINGS_TYPES)
"""The events of a tournament's tables that its stream follows (`session_abandoned` for the
standings only)."""
PAGE = 500
"""The most log events one read of a stream takes."""
_READ = """
    SELECT position, stream_id, version, type, payload::text, hash FROM events
    WHERE position > $1
      AND (stream_id = $2 OR (stream_id = ANY($3::text[]) AND type = ANY($4::text[])))
    ORDER BY position LIMIT $5
"""
ChainHead = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class TableOpened(msgspec.Struct, frozen=True, tag_field="type", tag="table_opened"):
    """Table ``table_no`` of round ``round_no`` has every seat taken at ``version`` (its
    session started): its players' credentials open their seats; its hash chain value
    there."""

    table_id: str
    round_no: int
    table_no: int
    version: int
    chain_head: ChainHead


class TableScored(msgspec.Struct, frozen=True, tag_field="type", tag="table_scored"):
    """Table ``table_no`` of round ``round_no`` scored deal ``deal_no`` at ``version``; its
    hash chain value there (`doko verify --witness`)."""

    table_id: str
    round_no: int
    table_no: int
    deal_no: int
    version: int
    chain_head: ChainHead


class TableFinished(msgspec.Struct, frozen=True, tag_field="type", tag="table_finished"):
    """Table ``table_no`` of round ``round_no`` finished its session at ``version``; its
    hash chain value there."""

    table_id: str
    round_no: int
    table_no: int
    version: int
    chain_head: ChainHead


class StandingsChanged(msgspec.Struct, frozen=True, tag_field="type", tag="standings"):
    """The tournament's standings now (E6)."""

    standings: Standings


def public_tournament_event(event: TournamentEvent) -> TournamentEvent:
    """The event as anyone allowed to see the tournament sees it: no seed, preset deal, token or
    invitation hash (E1.2, E2.1, E5.3)."""
    replace = msgspec.structs.replace
    if isinstance(event, TournamentCreated):
        return replace(
            event,
            seating_seed="",
            round_seeds=(),
            presets=(),
            host_token_hash="",
            invitation_hash="",
        )
    if isinstance(event, PlayerRegistered):
        return replace(event, token_hash="")
    return event


def _data(struct: Any, **more: str) -> str:
    data = msgspec.json.encode(struct)
    extra = b"".join(b',"%s":"%s"' % (k.encode(), v.encode()) for k, v in more.items())
    return (data[:-1] + extra + b"}").decode()


class TournamentFeed:
    """The messages of one tournament's stream after a position (module docstring)."""

    def __init__(self, tournaments: Tournaments, tournament_id: str) -> None:
        self.tournaments = tournaments
        self.tournament_id = tournament_id
        self._tables: dict[str, tuple[int, int]] = {}
        self._standings: bytes | None = None

    async def after(self, cursor: int) -> tuple[list[ServerSentEventMessage], int]:
        """The messages after global position ``cursor``, and the new cursor."""
        rows = await self._read(cursor)
        messages: list[ServerSentEventMessage] = []
        for row in rows:
            shown = self._message(row)
            if shown is not None:
                messages.append(shown)
        if not rows:
            return messages, cursor
        last = rows[-1]["position"]
        if len(rows) < PAGE:
            standings = await self._standings_as_of(last)
            if standings is not None:
                messages.append(standings)
        return messages, last

    async def _read(self, cursor: int) -> Sequence[Any]:
        loaded = await self.tournaments.load(self.tournament_id)
        state = loaded.state
        for round_no, seating in enumerate(state.seatings, 1):
            for table_no in range(1, len(seating) + 1):
                self._tables[table_id(self.tournament_id, round_no, table_no)] = (
                    round_no,
                    table_no,
                )
        rows: Sequence[Any] = await self.tournaments.pool.fetch(
            _READ, cursor, self.tournament_id, list(self._tables), list(TABLE_TYPES), PAGE
        )
        return rows

    def _message(self, row: Any) -> ServerSentEventMessage | None:
        head = bytes(row["hash"]).hex()
        position = row["position"]
        if row["stream_id"] == self.tournament_id:
            decoded = msgspec.json.decode(row["payload"], type=TournamentEvent)
            data = _data(public_tournament_event(decoded), chain_head=head)
            return ServerSentEventMessage(data=data, event=row["type"], id=position)
        round_no, table_no = self._tables[row["stream_id"]]
        shown: TableOpened | TableScored | TableFinished
        if row["type"] == "session_started":
            shown = TableOpened(row["stream_id"], round_no, table_no, row["version"], head)
        elif row["type"] == "deal_scored":
            deal_no = msgspec.json.decode(row["payload"])["deal_no"]
            shown = TableScored(row["stream_id"], round_no, table_no, deal_no, row["version"], head)
        elif row["type"] == "session_finished":
            shown = TableFinished(row["stream_id"], round_no, table_no, row["version"], head)
        else:
            return None
        data = msgspec.json.encode(shown).decode()
        return ServerSentEventMessage(
            data=data, event=str(shown.__struct_config__.tag), id=position
        )

    async def _standings_as_of(self, position: int) -> ServerSentEventMessage | None:
        """The standings, if they changed since last sent and nothing that counts for them
        was committed after ``position`` while they were computed."""
        standings = await self.tournaments.current_standings(self.tournament_id)
        if await self._read(position):
            return None  # they may hold more than the messages up to `position`: next time
        encoded = msgspec.json.encode(StandingsChanged(standings))
        if encoded == self._standings:
            return None
        self._standings = encoded
        return ServerSentEventMessage(data=encoded.decode(), event="standings", id=position)
