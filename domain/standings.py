"""A tournament's standings (E6), a pure function of the tournament and its tables' scoresheets.

Every player has three scores; the tournament's `StandingsMethod` says which ranks them:

- E6.1 Total points: the sum of the player's scoresheet entries (R10) over the deals that
  count (E6.5), in every round.
- E6.2 Placement points: at every table of every round, the four seats are placed by their
  totals at that table (its scored deals; an abandoned table's too, T4.2); places 1-4 give
  +3, +1, -1, -3, and seats with equal totals share the mean of the points of the places
  they span (two sharing first place get +2 each, three sharing second 0, four 0). Bots
  take places like anyone (E3.4); their points are nobody's.
- E6.3 The duplicate score: for every deal that counts, the player's entry minus the mean of
  the entries of the others who held the same seat's cards in that deal (the same seat at
  the other tables of the round that scored the deal, bots included: they held those
  cards, E5.1); 0 when no other table scored it. Summed over the deals, exactly (a
  fraction; shown rounded to two decimals).
- E6.4 Tie-break: players equal in the method's score are ordered by the other two, in the
  order total points, placement points, duplicate score (placement: total, duplicate;
  duplicate: total, placement); players equal in all three share the rank (one more than
  the players ahead of them) and are listed in the order they registered.
- E6.5 Only what is final counts: a deal of a round once it is public (every table of the
  round scored it or is over, E5.3), placement points of a round once it has ended
  (E4.3). Deals an abandoned table did not score count for nobody (T4.2); the standings
  list the abandoned tables.
- E6.6 Once a deal of a round is public (E5.3), the service records in the tournament every
  table's entries of it (none for a table over without it), the round's deals in order and
  before the tables' ends that follow; the standings are computed from these records.

A seat's entries belong to the player the round's seating put there (E3).

`standings` computes them from the tables' sheets (as the tables' logs have them: the audit's
way), `recorded_standings` from what the tournament itself recorded of its public deals (E6.6:
the service's way, a function of the tournament's stream alone); both agree once every
public deal is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import msgspec

from domain.tournament import StandingsMethod, TournamentState
from domain.tournament_tables import deal_public

PLACES = (3, 1, -1, -3)
"""E6.2: the placement points of places 1-4 at a table."""


class TableSheet(msgspec.Struct, frozen=True):
    """A table of a tournament as its log has it: table ``table_no`` of round ``round_no``, the
    scoresheet entries of its scored deals (by deal, by seat), and whether it is ``over``
    (finished or abandoned)."""

    round_no: int
    table_no: int
    entries: tuple[tuple[int, ...], ...]
    over: bool = False


class Abandoned(msgspec.Struct, frozen=True):
    """E6.5, T4.2: table ``table_no`` of round ``round_no`` was abandoned after ``deals``
    scored deals; the rest count for nobody."""

    round_no: int
    table_no: int
    deals: int


class Standing(msgspec.Struct, frozen=True):
    """One player's line (E6): ``rank`` (shared on a full tie, E6.4), the player's number
    and name, the three scores, the deals counted and the placement points of every
    round started (None until the round has ended, or for a round without the player)."""

    rank: int
    player: int
    name: str
    total: int
    placement: int
    duplicate: float
    deals: int
    placements: tuple[int | None, ...]


class Standings(msgspec.Struct, frozen=True):
    """The standings: the ``method`` that ranks them, the lines best first, the rounds
    whose placement points count, the deals of each round started that count (E6.5) and
    the abandoned tables (T4.2)."""

    method: StandingsMethod
    lines: tuple[Standing, ...]
    rounds_ended: int
    public_deals: tuple[int, ...]
    abandoned: tuple[Abandoned, ...] = ()


def placement_points(totals: Sequence[int]) -> tuple[int, ...]:
    """E6.2: the placement points of the four seats of a table with these totals."""
    order = sorted(range(len(totals)), key=lambda s: -totals[s])
    points = [0] * len(totals)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and totals[order[end + 1]] == totals[order[start]]:
            end += 1
        shared = PLACES[start : end + 1]
        for place in range(start, end + 1):
            points[order[place]] = sum(shared) // len(shared)  # exact: a mean of odd steps
        start = end + 1
    return tuple(points)


def public_deals(sheets: Sequence[TableSheet | None]) -> int:
    """E5.3, E6.5: how many deals of a round count: public
    (`domain.tournament_tables.deal_public`) and scored by some table, given the round's
    tables' sheets (None: a table not opened yet)."""
    progress = [(len(s.entries), s.over) if s else (0, False) for s in sheets]
    scored = max(len(s.entries) if s else 0 for s in sheets)
    count = 0
    while count < scored and deal_public(progress, count + 1):
        count += 1
    return count


