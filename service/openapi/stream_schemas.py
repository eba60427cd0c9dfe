"""The streams' messages in the OpenAPI document: what an SSE client receives, typed.

A Server-Sent Events message has an ``event`` name, an ``id`` and ``data``. doko's
streams send JSON ``data`` of one schema per event type, the type named in the data's
``type`` member (equal to the message's ``event`` name), so the document describes the
``text/event-stream`` content by the schema of the data: a ``oneOf`` of the event schemas
with ``type`` as the discriminator (OpenAPI 3.1; code generators such as
openapi-typescript turn it into a tagged union). Comment lines (heartbeats, "database
unavailable: retrying", and the farewell of a stopping service, "shutdown: …" with a
``retry`` time, `service.streams.hub.farewell`) carry no data and are not messages.

* ``GET /tables/{table_id}/events``: `TableStreamMessage`: `TableStreamData`, every table
  event as the viewer may see it (`domain.table_view.redact`: a contract another seat named
  has ``contract`` null, R4.3), with what the table asks once it happened
  (`domain.table_view.Prompt`: ``turn``, ``clock``, ``options``) and ``server_time``
  (``Streamed<Event>``); ids are table versions, one after another for every viewer.
  The witnessed events (`infra.audit.witness.WITNESSED`: ``deal_scored``, ``session_finished``)
  carry one more member, ``chain_head`` (``Witnessed<Event>``). Table talk (T5) comes beside
  them as ``talk`` messages without an id (`service.bodies.talk.TalkMessage`).
* ``GET /feed``: `FeedItem`, one public event of a public table with its ``table_id``,
  ``version`` and ``server_time``; ids are global positions.
* ``GET /tournaments/{tournament_id}/events``: `TournamentStreamData`, each event of the
  tournament's stream (`domain.tournament.TournamentEvent`, its secrets emptied) with
  ``chain_head``, the tables' ``table_opened``, ``table_progress``, ``table_scored`` and
  ``table_finished`` and the ``standings`` (`service.streams.tournaments`); ids are the
  stream's message numbers.

The schemas are derived from the event types themselves (`domain.table.TableEvent`), so a
new event type is in the document as soon as it exists.
"""

from __future__ import annotations

import copy
import typing
from typing import Any

import msgspec

from domain.table import TableEvent
from domain.table_view import Prompt
from domain.tournament import TournamentEvent
from infra.audit.witness import WITNESSED
from service.bodies.talk import TalkMessage
from service.streams.hub import FeedItem
from service.streams.talk import EVENT as TALK
from service.streams.tournaments import (
    StandingsChanged,
    TableFinished,
    TableOpened,
    TableProgressed,
    TableScored,
)

REF = "#/components/schemas/{name}"
TABLE_STREAM = "/tables/{table_id}/events"
FEED = "/feed"
TOURNAMENT_STREAM = "/tournaments/{tournament_id}/events"
SERVER_TIME = {
    "type": "string",
    "format": "date-time",
    "description": "the service's time (UTC) when the stream sent the message",
}
CHAIN_HEAD = {
    "type": "string",
    "pattern": "^[0-9a-f]{64}$",
    "description": "the table's hash chain value at this event's version (hex): a witness "
    "of the table's history to hold an export against (`doko verify --witness`)",
}


PROMPT = {
    "turn": "the seat to act once this event happened (declare R4.1, name a contract R4.2, "
    "play R3.6); null: nobody",
    "clock": "that seat's turn clock (T3.2), as in views; null without one",
    "options": "what the stream's seat may do now (declarations, contracts, cards, and the "
    "words it may announce with their deadlines, R6); null on a spectator's stream",
}
"""The members every table stream message adds (`domain.table_view.Prompt`), described."""


def tournament_event_types() -> list[type[msgspec.Struct]]:
    """Every event type of a tournament's stream (`domain.tournament`)."""
    return list(typing.get_args(TournamentEvent))


TOURNAMENT_STREAM_EXTRA = (
    TableOpened,
    TableProgressed,
    TableScored,
    TableFinished,
    StandingsChanged,
)
"""The messages of a tournament's stream that are not its own events."""


def event_types() -> list[type[msgspec.Struct]]:
    """Every table event type, in the order of the `TableEvent` union."""
    return list(typing.get_args(TableEvent))


def tag(event_type: type[msgspec.Struct]) -> str:
    return str(event_type.__struct_config__.tag)


def streamed_name(event_type: type[msgspec.Struct]) -> str:
    """The component of an event as the table stream sends it."""
    witnessed = tag(event_type) in WITNESSED
    return f"{'Witnessed' if witnessed else 'Streamed'}{event_type.__name__}"


def _union(mapping: dict[str, str]) -> dict[str, Any]:
    """A tagged union of the components ``mapping`` names (tag -> component name)."""
    refs = {value: REF.format(name=name) for value, name in mapping.items()}
    return {
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {"propertyName": "type", "mapping": refs},
    }


