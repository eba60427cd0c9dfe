"""Reading Server-Sent Events (text/event-stream) as an EventSource does.

Shared by the live client (`service.tools.stream.read_sse`) and the reader of saved streams
(`infra.audit.witness.read_archive`): ``:`` lines are comments, a blank line dispatches the
message if it has data, and the id persists as the last event id.
"""

from __future__ import annotations

from typing import Any

import msgspec


class SseMessage(msgspec.Struct, frozen=True):
    """One Server-Sent Event: its id, its event type and its data (lines joined by LF)."""

    id: str | None
    event: str | None
    data: str

    def json(self) -> Any:
        return msgspec.json.decode(self.data)


class SseParser:
    """Takes a stream's lines (without their ends) one at a time; `line` returns the
    message a blank line completes."""

    def __init__(self) -> None:
        self._event: str | None = None
        self._last_id: str | None = None
        self._data: list[str] = []

    def line(self, line: str) -> SseMessage | None:
        if not line:
            message = (
                SseMessage(self._last_id, self._event, "\n".join(self._data))
                if self._data
                else None
            )
            self._event, self._data = None, []
            return message
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self._last_id = value
        return None


def parse_sse(text: str) -> list[SseMessage]:
    """Every complete message of a saved stream (a last one without its blank line too)."""
    parser = SseParser()
    messages = [m for line in text.splitlines() if (m := parser.line(line)) is not None]
    last = parser.line("")
    return [*messages, last] if last is not None else messages
