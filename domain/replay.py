"""Audit replay: re-decide every recorded action and compare with the stored events.

`replay` returns the state, the length of the valid prefix and the first error,
as a tournament director needs it: play while valid (R1-R10 all re-checked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

import msgspec

from domain import session, table
from domain.commands import (
    Announce,
    AnswerPoverty,
    DealPreset,
    DealSeeded,
    Declare,
    NameContract,
    PlayCard,
    ReturnPoverty,
    ShowSchweinchen,
    StartSession,
)
from domain.errors import DomainError
from domain.events import (
    Announced,
    CardPlayed,
    ContractNamed,
    DealDealt,
    Declared,
    PovertyAnswered,
    PovertyReturned,
    SchweinchenShown,
    SessionStarted,
)
from domain.rule_set import in_force


class ReplayMismatch(DomainError):
    """A stored event is not what the rules produce at that point."""

    code = "replay_mismatch"


S = TypeVar("S")


class Replay(msgspec.Struct, Generic[S], frozen=True):
    """The outcome of an audit replay: ``valid`` events were confirmed before ``error``."""

    state: S
    valid: int
    error: DomainError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def command_of(event: table.TableEvent) -> table.TableCommand | None:
    """The command that a recorded action event answers; None for derived events.

    A timeout is re-decided with the deadline and the clock reading it recorded, so the
    stand-in's action is chosen again (T3.2); `SeatAway` is derived from it (T3.3). A
    `SeatBack` answers `ComeBack`, whether the player said so or acted (the action's
    events then follow as its own command's).
    """
    if isinstance(event, CardPlayed):
        return PlayCard(event.seat, event.card)
    if isinstance(event, Announced):
        return Announce(event.seat, event.word)
    if isinstance(event, SchweinchenShown):
        return ShowSchweinchen(event.seat)
    if isinstance(event, PovertyAnswered):
        return AnswerPoverty(event.seat, event.accepted)
    if isinstance(event, PovertyReturned):  # cards the log does not name are no action
        return None if event.cards is None else ReturnPoverty(event.seat, event.cards)
    if isinstance(event, Declared):
        return Declare(event.seat, event.declaration)
    if isinstance(event, ContractNamed):  # a contract the log does not name is no action
        return None if event.contract is None else NameContract(event.seat, event.contract)
    if isinstance(event, table.SeatTaken):
        entropy = bytes.fromhex(event.entropy)
        return table.TakeSeat(event.name, event.token_hash, event.seat, entropy, event.bot)
    if isinstance(event, table.TableCreated):
        seeds = tuple(bytes.fromhex(s) for s in event.server_seeds)
        return table.CreateTable(
            event.name,
            event.first_dealer,
            seeds,
            event.presets,
            event.first_dealer_fixed,
            event.host_token_hash,
            event.shared_seeds,
            event.visibility,
            event.invitation_hash,
            event.turn_seconds,
            event.rule_set,
        )
    if isinstance(event, table.SeatLeft):
        return table.LeaveSeat(event.seat, event.by_host)
    if isinstance(event, table.InvitationRotated):
        return table.RotateInvitation(event.invitation_hash)
    if isinstance(event, table.TurnTimedOut):
        return table.TimeOut(event.seat, event.deadline, event.at)
    if isinstance(event, table.SeatBack):
        return table.ComeBack(event.seat)
    if isinstance(event, table.TableClosed):
        return table.CloseTable()
    if isinstance(event, table.SessionAbandoned):
        return table.AbandonSession()
    if isinstance(event, SessionStarted):
        return StartSession(event.first_dealer, in_force(event.rules))
    if isinstance(event, DealDealt):
        if event.dealing.method == "seeded" and event.dealing.seed is not None:
            mixed = tuple(bytes.fromhex(e) for e in event.dealing.entropy)
            return DealSeeded(bytes.fromhex(event.dealing.seed), mixed)
        return DealPreset(event.hands)
    return None


class Aggregate(NamedTuple, Generic[S]):
    """An aggregate's empty state, its decide and evolve functions, and the command that a
    recorded event answers (None for an event derived from another's command)."""

    initial: S
    decide: Callable[[S, Any], tuple[Any, ...]]
    evolve: Callable[[S, Any], S]
    command_of: Callable[[Any], Any | None] = command_of


SESSION = Aggregate(session.SessionState(), session.decide, session.evolve)
TABLE = Aggregate(table.TableState(), table.decide, table.evolve)


def replay(events: Sequence[Any], aggregate: Aggregate[S] = SESSION) -> Replay[S]:  # type: ignore[assignment]
    """Re-run the rules over stored events; stop at the first event they do not produce.

    ``aggregate`` is `SESSION` for a bare session's events, `TABLE` for a table's whole
    stream, or another aggregate's (`domain.tournament.TOURNAMENT`).
    """
    state = aggregate.initial
    i = 0
    while i < len(events):
        command = aggregate.command_of(events[i])
        if command is None:
            return Replay(state, i, _mismatch(i, events[i], "an action"))
        try:
            expected = aggregate.decide(state, command)
        except DomainError as error:
            return Replay(state, i, error)
        for offset, want in enumerate(expected):
            at = i + offset
            if at >= len(events):
                return Replay(state, i, _missing(at, want))
            if events[at] != want:
                return Replay(state, i, _mismatch(at, events[at], repr(want)))
        for event in expected:
            state = aggregate.evolve(state, event)
        i += len(expected)
    return Replay(state, i, None)


def _missing(index: int, want: object) -> ReplayMismatch:
    return ReplayMismatch(
        f"the log ends at event {index}; the rules produce {want!r}", rule="audit"
    )


def _mismatch(index: int, got: object, want: str) -> ReplayMismatch:
    return ReplayMismatch(
        f"event {index + 1} is {got!r}; the rules produce {want} there", rule="audit"
    )
