"""Seating a tournament's rounds (E3): tables of four, by lot in round 1, then avoiding repeat
opponents; bots fill the seats nobody takes.

A `Seating` lists a round's tables, each as its four seats (0-3), each seat holding a
player's number (0-based, in the order of registration, E2) or None for a server bot.

- E3.1 Round 1 is seated by lot: the players in the order `domain.dealing.permutation`
  draws from the round's lot seed (`lot_seed`: the tournament's seating seed, committed when the
  tournament was created, with the round number), filling the tables one after the other, each
  from seat 0.
- E3.2 A later round avoids repeat opponents as far as possible. Two players *met* once for
  every earlier round in which they sat at the same table; a seating's *repeats* are the
  sum, over its tables, of the meetings of every two players at it. The rule: take the
  players in the round's lot order; fill each table in turn, first with the first player
  not yet seated, then, seat by seat, with the player not yet seated who has met the
  players already at that table the fewest times (the earliest in lot order among equals).
  Then, while exchanging two players of two tables lowers the repeats, make the first such
  exchange (tables, then seats, in order). The result: no exchange of two players lowers
  its repeats (whenever a seating without repeats exists that the first filling finds, as
  for 16 players after one round, it has none).
- E3.3 The director may seat a round by hand before it starts, also while the round before
  it runs (`validate`): the tables
  `table_count` gives, four seats each, every player exactly once (nobody twice, nobody
  left out), at least one player at every table.
- E3.4 A round has ``ceil(n / 4)`` tables for ``n`` players; the ``4 * tables - n`` seats
  left over are bots, dealt out one per table from the last table backwards (again from
  the last when every table has one), on the highest seats. Bots play, and never enter
  the standings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from domain.dealing import permutation
from domain.errors import DomainError

SeatEntry = int | None
"""A seat of a seating: a player's number, or None for a bot (E3.4)."""
Seating = tuple[tuple[SeatEntry, ...], ...]
"""A round's tables, each as its four seats (E3)."""
TABLE_SEATS = 4


class InvalidSeating(DomainError):
    """A hand-made seating of the wrong shape: not `table_count` tables of four seats, or a
    table without a player (E3.3, E3.4)."""

    code = "invalid_seating"


class UnknownPlayer(DomainError):
    """No player has this number (E2)."""

    code = "unknown_player"


class SeatedTwice(DomainError):
    """A hand-made seating seats a player more than once (E3.3)."""

    code = "seated_twice"


class LeftOut(DomainError):
    """A hand-made seating leaves a registered player out (E3.3)."""

    code = "left_out"


def table_count(players: int) -> int:
    """E3.4: the number of tables for ``players`` players."""
    return -(-players // TABLE_SEATS)


def table_sizes(players: int) -> tuple[int, ...]:
    """E3.4: the players at each table; the rest of its four seats are bots."""
    tables = table_count(players)
    sizes = [TABLE_SEATS] * tables
    for bot in range(TABLE_SEATS * tables - players):
        sizes[tables - 1 - bot % tables] -= 1
    return tuple(sizes)


def lot_seed(seed: bytes, round_no: int) -> bytes:
    """E3.1: the seed of round ``round_no``'s lot: SHA-256(seating seed || round as 4-byte
    big-endian)."""
    return hashlib.sha256(seed + round_no.to_bytes(4, "big")).digest()


def _tables(order: Sequence[int], sizes: Sequence[int]) -> Seating:
    """The players of ``order`` filling tables of ``sizes`` one after the other (E3.4)."""
    tables: list[tuple[SeatEntry, ...]] = []
    start = 0
    for size in sizes:
        players: tuple[SeatEntry, ...] = tuple(order[start : start + size])
        tables.append(players + (None,) * (TABLE_SEATS - size))
        start += size
    return tuple(tables)


Meetings = dict[tuple[int, int], int]
"""How often two players (the lower number first) met at a table (E3.2)."""


def meetings(earlier: Sequence[Seating]) -> Meetings:
    """E3.2: for every two players, the earlier rounds in which they sat at the same table."""
    met: Meetings = {}
    for seating in earlier:
        for seats in seating:
            players = sorted(p for p in seats if p is not None)
            for i, a in enumerate(players):
                for b in players[i + 1 :]:
                    met[(a, b)] = met.get((a, b), 0) + 1
    return met


def _met(met: Meetings, a: int, b: int) -> int:
    return met.get((a, b) if a < b else (b, a), 0)


def _cost(met: Meetings, player: int, others: Sequence[int]) -> int:
    """The meetings of ``player`` with ``others`` (itself excluded)."""
    return sum(_met(met, player, o) for o in others if o != player)


def repeats(seating: Seating, met: Meetings) -> int:
    """E3.2: the seating's repeats: over its tables, the meetings of every two players."""
    total = 0
    for seats in seating:
        players = [p for p in seats if p is not None]
        total += sum(_cost(met, p, players[i + 1 :]) for i, p in enumerate(players))
    return total


def draw(seed: bytes, round_no: int, players: int, earlier: Sequence[Seating] = ()) -> Seating:
    """The seating of round ``round_no`` for ``players`` players by rule: E3.1 by lot for
    round 1 (no earlier rounds), E3.2 avoiding repeat opponents of the ``earlier`` rounds."""
    order = permutation(lot_seed(seed, round_no), players)
    sizes = table_sizes(players)
    if not earlier:
        return _tables(order, sizes)
    met = meetings(earlier)
    left = list(order)
    tables: list[list[int]] = []
    for size in sizes:
        seats = [left.pop(0)]
        while len(seats) < size:
            best = min(left, key=lambda p: _cost(met, p, seats))  # min keeps the earliest
            left.remove(best)
            seats.append(best)
        tables.append(seats)
    while _exchange(tables, met):
        pass
    return _tables([p for seats in tables for p in seats], sizes)


def _exchange(tables: list[list[int]], met: Meetings) -> bool:
    """E3.2: make the first exchange of two players of two tables that lowers the repeats;
    whether there was one."""
    for t, first in enumerate(tables):
        for second in tables[t + 1 :]:
            for i, a in enumerate(first):
                for j, b in enumerate(second):
                    before = _cost(met, a, first) + _cost(met, b, second)
                    after = _cost(met, b, [p for p in first if p != a]) + _cost(
                        met, a, [p for p in second if p != b]
                    )
                    if after < before:
                        first[i], second[j] = b, a
                        return True
    return False


def validate(seating: Seating, players: int) -> Seating:
    """E3.3: a hand-made seating for ``players`` players: `table_count` tables of four seats,
    every player exactly once, at least one player at every table."""
    tables = table_count(players)
    if len(seating) != tables or any(len(seats) != TABLE_SEATS for seats in seating):
        raise InvalidSeating(
            f"{players} players sit at {tables} tables of {TABLE_SEATS} seats", rule="E3.4"
        )
    seen: set[int] = set()
    for number, seats in enumerate(seating, 1):
        if all(p is None for p in seats):
            raise InvalidSeating(f"table {number} has no player, only bots", rule="E3.3")
        for player in seats:
            if player is None:
                continue
            if not 0 <= player < players:
                raise UnknownPlayer(f"there is no player {player}", rule="E3.3")
            if player in seen:
                raise SeatedTwice(f"player {player} is seated twice", rule="E3.3")
            seen.add(player)
    missing = sorted(set(range(players)) - seen)
    if missing:
        raise LeftOut(f"players {missing} have no seat", rule="E3.3")
    return seating
