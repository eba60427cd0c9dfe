"""Standings (E6): hand-computed tables for each method, its tie-breaks and shared ranks,
the duplicate score's mean of several tables, bots, and only what is final (E6.5)."""

from __future__ import annotations

import pytest

from domain import tournament
from domain.errors import DomainError
from domain.seating import Seating
from domain.standings import (
    Abandoned,
    TableSheet,
    placement_points,
    recorded_standings,
    standings,
)
from domain.tournament import (
    CreateTournament,
    EndTable,
    RegisterPlayer,
    SeatRound,
    StandingsMethod,
    StartRound,
    TournamentState,
)

SEEDS = ((bytes(32),) * 12,)


def seated(players: int, seating: Seating, method: StandingsMethod) -> TournamentState:
    """A one-round tournament of ``players`` players, round 1 started as seated by hand."""
    commands = [
        CreateTournament("Cup", 1, "director", bytes(32), SEEDS, method=method),
        *(RegisterPlayer(f"p{n}", f"t{n}") for n in range(players)),
        SeatRound(1, seating),
        StartRound(1),
    ]
    state = TournamentState()
    for command in commands:
        state = tournament.fold(tournament.decide(state, command), state)
    return state


def ended(state: TournamentState, *deals: int) -> TournamentState:
    """Every table of round 1 abandoned after the given numbers of scored deals."""
    for table_no, count in enumerate(deals, 1):
        state = tournament.fold(tournament.decide(state, EndTable(1, table_no, count, True)), state)
    return state


TWO_TABLES: Seating = ((0, 1, 2, 3), (4, 5, 6, 7))
SHEETS = (
    TableSheet(1, 1, ((1, 3, -2, -2), (-3, 9, -3, -3)), over=True),
    TableSheet(1, 2, ((4, -4, 4, -4), (3, -9, 3, 3)), over=True),
)
"""Two tables abandoned after two deals. By hand (p0-p3 at table 1, p4-p7 at table 2):

totals      p0 -2  p1 12  p2 -5  p3 -5 | p4 7  p5 -13  p6 7  p7 -1
placement   +1     +3     -2     -2    | +2   -3      +2    -1    (ties share the mean)
duplicate   deal 1: 1-4, 3+4, -2-4, -2+4 | 4-1, -4-3, 4+2, -4+2
            deal 2: -3-3, 9+9, -3-3, -3-3 | 3+3, -9-9, 3+3, 3+3
            = -9, 25, -12, -4 | 9, -25, 12, 4
"""


@pytest.mark.parametrize(
    ("method", "order"),
    [
        # p4, p6 tie on 7 and on placement +2: duplicate 12 > 9; p2, p3 likewise
        (StandingsMethod.TOTAL_POINTS, [1, 6, 4, 7, 0, 3, 2, 5]),
        # p0 +1 ahead of p7 -1 (though behind on total); p4, p6 on total then duplicate
        (StandingsMethod.PLACEMENT_POINTS, [1, 6, 4, 0, 7, 3, 2, 5]),
        (StandingsMethod.DUPLICATE, [1, 6, 4, 7, 3, 0, 2, 5]),
    ],
)
def test_each_method_and_its_tie_break(method: StandingsMethod, order: list[int]) -> None:
    """E6.1-E6.4 on the hand-computed table above."""
    result = standings(ended(seated(8, TWO_TABLES, method), 2, 2), SHEETS)
    assert [line.player for line in result.lines] == order
    assert [line.rank for line in result.lines] == list(range(1, 9))
    by_player = {line.player: line for line in result.lines}
    assert [by_player[p].total for p in range(8)] == [-2, 12, -5, -5, 7, -13, 7, -1]
    assert [by_player[p].placement for p in range(8)] == [1, 3, -2, -2, 2, -3, 2, -1]
    assert [by_player[p].duplicate for p in range(8)] == [-9, 25, -12, -4, 9, -25, 12, 4]
    placements = [by_player[p].placements for p in range(8)]
    assert placements == [(1,), (3,), (-2,), (-2,), (2,), (-3,), (2,), (-1,)]
    assert all(line.deals == 2 for line in result.lines)
    assert result.abandoned == (Abandoned(1, 1, 2), Abandoned(1, 2, 2))
    assert (result.rounds_ended, result.public_deals) == (1, (2,))


@pytest.mark.parametrize(
    ("totals", "points"),
    [
        ((10, 5, 0, -15), (3, 1, -1, -3)),
        ((-15, 0, 5, 10), (-3, -1, 1, 3)),
        ((6, 6, -6, -6), (2, 2, -2, -2)),
        ((4, 4, 4, -12), (1, 1, 1, -3)),
        ((9, -3, -3, -3), (3, -1, -1, -1)),
        ((0, 0, 0, 0), (0, 0, 0, 0)),
    ],
)
def test_placement_points_share_the_mean_of_the_places(
    totals: tuple[int, ...], points: tuple[int, ...]
) -> None:
    """E6.2: +3/+1/-1/-3; (3+1)/2 = 2, (3+1-1)/3 = 1, (1-1-3)/3 = -1, all four 0."""
    assert placement_points(totals) == points


def test_a_full_tie_shares_the_rank_in_registration_order() -> None:
    """E6.4: players equal in all three scores share the rank; the next rank skips."""
    state = ended(seated(4, ((0, 1, 2, 3),), StandingsMethod.TOTAL_POINTS), 1)
    result = standings(state, [TableSheet(1, 1, ((-1, 1, -1, 1),), over=True)])
    assert [(line.rank, line.player) for line in result.lines] == [(1, 1), (1, 3), (3, 0), (3, 2)]


