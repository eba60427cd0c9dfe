"""A tournament's live stream (``GET /tournaments/{id}/events``): the tournament's messages, the
chain heads of its tables' scoresheets once their deals are public, and the standings.

Message ids are the stream's own numbers, 1, 2, 3, ...: the messages are made from the log in
the order of its global positions (`infra.event_store`: a reader asking for the events after a
position never skips one), each the same whenever it is read, so a client resumes with
Last-Event-ID; and unlike positions, which count every event of the service, the numbers
count only what the stream shows. What it sends:

* every event of the tournament's own stream (`domain.tournament`) with its ``chain_head`` (the
  tournament stream's hash chain value at it), its secrets emptied: the seeds, preset deals,
  token and invitation hashes (`public_tournament_event`; the seating seed is public in
  ``event_finished``, E4.3);
* ``table_opened`` for the ``session_started`` of one of its tables: every seat is taken,
  so each seat's view and commands answer its player's tournament credential from then on
  (E5.2: the page of a player waits for it after a round starts);
* ``table_progress`` for every ``deal_scored`` of one of its tables, at once: how many deals
  the table has scored (its progress, public as in the tournament's view), nothing of how
  they were played;
* ``table_scored`` for every ``deal_scored`` of one of its tables and ``table_finished``
  for every ``session_finished``, each with the table's version and chain head there (as
  ``/feed`` publishes a public table's, `infra.audit.witness`), once the deal is public for
  the round (E5.3: every table of the round has scored it or is over; `table_finished` once
  the table's last deal is): a version tells how many events a deal had at a table (whether
  someone reserved, announced), and the players of a slower table play the same cards. The
  deal's messages of all its tables then come together, with the event that made it
  public. Until then nothing of the stream depends on how the deal is played: neither what
  it sends, nor its numbering, nor when (no message, and the heartbeats keep their own time,
  `service.streams.hub.sse_messages`);
* ``standings`` (`domain.standings`: only what is final counts, E6.5) after every message
  that may change them, with that message's id, once they are the standings as of that
  message (read from the stored projection,
  `infra.tournaments.Tournaments.current_standings`, and then checked that nothing that counts
  was committed since; else the messages of what was, and the standings read again).

The messages are made once for all of a tournament's subscribers in the process
(`TournamentFeed`, kept by the hub while the stream has subscribers): a commit is read, and
the tournament folded, once, whatever their number; each subscriber takes the messages it
has not had. A subscriber that resumes gets those numbered after its Last-Event-ID, and the
standings as of the last of them.
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import msgspec
from litestar.response.sse import ServerSentEventMessage

from domain.standings import Standings
from domain.tournament import PlayerRegistered, TournamentCreated, TournamentEvent
from domain.tournament_tables import deal_public
from infra.command_ids import table_id
from infra.tournaments import STANDINGS_TYPES, Tournaments
from service.streams.hub import Fetch, Hub

TABLE_TYPES = ("session_started", *STANDINGS_TYPES)
"""The events of a tournament's tables that its stream follows (`session_abandoned` for the
standings only)."""
PAGE = 500
"""The most log events one read of a stream takes."""
STANDINGS_TRIES = 3
"""How often the stream reads the standings again while events that count for them keep
being committed as it reads them; then they follow the next call."""
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


class TableProgressed(msgspec.Struct, frozen=True, tag_field="type", tag="table_progress"):
    """Table ``table_no`` of round ``round_no`` has scored ``deals`` deals: its progress, as the
    tournament's view has it, sent as it scores each (its version and chain head come with
    `TableScored` once the deal is public, E5.3)."""

    table_id: str
    round_no: int
    table_no: int
    deals: int


class TableScored(msgspec.Struct, frozen=True, tag_field="type", tag="table_scored"):
    """Table ``table_no`` of round ``round_no`` scored deal ``deal_no`` at ``version``; its
    hash chain value there (`doko verify --witness`). Sent once the deal is public for the
    round (E5.3)."""

    table_id: str
    round_no: int
    table_no: int
    deal_no: int
    version: int
    chain_head: ChainHead


class TableFinished(msgspec.Struct, frozen=True, tag_field="type", tag="table_finished"):
    """Table ``table_no`` of round ``round_no`` finished its session at ``version``; its
    hash chain value there. Sent once its last deal is public for the round (E5.3)."""

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


@dataclass
class _Table:
    """What the stream has read of one of its tables: the version and chain head of each
    ``deal_scored`` (by deal), whether it is over, and of its ``session_finished`` (until
    its message is made)."""

    round_no: int
    table_no: int
    scored: list[tuple[int, str]] = field(default_factory=list)
    over: bool = False
    finished: tuple[int, str] | None = None


def _number_of(message: ServerSentEventMessage) -> int:
    return int(message.id or 0)


class TournamentFeed:
    """The messages of one tournament's stream (module docstring), made once for all its
    subscribers: the hub keeps one while the tournament's stream has subscribers
    (`service.streams.hub.Hub.shared`, told of every commit of the tournament and of each of
    its tables' start, scored deals and end: `service.workers.rounds`), which reads each such
    commit once, whatever the number of subscribers, and keeps every message it made (each
    subscriber takes those it has not had, `since`)."""

    def __init__(self, tournaments: Tournaments, tournament_id: str) -> None:
        self.tournaments = tournaments
        self.tournament_id = tournament_id
        self.made: list[ServerSentEventMessage] = []
        """Every message made, in order, the standings among them."""
        self._tables: dict[str, _Table] = {}
        self._rounds: dict[int, list[str]] = {}
        self._public: dict[int, int] = {}
        """Per round, the deals whose tables' messages are made (E5.3)."""
        self._position = 0
        """Every event of the log up to here is made into its messages."""
        self._number = 0
        """The number of the last message made."""
        self._standings: bytes | None = None
        self._due = False
        """Whether the standings are to be read again (events that count for them were read
        since they were; the commits that kept them from being read wake the stream again)."""
        self._stale = True
        self._lock = asyncio.Lock()

    def expire(self) -> None:
        """Something was committed: read what is new on the next call."""
        self._stale = True

    async def resume(self, cursor: int) -> tuple[list[ServerSentEventMessage], int]:
        """A subscriber's first messages: those numbered after ``cursor``, then, if there
        are any, the standings as of the last of them; and how many messages are made (where
        it goes on, `since`)."""
        await self._update()
        after = bisect.bisect_right(self.made, cursor, key=_number_of)  # ids never decrease
        shown = [m for m in self.made[after:] if m.event != "standings"]
        if shown and self._standings is not None and not self._due:
            standings = self._standings.decode()
            shown.append(ServerSentEventMessage(data=standings, event="standings", id=self._number))
        return shown, len(self.made)

    async def since(self, seen: int) -> tuple[list[ServerSentEventMessage], int]:
        """The messages made after the first ``seen``, and how many are made now."""
        await self._update()
        return self.made[seen:], len(self.made)

    async def _update(self) -> None:
        """Make the messages of what was committed since the last read, if a commit was heard
        of since (the first read takes the log from its start: what a message says depends
        on what came before it); then the standings, when they changed."""
        async with self._lock:
            if not self._stale:
                return
            self._stale = False  # a commit heard during the reads marks it again
            try:
                self._due = await self._catch_up() or self._due
                for _ in range(STANDINGS_TRIES):
                    if not self._due:
                        break
                    current = await self.tournaments.current_standings(self.tournament_id)
                    if not await self._catch_up():  # else committed meanwhile: read again
                        self._due = False
                        self._add_changed(current)
            except BaseException:
                self._stale = True  # what was made is kept; the rest on the next call
                raise

    async def _catch_up(self) -> bool:
        """Make the messages of the events committed after those read so far; whether there
        were any."""
        start = self._position
        while True:
            rows = await self._read(self._position)
            for row in rows:
                self.made += self._messages(row)
            if rows:
                self._position = rows[-1]["position"]
            if len(rows) < PAGE:
                return self._position > start

    async def _read(self, position: int) -> Sequence[Any]:
        loaded = await self.tournaments.load(self.tournament_id)
        state = loaded.state
        for round_no, seating in enumerate(state.seatings, 1):
            tables = [table_id(self.tournament_id, round_no, n) for n in range(1, len(seating) + 1)]
            self._rounds[round_no] = tables
            for table_no, table in enumerate(tables, 1):
                self._tables.setdefault(table, _Table(round_no, table_no))
        rows: Sequence[Any] = await self.tournaments.pool.fetch(
            _READ, position, self.tournament_id, list(self._tables), list(TABLE_TYPES), PAGE
        )
        return rows

    def _numbered(self, shown: Any, data: str) -> ServerSentEventMessage:
        self._number += 1
        event = str(shown.__struct_config__.tag)
        return ServerSentEventMessage(data=data, event=event, id=self._number)

    def _messages(self, row: Any) -> list[ServerSentEventMessage]:
        """The messages made with an event of the log."""
        head = bytes(row["hash"]).hex()
        if row["stream_id"] == self.tournament_id:
            decoded = msgspec.json.decode(row["payload"], type=TournamentEvent)
            shown = public_tournament_event(decoded)
            return [self._numbered(shown, _data(shown, chain_head=head))]
        table = self._tables[row["stream_id"]]
        kind, version = row["type"], row["version"]
        if kind == "session_started":
            opened = TableOpened(row["stream_id"], table.round_no, table.table_no, version, head)
            return [self._numbered(opened, msgspec.json.encode(opened).decode())]
        made: list[TableProgressed | TableScored | TableFinished] = []
        if kind == "deal_scored":
            table.scored.append((version, head))
            deals = len(table.scored)
            made.append(TableProgressed(row["stream_id"], table.round_no, table.table_no, deals))
        else:  # session_finished, session_abandoned
            table.over = True
            table.finished = (version, head) if kind == "session_finished" else None
        made += self._public_now(table.round_no)
        return [self._numbered(m, msgspec.json.encode(m).decode()) for m in made]

    def _public_now(self, round_no: int) -> list[TableScored | TableFinished]:
        """E5.3: the heads of the round's deals that are public now and were not before (each
        deal's at every table that scored it, in table order), then those of the tables
        that finished and whose last deal is public now."""
        tables = [(t, self._tables[t]) for t in self._rounds[round_no]]
        progress = [(len(t.scored), t.over) for _, t in tables]
        scored = max(n for n, _ in progress)
        public = self._public.get(round_no, 0)
        shown: list[TableScored | TableFinished] = []
        while public < scored and deal_public(progress, public + 1):
            public += 1
            shown += [
                TableScored(stream, round_no, t.table_no, public, *t.scored[public - 1])
                for stream, t in tables
                if len(t.scored) >= public
            ]
        self._public[round_no] = public
        for stream, t in tables:
            if t.finished is not None and len(t.scored) <= public:
                shown.append(TableFinished(stream, round_no, t.table_no, *t.finished))
                t.finished = None  # told
        return shown

    def _add_changed(self, standings: Standings) -> None:
        """The standings' message if they changed since last made (with the id of the last
        message made: they are the standings as of it)."""
        encoded = msgspec.json.encode(StandingsChanged(standings))
        if encoded != self._standings:
            self._standings = encoded
            changed = ServerSentEventMessage(
                data=encoded.decode(), event="standings", id=self._number
            )
            self.made.append(changed)


def follow(hub: Hub, tournaments: Tournaments, tournament_id: str) -> Fetch:
    """How one subscriber of the tournament's stream reads it (`sse_messages`' ``fetch``):
    from the messages the hub keeps for all of its subscribers (`TournamentFeed`), first
    those after the message number it resumes after, then those made since it last read."""
    seen: int | None = None

    async def fetch(cursor: int) -> tuple[list[ServerSentEventMessage], int]:
        nonlocal seen
        feed = hub.shared(tournament_id, lambda: TournamentFeed(tournaments, tournament_id))
        if seen is None:
            messages, seen = await feed.resume(cursor)
        else:
            messages, seen = await feed.since(seen)
        return messages, cursor

    return fetch
