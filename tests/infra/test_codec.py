"""Encoding tagged-union events into records and decoding (and upcasting) them back."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import asyncpg
import msgspec
import pytest

from infra.codec import CodecError, EventCodec
from infra.event_store import EventStore, NewEvent, StoredEvent


class CardPlayed(msgspec.Struct, frozen=True, tag_field="type", tag="card_played"):
    seat: int
    card: str


class TrickTaken(msgspec.Struct, frozen=True, tag_field="type", tag="trick_taken"):
    seat: int
    points: int


Event = CardPlayed | TrickTaken


class Stranger(msgspec.Struct, frozen=True, tag_field="type", tag="stranger"):
    pass


def record(new: NewEvent, version: int = 1) -> StoredEvent:
    """What the store would hand back for *new*, without a database."""
    return StoredEvent(
        position=version,
        stream_id="s",
        version=version,
        type=new.type,
        schema_version=new.schema_version,
        payload=new.payload,
        command_id=None,
        actor=new.actor,
        causation=new.causation,
        recorded_at=datetime.now(UTC),
        hash=bytes(32),
    )


def test_event_becomes_a_record_tagged_with_its_type() -> None:
    codec: EventCodec[Event] = EventCodec(Event, schema_versions={"trick_taken": 1})
    new = codec.to_new_event(CardPlayed(seat=2, card="♣Q"), actor="seat:2", causation="c-1")

    assert (new.type, new.schema_version, new.actor, new.causation) == (
        "card_played",
        1,
        "seat:2",
        "c-1",
    )
    assert msgspec.json.decode(new.payload) == {"type": "card_played", "seat": 2, "card": "♣Q"}


def test_round_trip() -> None:
    codec: EventCodec[Event] = EventCodec(Event)
    for event in (CardPlayed(seat=0, card="♥10"), TrickTaken(seat=3, points=24)):
        assert codec.from_stored(record(codec.to_new_event(event))) == event


def test_old_payload_is_upcast_to_the_current_schema() -> None:
    def points_from_eyes(payload: dict[str, Any]) -> dict[str, Any]:
        return {**{k: v for k, v in payload.items() if k != "eyes"}, "points": payload["eyes"]}

    old = NewEvent("trick_taken", 1, b'{"type":"trick_taken","seat":1,"eyes":21}')
    codec: EventCodec[Event] = EventCodec(
        Event,
        schema_versions={"trick_taken": 2},
        upcasters={("trick_taken", 1): points_from_eyes},
    )

    assert codec.from_stored(record(old)) == TrickTaken(seat=1, points=21)
    assert codec.to_new_event(TrickTaken(seat=1, points=21)).schema_version == 2


def test_upcasters_chain_through_every_version() -> None:
    def rename(old: str, new: str) -> Any:
        return lambda p: {(new if k == old else k): v for k, v in p.items()}

    codec: EventCodec[Event] = EventCodec(
        Event,
        schema_versions={"card_played": 3},
        upcasters={
            ("card_played", 1): rename("who", "by"),
            ("card_played", 2): rename("by", "seat"),
        },
    )
    v1 = NewEvent("card_played", 1, b'{"type":"card_played","who":0,"card":"\\u2660A"}')
    assert codec.from_stored(record(v1)) == CardPlayed(seat=0, card="♠A")


def test_missing_upcaster_is_refused_up_front() -> None:
    with pytest.raises(CodecError, match="trick_taken: no upcaster from schema version"):
        EventCodec(Event, schema_versions={"trick_taken": 3}, upcasters={("trick_taken", 2): dict})


def test_unknown_types_and_newer_records_are_refused() -> None:
    codec: EventCodec[Event] = EventCodec(Event)
    with pytest.raises(CodecError, match="not part of"):
        codec.to_new_event(Stranger())  # type: ignore[arg-type]
    with pytest.raises(CodecError, match="newer than this code"):
        codec.from_stored(record(NewEvent("card_played", 2, b'{"type":"card_played"}')))
    with pytest.raises(CodecError, match="unknown event types"):
        EventCodec(Event, schema_versions={"stranger": 2})


async def test_round_trip_through_the_store(pool: asyncpg.Pool) -> None:
    codec: EventCodec[Event] = EventCodec(Event)
    store = EventStore(pool)
    events: list[Event] = [CardPlayed(seat=1, card="♦K"), TrickTaken(seat=1, points=15)]
    await store.append("codec", 0, [codec.to_new_event(e, actor="seat:1") for e in events])

    assert [codec.from_stored(r) for r in await store.read_stream("codec")] == events
