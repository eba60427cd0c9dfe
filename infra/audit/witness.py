"""Witnessed chain heads: what was published live, to hold an export against later.

Every public ``deal_scored`` and ``session_finished`` event (`WITNESSED`) is published with
the hash chain value of its version, its *chain head* (`infra.hash_chain`): in the table
streams as a ``chain_head`` member of the message data next to the event's fields, in the
integration feed as the ``chain_head`` of the feed item, and on the scoresheet as each
row's ``chain_head`` with its ``scored_version``. A chain head commits to every event up to
its version, so whoever kept one can later tell whether an export is the history that
was published: the export's event at that version must have that hash (and its chain must
verify, `infra.audit.table`).

An archive (`read_archive`) is what a spectator or an integration recorded:

* the stream as received: the text/event-stream of ``GET /feed`` (or of one table's
  ``GET /tables/{id}/events``, whose event ids are versions and whose messages do not name
  their table, or of a tournament's ``GET /tournaments/{id}/events``: its tables' ``table_opened``,
  ``table_scored`` and ``table_finished`` with their tables' chain heads (those of a deal once
  it is public for the round, E5.3: `service.streams.tournaments`), and the tournament's
  own events with the tournament stream's, which do not say their version: `compare_tournament`
  finds them by hash), e.g. ``curl -N URL/feed > feed.txt``;
* or JSON lines: one feed item (the ``data`` of a ``/feed`` message) per line.

Messages without a chain head are passed over; `compare` names the first witnessed
version where the export differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, get_args

import msgspec

from domain.tournament import TournamentEvent
from infra.event_store import StoredEvent
from infra.projections import Scoresheet
from infra.sse import parse_sse

WITNESSED = frozenset({"deal_scored", "session_finished"})
"""The event types published with their chain head."""
TOURNAMENT_TABLE_HEADS = {
    "table_opened": "session_started",
    "table_scored": "deal_scored",
    "table_finished": "session_finished",
}
"""A tournament stream's messages of its tables' chain heads, and the table events they are of."""
EVENT_TYPES = frozenset(str(t.__struct_config__.tag) for t in get_args(TournamentEvent))
"""The types of a tournament's own events, each published with the tournament stream's chain
head."""


def chain_head(record: StoredEvent) -> str | None:
    """The hex chain head published with this event, if its type is witnessed."""
    return record.hash.hex() if record.type in WITNESSED else None


def with_chain_head(data: bytes, record: StoredEvent) -> bytes:
    """A table stream message's data (an event as a JSON object) with the event's chain
    head as a last member ``chain_head``, if its type is witnessed."""
    head = chain_head(record)
    if head is None:
        return data
    return b'%s,"chain_head":"%s"}' % (data[:-1], head.encode())


async def scored_heads(conn: Any, stream_id: str, version: int) -> dict[int, tuple[int, str]]:
    """Deal number -> (version, hex chain head) of each ``deal_scored`` up to ``version``."""
    rows = await conn.fetch(
        "SELECT (payload->>'deal_no')::int, version, hash FROM events"
        " WHERE stream_id = $1 AND type = 'deal_scored' AND version <= $2",
        stream_id,
        version,
    )
    return {row[0]: (row[1], bytes(row[2]).hex()) for row in rows}


def witnessed_sheet(sheet: Scoresheet, heads: Mapping[int, tuple[int, str]]) -> Scoresheet:
    """The scoresheet with each row's ``scored_version`` and ``chain_head`` (`scored_heads`)."""
    rows = tuple(
        msgspec.structs.replace(
            row, scored_version=heads[row.deal_no][0], chain_head=heads[row.deal_no][1]
        )
        if row.deal_no in heads
        else row
        for row in sheet.rows
    )
    return msgspec.structs.replace(sheet, rows=rows)


class ArchiveError(ValueError):
    """A file that is neither a saved event stream nor JSON lines of feed items."""


class Witnessed(msgspec.Struct, frozen=True):
    """A chain head as published: the table (None: a table stream's, which does not say),
    the version, the hex hash and the event's type; ``tournament_stream``: a head of a tournament's
    own stream (its version not said: 0)."""

    table_id: str | None
    version: int
    chain_head: str
    type: str | None = None
    tournament_stream: bool = False