def test_the_duplicate_score_takes_the_mean_of_the_others() -> None:
    """E6.3 over three tables (bots on seat 3 hold cards too and are compared with):
    seat 0: 3 - (1 - 2)/2 = 3.5, 1 - (3 - 2)/2 = 0.5, -2 - (3 + 1)/2 = -4;
    seat 1: -1 - (1 + 2)/2 = -2.5, 1 - (-1 + 2)/2 = 0.5, 2 - (-1 + 1)/2 = 2."""
    seating: Seating = ((0, 1, 2, None), (3, 4, 5, None), (6, 7, 8, None))
    state = ended(seated(9, seating, StandingsMethod.DUPLICATE), 1, 1, 1)
    sheets = [
        TableSheet(1, 1, ((3, -1, -1, -1),), over=True),
        TableSheet(1, 2, ((1, 1, -1, -1),), over=True),
        TableSheet(1, 3, ((-2, 2, -2, 2),), over=True),
    ]
    result = standings(state, sheets)
    duplicate = {line.player: line.duplicate for line in result.lines}
    assert [duplicate[p] for p in (0, 3, 6)] == [3.5, 0.5, -4]
    assert [duplicate[p] for p in (1, 4, 7)] == [-2.5, 0.5, 2]
    assert len(result.lines) == 9  # the bots are nobody's line


def test_only_what_is_final_counts() -> None:
    """E6.5: while table 2 has scored one deal, table 1's second and third do not count;
    placement points wait for the round's end."""
    state = seated(8, TWO_TABLES, StandingsMethod.TOTAL_POINTS)
    sheets = [
        TableSheet(1, 1, ((1, 3, -2, -2), (-3, 9, -3, -3), (2, 2, -2, -2))),
        TableSheet(1, 2, ((4, -4, 4, -4),)),
    ]
    result = standings(state, sheets)
    by_player = {line.player: line for line in result.lines}
    assert [by_player[p].total for p in range(8)] == [1, 3, -2, -2, 4, -4, 4, -4]
    assert all(line.placement == 0 and line.placements == (None,) for line in result.lines)
    assert (result.rounds_ended, result.public_deals) == (0, (1,))
    nothing = standings(state, [sheets[0]])  # table 2 not opened yet: nothing is public
    assert all(line.total == 0 and line.deals == 0 for line in nothing.lines)


def published(
    state: TournamentState, *deals: tuple[tuple[int, ...] | None, ...]
) -> TournamentState:
    """Round 1's deals recorded in order (E6.6), each with its entries by table."""
    for deal_no, entries in enumerate(deals, 1):
        command = tournament.PublishDeal(1, deal_no, entries)
        state = tournament.fold(tournament.decide(state, command), state)
    return state


@pytest.mark.parametrize("method", list(StandingsMethod))
def test_the_recorded_deals_give_the_hand_computed_table(method: StandingsMethod) -> None:
    """E6.6: the tournament's records of the two deals of the hand-computed table above (deal 1
    at tables 1 and 2, then deal 2) give its numbers, as the tables' sheets do."""
    state = published(
        seated(8, TWO_TABLES, method),
        ((1, 3, -2, -2), (4, -4, 4, -4)),
        ((-3, 9, -3, -3), (3, -9, 3, 3)),
    )
    result = recorded_standings(ended(state, 2, 2))
    by_player = {line.player: line for line in result.lines}
    assert [by_player[p].total for p in range(8)] == [-2, 12, -5, -5, 7, -13, 7, -1]
    assert [by_player[p].placement for p in range(8)] == [1, 3, -2, -2, 2, -3, 2, -1]
    assert [by_player[p].duplicate for p in range(8)] == [-9, 25, -12, -4, 9, -25, 12, 4]
    assert result.abandoned == (Abandoned(1, 1, 2), Abandoned(1, 2, 2))
    assert (result.rounds_ended, result.public_deals) == (1, (2,))
    assert result == standings(ended(seated(8, TWO_TABLES, method), 2, 2), SHEETS)
    other = next(m for m in StandingsMethod if m is not method)
    assert recorded_standings(ended(state, 2, 2), other).method is other


def test_a_deal_recorded_without_an_abandoned_table_counts_for_the_others() -> None:
    """E6.6, T4.2: table 2 abandoned after deal 1; deal 2 recorded without it counts for
    table 1's players, compared with nobody (E6.3): p0 totals 1 - 3 = -2, duplicate
    (1 - 4) + 0 = -3."""
    state = published(
        seated(8, TWO_TABLES, StandingsMethod.TOTAL_POINTS),
        ((1, 3, -2, -2), (4, -4, 4, -4)),
        ((-3, 9, -3, -3), None),
    )
    by_player = {line.player: line for line in recorded_standings(state).lines}
    assert (by_player[0].total, by_player[0].duplicate, by_player[0].deals) == (-2, -3, 2)
    assert (by_player[4].total, by_player[4].duplicate, by_player[4].deals) == (4, 3, 1)


def test_deals_are_recorded_in_order_with_an_entry_per_table() -> None:
    """E6.6: not deal 2 before deal 1, not one table's entries for two tables."""
    state = seated(8, TWO_TABLES, StandingsMethod.TOTAL_POINTS)
    for command in (
        tournament.PublishDeal(1, 2, ((0, 0, 0, 0), (0, 0, 0, 0))),
        tournament.PublishDeal(1, 1, ((0, 0, 0, 0),)),
        tournament.PublishDeal(2, 1, ((0, 0, 0, 0), (0, 0, 0, 0))),
    ):
        with pytest.raises(DomainError) as caught:
            tournament.decide(state, command)
        assert (caught.value.code, caught.value.rule) == ("deal_not_next", "E6.6")
