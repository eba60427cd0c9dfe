"""The OpenAPI document as code generators read it: litestar's, finished.

`finish` turns the document litestar builds into the one doko publishes:

* the streams' messages are described (`service.openapi.stream_schemas`);
* a parameter is sent or not, never ``null``: an optional parameter's ``X | null``
  schema is ``X`` (headers are strings, ``Idempotency-Key`` and ``If-Match`` included);
* integer bounds are integers (``maximum: 3``, not ``3.0``);
* every operation that takes a body documents its 415 ``unsupported_media_type``;
* the problem codes are the closed list of `service.edge.codes`, each with its meaning;
* every operation is under one tag, its resource (`TAGS`);
* descriptions are Markdown (CommonMark): the reStructuredText ````code```` of docstrings
  becomes ```code```.
"""

from __future__ import annotations

import copy
from typing import Any

from service.edge.codes import enum_schema
from service.openapi.stream_schemas import describe_streams

UNSUPPORTED_MEDIA_TYPE = {
    "type": "urn:doko:problem:unsupported_media_type",
    "title": "unsupported media type",
    "status": 415,
    "code": "unsupported_media_type",
    "detail": "send the body as application/json, not text/plain",
}
TAGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "tables": (
        "Tables: open one, find them in the lobby, read the public view and the scoresheet",
        ("createTable", "listTables", "getTable", "getScoresheet"),
    ),
    "seats": (
        "Seats: sit down, seat a bot, read a seat's own view, leave (T1, T2)",
        ("takeSeat", "seatBot", "getSeatView", "leaveSeat"),
    ),
    "play": (
        "Play: reservations, contracts, cards and announcements (R3-R6)",
        ("declare", "nameContract", "playCard", "announce"),
    ),
    "life": (
        "The table's life: a new invitation, coming back after timeouts, closing, "
        "abandoning (T1.2, T3, T4)",
        ("replaceInvitation", "comeBack", "closeTable", "abandonSession"),
    ),
    "streams": (
        "Server-Sent Events: a table's events (opened with a stream ticket) and the feed "
        "of every public table",
        ("getStreamTicket", "streamTable", "streamFeed"),
    ),
    "audit": (
        "Scored deals, their replay and verification, the signed session export",
        ("getDeal", "replayDeal", "verifyDeal", "exportSession"),
    ),
    "tournaments": (
        "Tournaments: club nights and competitions of several tables over several rounds, the same "
        "deals at every table of a round, one standings table (E1-E6)",
        (
            "createTournament",
            "getTournament",
            "registerPlayer",
            "getPlayerTable",
            "startRound",
            "getStandings",
            "compareDeal",
            "getTournamentStreamTicket",
            "streamTournament",
            "verifyTournament",
            "exportTournament",
        ),
    ),
    "keys": ("The deployment's public signing keys (RFC 7517)", ("signingKeys",)),
    "health": ("Liveness and readiness probes", ("health", "live", "ready")),
}
"""Tag -> its description and the operations under it."""
BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _not_null(schema: dict[str, Any]) -> dict[str, Any]:
    """``{"oneOf": [X, {"type": "null"}], ...}`` -> ``{**X, ...}``."""
    options = schema.get("oneOf") or schema.get("anyOf") or []
    kept = [o for o in options if o != {"type": "null"}]
    if len(options) == 2 and len(kept) == 1:
        rest = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf")}
        return {**kept[0], **rest}
    return schema


def _tidy(node: Any) -> Any:
    """Integer bounds as integers and Markdown code spans, everywhere in ``node``."""
    if isinstance(node, list):
        return [_tidy(n) for n in node]
    if not isinstance(node, dict):
        return node
    tidy = {k: _tidy(v) for k, v in node.items()}
    for bound in BOUNDS:
        value = tidy.get(bound)
        if isinstance(value, float) and value.is_integer() and tidy.get("type") == "integer":
            tidy[bound] = int(value)
    for text in ("description", "summary"):
        if isinstance(tidy.get(text), str):
            tidy[text] = tidy[text].replace("``", "`")
    return tidy


def _operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [op for item in document["paths"].values() for op in item.values()]


def finish(document: dict[str, Any]) -> dict[str, Any]:
    """The published document (see the module's docstring); ``document`` is left as it was."""
    document = _tidy(describe_streams(copy.deepcopy(document)))
    document["components"]["schemas"]["ProblemCode"] = enum_schema()
    tag_of = {op: tag for tag, (_, ops) in TAGS.items() for op in ops}
    document["tags"] = [{"name": tag, "description": text} for tag, (text, _) in TAGS.items()]
    for operation in _operations(document):
        operation["tags"] = [tag_of[operation["operationId"]]]
        for parameter in operation.get("parameters", []):
            parameter["schema"] = _not_null(parameter["schema"])
        if "requestBody" in operation:
            operation["responses"]["415"] = {
                "description": "the body is not application/json",
                "content": {
                    "application/problem+json": {
                        "schema": {"$ref": "#/components/schemas/Problem"},
                        "examples": {
                            "unsupported_media_type": {
                                "summary": "unsupported_media_type",
                                "value": UNSUPPORTED_MEDIA_TYPE,
                            }
                        },
                    }
                },
            }
    return document
