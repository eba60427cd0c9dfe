"""Examples of the tournaments' routes for the OpenAPI document, rendered by the real domain from
a fixed tournament: six players registered for two rounds, round 1 started (two tables, a bot
on each), table 1 has scored deals 1 and 2, table 2 deal 1.

Deterministic (fixed seeds, fixed names), so the exported document is stable.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
from litestar.openapi.spec import Example

from domain import tournament
from domain.standings import TableSheet, standings
from domain.tournament import (
    CreateTournament,
    RegisterPlayer,
    StandingsMethod,
    StartRound,
    TournamentState,
)
from domain.tournament_view import player_seat, tournament_view
from domain.variants.duty_solo import DEALS
from service.bodies.tournaments import TableProgress, TournamentAnswer
from service.edge.problems import example_problem

TOURNAMENT_ID = "7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f"
NAMES = ("Anna", "Ben", "Carla", "Dieter", "Eva", "Fritz")
ROUNDS = 2


def _seed(label: str) -> bytes:
    return hashlib.sha256(f"doko example tournament {label}".encode()).digest()


def _decided(state: TournamentState, command: tournament.TournamentCommand) -> TournamentState:
    return tournament.fold(tournament.decide(state, command), state)


CREATED_STATE = _decided(
    TournamentState(),
    CreateTournament(
        "Friday club",
        ROUNDS,
        "-",
        _seed("seating"),
        tuple(tuple(_seed(f"{r}:{d}") for d in range(DEALS)) for r in range(ROUNDS)),
        turn_seconds=60,
        method=StandingsMethod.TOTAL_POINTS,
    ),
)
REGISTERED_STATE = CREATED_STATE
for _n, _name in enumerate(NAMES):
    REGISTERED_STATE = _decided(REGISTERED_STATE, RegisterPlayer(_name, f"-{_n}"))
STARTED_STATE = _decided(REGISTERED_STATE, StartRound(1))
"""The example tournament: created, its six players registered, round 1 started."""
SHEETS = (
    TableSheet(1, 1, ((3, -1, -1, -1), (-2, 2, 2, -2))),
    TableSheet(1, 2, ((-1, 3, -1, -1),)),
)
"""The scoresheets so far (by deal, by seat) of the example's two tables."""
STARTED_VERSION = 2 + len(NAMES)


def _examples(summary: str, value: Any) -> list[Example]:
    return [Example(summary=summary, value=msgspec.to_builtins(value))]


def _view(state: TournamentState, version: int, sheets: tuple[TableSheet, ...] = SHEETS) -> Any:
    """The tournament's answer, its running round's tables having scored ``sheets``."""
    progress = tuple(
        TableProgress(s.table_no, f"{TOURNAMENT_ID}-r1t{s.table_no}", len(s.entries), s.over)
        for s in sheets
        if state.running
    )
    return TournamentAnswer(TOURNAMENT_ID, version, tournament_view(state), progress)


