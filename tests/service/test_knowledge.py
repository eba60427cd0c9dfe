"""The secrecy oracle itself (`tests.service.knowledge`): strict about event types, and
each rule as RULES.md states it, on hand-made events."""

from __future__ import annotations

from typing import get_args

import pytest

from domain.table import TableEvent
from tests.service.knowledge import RULES, Log, UnknownEvent, differences, shown

HANDS = [[f"{r}{s}" for r in ("A", "K")] for s in "CSHD"]


def test_the_oracle_has_a_rule_for_every_table_event_and_no_other() -> None:
    """A new event type fails here until the oracle is taught what each viewer sees of it."""
    tags = {member.__struct_config__.tag for member in get_args(TableEvent)}
    assert set(RULES) == tags


def test_an_event_type_the_oracle_does_not_know_fails() -> None:
    with pytest.raises(UnknownEvent, match="no rule for event type 'table_renamed'"):
        shown({"type": "table_renamed", "name": "x"}, None)
    with pytest.raises(UnknownEvent):
        Log([{"type": "table_renamed", "name": "x"}])


def test_secrets_are_blanked_hands_and_contracts_go_to_their_owners() -> None:
    created = {
        "type": "table_created",
        "name": "t",
        "server_seeds": ["aa"],
        "presets": [HANDS],
        "host_token_hash": "h",
        "commitments": ["c"],
    }
    assert shown(created, None) == {
        **created,
        "server_seeds": [],
        "presets": [],
        "host_token_hash": "",
    }
    taken = {"type": "seat_taken", "seat": 1, "name": "n", "token_hash": "t", "entropy": "01"}
    assert shown(taken, 1) == {**taken, "token_hash": ""}
    dealt = {
        "type": "deal_dealt",
        "deal_no": 1,
        "dealer": 0,
        "hands": HANDS,
        "dealing": {"method": "seeded", "seed": "ab", "commitment": "cd"},
    }
    mine = shown(dealt, 2)
    assert mine is not None
    assert mine["hands"] == [[], [], HANDS[2], []]
    assert mine["dealing"] == {"method": "seeded", "seed": None, "commitment": "cd"}
    assert shown(dealt, None)["hands"] == [[], [], [], []]  # type: ignore[index]
    named = {"type": "contract_named", "seat": 3, "contract": "jack_solo"}
    assert [shown(named, v) for v in (None, 0, 1, 2, 3)] == [None] * 4 + [named]


def test_a_silent_solo_is_a_normal_game_to_all_but_its_soloist() -> None:
    fixed = {"type": "game_type_fixed", "game_type": "silent_solo", "declarer": 2}
    normal = {"type": "game_type_fixed", "game_type": "normal", "declarer": None}
    assert [shown(fixed, v) for v in (None, 0, 1, 2, 3)] == [normal] * 3 + [fixed, normal]
    solo = {"type": "game_type_fixed", "game_type": "jack_solo", "declarer": 2}
    assert shown(solo, None) == solo


def test_differences_name_every_field_that_differs() -> None:
    assert differences({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) == []
    assert differences({"a": [1, {"b": 3}], "c": 0}, {"a": [1, {"b": 2}], "d": 0}) == [
        "$.a[1].b: got 3, expected 2",
        "$.c: unexpected field 0",
        "$.d: missing (expected 0)",
    ]
    assert differences([1, 2], [1]) == ["$: got [1, 2], expected [1]"]
    assert differences(True, 1) == ["$: got True, expected 1"]
