"""Turning domain events into :class:`NewEvent` records and stored records back into events.

Domain events are frozen msgspec Structs forming a tagged union (``tag_field="type"``, the tag
being the event's snake_case name). A record's ``type`` is the event's tag and its ``payload`` is
the event's plain msgspec JSON encoding, tag field included, so a payload is self-describing.

Schema evolution: every event type has a current schema version (``schema_versions``, default 1),
written with each record. To read a record written under an older version ``v``, the codec
decodes the payload to a dict, applies the upcasters registered for ``(type, v)``,
``(type, v + 1)``, ... — each turns a payload dict of its version (tag field included, and to be
kept) into one of the next — and only then decodes the result as the current event type. The
constructor refuses to build a codec whose upcaster chain has holes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, get_args

import msgspec

from infra.event_store import NewEvent, StoredEvent

E = TypeVar("E")

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
"""Turns a payload of schema version ``v`` (its key's version) into one of version ``v + 1``."""


class CodecError(Exception):
    """An event or record that the codec cannot translate."""


class EventCodec(Generic[E]):
    """Encodes events of the tagged union *union_type* and decodes stored records into them."""

    def __init__(
        self,
        union_type: Any,
        schema_versions: Mapping[str, int] | None = None,
        upcasters: Mapping[tuple[str, int], Upcaster] | None = None,
    ) -> None:
        self._tags = {_tag_of(member): member for member in get_args(union_type) or (union_type,)}
        self._versions = dict(schema_versions or {})
        self._upcasters = dict(upcasters or {})
        unknown = self._versions.keys() - self._tags.keys()
        if unknown:
            raise CodecError(f"schema versions given for unknown event types: {sorted(unknown)}")
        for tag, current in self._versions.items():
            missing = [v for v in range(1, current) if (tag, v) not in self._upcasters]
            if missing:
                raise CodecError(f"{tag}: no upcaster from schema version(s) {missing}")
        self._decoder = msgspec.json.Decoder(union_type)

    def schema_version(self, type: str) -> int:
        """Return the current schema version of the event type tagged *type*."""
        return self._versions.get(type, 1)

    def to_new_event(
        self, event: E, actor: str | None = None, causation: str | None = None
    ) -> NewEvent:
        """Return the record to append for *event*."""
        tag = _tag_of(type(event))
        if self._tags.get(tag) is not type(event):
            raise CodecError(f"{type(event).__name__} is not part of this codec's union")
        return NewEvent(
            type=tag,
            schema_version=self.schema_version(tag),
            payload=msgspec.json.encode(event),
            actor=actor,
            causation=causation,
        )

    def from_stored(self, record: StoredEvent) -> E:
        """Decode *record* into the current event type, upcasting old payloads first."""
        current = self.schema_version(record.type)
        if record.schema_version > current:
            raise CodecError(
                f"{record.type} v{record.schema_version} is newer than this code (v{current})"
            )
        payload = record.payload
        if record.schema_version < current:
            data = msgspec.json.decode(payload)
            for version in range(record.schema_version, current):
                data = self._upcasters[(record.type, version)](data)
            payload = msgspec.json.encode(data)
        event: E = self._decoder.decode(payload)
        return event


def _tag_of(struct_type: Any) -> str:
    """Return the tag of a tagged msgspec Struct type."""
    config = getattr(struct_type, "__struct_config__", None)
    if config is None or not isinstance(config.tag, str):
        raise CodecError(f"{struct_type!r} is not a tagged msgspec Struct")
    return config.tag
