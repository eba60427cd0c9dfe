"""Audit replay: re-decide every recorded action and compare with the stored events.

`replay` returns the state, the length of the valid prefix and the first error,
as a tournament director needs it: play while valid (R1-R10 all re-checked).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain import session
from domain.commands import (
    Announce,
    Command,
    DealPreset,
    DealSeeded,
    Declare,
    NameContract,
    PlayCard,
    StartSession,
)
from domain.errors import DomainError
from domain.events import (
    Announced,
    CardPlayed,
    ContractNamed,
    DealDealt,
    Declared,
    Event,
    SessionStarted,
)


class ReplayMismatch(DomainError):
    """A stored event is not what the rules produce at that point."""

    code = "replay_mismatch"


class Replay(msgspec.Struct, frozen=True):
    """The outcome of an audit replay: ``valid`` events were confirmed before ``error``."""

    state: session.SessionState
    valid: int
    error: DomainError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def command_of(event: Event) -> Command | None:
    """The command that a recorded action event answers; None for derived events."""
    if isinstance(event, CardPlayed):
        return PlayCard(event.seat, event.card)
    if isinstance(event, Announced):
        return Announce(event.seat, event.word)
    if isinstance(event, Declared):
        return Declare(event.seat, event.declaration)
    if isinstance(event, ContractNamed):
        return NameContract(event.seat, event.contract)
    if isinstance(event, SessionStarted):
        return StartSession(event.first_dealer)
    if isinstance(event, DealDealt):
        if event.dealing.method == "seeded" and event.dealing.seed is not None:
            return DealSeeded(bytes.fromhex(event.dealing.seed))
        return DealPreset(event.hands)
    return None


def replay(events: Sequence[Event], state: session.SessionState | None = None) -> Replay:
    """Re-run the rules over stored events; stop at the first event they do not produce."""
    state = state or session.SessionState()
    i = 0
    while i < len(events):
        command = command_of(events[i])
        if command is None:
            return Replay(state, i, _mismatch(i, events[i], "an action"))
        try:
            expected = session.decide(state, command)
        except DomainError as error:
            return Replay(state, i, error)
        for offset, want in enumerate(expected):
            at = i + offset
            if at >= len(events):
                return Replay(state, i, _missing(at, want))
            if events[at] != want:
                return Replay(state, i, _mismatch(at, events[at], repr(want)))
        state = session.fold(expected, state)
        i += len(expected)
    return Replay(state, i, None)


def _missing(index: int, want: Event) -> ReplayMismatch:
    return ReplayMismatch(
        f"the log ends at event {index}; the rules produce {want!r}", rule="audit"
    )


def _mismatch(index: int, got: Event, want: str) -> ReplayMismatch:
    return ReplayMismatch(
        f"event {index + 1} is {got!r}; the rules produce {want} there", rule="audit"
    )
