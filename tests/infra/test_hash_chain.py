"""The tamper-evident hash chain, in isolation and over events stored in PostgreSQL."""

from __future__ import annotations

import hashlib

import asyncpg
import msgspec
import pytest

from infra.event_store import EventStore, NewEvent, StoredEvent
from infra.hash_chain import GENESIS, canonical_bytes, event_hash, verify_chain


class Link(msgspec.Struct, frozen=True):
    stream_id: str
    version: int
    type: str
    schema_version: int
    payload: bytes
    hash: bytes
    actor: str | None = None
    causation: str | None = None
    command_id: str | None = None


def chain(*payloads: bytes) -> list[Link]:
    """A correctly hashed stream with one event per payload."""
    links, previous = [], GENESIS
    for version, payload in enumerate(payloads, start=1):
        previous = event_hash(previous, "s", version, "t", 1, payload, actor="seat:1")
        links.append(Link("s", version, "t", 1, payload, previous, actor="seat:1"))
    return links


def test_canonical_bytes_are_sorted_compact_json_of_the_decoded_payload() -> None:
    payload = b'{ "b": [1, {"d": 0, "c": "\\u00e9"}], "a": null }'
    assert (
        canonical_bytes("s", 3, "t", 2, payload)
        == (
            '{"actor":null,"causation":null,"command_id":null,'
            '"payload":{"a":null,"b":[1,{"c":"é","d":0}]},'
            '"schema_version":2,"stream_id":"s","type":"t","version":3}'
        ).encode()
    )


def test_first_hash_chains_from_32_zero_bytes() -> None:
    expected = hashlib.sha256(bytes(32) + canonical_bytes("s", 1, "t", 1, b"{}")).digest()
    assert event_hash(GENESIS, "s", 1, "t", 1, b"{}") == expected


def test_intact_chain_verifies() -> None:
    assert verify_chain(chain(b'{"a":1}', b'{"a":2}', b'{"a":3}')) is None
    assert verify_chain([]) is None


def test_payload_spelling_does_not_matter() -> None:
    [link] = chain(b'{"a":1,"b":2}')
    respelled = msgspec.structs.replace(link, payload=b'{"b": 2,  "a": 1}')
    assert verify_chain([respelled]) is None


@pytest.mark.parametrize(
    "field",
    ["payload", "type", "schema_version", "stream_id", "hash", "actor", "causation", "command_id"],
)
def test_changing_a_covered_field_names_that_version(field: str) -> None:
    links = chain(b'{"a":1}', b'{"a":2}', b'{"a":3}')
    forged = {
        "payload": b'{"a":20}',
        "type": "other",
        "schema_version": 9,
        "stream_id": "elsewhere",
        "hash": bytes(32),
        "actor": "seat:2",
        "causation": "forged",
        "command_id": "forged",
    }[field]
    links[1] = msgspec.structs.replace(links[1], **{field: forged})
    assert verify_chain(links) == 2


def test_missing_event_names_the_missing_version() -> None:
    first, _, third = chain(b"1", b"2", b"3")
    assert verify_chain([first, third]) == 2


async def test_tampered_stored_payload_is_named(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    payloads = [{"n": n, "z": "ü", "a": [n, {"y": None, "x": 1.5}]} for n in range(1, 6)]
    events = [NewEvent("noted", 1, msgspec.json.encode(p)) for p in payloads]
    await store.append("tamper", 0, events)
    stored: list[StoredEvent] = await store.read_stream("tamper")
    assert verify_chain(stored) is None

    async with pool.acquire() as conn:
        with pytest.raises(asyncpg.RaiseError, match="append-only"):
            await conn.execute("UPDATE events SET payload = '{}' WHERE stream_id = 'tamper'")
        async with conn.transaction():
            await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
            await conn.execute(
                """UPDATE events SET payload = jsonb_set(payload, '{n}', '99')
                   WHERE stream_id = 'tamper' AND version = 3"""
            )
            await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")

    assert verify_chain(await store.read_stream("tamper")) == 3
