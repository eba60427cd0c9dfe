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
  becomes ```code```;
* every response declares the headers it is sent with: ``Location`` on every 201,
  ``WWW-Authenticate`` on every 401 (and 403), ``Retry-After`` on every 429 (and where a
  503 or an unsafe operation's 409 may have it), ``ETag`` on a view's 409 and where the
  route declares it, ``RateLimit``/``RateLimit-Policy`` everywhere, and the headers each
  route declares (`Declared`: ``ETag``, ``Cache-Control``) on its success answers and 304;
* members typed as plain strings (or as anything) where a closed list or a shape is known
  are typed so (`NARROWED`): a life action's refusal ``code`` is a `ProblemCode`, a seat's
  ``bot`` a `BotKind`, an exported event's ``payload`` an object;
* every member the service always sends is required in the answers' schemas (msgspec marks
  a member with a default as optional, but encodes it every time), but in the structs that
  leave their defaults out (``omit_defaults``: `Problem`, ...), the members left out while
  ``UNSET`` (an event's ``rules``) and in the request bodies.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from service.edge.codes import enum_schema
from service.edge.validation import BodyError, ParameterError
from service.openapi.stream_schemas import describe_streams
from service.workers.health import ReadinessCheck

Declared = dict[tuple[str, str], dict[str, dict[str, Any]]]
"""The response headers each route declares, by the document's (path, method)."""

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
        "Play: reservations, contracts, cards, announcements (R3-R6), Schweinchen (V3.1) "
        "and Armut (V4.3, V4.4)",
        (
            "declare",
            "nameContract",
            "playCard",
            "announce",
            "showSchweinchen",
            "answerPoverty",
            "returnPoverty",
        ),
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
    "talk": (
        "Table talk: short messages from the players and spectators, beside the events, and "
        "the host's mutes (T5)",
        ("postTableTalk", "getTableTalk", "muteTableTalk"),
    ),
    "audit": (
        "Scored deals, their replay and verification, the signed session export",
        ("getDeal", "replayDeal", "verifyDeal", "exportSession"),
    ),
    "review": (
        "A scored deal's decisions priced by the expert bot, from what each seat saw",
        ("reviewDeal",),
    ),
    "tournaments": (
        "Tournaments: club nights and competitions of several tables over several rounds, the same "
        "deals at every table of a round, one standings table (E1-E6)",
        (
            "createTournament",
            "getTournament",
            "registerPlayer",
            "removePlayer",
            "closeRegistration",
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

REF = "#/components/schemas/{name}"
PROBLEM_ITEMS = (BodyError, ParameterError, ReadinessCheck)
"""What a problem's ``errors`` lists (`service.edge.problems.ProblemItem`)."""
NARROWED: dict[tuple[str, str], dict[str, Any]] = {
    ("Problem", "errors"): {
        "type": "array",
        "items": {"oneOf": [{"$ref": REF.format(name=t.__name__)} for t in PROBLEM_ITEMS]},
        "description": "What is wrong, each in one place: a member of the body "
        "(`pointer`) or a parameter (`parameter`, `in`) that is not what the operation takes, "
        "or (`not_ready`) a readiness check that failed (`name`, `ok`).",
    },
    ("Permission", "code"): {"$ref": REF.format(name="ProblemCode")},
    ("SeatInfo", "bot"): {"$ref": REF.format(name="BotKind")},
    ("ExportedEvent", "payload"): {
        "type": "object",
        "additionalProperties": True,
        "description": "The event's fields as they were hashed (its `type` and "
        "`schema_version` say which they are): free-form here, since an export carries every "
        "version of every event type a log ever stored, verbatim; `doko verify` reads them.",
    },
}
"""(schema, member) -> the schema of a member the structs type loosely: the domain knows
no HTTP problem codes nor the service's bot kinds, so it types them as strings; an exported
event's payload is bytes kept as they were hashed. A null the member allows stays allowed."""

STRING = {"type": "string"}
HEADERS = {
    "Location": {
        "required": True,
        "description": "the path of what was made, relative to the service's base URL "
        "(RFC 9110 §15.3.2)",
        "schema": STRING,
    },
    "WWW-Authenticate": {
        "required": True,
        "description": 'a Bearer challenge (RFC 6750 §3): `Bearer realm="doko"`, with '
        '`error="invalid_token"` when the token or ticket sent opens nothing here',
        "schema": STRING,
        "example": 'Bearer realm="doko", error="invalid_token", '
        'error_description="this token belongs to no seat at this table"',
    },
    "Retry-After": {
        "required": True,
        "description": "seconds to wait before sending the request again",
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
        "example": "1",
    },
    "ETag": {
        "required": True,
        "description": "the table version, as an entity tag",
        "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
        "example": '"12"',
    },
}
RATE_HEADERS = {
    "RateLimit": {
        "description": "what is left of each quota that counted the request in this window "
        '(draft-ietf-httpapi-ratelimit-headers), e.g. `"address";r=1199;t=1, '
        '"token";r=599;t=1`; on every answer the rate limits counted',
        "schema": STRING,
    },
    "RateLimit-Policy": {
        "description": "the quotas that counted the request (draft-ietf-httpapi-ratelimit-"
        'headers), e.g. `"address";q=1200;w=1, "token";q=600;w=1`: requests a second per '
        "client address, per token, and on the routes that replay a log",
        "schema": STRING,
    },
}


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


def _optional(header: dict[str, Any]) -> dict[str, Any]:
    return {**header, "required": False}


def _declare_headers(document: dict[str, Any], declared: Declared) -> None:
    """Every response's headers (see the module's docstring)."""
    headers = document["components"].setdefault("headers", {})
    headers.update(RATE_HEADERS)
    rate = {name: {"$ref": f"#/components/headers/{name}"} for name in RATE_HEADERS}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            parameters = {p["name"] for p in operation.get("parameters", [])}
            own = declared.get((path, method), {})
            for status, response in operation["responses"].items():
                sent = response.setdefault("headers", {})
                if status.startswith("2") or status == "304":
                    sent.update(own)
                if status == "201":
                    sent["Location"] = HEADERS["Location"]
                elif status == "401":
                    sent["WWW-Authenticate"] = HEADERS["WWW-Authenticate"]
                elif status == "403":
                    sent["WWW-Authenticate"] = {
                        **_optional(HEADERS["WWW-Authenticate"]),
                        "description": 'with `forbidden`: `Bearer realm="doko", '
                        'error="insufficient_scope"` (RFC 6750 §3.1)',
                    }
                elif status == "429":
                    sent["Retry-After"] = HEADERS["Retry-After"]
                elif status == "503":
                    sent["Retry-After"] = _optional(HEADERS["Retry-After"])
                elif status == "409":
                    if method in ("post", "delete"):  # idempotency_key_in_flight
                        sent["Retry-After"] = _optional(HEADERS["Retry-After"])
                    if "min_version" in parameters:  # version_not_reached
                        sent["ETag"] = HEADERS["ETag"]
                    elif "If-Match" in parameters:  # version_mismatch
                        sent["ETag"] = _optional(HEADERS["ETag"])
                sent.update(rate)


def _narrow(schemas: dict[str, Any]) -> None:
    """The members of `NARROWED`, typed as it says (with the components they refer to)."""
    _, generated = msgspec.json.schema_components(PROBLEM_ITEMS, ref_template=REF)
    for name, schema in generated.items():
        if "enum" in schema:  # msgspec's enums name no type; litestar's say string
            schema = {"type": "string", **schema}
        schemas.setdefault(name, schema)
    for (name, member), narrowed in NARROWED.items():
        properties = schemas[name]["properties"]
        loose = properties[member]
        options = loose.get("oneOf", [])
        if {"type": "null"} in options:
            typed = {k: v for k, v in narrowed.items() if k != "description"}
            described = {k: v for k, v in narrowed.items() if k == "description"}
            properties[member] = {"oneOf": [typed, {"type": "null"}], **described}
        else:
            properties[member] = {**narrowed, **{k: v for k, v in loose.items() if k != "type"}}


def _structs() -> list[type[msgspec.Struct]]:
    found: list[type[msgspec.Struct]] = []
    stack = [msgspec.Struct]
    while stack:
        for sub in stack.pop().__subclasses__():
            found.append(sub)
            stack.append(sub)
    return found


def _refs(node: Any) -> set[str]:
    """The component schemas ``node`` refers to, directly."""
    if isinstance(node, list):
        return {r for n in node for r in _refs(n)}
    if not isinstance(node, dict):
        return set()
    ref = node.get("$ref", "")
    found = {ref.rsplit("/", 1)[1]} if ref.startswith("#/components/schemas/") else set()
    return found | {r for v in node.values() for r in _refs(v)}


def _require_what_is_always_sent(document: dict[str, Any]) -> None:
    """Every member of an answer's schema is required, but in the request bodies' schemas
    (and what only they use) and those of the structs that leave defaults out."""
    schemas = document["components"]["schemas"]
    bodies = {
        r for operation in _operations(document) for r in _refs(operation.get("requestBody", {}))
    }
    requests, stack = set(), list(bodies)
    while stack:
        name = stack.pop()
        if name not in requests:
            requests.add(name)
            stack.extend(_refs(schemas.get(name, {})))
    omitting = {s.__name__: s for s in _structs() if s.__struct_config__.omit_defaults}
    unset = {s.__name__: _left_out_when_unset(s) for s in _structs()}
    for name, schema in schemas.items():
        base = name.removeprefix("Streamed").removeprefix("Witnessed")
        if name in omitting and "properties" in schema:
            _never_null(schema, omitting[name])
        if name in requests or {name, base} & set(omitting) or "properties" not in schema:
            continue
        sent = {*schema.get("required", []), *schema["properties"]} - unset.get(base, set())
        schema["required"] = sorted(sent)


def _left_out_when_unset(struct: type[msgspec.Struct]) -> set[str]:
    """The members a struct leaves out while they are ``UNSET`` (a recorded event's rule set,
    left out for RULES.md exactly): optional in its answers' schemas."""
    return {f.encode_name for f in msgspec.structs.fields(struct) if f.default is msgspec.UNSET}


def _never_null(schema: dict[str, Any], struct: type[msgspec.Struct]) -> None:
    """A struct that leaves its defaults out never sends a member whose default is null as
    null: it leaves it out. Such a member is optional, and not nullable."""
    for field in msgspec.structs.fields(struct):
        member = schema["properties"].get(field.encode_name)
        if field.default is None and member is not None:
            schema["properties"][field.encode_name] = _not_null(member)


def finish(document: dict[str, Any], declared: Declared | None = None) -> dict[str, Any]:
    """The published document (see the module's docstring); ``document`` is left as it was.
    ``declared``: the response headers each route declares (`Declared`)."""
    document = describe_streams(copy.deepcopy(document))
    _narrow(document["components"]["schemas"])
    document = _tidy(document)
    document["components"]["schemas"]["ProblemCode"] = enum_schema()
    _require_what_is_always_sent(document)
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
    _declare_headers(document, declared or {})
    return document