def _streamed(
    component: dict[str, Any], name: str, witnessed: bool, asked: dict[str, Any]
) -> dict[str, Any]:
    """The event's schema with the members the table stream adds to it: those of the
    prompt (``asked``), ``server_time``, and ``chain_head`` if it is ``witnessed``."""
    schema = copy.deepcopy(component)
    schema["title"] = name
    added = {
        **asked,
        "server_time": SERVER_TIME,
        **({"chain_head": CHAIN_HEAD} if witnessed else {}),
    }
    schema["properties"].update(added)
    schema["required"] = sorted([*schema.get("required", []), *added])
    return schema


def _stream_content(schema: dict[str, Any]) -> dict[str, Any]:
    return {"text/event-stream": {"schema": schema}}


def describe_streams(document: dict[str, Any]) -> dict[str, Any]:
    """The document with the streams' messages described (see the module's docstring);
    ``document`` is left as it was."""
    document = copy.deepcopy(document)
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    _, generated = msgspec.json.schema_components([FeedItem, TableEvent, Prompt], ref_template=REF)
    asked = generated.pop(Prompt.__name__)["properties"]
    asked = {  # a value or null: one of them (as the document's other nullable members)
        k: {"oneOf": v["anyOf"], "description": PROMPT[k]} for k, v in asked.items()
    }
    for name, schema in generated.items():
        schemas.setdefault(name, schema)
    events = {tag(t): t.__name__ for t in event_types()}
    table = {}
    for event_type in event_types():
        name = streamed_name(event_type)
        witnessed = tag(event_type) in WITNESSED
        schemas[name] = _streamed(schemas[event_type.__name__], name, witnessed, asked)
        table[tag(event_type)] = name
    _, generated = msgspec.json.schema_components([TalkMessage], ref_template=REF)
    for name, schema in generated.items():
        schemas.setdefault(name, schema)
    schemas["TableEvent"] = {"title": "TableEvent", **_union(events)}
    schemas["TableStreamData"] = {
        "title": "TableStreamData",
        "description": "The data of a table stream message: one table event as the viewer "
        "may see it, what the table asks once it happened (`turn`, `clock`, the stream's "
        "seat's `options`), and the `server_time` it was sent at (the message's `event` is "
        "its `type`, the `id` its table version: every version reaches every viewer).",
        **_union(table),
    }
    schemas["FeedItem"]["properties"]["event"] = {"$ref": REF.format(name="TableEvent")}
    schemas["FeedItem"]["properties"]["server_time"] = SERVER_TIME
    schemas["FeedItem"]["required"] = sorted([*schemas["FeedItem"]["required"], "server_time"])
    schemas["FeedItem"]["description"] = (
        "The data of a feed message: one public event of a public table (the message's "
        "`event` is the event's `type`, the `id` its global position)."
    )
    _, generated = msgspec.json.schema_components(
        [TournamentEvent, *TOURNAMENT_STREAM_EXTRA], ref_template=REF
    )
    for name, schema in generated.items():
        schemas.setdefault(name, schema)
    mapping = {}
    for event_type in tournament_event_types():
        name = f"Witnessed{event_type.__name__}"
        schema = copy.deepcopy(schemas[event_type.__name__])
        schema["title"] = name
        schema["properties"]["chain_head"] = {
            **CHAIN_HEAD,
            "description": "the tournament stream's hash chain value at this event (hex)",
        }
        schema["required"] = sorted([*schema.get("required", []), "chain_head"])
        schemas[name] = schema
        mapping[tag(event_type)] = name
    mapping.update({tag(t): t.__name__ for t in TOURNAMENT_STREAM_EXTRA})
    schemas["TournamentStreamData"] = {
        "title": "TournamentStreamData",
        "description": "The data of a tournament stream message: an event of the tournament's "
        "stream with its chain head, a table's chain head as it opens, a table's progress as "
        "it scores a deal, a table's chain head of a deal or of its end once the deal is "
        "public for the round (E5.3), or the standings (the message's `event` is its `type`, "
        "the `id` the stream's message number).",
        **_union(mapping),
    }
    schemas["TableStreamMessage"] = {
        "title": "TableStreamMessage",
        "description": "The data of a table stream message: a table event (`TableStreamData`), "
        "or beside the events a table talk message (`TalkMessage`, `event: talk`, T5), which "
        "has no `id` of its own and does not tell whose turn it is.",
        **_union({**table, TALK: TalkMessage.__name__}),
    }
    streams = {
        TABLE_STREAM: "TableStreamMessage",
        FEED: "FeedItem",
        TOURNAMENT_STREAM: "TournamentStreamData",
    }
    for path, name in streams.items():
        ok = document["paths"][path]["get"]["responses"]["200"]
        ok["description"] = (
            "A text/event-stream whose messages' data is described by this schema; "
            "comment lines (heartbeats) carry none."
        )
        ok["content"] = _stream_content({"$ref": REF.format(name=name)})
    return document
