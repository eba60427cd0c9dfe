"""Tamper evidence: every stored event carries a SHA-256 hash chained through its stream.

Definition (version ``n`` of stream ``s``)::

    hash(s, n) = SHA-256(previous ‖ canonical(s, n))
    previous   = hash(s, n - 1), or 32 zero bytes when n == 1
    canonical  = msgspec.json.encode(
                     {"actor": <str or null>,
                      "causation": <str or null>,
                      "command_id": <str or null>,
                      "payload": <payload decoded as JSON>,
                      "schema_version": <int>,
                      "stream_id": <str>,
                      "type": <str>,
                      "version": <int>},
                     order="sorted")

``‖`` is byte concatenation. The payload is decoded before hashing so that the hash depends on the
JSON *value*, not on its spelling: PostgreSQL's ``jsonb`` reorders keys and drops whitespace, and
``order="sorted"`` sorts object keys recursively, so the bytes written and the bytes read back hash
alike. Who acted (``actor``), in answer to what (``causation``, ``command_id``) is covered
too, so an audit can trust it; only ``recorded_at`` (the database's clock) is outside the chain
(an export's signature covers it, `infra.signing`).

Changing any covered field of version ``n`` breaks the hash of ``n``; deleting or inserting an
event breaks the version sequence; :func:`verify_chain` reports the first version where either
happens.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Protocol

import msgspec

GENESIS = bytes(32)
"""The ``previous`` hash of version 1."""


class ChainedEvent(Protocol):
    """What :func:`verify_chain` reads from a stored event."""

    @property
    def stream_id(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def schema_version(self) -> int: ...
    @property
    def payload(self) -> bytes: ...
    @property
    def actor(self) -> str | None: ...
    @property
    def causation(self) -> str | None: ...
    @property
    def command_id(self) -> str | None: ...
    @property
    def hash(self) -> bytes: ...


def canonical_bytes(
    stream_id: str,
    version: int,
    type: str,
    schema_version: int,
    payload: bytes,
    *,
    actor: str | None = None,
    causation: str | None = None,
    command_id: str | None = None,
) -> bytes:
    """Return the canonical encoding of an event, as defined in the module docstring."""
    document = {
        "stream_id": stream_id,
        "version": version,
        "type": type,
        "schema_version": schema_version,
        "payload": msgspec.json.decode(payload),
        "actor": actor,
        "causation": causation,
        "command_id": command_id,
    }
    return msgspec.json.encode(document, order="sorted")


def event_hash(
    previous: bytes,
    stream_id: str,
    version: int,
    type: str,
    schema_version: int,
    payload: bytes,
    *,
    actor: str | None = None,
    causation: str | None = None,
    command_id: str | None = None,
) -> bytes:
    """Return the chained hash of one event given the hash of its predecessor in the stream."""
    canonical = canonical_bytes(
        stream_id,
        version,
        type,
        schema_version,
        payload,
        actor=actor,
        causation=causation,
        command_id=command_id,
    )
    return hashlib.sha256(previous + canonical).digest()


def record_hash(previous: bytes, event: ChainedEvent) -> bytes:
    """`event_hash` of a stored event, given the hash of its predecessor."""
    return event_hash(
        previous,
        event.stream_id,
        event.version,
        event.type,
        event.schema_version,
        event.payload,
        actor=event.actor,
        causation=event.causation,
        command_id=event.command_id,
    )


def verify_chain(events: Iterable[ChainedEvent]) -> int | None:
    """Check one stream's events, read in version order from version 1.

    Returns the first bad version: the first whose stored hash does not match, or the first one
    missing from the sequence 1, 2, 3, ...; ``None`` when the whole chain is intact.
    """
    previous, expected = GENESIS, 1
    for event in events:
        if event.version != expected:
            return expected
        if record_hash(previous, event) != event.hash:
            return event.version
        previous, expected = event.hash, expected + 1
    return None
