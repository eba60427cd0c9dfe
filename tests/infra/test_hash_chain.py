"""The tamper-evident hash chain, in isolation and over events stored in PostgreSQL."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import asyncpg
import msgspec
import pytest

from infra.event_store import EventStore, NewEvent, StoredEvent
from infra.hash_chain import (
    GENESIS,
    canonical_bytes,
    event_hash,
    record_hash,
    stretches,
    verify_chain,
)

AT = datetime(2026, 12, 1, 10, 0, 0, 123456, tzinfo=UTC)
AT_MICROSECONDS = 1_796_119_200_123_456  # date -u -d 2026-12-01T10:00:00Z +%s, then .123456


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
    recorded_at: datetime = AT
    chain: int = 1


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


def test_a_version_2_link_covers_the_time_and_seals_the_secrets() -> None:
    payload = b'{"seat": 1, "name": "ann", "token_hash": "ab12", "entropy": ""}'
    sealed = "sealed:" + hashlib.sha256(b"doko seal\0ab12").hexdigest()
    assert (
        canonical_bytes("s", 3, "seat_taken", 1, payload, chain=2, recorded_at=AT)
        == (
            '{"actor":null,"causation":null,"chain":2,"command_id":null,'
            f'"payload":{{"entropy":"","name":"ann","seat":1,"token_hash":"{sealed}"}},'
            f'"recorded_at":{AT_MICROSECONDS},"schema_version":1,"stream_id":"s",'
            '"type":"seat_taken","version":3}'
        ).encode()
    )
    # the seal in place of the secret links alike: an export may show either
    shown = payload.replace(b'"ab12"', f'"{sealed}"'.encode())
    assert event_hash(GENESIS, "s", 3, "seat_taken", 1, shown, chain=2, recorded_at=AT) == (
        event_hash(GENESIS, "s", 3, "seat_taken", 1, payload, chain=2, recorded_at=AT)
    )
    seeds = b'{"name": "t", "server_seeds": ["00ff", "sealed:x"], "invitation_hash": ""}'
    assert (
        b'"invitation_hash":"","name":"t","server_seeds":["sealed:'
        + hashlib.sha256(b"doko seal\x0000ff").hexdigest().encode()
        + b'","sealed:x"]'
    ) in canonical_bytes("s", 1, "table_created", 1, seeds, chain=2, recorded_at=AT)


def test_a_tournaments_seeds_by_round_are_sealed_item_by_item() -> None:
    """The seating seed and each round's deal seeds of ``event_created`` (a list of lists)."""

    def sealed(value: str) -> str:
        return "sealed:" + hashlib.sha256(b"doko seal\0" + value.encode()).hexdigest()

    payload = b'{"seating_seed": "aa", "round_seeds": [["01", "02"], ["03"]], "rounds": 2}'
    expected = (
        f'"payload":{{"round_seeds":[["{sealed("01")}","{sealed("02")}"],["{sealed("03")}"]],'
        f'"rounds":2,"seating_seed":"{sealed("aa")}"}}'
    ).encode()
    assert expected in canonical_bytes("e", 1, "event_created", 1, payload, chain=2, recorded_at=AT)


def test_a_shifted_time_breaks_a_version_2_link_only() -> None:
    v1 = chain(b'{"a":1}', b'{"a":2}')
    v2 = [msgspec.structs.replace(link, chain=2) for link in v1]
    previous = GENESIS
    for index, link in enumerate(v2):
        previous = record_hash(previous, link)
        v2[index] = msgspec.structs.replace(link, hash=previous)
    assert verify_chain(v2) is None

    def shifted(links: list[Link]) -> list[Link]:
        day = timedelta(days=1)
        return [msgspec.structs.replace(e, recorded_at=e.recorded_at + day) for e in links]

    assert verify_chain(shifted(v1)) is None  # chain version 1 does not cover the time
    assert verify_chain(shifted(v2)) == 1


def test_a_stream_goes_from_version_1_to_2_never_back() -> None:
    links = chain(b"1", b"2", b"3", b"4")
    for index in (2, 3):
        link = msgspec.structs.replace(links[index], chain=2)
        links[index] = msgspec.structs.replace(link, hash=record_hash(links[index - 1].hash, link))
    assert verify_chain(links) is None
    assert stretches(links) == [(1, 1, 2), (2, 3, 4)]

    back = msgspec.structs.replace(links[3], chain=1)
    back = msgspec.structs.replace(back, hash=record_hash(links[2].hash, back))
    assert verify_chain([*links[:3], back]) == 4
    unknown = msgspec.structs.replace(links[3], chain=3)
    assert verify_chain([*links[:3], unknown]) == 4


async def test_an_append_is_linked_by_version_2_at_the_time_stored(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    before = datetime.now(UTC)
    await store.append("timed", 0, [NewEvent("noted", 1, b'{"n": 1}'), NewEvent("noted", 1, b"{}")])
    stored = await store.read_stream("timed")

    assert [e.chain for e in stored] == [2, 2]
    assert stored[0].recorded_at >= before
    assert verify_chain(stored) is None  # the stored time is the hashed one
    later = msgspec.structs.replace(stored[1], recorded_at=stored[1].recorded_at + timedelta(0, 1))
    assert verify_chain([stored[0], later]) == 2


def test_a_version_2_link_needs_the_time_and_no_other_version_exists() -> None:
    with pytest.raises(ValueError, match="recorded_at is needed"):
        canonical_bytes("s", 1, "t", 1, b"{}", chain=2)
    with pytest.raises(ValueError, match="no chain version 3"):
        canonical_bytes("s", 1, "t", 1, b"{}", chain=3, recorded_at=AT)
