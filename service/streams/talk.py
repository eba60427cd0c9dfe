"""Table talk on a table's stream (T5): ``event: talk`` messages beside the events.

A talk message carries no ``id``: a table stream's ids stay its table versions, one after
another for every viewer (an EventSource keeps the last id it saw through a message without
one, and resumes after that event). Talk is sent live: a stream sends what is said from its
opening on, and a resumed stream leaves out what was said while it was away, which
``GET /tables/{id}/talk?after=<the last talk_id seen>`` gives.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from litestar.response.sse import ServerSentEventMessage

from infra.talk import TalkEntry
from service.bodies.talk import talk_message

EVENT = "talk"


def talk_event(entry: TalkEntry, now: datetime) -> ServerSentEventMessage:
    """A kept talk entry as a stream message, sent at ``now``: no id (module docstring)."""
    data = msgspec.json.encode(talk_message(entry, now)).decode()
    return ServerSentEventMessage(data=data, event=EVENT)
