"""A table's stream as the domain renders it (`domain.table_view.redact` and `prompt`): every
event reaches every viewer, and every turn is announced.

Whole random sessions of every game type (`domain.simulation`: the rare seeds of
`tests.domain.test_properties` and more) are played on a table; every viewer (each seat and
a spectator) is rendered each event with what the table asks once it happened, as the table
stream sends them. For every viewer:

* every event is shown, in order (a stream's ids are every version: no gap); a contract
  another seat named is shown as that seat having named one, with ``contract`` null (R4.3);
  a silent solo is a normal game to all but its soloist (R4.5);
* in every message, ``turn`` is the seat the rules have to act then, and a seat's
  ``options`` offer a turn's action (declare R4.1, name R4.2, play R3.6) exactly when that
  seat is the one;
* after every command (where a client acts: its view is of such a moment), the last message
  told the viewer what its view says: whose turn it is and, for a seat, everything it may
  do, the words it may announce with their deadlines included (R6). So a client that reads
  only its stream learns that it must act, and what it may say while it still may.
"""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest

from domain import table
from domain.commands import Declaration, Declare, NameContract
from domain.events import ContractNamed, DealScored, GameTypeFixed
from domain.game_types import GameType
from domain.observations import Options
from domain.replay import replay
from domain.seats import SEATS, Seat
from domain.simulation import session_steps
from domain.table import SeatTaken, TableCreated, TableEvent, TableState, TurnTimedOut
from domain.table_view import Prompt, prompt, redact, table_view
from tests.domain.test_properties import GAME_KINDS, RARE_SEEDS, kind
from tests.domain.test_table import run, seated, time_out

VIEWERS: tuple[Seat | None, ...] = (None, *SEATS)
ORDER = (Seat.EAST, Seat.SOUTH, Seat.WEST, Seat.NORTH)
"""R4.1: who declares, in turn, at `tests.domain.test_table.seated` (NORTH deals)."""
RESERVATION, HEALTHY = Declaration.RESERVATION, Declaration.HEALTHY
SESSIONS = (*RARE_SEEDS, *range(24))
"""Enough sessions for every game type (checked below)."""
SEATED = table.fold(
    [TableCreated("t", Seat.NORTH), *(SeatTaken(s, f"p{s}", f"h{s}") for s in SEATS)]
)
"""A table whose four seats are taken; the session's events come from the simulation."""


def acts(options: Options | None) -> bool:
    """Whether the options offer a turn's action (declare, name a contract, play)."""
    return options is not None and bool(options.declarations or options.contracts or options.cards)


def expected_at_rest(state: TableState, viewer: Seat | None) -> Prompt:
    """What the viewer's view says of the moment: whose turn, and the seat's options."""
    view = table_view(state, viewer)
    deal = view.deal
    if viewer is None:
        return Prompt(state.turn, None, None)
    if deal is None or state.over:
        return Prompt(state.turn, None, Options())
    return Prompt(deal.turn, None, deal.options)


def check_session(seed: int, kinds: Counter[str]) -> None:
    state = SEATED
    shown: dict[Seat | None, list[tuple[TableEvent, Prompt]]] = {v: [] for v in VIEWERS}
    logged: list[TableEvent] = []
    for step in session_steps(random.Random(seed)):
        for event in step.events:
            state = table.evolve(state, event)
            logged.append(event)
            for viewer in VIEWERS:
                asked = prompt(state, viewer)
                shown[viewer].append((redact(event, viewer), asked))
                assert asked.turn == state.turn, (seed, len(logged), viewer)
                if viewer is not None:
                    assert acts(asked.options) == (state.turn is viewer), (seed, len(logged))
            if isinstance(event, DealScored):
                kinds[kind(event.score)] += 1
        for viewer in VIEWERS:  # the moment a client acts on: the last message said it all
            assert shown[viewer][-1][1] == expected_at_rest(state, viewer), (seed, viewer)
    for viewer in VIEWERS:
        messages = shown[viewer]
        assert [type(e) for e, _ in messages] == [type(e) for e in logged], "no event left out"
        for (seen, _), event in zip(messages, logged, strict=True):
            if isinstance(event, ContractNamed) and event.seat is not viewer:
                assert seen == ContractNamed(event.seat, None), "R4.3"
            elif (
                isinstance(event, GameTypeFixed)
                and event.game_type is GameType.SILENT_SOLO
                and event.declarer is not viewer
            ):
                assert seen == GameTypeFixed(GameType.NORMAL, None), "R4.5"


