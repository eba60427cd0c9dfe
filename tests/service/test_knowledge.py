"""The secrecy oracle itself (`tests.service.knowledge`): strict about event types, and
each rule as RULES.md states it, on hand-made events."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, get_args

import pytest

from domain.table import TableEvent
from tests.service.knowledge import (
    RULES,
    Log,
    UnknownEvent,
    differences,
    expected_actions,
    expected_view,
    feed_item,
    message,
    shown,
    with_server_time,
)

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
    hidden = {**named, "contract": None}
    assert [shown(named, v) for v in (None, 0, 1, 2, 3)] == [hidden] * 4 + [named]


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


def test_the_tables_life_is_public_but_the_invitation() -> None:
    """T1.1: the invitation hash is never shown, visibility and turn clock are; T2-T4:
    seats left, away and back, closing and abandoning are public."""
    created = {
        "type": "table_created",
        "name": "t",
        "server_seeds": [],
        "presets": [],
        "host_token_hash": "h",
        "visibility": "private",
        "invitation_hash": "i",
        "turn_seconds": 30,
    }
    for viewer in (None, 0, 3):
        assert shown(created, viewer) == {**created, "host_token_hash": "", "invitation_hash": ""}
    life: list[dict[str, Any]] = [
        {"type": "seat_left", "seat": 2, "name": "n", "by_host": False},
        {"type": "seat_away", "seat": 1},
        {"type": "seat_back", "seat": 1},
        {"type": "table_closed"},
        {"type": "session_abandoned", "deals": 0, "totals": [0, 0, 0, 0]},
    ]
    for event in life:
        assert [shown(event, v) for v in (None, 0, 1, 2, 3)] == [event] * 5


def test_a_timeouts_contract_reaches_its_seat_only() -> None:
    """T3.2, R4.3: the stand-in's contract is the seat's secret (others see a null action);
    its declaration or card is public."""
    named = {
        "type": "turn_timed_out",
        "seat": 1,
        "deal_no": 1,
        "action": {"command": "name_contract", "seat": 1, "contract": "queen_solo"},
        "deadline": "2000-01-01T00:00:30Z",
        "at": "2000-01-01T00:00:30Z",
    }
    hidden = {**named, "action": None}
    assert [shown(named, v) for v in (None, 0, 1, 2, 3)] == [hidden, hidden, named, hidden, hidden]
    card = {**named, "action": {"command": "play_card", "seat": 1, "card": "QC"}}
    assert [shown(card, v) for v in (None, 0, 1, 2, 3)] == [card] * 5


def test_the_chain_head_is_on_scored_deals_and_the_sessions_end_only() -> None:
    """Witnesses: deal_scored and session_finished messages carry the chain head, no other;
    the feed has nothing of a private table (T1.1)."""
    scored = {"type": "deal_scored", "deal_no": 1, "score": {}}
    finished = {"type": "session_finished", "winners": [0]}
    card = {"type": "card_played", "seat": 0, "card": "QC"}
    assert message(scored, 2, "ab") == {**scored, "chain_head": "ab"}
    assert message(finished, None, "cd") == {**finished, "chain_head": "cd"}
    assert message(card, None, "ab") == card
    public = {"type": "table_created", "visibility": "public"}
    assert feed_item(public, "t1", 7, scored, "ab") == {
        "table_id": "t1",
        "version": 7,
        "event": scored,
        "chain_head": "ab",
    }
    assert feed_item(public, "t1", 8, card, "ab") == {"table_id": "t1", "version": 8, "event": card}
    assert feed_item({**public, "visibility": "private"}, "t1", 7, scored, "ab") is None
    named = {"type": "contract_named", "seat": 0, "contract": "jack_solo"}
    assert feed_item(public, "t1", 9, named, "ab") == {
        "table_id": "t1",
        "version": 9,
        "event": {**named, "contract": None},  # R4.3: that seat 0 named one
    }


def _life() -> list[dict[str, Any]]:
    """A clocked table: four seated, deal 1 dealt, a timeout (seat 1's third: away), a
    player leaves (vacant) and a newcomer takes the seat."""
    hands = [[f"{r}{s}" for r in "AK"] for s in "CSHD"]
    played = {"command": "play_card", "seat": 1, "card": "AS"}
    return [
        {
            "type": "table_created",
            "name": "life",
            "first_dealer": 0,
            "commitments": ["c"],
            "server_seeds": ["5e"],
            "presets": [],
            "shared_seeds": False,
            "host_token_hash": "h",
            "visibility": "public",
            "invitation_hash": "",
            "turn_seconds": 30,
        },
        *(
            {"type": "seat_taken", "seat": s, "name": f"p{s}", "token_hash": f"t{s}", "bot": ""}
            for s in range(4)
        ),
        {"type": "session_started", "first_dealer": 0, "deals": 12},
        {"type": "deal_dealt", "deal_no": 1, "dealer": 0, "hands": hands, "dealing": {}},
        {"type": "turn_timed_out", "seat": 1, "deal_no": 1, "action": played},
        {"type": "seat_away", "seat": 1},
        {"type": "card_played", "seat": 1, "card": "AS"},
        {"type": "seat_left", "seat": 3, "name": "p3", "by_host": False},
        {"type": "seat_taken", "seat": 3, "name": "new", "token_hash": "t9", "bot": ""},
    ]


def test_a_views_life_fields_follow_the_log() -> None:
    """T2.2, T3.1-T3.3: seat status (free, seated, away, vacant), table status, visibility,
    turn clock (an away seat's grace is 0, the deadline follows the last event), and who
    played the deal (the newcomer after the leaver); a timeout's action is found taken."""
    log = Log(_life())
    at = datetime(2000, 1, 1, tzinfo=UTC)
    opened = expected_view(log.facts[2], None, None, at)
    assert [s["status"] for s in opened["seats"]] == ["seated", "free", "free", "free"]
    assert (opened["status"], opened["visibility"], opened["turn_seconds"]) == (
        "open",
        "public",
        30,
    )
    assert opened["clock"] is None
    dealt = expected_view(log.facts[7], 0, 1, at)
    assert dealt["status"] == "playing"
    assert dealt["clock"] == {"seat": 1, "seconds": 30, "deadline": "2000-01-01T00:00:30Z"}
    away = expected_view(log.facts[9], 0, 1, at)
    assert [s["status"] for s in away["seats"]] == ["seated", "away", "seated", "seated"]
    assert away["clock"] == {"seat": 1, "seconds": 0, "deadline": "2000-01-01T00:00:00Z"}
    left = expected_view(log.facts[11], None, 2, None)
    assert left["seats"][3] == {"seat": 3, "name": None, "bot": None, "status": "vacant"}
    assert left["clock"] == {"seat": 2, "seconds": 30, "deadline": None}
    deal = log.facts[12].deal
    assert deal is not None and deal.played_by == [["p0"], ["p1"], ["p2"], ["p3", "new"]]
    assert log.taken_at(8) == 10
    assert log.secrets(12) == {"h", "t0", "t1", "t2", "t3", "t9", "5e"}


def test_the_life_actions_and_the_server_time_follow_the_log() -> None:
    """T2.3, T3.3, T2.4, T4.1, T4.2, T1.2 on the log of `_life`: seat 1, to act, may not
    leave; after its timeouts it may come back; the host may vacate only the away seat
    and abandon; a spectator has no action. Any UTC time is the service's to tell."""
    log = Log(_life())

    def allowed(actions: list[dict[str, Any]]) -> list[tuple[str, int | None, bool]]:
        return [(a["action"], a["seat"], a["allowed"]) for a in actions]

    dealt = log.facts[7]
    assert allowed(expected_actions(dealt, 1, False, 1)) == [
        ("leave", None, False),
        ("come_back", None, False),
    ]
    assert expected_actions(dealt, 1, False, 1)[0]["rule"] == "T2.3"
    away = log.facts[10]  # seat 1's card played for it; seat 2 to act
    assert allowed(expected_actions(away, 1, True, 2)) == [
        ("leave", None, True),
        ("come_back", None, True),
        ("vacate", 0, False),
        ("vacate", 1, True),
        ("vacate", 2, False),
        ("vacate", 3, False),
        ("close", None, False),
        ("abandon", None, True),
        ("rotate_invitation", None, False),
    ]
    assert expected_actions(away, None, False, 2) == []
    opened = expected_actions(log.facts[2], 0, True, None)
    assert [(a["code"], a["rule"]) for a in opened if not a["allowed"]] == [
        ("phase_closed", "T3.3"),
        ("seat_occupied", "T2.4"),
        ("seat_vacant", "T2.1"),
        ("seat_vacant", "T2.1"),
        ("seat_vacant", "T2.1"),
        ("phase_closed", "T4.2"),
        ("table_public", "T1.2"),
    ]
    card = {"type": "card_played", "seat": 0, "card": "QC"}
    told = {**card, "server_time": "2026-12-01T12:00:00.5Z"}
    assert with_server_time(card, told) == told
    assert with_server_time(card, {**card, "server_time": "2026-12-01T13:00:00+01:00"}) != told
    assert with_server_time(None, told) is None


def test_a_timeout_whose_action_is_not_taken_is_found() -> None:
    events = _life()
    events[9] = {**events[9], "card": "KS"}
    assert Log(events).taken_at(8) is None


def test_an_abandoned_session_keeps_the_totals_of_its_scored_deals() -> None:
    """T4.2: abandoning ends the table (no clock) with the deals scored so far."""
    events = [*_life()[:7], {"type": "session_abandoned", "deals": 0, "totals": [0, 0, 0, 0]}]
    view = expected_view(Log(events).facts[8], None, 1, datetime(2000, 1, 1, tzinfo=UTC))
    assert (view["status"], view["clock"], view["winners"]) == ("abandoned", None, None)
    wrong = [*events[:7], {"type": "session_abandoned", "deals": 1, "totals": [0, 0, 0, 0]}]
    with pytest.raises(AssertionError):
        Log(wrong)
