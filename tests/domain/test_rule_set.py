"""The table's rule set: RULES.md by default, recorded only when it differs, replayed as
recorded (domain/rule_set.py)."""

from __future__ import annotations

import random

import msgspec
import pytest

from domain import table
from domain.events import SessionStarted
from domain.replay import TABLE, replay
from domain.rule_set import DEFAULT, RuleSet, in_force, recorded
from domain.seats import Seat
from domain.table import CreateTable, TableCreated, TableState, TakeSeat
from domain.table_view import table_view
from domain.tournament import TOURNAMENT, RegisterPlayer, StartRound
from domain.tournament_tables import table_commands
from domain.variants.armut import ArmutRefused
from domain.variants.second_heart_ten import SecondHeartTen
from tests.domain.test_tournament import create, played_hands, run
from tests.domain.test_tournament import recorded as tournament_log
from tests.domain.test_tournament import seated as tournament_table

V2 = RuleSet(second_heart_ten=SecondHeartTen.ALWAYS)
SEEDS = tuple(bytes([n]) * 32 for n in range(12))


def test_the_default_is_recorded_as_nothing_and_read_back_as_the_default() -> None:
    """A default table's events are byte for byte those of a table before rule sets; a log
    without a rule set plays by RULES.md."""
    assert recorded(DEFAULT) is msgspec.UNSET and in_force(msgspec.UNSET) == DEFAULT
    assert msgspec.json.encode(SessionStarted(Seat.EAST, 12, recorded(DEFAULT))) == (
        b'{"type":"session_started","first_dealer":1,"deals":12}'
    )
    old = msgspec.json.decode(b'{"type":"session_started","first_dealer":1}', type=SessionStarted)
    assert in_force(old.rules) == DEFAULT
    assert msgspec.json.encode(DEFAULT) == b"{}"


def test_a_rule_set_is_recorded_with_its_options_only() -> None:
    assert msgspec.json.encode(SessionStarted(Seat.EAST, 12, recorded(V2))) == (
        b'{"type":"session_started","first_dealer":1,"deals":12,'
        b'"rules":{"second_heart_ten":"always"}}'
    )
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"second_heart_ten":"sometimes"}', type=RuleSet)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"pflichtsolo":true}', type=RuleSet)


@pytest.mark.parametrize(
    ("rules", "encoded", "variants"),
    [
        (RuleSet(armut=True), b'{"armut":true}', ("V4.1",)),
        (
            RuleSet(armut=True, armut_refused=ArmutRefused.REDEAL),
            b'{"armut":true,"armut_refused":"redeal"}',
            ("V4.1", "V4.8"),
        ),
    ],
    ids=["V4.7-play-on-is-the-default", "V4.8-redeal"],
)
def test_the_armut_refused_option_is_recorded_only_when_it_deals_again(
    rules: RuleSet, encoded: bytes, variants: tuple[str, ...]
) -> None:
    assert msgspec.json.encode(rules) == encoded
    assert rules.variants == variants
    assert msgspec.json.decode(encoded, type=RuleSet) == rules


def seated(command: CreateTable) -> tuple[TableState, list[table.TableEvent]]:
    """The table after its creation and four players sitting down (the session started)."""
    state, events = TableState(), []
    for step in (command, *(TakeSeat(f"p{s}", f"h{s}", Seat(s)) for s in range(4))):
        new = table.decide(state, step)
        events.extend(new)
        state = table.fold(new, state)
    return state, events


@pytest.mark.parametrize("rules", [DEFAULT, V2], ids=["default", "V2.1"])
def test_the_table_records_its_rule_set_and_its_session_and_deals_play_by_it(
    rules: RuleSet,
) -> None:
    """Created with a rule set, the table's first event and the session's first event record
    it, the deals play by it, the view shows it, and the audit replay re-decides it."""
    state, events = seated(CreateTable("t", Seat.NORTH, server_seeds=SEEDS, rules=rules))
    created = events[0]
    assert isinstance(created, TableCreated) and created.rule_set == rules
    (started,) = [e for e in events if isinstance(e, SessionStarted)]
    assert in_force(started.rules) == rules
    assert ("rules" in msgspec.to_builtins(started)) is (rules != DEFAULT)
    assert state.session.rules == rules
    assert state.session.deal is not None and state.session.deal.rules == rules
    for viewer in (None, Seat.EAST):
        view = table_view(state, viewer)
        assert in_force(view.rules) == rules and view.deal is not None
        assert in_force(view.deal.rules) == rules
        shown = msgspec.to_builtins(view)
        assert ("rules" in shown) is ("rules" in shown["deal"]) is (rules != DEFAULT)
    audit = replay(events, TABLE)
    assert audit.ok and audit.state == state


def test_a_replay_under_other_rules_than_recorded_fails() -> None:
    """A log whose session records V2.1 while its table records none is not what the
    rules produce: the audit stops at the session's first event."""
    _, events = seated(CreateTable("t", Seat.NORTH, server_seeds=SEEDS, rules=V2))
    created = events[0]
    assert isinstance(created, TableCreated)
    forged = [msgspec.structs.replace(created, rules=msgspec.UNSET), *events[1:]]
    audit = replay(forged, TABLE)
    index = next(i for i, e in enumerate(events) if isinstance(e, SessionStarted))
    assert not audit.ok and audit.valid == index - 1


def test_a_tournament_passes_its_rule_set_to_every_table() -> None:
    """A tournament created with a rule set records it (left out for the default) and
    opens every table with it; the tables play and replay by it, the tournament replays."""
    names = [RegisterPlayer(f"player {n}", f"token {n}") for n in range(8)]
    commands = (create(1, rules=V2), *names, StartRound(1))
    state = run(*commands)
    assert state.created is not None and state.created.rules == V2
    assert run(create(1)).created is not None
    assert "rules" not in msgspec.to_builtins(run(create(1)).created)
    for table_no in (1, 2):
        command, _ = table_commands(state, 1, table_no, "greedy")
        assert command.rules == V2
        at = tournament_table(state, 1, table_no)
        assert at.session.rules == V2
        played_hands(at, random.Random(table_no))
    events = tournament_log(*commands)
    assert replay(events, TOURNAMENT).ok
