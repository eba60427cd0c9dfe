"""The streams' messages, typed for Python clients (the OpenAPI document's
`TableStreamData` and `FeedItem`, `service.stream_schemas`).

``table_message(message.id, message.data)`` of a table stream message is a `TableMessage`:
the table version, the event as the viewer may see it, and the chain head of a witnessed
event; ``feed_item(message.data)`` of a feed message is a `service.streams.FeedItem`.
"""

from __future__ import annotations

import msgspec

from domain.table import TableEvent
from service.streams import FeedItem


class TableMessage(msgspec.Struct, frozen=True):
    """One table stream message: its version, its event and (deal_scored,
    session_finished) the table's chain head at that version."""

    version: int
    event: TableEvent
    chain_head: str | None = None


class _Witness(msgspec.Struct):
    chain_head: str | None = None


_EVENT = msgspec.json.Decoder(TableEvent)
_WITNESS = msgspec.json.Decoder(_Witness)
_FEED = msgspec.json.Decoder(FeedItem)


def table_message(event_id: str | int, data: str | bytes) -> TableMessage:
    """A table stream message's id and data, decoded (a `msgspec.ValidationError` if the
    data is not one of the table's events)."""
    return TableMessage(int(event_id), _EVENT.decode(data), _WITNESS.decode(data).chain_head)


def feed_item(data: str | bytes) -> FeedItem:
    """A feed message's data, decoded."""
    return _FEED.decode(data)