CREATED = _examples(
    "a new public tournament",
    {
        "tournament_id": TOURNAMENT_ID,
        "host_token": "h0st-t0ken-shown-once",
        "tournament": _view(CREATED_STATE, 1),
        "invitation": None,
    },
)
TOURNAMENT = _examples("round 1 running", _view(STARTED_STATE, STARTED_VERSION))
REGISTERED = _examples(
    "player 5 registered",
    {
        "tournament_id": TOURNAMENT_ID,
        "player": len(NAMES) - 1,
        "name": NAMES[-1],
        "token": "t0urnament-credent1al-shown-once",
        "version": 1 + len(NAMES),
    },
)
_SITS = player_seat(STARTED_STATE, 0)
assert _SITS is not None
_WHERE = {
    "tournament_id": TOURNAMENT_ID,
    "player": 0,
    "name": NAMES[0],
    "status": "playing",
    "round_no": 1,
    "table_id": f"{TOURNAMENT_ID}-r1t{_SITS.table_no}",
    "table_no": _SITS.table_no,
    "seat": int(_SITS.seat),
    "table_open": True,
}
PLAYER_TABLES = [
    *_examples("Anna's table in round 1", _WHERE),
    *_examples(
        "round 1 just started: Anna's table is being opened (wait for `table_opened`)",
        {**_WHERE, "table_open": False},
    ),
    *_examples(
        "registration runs: no table yet",
        {
            **_WHERE,
            "status": "registering",
            "round_no": 0,
            "table_id": None,
            "table_no": None,
            "seat": None,
            "table_open": False,
        },
    ),
]
ROUND_STARTED = _examples(
    "round 1 started by lot",
    {
        "round_no": 1,
        "version": STARTED_VERSION,
        "tournament": _view(
            STARTED_STATE, STARTED_VERSION, tuple(TableSheet(1, n, ()) for n in (1, 2))
        ),
    },
)
STREAM_TICKET = _examples(
    "a ticket for the tournament's stream",
    {
        "ticket": "t1cket-0pens-the-stream-0nce",
        "expires_at": "2026-12-01T19:01:00Z",
        "seconds": 60,
    },
)
STANDINGS = _examples(
    "after deal 1 at both tables (deal 2 is not public yet)",
    standings(STARTED_STATE, SHEETS),
)
COMPARISON = _examples(
    "deal 1 of round 1 at two tables (records abbreviated)",
    {
        "tournament_id": TOURNAMENT_ID,
        "round_no": 1,
        "deal_no": 1,
        "tables": [
            {
                "table_no": n,
                "table_id": f"{TOURNAMENT_ID}-r1t{n}",
                "players": [
                    "bot" if p is None else NAMES[p] for p in STARTED_STATE.seatings[0][n - 1]
                ],
                "record": None,
            }
            for n in (1, 2)
        ],
    },
)
_CREATED = CREATED_STATE.created
assert _CREATED is not None
_SIGNATURE = {
    "kid": "w2F0bC7dU8xJ1oX3rY6pQ9sV4nT0aK5mL2hG7eB1cD8",
    "signed_at": "2026-12-01T23:10:00Z",
    "value": "…",
    "alg": "EdDSA",
}
EXPORT = _examples(
    "a finished tournament (one event and one table shown, each abbreviated)",
    {
        "format": "doko-tournament-export",
        "format_version": 1,
        "tournament_id": TOURNAMENT_ID,
        "name": "Friday club",
        "events": [
            {
                "version": 1,
                "type": "event_created",
                "schema_version": 1,
                "payload": {
                    "type": "event_created",
                    "name": "Friday club",
                    "rounds": ROUNDS,
                    "host_token_hash": "sealed:9b1c…",
                    "seating_commitment": _CREATED.seating_commitment,
                    "seating_seed": _seed("seating").hex(),
                    "commitments": [["…"], ["…"]],
                    "round_seeds": [["…"], ["…"]],
                    "turn_seconds": 60,
                    "method": "total_points",
                },
                "hash": "5f2a…",
                "recorded_at": "2026-12-01T19:00:00.000000Z",
                "position": 1,
                "command_id": None,
                "actor": "director",
                "causation": None,
                "chain": 2,
            }
        ],
        "tables": [
            {
                "round_no": 1,
                "table_no": 1,
                "export": {
                    "format": "doko-table-export",
                    "format_version": 1,
                    "stream_id": f"{TOURNAMENT_ID}-r1t1",
                    "events": [],
                    "name": "Friday club · round 1 · table 1",
                    "players": [NAMES[0], NAMES[2], NAMES[4], "greedy bot 3"],
                    "signature": _SIGNATURE,
                },
            }
        ],
        "standings": standings(STARTED_STATE, SHEETS),
        "signature": _SIGNATURE,
    },
)
PROBLEMS = {
    "unknown_standings_method": example_problem(
        400,
        "unknown_standings_method",
        "no standings method 'elo'; one of total_points, placement_points, duplicate",
        "E1.1",
    ),
    "tournament_not_found": example_problem(
        404, "tournament_not_found", f"no tournament '{TOURNAMENT_ID}'"
    ),
    "name_taken": example_problem(
        409, "name_taken", "a player called 'Anna' is registered already", "E2.1"
    ),
    "registration_closed": example_problem(
        409, "registration_closed", "round 1 has started: registration is closed", "E2.2"
    ),
    "tournament_full": example_problem(
        409, "tournament_full", "the tournament takes at most 64 players", "E2.3"
    ),
    "players_fixed": example_problem(
        409, "players_fixed", "round 1 has started: the players are fixed", "E2.4"
    ),
    "unknown_player": example_problem(409, "unknown_player", "there is no player 7", "E2.4"),
    "name_unseen_characters": example_problem(
        400,
        "name_unseen_characters",
        "a name holds no bidirectional control characters",
        "N2",
    ),
    "name_mixed_scripts": example_problem(
        400, "name_mixed_scripts", "a name's letters are of one script, not CYRILLIC, LATIN", "N3"
    ),
    "invitation_required": example_problem(
        401, "invitation_required", "a private tournament: send its invitation code to register"
    ),
    "round_running": example_problem(409, "round_running", "round 1 is running", "E4.1"),
    "no_players": example_problem(409, "no_players", "nobody has registered yet", "E4.1"),
    "seated_twice": example_problem(409, "seated_twice", "player 3 is seated twice", "E3.3"),
    "left_out": example_problem(409, "left_out", "players [5] have no seat", "E3.3"),
    "not_between": example_problem(
        409,
        "round_running",
        "round 1 is running: the tournament is verified between rounds",
        "E5.3",
    ),
    "not_finished": example_problem(
        409, "tournament_not_finished", "a tournament is exported once it is finished", "E4.3"
    ),
    "deal_not_public": example_problem(
        409,
        "deal_not_public",
        "deal 2 is shared by the round's tables: it stays hidden until every table of the "
        "round has scored it",
        "E5.3",
    ),
}
"""Example problems of the tournaments' routes, by code."""
