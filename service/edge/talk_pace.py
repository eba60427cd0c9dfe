"""How often one may talk at a table: a sliding window per sender (T5).

Each sender (a seat of a table, or a spectator's client address at a table) may say
``messages`` messages in any ``seconds`` seconds; one more is refused with 429
``rate_limited``, ``Retry-After`` (the seconds until its oldest message leaves the window,
rounded up) and the RateLimit fields of the other limits (`service.edge.limits`) for its
own policy ``"talk"``: ``RateLimit-Policy: "talk";q=MESSAGES;w=SECONDS`` and ``RateLimit:
"talk";r=REMAINING;t=SECONDS_LEFT``, which an accepted message's answer carries too. The
window is kept per process, as the other limits are, on the rate limits' clock.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

from service.edge.problems import ServiceError

POLICY = "talk"
TALK_MESSAGES = 5
"""The messages a sender may say in `TALK_SECONDS` unless the service is told otherwise."""
TALK_SECONDS = 30.0


class TalkPace:
    """The messages each sender said within the last ``seconds`` (module docstring)."""

    def __init__(self, messages: int, seconds: float, clock: Callable[[], float]) -> None:
        self.messages = messages
        self.seconds = seconds
        self._clock = clock
        self._said: dict[str, deque[float]] = {}

    def admit(self, sender: str) -> dict[str, str]:
        """Count one message of ``sender`` and the RateLimit headers of its answer; 429
        ``rate_limited`` (not counted) once it said ``messages`` within the window."""
        now = self._clock()
        said = self._said.setdefault(sender, deque())
        while said and said[0] <= now - self.seconds:
            said.popleft()
        if not said:
            self._forget(now)
            self._said[sender] = said
        if len(said) >= self.messages:
            wait = max(1, math.ceil(said[0] + self.seconds - now))
            headers = {"Retry-After": str(wait), **self._fields(0, wait)}
            raise ServiceError(
                429,
                "rate_limited",
                f"{self.messages} messages in {self.seconds:g} s: wait {wait} s",
                headers=headers,
            )
        said.append(now)
        left = math.ceil(said[0] + self.seconds - now)
        return self._fields(self.messages - len(said), left)

    def _fields(self, remaining: int, left: int) -> dict[str, str]:
        return {
            "RateLimit-Policy": f'"{POLICY}";q={self.messages};w={self.seconds:g}',
            "RateLimit": f'"{POLICY}";r={remaining};t={left}',
        }

    def _forget(self, now: float) -> None:
        """Drop the senders whose every message left the window (the dict stays small)."""
        for key in [k for k, v in self._said.items() if not v or v[-1] <= now - self.seconds]:
            del self._said[key]