def _witnessed(item: Any, message_id: str | None) -> Witnessed | None:
    """The chain head in one message: a feed item, or a table stream's event (version = id)."""
    if not isinstance(item, dict) or not isinstance(item.get("chain_head"), str):
        return None
    event, said = item.get("event"), item.get("type")
    head = item["chain_head"].lower()
    if isinstance(event, dict) and isinstance(item.get("table_id"), str):
        table_id, version, kind = item["table_id"], item.get("version"), event.get("type")
    elif said in TOURNAMENT_TABLE_HEADS and isinstance(item.get("table_id"), str):
        table_id, version, kind = (
            item["table_id"],
            item.get("version"),
            TOURNAMENT_TABLE_HEADS[said],
        )
    elif said in EVENT_TYPES:
        return Witnessed(None, 0, head, said, tournament_stream=True)
    elif message_id is not None and message_id.isdigit():
        table_id, version, kind = None, int(message_id), item.get("type")
    else:
        return None
    if not isinstance(version, int) or isinstance(version, bool):
        return None
    return Witnessed(table_id, version, head, kind)


def read_archive(data: bytes) -> list[Witnessed]:
    """The chain heads of an archive (see the module docstring); raises `ArchiveError`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ArchiveError("not UTF-8 text") from error
    lines: list[tuple[str | None, str]]
    if text.lstrip().startswith("{"):
        lines = [(None, line) for line in text.splitlines() if line.strip()]
    else:
        lines = [(m.id, m.data) for m in parse_sse(text)]
    found = []
    for number, (message_id, body) in enumerate(lines, 1):
        try:
            item = msgspec.json.decode(body)
        except msgspec.DecodeError as error:
            raise ArchiveError(f"message {number} is not JSON: {error}") from error
        witnessed = _witnessed(item, message_id)
        if witnessed is not None:
            found.append(witnessed)
    return found


class Comparison(msgspec.Struct, frozen=True):
    """An export held against an archive: how many chain heads agree, the last version
    they cover, and the first that differs (with why)."""

    agreed: int
    last_agreed: int
    first_difference: int | None = None
    detail: str = ""


def compare(
    stream_id: str, stored: Sequence[StoredEvent], heads: Iterable[Witnessed]
) -> Comparison:
    """Hold the table's stored events against the archive's chain heads of that table
    (and those that name no table): the first witnessed version whose event is missing,
    of another type, or has another hash."""
    by_version = {e.version: e for e in stored}
    mine = sorted(
        {
            (w.version, w.chain_head, w.type)
            for w in heads
            if w.table_id in (None, stream_id) and not w.tournament_stream
        },
        key=lambda w: (w[0], w[1], w[2] or ""),
    )
    agreed = last = 0
    for version, head, kind in mine:
        record = by_version.get(version)
        if record is None:
            why = f"the export has no version {version} (it ends at {len(stored)})"
        elif kind is not None and record.type != kind:
            why = f"the export's version {version} is a {record.type}, not a {kind}"
        elif record.hash.hex() != head:
            why = f"its chain head was {head}, the export's is {record.hash.hex()}"
        else:
            agreed, last = agreed + 1, version
            continue
        since = f"; versions up to {last} agree" if last else ""
        return Comparison(
            agreed,
            last,
            version,
            f"the export differs at published version {version}: {why}{since}",
        )
    return Comparison(agreed, last)


def compare_tournament(stored: Sequence[StoredEvent], heads: Iterable[Witnessed]) -> Comparison:
    """Hold a tournament's stored events against the archive's chain heads of its own stream,
    in the order published: each the hash of an event of the export, of its type, at a
    later version than the one before."""
    by_hash = {e.hash.hex(): e for e in stored}
    agreed = last = 0
    for number, head in enumerate((w for w in heads if w.tournament_stream), 1):
        record = by_hash.get(head.chain_head)
        if record is None:
            why = f"its chain head {head.chain_head} is the hash of no event of the export"
        elif record.type != head.type:
            why = f"its chain head is of the export's version {record.version}, a {record.type}"
        elif record.version <= last:
            why = f"its chain head is of the export's version {record.version}, not after {last}"
        else:
            agreed, last = agreed + 1, record.version
            continue
        return Comparison(
            agreed,
            last,
            last + 1,
            f"the export differs at the tournament's published head {number} "
            f"(a {head.type}): {why}",
        )
    return Comparison(agreed, last)
