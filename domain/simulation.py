"""Play whole deals and sessions with players that choose from observations.

The driver behind property tests, the benchmark and bots. It stays pure: all
chance comes from the passed chooser (``random.Random`` fits); given the same
chooser state and players it produces the same events.

Each step gives every seat, in seat order 0-3, the chance to act on its own
observation; the first seat that returns a command acts. Off-turn seats may
only announce, so the seat to act always acts when nobody announces first.
Seats with no legal option are skipped without being asked (they could only
return an illegal command), which consumes no chance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import msgspec

from domain import session
from domain.commands import Command, DealCommand, DealSeeded, StartSession
from domain.deal import DealState
from domain.dealing import SEED_BYTES
from domain.events import Event
from domain.observations import Observation, Options, observe, options
from domain.players import Chooser, random_action
from domain.rule_set import DEFAULT, RuleSet
from domain.seats import SEATS, Seat
from domain.session import SessionState


class Chance(Chooser, Protocol):
    """A chooser that can also draw deal seeds, such as ``random.Random``."""

    def randbytes(self, n: int, /) -> bytes: ...


Player = Callable[[Observation, Chooser], DealCommand | None]
"""Picks a command for the viewing seat from its observation, or None to pass."""

Players = Player | Sequence[Player]
"""One player for all four seats, or one per seat (indexed by seat)."""


class Stuck(RuntimeError):
    """No seat acted although the deal is not finished: a player or rules bug."""


class Step(msgspec.Struct, frozen=True):
    """One accepted command: the state before, the events it caused, the state after."""

    before: SessionState
    command: Command
    events: tuple[Event, ...]
    after: SessionState


def apply(state: SessionState, command: Command) -> Step:
    """Decide a command against the session and fold its events (raises `DomainError`)."""
    events = session.decide(state, command)
    return Step(state, command, events, session.fold(events, state))


def _seat_players(players: Players) -> tuple[Player, ...]:
    if callable(players):
        return (players, players, players, players)
    if len(players) != len(SEATS):
        raise ValueError(f"one player per seat: expected {len(SEATS)}, got {len(players)}")
    return tuple(players)


_NO_OPTIONS = Options()


def next_command(
    deal: DealState, chooser: Chooser, players: Players = random_action
) -> DealCommand | None:
    """The command of the first seat (in seat order) that acts now; None if nobody does."""
    by_seat = _seat_players(players)
    for seat in SEATS:
        if options(deal, seat) == _NO_OPTIONS:
            continue
        command = by_seat[seat](observe(deal, seat), chooser)
        if command is not None:
            return command
    return None


def deal_steps(
    state: SessionState, chooser: Chance, players: Players = random_action
) -> Iterator[Step]:
    """Play the current deal to its score, dealing the next one first if none is open, and
    a void deal again from its own seed (V4.8).

    A new deal's seed is drawn from ``chooser`` (32 bytes). Yields every step.
    """
    by_seat = _seat_players(players)
    if state.deal is None or state.deal.score is not None:
        step = apply(state, DealSeeded(chooser.randbytes(SEED_BYTES)))
        yield step
        state = step.after
    deal = state.deal
    assert deal is not None
    while deal.score is None:
        command = _again(deal) if deal.void else next_command(deal, chooser, by_seat)
        if command is None:
            raise Stuck(f"deal {deal.deal_no}: nobody acts in phase {deal.phase.value}")
        step = apply(state, command)
        yield step
        state = step.after
        assert state.deal is not None
        deal = state.deal


def _again(deal: DealState) -> DealSeeded:
    """V4.8: the command that deals a void deal again: its own seed and entropy."""
    dealing = deal.dealing
    assert dealing.seed is not None  # the simulation deals from seeds
    entropy = tuple(bytes.fromhex(e) for e in dealing.entropy)
    return DealSeeded(bytes.fromhex(dealing.seed), entropy)


def session_steps(
    chooser: Chance, players: Players = random_action, rules: RuleSet = DEFAULT
) -> Iterator[Step]:
    """A whole session from scratch, played by ``rules``: the first dealer by lot, then
    every deal played out."""
    step = apply(SessionState(), StartSession(Seat(chooser.randrange(len(SEATS))), rules))
    yield step
    state = step.after
    while not state.finished:
        for step in deal_steps(state, chooser, players):
            yield step
        state = step.after


def play_deal(
    state: SessionState, chooser: Chance, players: Players = random_action
) -> tuple[SessionState, list[Event]]:
    """Play the open deal (or deal and play the next one); the state and the new events."""
    events: list[Event] = []
    for step in deal_steps(state, chooser, players):
        events.extend(step.events)
        state = step.after
    return state, events


def play_session(
    chooser: Chance, players: Players = random_action, rules: RuleSet = DEFAULT
) -> tuple[SessionState, list[Event]]:
    """Play a whole session by ``rules`` with chance from ``chooser`` (e.g.
    ``random.Random(seed)``)."""
    state = SessionState()
    events: list[Event] = []
    for step in session_steps(chooser, players, rules):
        events.extend(step.events)
        state = step.after
    return state, events
