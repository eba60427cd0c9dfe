"""The streams' messages held against the OpenAPI document as committed (openapi/openapi.json).

`StreamSchemas` validates a stream message's data against the schema the document gives
for the stream's 200 answer, strictly: every object in the document is closed
(``unevaluatedProperties: false``), so a member the document does not name fails as much as
a missing or mistyped one. The message's ``event`` name must be the data's ``type``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jsonschema_rs

from service.tools.client import (
    Received,
)

OPENAPI_FILE = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
STREAMS = {
    "sse": "/tables/{table_id}/events",
    "feed": "/feed",
    "tournament_sse": "/tournaments/{tournament_id}/events",
}
"""A transcript's source -> the stream route whose messages it recorded."""


def _closed(schema: Any) -> Any:
    """``schema`` with every object schema that names its properties closed to others."""
    if isinstance(schema, list):
        return [_closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {k: _closed(v) for k, v in schema.items()}
    if "properties" in closed and closed.get("type") == "object":
        closed["unevaluatedProperties"] = False
    return closed


class StreamSchemas:
    """The document's schemas of the streams' message data."""

    def __init__(self, document: dict[str, Any] | None = None) -> None:
        document = document or json.loads(OPENAPI_FILE.read_text())
        components = _closed(copy.deepcopy(document["components"]))
        self.validators = {
            source: jsonschema_rs.validator_for(
                {
                    **document["paths"][path]["get"]["responses"]["200"]["content"][
                        "text/event-stream"
                    ]["schema"],
                    "components": components,
                }
            )
            for source, path in STREAMS.items()
        }
        self.types: set[str] = set()

    def failures(self, transcript: Iterable[Received]) -> list[str]:
        """What in the transcript's stream messages the document does not describe."""
        failures = []
        for item in transcript:
            if item.source not in self.validators:
                continue
            data = json.loads(item.body)
            event = data["event"] if item.source == "feed" else data
            kind = event.get("type")
            self.types.add(kind)
            if item.event != kind:
                failures.append(
                    f"{item.source} {item.version}: event {item.event!r} is not {kind!r}"
                )
            for error in self.validators[item.source].iter_errors(data):
                failures.append(f"{item.source} {item.version} {item.event}: {error.message}")
        return failures


STREAM_SCHEMAS = StreamSchemas()
"""The committed document's: every transcript the secrecy auditor reads is checked too."""
