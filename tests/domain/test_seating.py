"""Seating (E3): table sizes and bots, the draw's repeat-opponent avoidance on hand-made
cases, and the checks of a director's seating."""

from __future__ import annotations

import itertools

import pytest

from domain.errors import DomainError
from domain.seating import Seating, draw, meetings, repeats, table_sizes, validate

SEED = bytes(32)


@pytest.mark.parametrize(
    ("players", "sizes"),
    [
        (1, (1,)),
        (4, (4,)),
        (5, (3, 2)),
        (6, (3, 3)),
        (7, (4, 3)),
        (8, (4, 4)),
        (9, (3, 3, 3)),
        (10, (4, 3, 3)),
        (11, (4, 4, 3)),
        (13, (4, 3, 3, 3)),
    ],
)
def test_tables_and_bots(players: int, sizes: tuple[int, ...]) -> None:
    """E3.4: ceil(n/4) tables; the bots one per table from the last table backwards."""
    assert table_sizes(players) == sizes
    seating = draw(SEED, 1, players)
    assert tuple(sum(p is not None for p in seats) for seats in seating) == sizes
    for seats, size in zip(seating, sizes, strict=True):
        assert seats[size:] == (None,) * (4 - size)  # bots on the highest seats
    assert sorted(p for seats in seating for p in seats if p is not None) == list(range(players))


def pairs_met(earlier: list[Seating]) -> dict[frozenset[int], int]:
    """The test's own count of meetings: two players at one table in an earlier round."""
    met: dict[frozenset[int], int] = {}
    for seating in earlier:
        for seats in seating:
            for a, b in itertools.combinations([p for p in seats if p is not None], 2):
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    return met


def repeat_count(seating: Seating, earlier: list[Seating]) -> int:
    met = pairs_met(earlier)
    return sum(
        met.get(frozenset((a, b)), 0)
        for seats in seating
        for a, b in itertools.combinations([p for p in seats if p is not None], 2)
    )


GROUPS_OF_FOUR: Seating = ((0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11), (12, 13, 14, 15))


def test_sixteen_players_meet_nobody_again_in_round_two() -> None:
    """E3.2: after four tables of four, every table of round 2 takes one of each."""
    second = draw(SEED, 2, 16, [GROUPS_OF_FOUR])
    assert repeat_count(second, [GROUPS_OF_FOUR]) == 0
    for seats in second:
        assert sorted(p // 4 for p in seats if p is not None) == [0, 1, 2, 3]


def test_eight_players_repeat_as_little_as_possible() -> None:
    """E3.2: two tables from two tables: each gets two of each (4 repeats, the fewest:
    three of one table at a table would make 3 + 1 or more)."""
    first: Seating = ((0, 1, 2, 3), (4, 5, 6, 7))
    second = draw(SEED, 2, 8, [first])
    assert repeat_count(second, [first]) == 4
    for seats in second:
        assert sorted(p // 4 for p in seats if p is not None) == [0, 0, 1, 1]


def test_an_exchange_lowers_what_the_first_filling_left() -> None:
    """E3.2 with a history after which, for the first seed, filling table by table alone
    leaves a seating that an exchange improves: no exchange of two players lowers the
    repeats of the result."""
    earlier: list[Seating] = [
        ((2, 5, 9, 4), (10, 7, 6, 0), (1, 8, 3, 11)),
        ((7, 10, 9, 1), (8, 2, 4, 3), (11, 5, 0, 6)),
    ]
    for seed in (bytes(32), bytes([1]) * 32, bytes([2]) * 32):
        result = draw(seed, 3, 12, earlier)
        assert sorted(p for seats in result for p in seats if p is not None) == list(range(12))
        cost = repeat_count(result, earlier)
        for t, u in itertools.combinations(range(3), 2):
            for i, j in itertools.product(range(4), range(4)):
                tables = [list(seats) for seats in result]
                tables[t][i], tables[u][j] = tables[u][j], tables[t][i]
                swapped = tuple(tuple(seats) for seats in tables)
                assert repeat_count(swapped, earlier) >= cost


def test_the_seatings_repeats_are_counted_as_the_meetings_of_every_two() -> None:
    earlier: list[Seating] = [((0, 1, 2, None),), ((0, 1, None, None),)]
    assert repeats(((0, 1, 2, None),), meetings(earlier)) == 2 + 1 + 1


@pytest.mark.parametrize(
    ("seating", "players", "code"),
    [
        (((0, 1, 2, None), (3, 4, None, None)), 5, None),
        (((0, 1, 2, None), (3, 3, None, None)), 5, "seated_twice"),
        (((0, 1, 2, None), (3, None, None, None)), 5, "left_out"),
        (((0, 1, 2, 3), (4, None, None, 5)), 5, "unknown_player"),
        (((0, 1, 2, 3, 4),), 5, "invalid_seating"),
        (((0, 1, 2, 3),), 5, "invalid_seating"),
    ],
)
def test_a_directors_seating(seating: Seating, players: int, code: str | None) -> None:
    """E3.3: every player exactly once at the tables E3.4 gives."""
    if code is None:
        assert validate(seating, players) == seating
        return
    with pytest.raises(DomainError) as caught:
        validate(seating, players)
    assert caught.value.code == code