@pytest.mark.long
@pytest.mark.no_cover  # every line it runs the rule tests reach; tracing them doubled it
def test_every_viewer_is_shown_every_event_and_told_every_turn() -> None:
    kinds: Counter[str] = Counter()
    for seed in SESSIONS:
        check_session(seed, kinds)
    assert set(kinds) == set(GAME_KINDS), f"not played: {set(GAME_KINDS) - set(kinds)}"


def test_a_contract_named_by_another_seat_is_shown_without_it() -> None:
    """R4.3: the namer sees its contract; every other viewer that the seat named one."""
    named = ContractNamed(Seat.EAST, GameType.MARRIAGE)
    assert redact(named, Seat.EAST) == named
    for viewer in (None, Seat.NORTH, Seat.SOUTH, Seat.WEST):
        assert redact(named, viewer) == ContractNamed(Seat.EAST, None)


def test_a_log_whose_contract_is_not_named_does_not_replay() -> None:
    """What others are shown is no log: a `ContractNamed` without its contract is no action,
    and the audit replay stops at it."""
    events = []
    for step in session_steps(random.Random(RARE_SEEDS[0])):
        events.extend(step.events)
        if any(isinstance(e, ContractNamed) for e in step.events):
            break
    assert replay(events).ok
    at = next(i for i, e in enumerate(events) if isinstance(e, ContractNamed))
    shown = [*events[:at], redact(events[at], None), *events[at + 1 :]]
    audit = replay(shown)
    assert audit.valid == at and audit.error is not None and audit.error.rule == "audit"


def test_a_contract_the_stand_in_named_is_hidden_in_the_timeout_and_in_its_event() -> None:
    """T3.2, R4.3: EAST said reservation and its time ran out at its contract: the stand-in
    names one. Every other viewer is shown the timeout with ``action`` null and that EAST named
    a contract, without it; EAST is shown both as they are."""
    state, _ = run(
        seated(),
        *(
            Declare(s, d)
            for s, d in zip(ORDER, (RESERVATION, HEALTHY, HEALTHY, HEALTHY), strict=True)
        ),
    )
    assert state.turn is Seat.EAST and state.session.deal is not None
    events = table.decide(state, time_out(state))
    timed, named = events[0], events[1]
    assert isinstance(timed, TurnTimedOut) and isinstance(named, ContractNamed)
    assert isinstance(timed.action, NameContract) and named.contract is timed.action.contract
    assert (redact(timed, Seat.EAST), redact(named, Seat.EAST)) == (timed, named)
    for viewer in (None, Seat.NORTH, Seat.SOUTH, Seat.WEST):
        hidden = (msgspec.structs.replace(timed, action=None), ContractNamed(Seat.EAST, None))
        assert (redact(timed, viewer), redact(named, viewer)) == hidden


def test_nobody_is_asked_to_declare_between_the_fourth_declaration_and_the_game_type() -> None:
    """R4.1: each seat declares once, in turn. The fourth declaration's command also fixes the
    game type; its own message (the state after `Declared`, before `GameTypeFixed`) asks
    nobody to act: the first declarer is not asked to declare a fifth time."""
    state = seated()
    declarations = (
        Declare(ORDER[0], HEALTHY),
        Declare(ORDER[1], HEALTHY),
        Declare(ORDER[2], HEALTHY),
    )
    state, _ = run(state, *declarations)
    events = table.decide(state, Declare(ORDER[3], HEALTHY))
    assert len(events) > 1, "the fourth declaration fixes the game type in the same command"
    after_fourth = table.evolve(state, events[0])
    for viewer in VIEWERS:
        asked = prompt(after_fourth, viewer)
        assert asked.turn is None, viewer
        assert not acts(asked.options), viewer
