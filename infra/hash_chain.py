"""Tamper evidence: every stored event carries a SHA-256 hash chained through its stream.

Definition (version ``n`` of stream ``s``)::

    hash(s, n) = SHA-256(previous ‖ canonical(s, n))
    previous   = hash(s, n - 1), or 32 zero bytes when n == 1

``‖`` is byte concatenation. Each event says by which *chain version* its link was made
(the ``chain`` column, migration 0009); a stream may begin in version 1 and go on in
version 2, never back. Version 2 is written since migration 0009; version 1 links verify as
they were made.

Version 1::

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

Version 2 adds the time and seals the secrets::

    canonical  = msgspec.json.encode(
                     {<the members of version 1, with "payload": sealed(type, payload)>,
                      "chain": 2,
                      "recorded_at": <int: microseconds since 1970-01-01T00:00:00Z>},
                     order="sorted")

``recorded_at`` is the time the log records for the event (``timestamptz``, microseconds,
fixed before hashing and stored as hashed), so the turn clock's history is covered too.
``sealed`` replaces each secret member of the payload (`SEALED`: the credential hashes,
each server seed, the seed of each deal dealt, a tournament's seating seed and deal seeds) by
its seal,
``"sealed:" + hex(SHA-256("doko seal\\0" ‖ value))``; an empty value and a seal stay as
they are. The link thus commits to the secret without holding it, and an export may show
either the secret or its seal (`infra.audit.disclosure`): the chain verifies alike, while nothing
derived from a credential, and no seed of a deal not scored, leaves the service. A
credential is 128 random bits or more (`service.edge.auth`), so a seal cannot be inverted or
tried; a seed is bound by its published commitment too.

The payload is decoded before hashing so that the hash depends on the JSON *value*, not on
its spelling: PostgreSQL's ``jsonb`` reorders keys and drops whitespace, and
``order="sorted"`` sorts object keys recursively, so the bytes written and the bytes read
back hash alike. Who acted (``actor``), in answer to what (``causation``, ``command_id``) is
covered too, so an audit can trust it; in version 1 ``recorded_at`` is outside the chain
(an export's signature covers it, `infra.signing`).

Changing any covered field of version ``n`` breaks the hash of ``n``; deleting or inserting an
event breaks the version sequence; :func:`verify_chain` reports the first version where either
happens, or where the chain version goes back or is unknown.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import msgspec

GENESIS = bytes(32)
"""The ``previous`` hash of version 1."""

V1, V2 = 1, 2
"""The chain versions: 1 without the time, 2 with the time and sealed secrets."""

CURRENT = V2
"""The chain version new events are linked by."""

SEALED: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "table_created": (("host_token_hash",), ("invitation_hash",), ("server_seeds",)),
    "seat_taken": (("token_hash",),),
    "invitation_rotated": (("invitation_hash",),),
    "deal_dealt": (("dealing", "seed"),),
    "event_created": (
        ("host_token_hash",),
        ("invitation_hash",),
        ("seating_seed",),
        ("round_seeds",),
    ),
    "player_registered": (("token_hash",),),
}
"""Event type -> the paths of its members sealed in a version-2 link (a list: each item,
and each item of a list of lists, such as a tournament's seeds by round; anything but strings
and lists of them, such as a preset deal's null seed, as it is)."""

SEAL_PREFIX = "sealed:"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def seal(value: str) -> str:
    """The seal of a secret (see the module docstring); idempotent."""
    if not value or value.startswith(SEAL_PREFIX):
        return value
    digest = hashlib.sha256(b"doko seal\0" + value.encode()).hexdigest()
    return SEAL_PREFIX + digest


def is_sealed(value: str) -> bool:
    """Whether ``value`` is a seal (`seal`), not the secret itself."""
    return value.startswith(SEAL_PREFIX)


def sealed(type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A decoded payload with its secret members (`SEALED`) sealed (a new dict if any was
    sealed; else ``payload`` itself)."""
    out = payload
    for path in SEALED.get(type, ()):
        out = _sealed_at(out, path)
    return out


def _sealed_at(value: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    name, rest = path[0], path[1:]
    member = value.get(name)
    if rest:
        inner = _sealed_at(member, rest) if isinstance(member, dict) else member
    else:
        inner = _sealed_member(member)
    return value if inner == member else {**value, name: inner}


def _sealed_member(member: Any) -> Any:
    """A string sealed; a list of strings (or of such lists) item by item; else as it is."""
    if isinstance(member, str):
        return seal(member)
    if isinstance(member, list) and all(isinstance(v, str | list) for v in member):
        return [_sealed_member(v) for v in member]
    return member


def microseconds(at: datetime) -> int:
    """``at`` as whole microseconds since the epoch (exact: both sides count microseconds)."""
    return (at - _EPOCH) // _MICROSECOND


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
    def recorded_at(self) -> datetime: ...
    @property
    def chain(self) -> int: ...
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
    chain: int = V1,
    recorded_at: datetime | None = None,
) -> bytes:
    """Return the canonical encoding of an event in chain version ``chain``, as defined in
    the module docstring (version 2 needs ``recorded_at``)."""
    value = msgspec.json.decode(payload)
    document = {
        "stream_id": stream_id,
        "version": version,
        "type": type,
        "schema_version": schema_version,
        "payload": value,
        "actor": actor,
        "causation": causation,
        "command_id": command_id,
    }
    if chain == V2:
        if recorded_at is None:
            raise ValueError("a version-2 link covers the time: recorded_at is needed")
        if isinstance(value, dict):
            document["payload"] = sealed(type, value)
        document["chain"] = V2
        document["recorded_at"] = microseconds(recorded_at)
    elif chain != V1:
        raise ValueError(f"no chain version {chain}")
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
    chain: int = V1,
    recorded_at: datetime | None = None,
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
        chain=chain,
        recorded_at=recorded_at,
    )
    return hashlib.sha256(previous + canonical).digest()


def record_hash(previous: bytes, event: ChainedEvent) -> bytes:
    """`event_hash` of a stored event, given the hash of its predecessor; raises
    `ValueError` for a chain version that does not exist."""
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
        chain=event.chain,
        recorded_at=event.recorded_at,
    )


def links(previous: bytes, chain: int, event: ChainedEvent) -> bool:
    """Whether ``event`` is a valid link after one of chain version ``chain`` whose hash is
    ``previous``: its version exists and does not go back, and its hash matches."""
    if event.chain not in (V1, V2) or event.chain < chain:
        return False
    return record_hash(previous, event) == event.hash


def stretches(events: Iterable[ChainedEvent]) -> list[tuple[int, int, int]]:
    """The stretches of one chain version: (chain version, first version, last version)."""
    out: list[tuple[int, int, int]] = []
    for event in events:
        if out and out[-1][0] == event.chain:
            out[-1] = (event.chain, out[-1][1], event.version)
        else:
            out.append((event.chain, event.version, event.version))
    return out


def verify_chain(events: Iterable[ChainedEvent]) -> int | None:
    """Check one stream's events, read in version order from version 1.

    Returns the first bad version: the first whose stored hash does not match (or whose chain
    version goes back or does not exist), or the first one missing from the sequence 1, 2,
    3, ...; ``None`` when the whole chain is intact.
    """
    previous, expected, chain = GENESIS, 1, V1
    for event in events:
        if event.version != expected:
            return expected
        if not links(previous, chain, event):
            return event.version
        previous, expected, chain = event.hash, expected + 1, event.chain
    return None
