"""Request and response bodies of table talk (`service.routes.talk`, T5), and the talk message
a table's stream sends (``event: talk``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, ClassVar

import msgspec
from msgspec import Meta

from domain.talk import MAX_NAME, MAX_TEXT
from infra.talk import TalkEntry, TalkKind
from service.bodies.tables import ZERO_MINIMUM, SeatNumber
from service.edge.validation import Rulings

TalkText = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=MAX_TEXT,
        description="the message: 1-200 characters once trimmed, no control or bidirectional "
        "formatting characters (T5.1)",
        examples=["Gut gespielt!"],
    ),
]


class TalkRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A message for the table (T5.1). A seat token speaks for its seat, under its player's
    name; any other viewer (no credential at a public table, the host token or the invitation
    code) speaks as a spectator, under ``name`` if given (1-40 characters, a name as a seat's
    player's is kept: N1-N3; a seat's is its player's). During a deal a seated player names
    no card, suit, trump or party (T5.2)."""

    RULINGS: ClassVar[Rulings] = {"text": ("talk_text", "T5.1"), "name": ("talk_text", "T5.1")}

    text: TalkText
    name: Annotated[str, Meta(min_length=1, max_length=MAX_NAME, examples=["Kiebitz"])] | None = (
        None
    )


class TalkMuteRequest(msgspec.Struct, forbid_unknown_fields=True):
    """T5.3: the host mutes (``muted`` true) or unmutes ``seat``, or, with ``seat`` null, the
    spectators."""

    muted: bool
    seat: SeatNumber | None = None


class TalkMessage(msgspec.Struct, frozen=True, tag_field="type", tag="talk"):
    """One entry of a table's talk, as the table's stream sends it (``event: talk``) and its
    talk lists it: a message ``said`` by ``seat`` (null: a spectator) under ``name``, or the
    host's ``muted``/``unmuted`` of ``seat`` (null: the spectators), with ``text`` empty.
    ``talk_id`` grows with each entry of the table (with gaps: one sequence for all tables);
    it is not a stream event id."""

    talk_id: Annotated[int, Meta(ge=1, examples=[17])]
    kind: TalkKind
    seat: SeatNumber | None
    name: str
    text: str
    sent_at: datetime
    server_time: Annotated[
        datetime | None,
        Meta(description="on a stream: the service's time (UTC) when it sent the message"),
    ] = None


def talk_message(entry: TalkEntry, now: datetime | None = None) -> TalkMessage:
    """A kept entry as the API shows it (``now``: the stream's ``server_time``)."""
    seat = None if entry.seat is None else int(entry.seat)
    return TalkMessage(
        entry.talk_id, entry.kind, seat, entry.name, entry.text, entry.sent_at, server_time=now
    )


class TalkState(msgspec.Struct):
    """The table's talk: its newest ``messages`` (at most 50, oldest first; with ``after``,
    those after that talk id) and whom the host muted (T5.3): ``muted_seats``, and
    ``spectators_muted``."""

    messages: list[TalkMessage]
    muted_seats: list[Annotated[int, Meta(ge=0, le=3, extra_json_schema={"extra": ZERO_MINIMUM})]]
    spectators_muted: bool
