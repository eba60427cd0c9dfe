"""Table talk (T5) through the API, for a `service.tools.client.TableClient`::

    talk = TalkClient(table)
    await talk.say("Gut gespielt!", token=seat.token)  # as seat's player
    await talk.say("Hallo", name="Kiebitz")  # as a spectator (a private table: its invitation)
    await talk.mute(2)  # as the host (the table client holds the host token)
    state = await talk.read(after=17)

Talk messages come on the table's stream too, as ``event: talk`` messages without an id of
their own (a parser that keeps the last event id, as an EventSource does, reports that id
with them: they are no table events).
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

from service.bodies.talk import TalkMessage, TalkState
from service.tools.client import TableClient, raise_for_problem


class Said(msgspec.Struct, frozen=True):
    """An accepted message and the answer's RateLimit fields (the ``"talk"`` policy)."""

    message: TalkMessage
    rate_limit: str
    rate_limit_policy: str


class TalkClient:
    """The talk of one table."""

    def __init__(self, table: TableClient) -> None:
        self.table = table

    @property
    def path(self) -> str:
        return f"{self.table.path}/talk"

    def _headers(self, token: str | None) -> dict[str, str]:
        """A seat's token, else the table client's host token or invitation."""
        return {"authorization": f"Bearer {token}"} if token else self.table.credential

    async def say(self, text: str, *, token: str | None = None, name: str | None = None) -> Said:
        """Say ``text`` to the table: as the seat whose ``token`` it is, else as a spectator
        (``name``); raises `ProblemError` when refused."""
        body: dict[str, Any] = {"text": text}
        if name is not None:
            body["name"] = name
        response = await self.table.api.http.post(
            self.path, json=body, headers=self._headers(token)
        )
        return _said(response)

    async def read(self, *, after: int | None = None, token: str | None = None) -> TalkState:
        """The table's newest talk (or that after the talk id ``after``) and its mutes."""
        params = {"after": after} if after is not None else None
        response = await self.table.api.http.get(
            self.path, params=params, headers=self._headers(token)
        )
        raise_for_problem(response)
        return msgspec.json.decode(response.content, type=TalkState)

    async def mute(self, seat: int | None, muted: bool = True) -> TalkState:
        """As the host, mute (or unmute) ``seat``, or with None the spectators (T5.3)."""
        headers = self._headers(self.table.host_token)
        response = await self.table.api.http.post(
            f"{self.path}/mutes", json={"seat": seat, "muted": muted}, headers=headers
        )
        raise_for_problem(response)
        return msgspec.json.decode(response.content, type=TalkState)


def _said(response: httpx.Response) -> Said:
    raise_for_problem(response)
    return Said(
        msgspec.json.decode(response.content, type=TalkMessage),
        response.headers.get("ratelimit", ""),
        response.headers.get("ratelimit-policy", ""),
    )
