"""What anyone allowed to see a tournament may see of it (E1-E5): its options, the
commitments to its chance, its players' names, the rounds' seatings and the tables' ends.

Never in a view: a seed before its time (the seating seed until the tournament finishes, E1.2;
the deal seeds and preset deals at all: each is revealed with its deal by the table that
plays it, once the deal is public for the round, E5.3), a credential's or invitation's
hash. The standings are `domain.standings`'.
"""

from __future__ import annotations

import msgspec

from domain.seats import Seat
from domain.table import Visibility
from domain.tournament import StandingsMethod, TournamentState, TournamentStatus


class TournamentTable(msgspec.Struct, frozen=True):
    """A table of a round: the players' names by seat (None: a bot, E3.4) and, once it has
    ended, after how many scored deals and whether it was abandoned (E4.2)."""

    table_no: int
    seats: tuple[str | None, ...]
    ended: bool = False
    deals: int | None = None
    abandoned: bool = False


class TournamentRound(msgspec.Struct, frozen=True):
    """A round started: seated by hand or by rule (E3), its tables, whether it has ended."""

    round_no: int
    tables: tuple[TournamentTable, ...]
    ended: bool


class TournamentView(msgspec.Struct, frozen=True):
    """The public face of a tournament (see the module docstring)."""

    name: str
    rounds: int
    visibility: Visibility
    turn_seconds: int | None
    method: StandingsMethod
    status: TournamentStatus
    seating_commitment: str
    commitments: tuple[tuple[str, ...], ...]
    preset: bool
    players: tuple[str, ...]
    played: tuple[TournamentRound, ...]
    max_players: int
    registration_open: bool
    seating_seed: str | None = None


class PlayerSeat(msgspec.Struct, frozen=True):
    """Where a player sits in a round: table ``table_no`` (1-based), ``seat``."""

    round_no: int
    table_no: int
    seat: Seat


def tournament_view(state: TournamentState) -> TournamentView:
    """The tournament as anyone allowed to see it sees it."""
    created = state.created
    assert created is not None
    names = [p.name for p in state.players]
    played: list[TournamentRound] = []
    for round_no, seating in enumerate(state.seatings, 1):
        ends = state.ended[round_no - 1] if round_no <= len(state.ended) else state.ends
        by_table = {e.table_no: e for e in ends if e is not None}
        tables = []
        for table_no, seats in enumerate(seating, 1):
            end = by_table.get(table_no)
            tables.append(
                TournamentTable(
                    table_no,
                    tuple(names[p] if p is not None else None for p in seats),
                    end is not None,
                    end.deals if end else None,
                    end.abandoned if end else False,
                )
            )
        played.append(TournamentRound(round_no, tuple(tables), round_no <= len(state.ended)))
    return TournamentView(
        name=created.name,
        rounds=created.rounds,
        visibility=created.visibility,
        turn_seconds=created.turn_seconds,
        method=created.method,
        status=state.status,
        seating_commitment=created.seating_commitment,
        commitments=created.commitments,
        preset=bool(created.presets),
        players=tuple(names),
        played=tuple(played),
        max_players=created.max_players,
        registration_open=not (state.closed or state.seatings or state.finished),
        seating_seed=created.seating_seed if state.finished else None,
    )


def player_seat(state: TournamentState, player: int) -> PlayerSeat | None:
    """E2.1: where registered player number ``player`` sits in the last round started
    (every player sits in every round, E3.3); None before round 1."""
    if not state.seatings:
        return None
    table_no, seat = next(
        (table_no, seat)
        for table_no, seats in enumerate(state.seatings[-1], 1)
        for seat, sitting in enumerate(seats)
        if sitting == player
    )
    return PlayerSeat(state.round_no, table_no, Seat(seat))