class _Scores(msgspec.Struct):
    total: int = 0
    placement: int = 0
    duplicate: Fraction = Fraction(0)
    deals: int = 0


def standings(state: TournamentState, sheets: Sequence[TableSheet]) -> Standings:
    """E6: the standings of the tournament after these table sheets (see the module docstring)."""
    assert state.created is not None
    tables = {(s.round_no, s.table_no): s for s in sheets}
    scores = [_Scores() for _ in state.players]
    placements: list[list[int | None]] = [[None] * state.round_no for _ in state.players]
    counted: list[int] = []
    for round_no, seating in enumerate(state.seatings, 1):
        round_sheets = [tables.get((round_no, n)) for n in range(1, len(seating) + 1)]
        public = public_deals(round_sheets)
        counted.append(public)
        for seats, sheet in zip(seating, round_sheets, strict=True):
            if sheet is None:
                continue
            others = [o for o in round_sheets if o is not None and o is not sheet]
            for deal, entries in enumerate(sheet.entries[:public]):
                for seat, player in enumerate(seats):
                    if player is not None:
                        _count_deal(scores[player], entries[seat], others, deal, seat)
            if round_no <= len(state.ended):
                totals = [sum(column) for column in zip(*sheet.entries, strict=True)] or [0] * 4
                for player, points in zip(seats, placement_points(totals), strict=True):
                    if player is not None:
                        scores[player].placement += points
                        placements[player][round_no - 1] = points
    lines = _ranked(state, scores, placements)
    abandoned = tuple(
        Abandoned(e.round_no, e.table_no, e.deals)
        for ends in state.ended
        for e in ends
        if e.abandoned
    )
    return Standings(state.created.method, lines, len(state.ended), tuple(counted), abandoned)


def published_sheets(state: TournamentState) -> list[TableSheet]:
    """E6.6: the tables' sheets as far as the tournament recorded them: every recorded deal is
    public, so each table counts as over for E5.3's test (its sheet holds no deal that is
    not public); a table's entries end at its first deal recorded without it."""
    sheets: list[TableSheet] = []
    rounds = zip(state.seatings, state.published, strict=True)
    for round_no, (seating, deals) in enumerate(rounds, 1):
        for table_no in range(1, len(seating) + 1):
            entries: list[tuple[int, ...]] = []
            for by_table in deals:
                entry = by_table[table_no - 1]
                if entry is None:
                    break
                entries.append(entry)
            sheets.append(TableSheet(round_no, table_no, tuple(entries), over=True))
    return sheets


def recorded_standings(state: TournamentState, method: StandingsMethod | None = None) -> Standings:
    """E6, E6.6: the standings from the tournament's records of its public deals, ranked by its
    method or by ``method``."""
    created = state.created
    assert created is not None
    if method is not None and method is not created.method:
        replace = msgspec.structs.replace
        state = replace(state, created=replace(created, method=method))
    return standings(state, published_sheets(state))


def _count_deal(
    scores: _Scores, entry: int, others: Sequence[TableSheet], deal: int, seat: int
) -> None:
    """E6.1, E6.3: a deal that counts, for the player who held ``seat`` in it."""
    scores.total += entry
    scores.deals += 1
    field = [o.entries[deal][seat] for o in others if len(o.entries) > deal]
    if field:
        scores.duplicate += entry - Fraction(sum(field), len(field))


_KEYS = {
    StandingsMethod.TOTAL_POINTS: ("total", "placement", "duplicate"),
    StandingsMethod.PLACEMENT_POINTS: ("placement", "total", "duplicate"),
    StandingsMethod.DUPLICATE: ("duplicate", "total", "placement"),
}
"""E6.4: the scores that rank the standings, by method, in order."""


def _ranked(
    state: TournamentState, scores: Sequence[_Scores], placements: Sequence[Sequence[int | None]]
) -> tuple[Standing, ...]:
    """E6.4: the lines best first, ties broken and shared."""
    assert state.created is not None
    names = _KEYS[state.created.method]

    def key(player: int) -> tuple[Fraction | int, ...]:
        return tuple(getattr(scores[player], name) for name in names)

    order = sorted(range(len(scores)), key=lambda p: tuple(-k for k in key(p)))
    lines: list[Standing] = []
    for index, player in enumerate(order):
        ahead = lines[-1].rank if lines and key(order[index - 1]) == key(player) else index + 1
        s = scores[player]
        lines.append(
            Standing(
                rank=ahead,
                player=player,
                name=state.players[player].name,
                total=s.total,
                placement=s.placement,
                duplicate=round(float(s.duplicate), 2),
                deals=s.deals,
                placements=tuple(placements[player]),
            )
        )
    return tuple(lines)
