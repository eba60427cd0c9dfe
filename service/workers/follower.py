"""Followers of the log: what the service tells of every commit it hears.

The service listens to the event store's notifications (`infra.event_store.EventStore.listen`)
on one connection and hands each to its followers, in the order it keeps them: the command
services' caches first (`infra.streams.Streams`), so that whoever acts on a notification loads
what it announces, then the streams' hub and the workers (bots, turn clock, rounds). A
`Follower` is told two things:

- `Follower.heard`: an append committed ``stream_id`` up to ``version``, at global
  ``position``;
- `Follower.listening`: notifications are heard from now on (``True``: the connection is up
  again, and whatever was committed meanwhile went unheard), or no longer (``False``).

`Worker` is the follower of a worker that cares for one stream at a time: it is told which
stream to look at (`Worker.notify`) and, when appends may have gone unheard, to look at
everything it follows again (`Worker.wake_all`).
"""

from __future__ import annotations

from typing import Protocol


class Follower(Protocol):
    """Follows the commits the service hears (module docstring)."""

    def heard(self, stream_id: str, position: int, version: int) -> None:
        """An append committed ``stream_id`` up to ``version``, at global ``position``."""

    def listening(self, up: bool) -> None:
        """Notifications are heard from now on (``up``), or no longer."""


class Worker:
    """A follower that looks at one stream at a time (module docstring)."""

    def notify(self, stream_id: str) -> None:
        """Look at ``stream_id``: an append committed it."""
        raise NotImplementedError

    def wake_all(self) -> None:
        """Look at everything followed again: appends may have gone unheard."""
        raise NotImplementedError

    def heard(self, stream_id: str, position: int, version: int) -> None:
        self.notify(stream_id)

    def listening(self, up: bool) -> None:
        if up:
            self.wake_all()
