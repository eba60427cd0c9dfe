"""The streams' messages, typed for Python clients (the OpenAPI document's
`TableStreamData` and `FeedItem`, `service.openapi.stream_schemas`).

``table_message(message.id, message.data)`` of a table stream message is a `TableMessage`:
the table version, the event as the viewer may see it, what the table asks then (whose turn,
its clock, the seat's options: `domain.table_view.Prompt`), the chain head of a witnessed
event and the service's time when it was sent; ``feed_item(message.data)`` of a feed
message is a `service.streams.hub.FeedItem`.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from domain.table import TableEvent
from domain.table_view import Prompt
from service.streams.hub import FeedItem


class TableMessage(msgspec.Struct, frozen=True):
    """One table stream message: its version, its event, what the table asks once it
    happened, (deal_scored, session_finished) the table's chain head at that version, and
    the service's time when it was sent."""

    version: int
    event: TableEvent
    prompt: Prompt
    chain_head: str | None = None
    server_time: datetime | None = None


class _Added(Prompt, frozen=True):
    """What the table stream adds to an event's members."""

    chain_head: str | None = None
    server_time: datetime | None = None


_EVENT = msgspec.json.Decoder(TableEvent)
_ADDED = msgspec.json.Decoder(_Added)
_FEED = msgspec.json.Decoder(FeedItem)


def table_message(event_id: str | int, data: str | bytes) -> TableMessage:
    """A table stream message's id and data, decoded (a `msgspec.ValidationError` if the
    data is not one of the table's events)."""
    added = _ADDED.decode(data)
    asked = Prompt(added.turn, added.clock, added.options)
    return TableMessage(
        int(event_id), _EVENT.decode(data), asked, added.chain_head, added.server_time
    )


def feed_item(data: str | bytes) -> FeedItem:
    """A feed message's data, decoded."""
    return _FEED.decode(data)
