"""R7 who won, R8 game value, R9 extras, R10 scoresheet entries, and the worked examples E2-E9.

Most tests build `DealFacts` directly: `deal_facts` splits the real 48-card deck into 12
tricks that give Re exactly the card points and trick count asked for (Kontra the rest),
with no extra point by accident; tricks that matter (a fox, a Doppelkopf, the last trick)
are placed explicitly. E3 and E9 are also played in full from preset hands.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from itertools import combinations_with_replacement

import pytest

from domain.announcements import PartyAnnouncements, Word
from domain.cards import DECK, Card
from domain.commands import Announce
from domain.deal import DealState, Phase, facts
from domain.events import DealScored, Score
from domain.game_types import SOLOS, GameType, order_of
from domain.parties import Party
from domain.scoring import DealFacts, deal_winner, entries, reaches_target, score
from domain.seats import Seat
from domain.tricks import Trick, winning_index

from .builders import deal_state, hand, hands, play, run, start_play

RE, KONTRA = Party.RE, Party.KONTRA
S0, S1, S2, S3 = Seat(0), Seat(1), Seat(2), Seat(3)
NORMAL_PARTIES = (RE, KONTRA, RE, KONTRA)
SOLO_PARTIES = (RE, KONTRA, KONTRA, KONTRA)
NO_LEVELS = {RE: 0, KONTRA: 0}

# --- building DealFacts from the real deck -------------------------------------------------

_VALUES = (11, 10, 4, 3, 2, 0)
_BY_VALUE = {v: [c for c in Card if c.points == v] for v in _VALUES}


def trick(leader: Seat, cards: str) -> Trick:
    """A complete trick as played: ``trick(S0, "QC AD 9D 9D")``."""
    played = hand(cards)
    assert len(played) == 4
    return Trick(leader, played)


def _counts(available: list[int], count: int, total: int) -> list[int] | None:
    """How many cards of each value in ``_VALUES`` make ``count`` cards worth ``total``."""

    def bounds(i: int, n: int) -> tuple[int, int]:
        values = [v for v, k in zip(_VALUES[i:], available[i:], strict=True) for _ in range(k)]
        if n > len(values):
            return 1, 0  # impossible
        return sum(values[len(values) - n :]), sum(values[:n])

    def go(i: int, n: int, t: int) -> list[int] | None:
        if i == len(_VALUES):
            return [] if n == 0 and t == 0 else None
        low, high = bounds(i, n)
        if not low <= t <= high:
            return None
        for k in range(min(available[i], n), -1, -1):
            rest = go(i + 1, n - k, t - k * _VALUES[i])
            if rest is not None:
                return [k, *rest]
        return None

    return go(0, count, total)


def _groups(cards: list[Card], n: int) -> list[list[Card]]:
    """Deal cards, highest first, into n tricks back and forth so each stays under 40."""
    ordered = sorted(cards, key=lambda c: -c.points)
    groups: list[list[Card]] = [[] for _ in range(n)]
    for i, c in enumerate(ordered):
        r, j = divmod(i, n)
        groups[j if r % 2 == 0 else n - 1 - j].append(c)
    return groups


def _arranged(leader: Seat, cards: list[Card]) -> Trick:
    """The leader (the trick's winner) and its partner play the ADs: never a fox."""
    foxes = [c for c in cards if c is Card.AD]
    others = [c for c in cards if c is not Card.AD]
    if len(foxes) == 2:
        return Trick(leader, (foxes[0], others[0], foxes[1], others[1]))
    return Trick(leader, (*foxes, *others))


def deal_facts(
    re_points: int,
    re_tricks: int | None = None,
    *,
    levels: Mapping[Party, int] = NO_LEVELS,
    game_type: GameType = GameType.NORMAL,
    solo: bool | None = None,
    parties: tuple[Party, ...] | None = None,
    fixed: Mapping[int, tuple[Trick, Seat]] | None = None,
) -> DealFacts:
    """Twelve tricks from the 48 cards giving Re ``re_points`` in ``re_tricks`` tricks.

    ``fixed`` places chosen tricks (numbered 1-12, with their winner); they count towards
    Re's points and tricks. The other tricks are filled with the remaining cards so that
    no trick reaches 40, no AD is captured by the other party and the last trick is not
    won by a JC: a filler never adds an extra point (R9).
    """
    if solo is None:
        solo = game_type in SOLOS or game_type is GameType.SILENT_SOLO
    if parties is None:
        parties = SOLO_PARTIES if solo else NORMAL_PARTIES
    fixed = dict(fixed or {})
    if re_tricks is None:
        re_tricks = min(11, max(1, round(re_points / 20)))
    pool = Counter(DECK)
    fixed_points = dict.fromkeys(Party, 0)
    fixed_tricks = dict.fromkeys(Party, 0)
    for t, winner in fixed.values():
        pool.subtract(t.cards)
        fixed_points[parties[winner]] += t.points
        fixed_tricks[parties[winner]] += 1
    assert min(pool.values()) >= 0, "a fixed trick uses a card three times"
    re_left = re_tricks - fixed_tricks[RE]
    kontra_left = 12 - re_tricks - fixed_tricks[KONTRA]
    assert re_left >= 0 and kontra_left >= 0 and re_left + kontra_left == 12 - len(fixed)
    available = [sum(pool[c] for c in _BY_VALUE[v]) for v in _VALUES]
    counts = _counts(available, 4 * re_left, re_points - fixed_points[RE])
    assert counts is not None, f"no {re_left} tricks hold {re_points - fixed_points[RE]} points"
    re_cards: list[Card] = []
    for v, k in zip(_VALUES, counts, strict=True):
        for c in _BY_VALUE[v]:
            take = min(k, pool[c])
            re_cards += [c] * take
            pool[c] -= take
            k -= take
    kontra_cards = list(pool.elements())
    fillers: list[tuple[Trick, Seat]] = []
    for party, cards, n in ((RE, re_cards, re_left), (KONTRA, kontra_cards, kontra_left)):
        seat = Seat(parties.index(party))
        fillers += [(_arranged(seat, g), seat) for g in _groups(cards, n)] if n else []
    assert all(t.points < 40 for t, _ in fillers), "a filler trick reached 40 points"
    if 12 not in fixed:  # the last trick: not won by a JC (no accidental Karlchen)
        order = order_of(game_type)
        last = next(f for f in fillers if f[0].cards[winning_index(f[0].cards, order)] != Card.JC)
        fillers.remove(last)
        fillers.append(last)
    slots = iter(fillers)
    played = [fixed[n] if n in fixed else next(slots) for n in range(1, 13)]
    result = DealFacts(
        game_type=game_type,
        solo=solo,
        parties=parties,
        tricks=tuple(t for t, _ in played),
        winners=tuple(w for _, w in played),
        announcements={p: PartyAnnouncements(levels.get(p, 0)) for p in Party},
    )
    assert Counter(c for t in result.tricks for c in t.cards) == Counter(DECK)
    assert result.points_of(RE) == re_points and result.tricks_of(RE) == re_tricks
    return result


def levels(re: int = 0, kontra: int = 0) -> dict[Party, int]:
    return {RE: re, KONTRA: kontra}


def lines_of(result: Score) -> Counter[tuple[str, Party, int]]:
    return Counter((ln.rule, ln.party, ln.points) for ln in result.lines)


def signed(result: Score) -> int:
    return sum(ln.points if ln.party is RE else -ln.points for ln in result.lines)


def extras(result: Score) -> list[str]:
    return [ln.rule for ln in result.lines if ln.rule.startswith("R9")]


@pytest.mark.parametrize(
    "re_points,re_tricks",
    [(0, 0), (0, 1), (57, 3), (120, 6), (131, 7), (183, 9), (240, 11), (240, 12)],
)
def test_deal_facts_builder(re_points: int, re_tricks: int) -> None:
    """The helper itself: exact points and tricks from a real deck, and no extras."""
    f = deal_facts(re_points, re_tricks)
    assert f.points_of(RE) == re_points and f.points_of(KONTRA) == 240 - re_points
    assert f.tricks_of(RE) == re_tricks and f.tricks_of(KONTRA) == 12 - re_tricks
    assert extras(score(f)) == [] or extras(score(f)) == ["R9.1"]


# --- R7: who won ---------------------------------------------------------------------------

R7 = [
    # R7.1 no refusals
    pytest.param(121, None, levels(), RE, id="R7.1-no-announcements-re-121-wins"),
    pytest.param(120, None, levels(), KONTRA, id="R7.1-no-announcements-re-120-loses"),
    pytest.param(121, None, levels(re=1), RE, id="R7.1-only-re-announced-re-121-wins"),
    pytest.param(120, None, levels(re=1), KONTRA, id="R7.1-only-re-announced-re-120-loses"),
    pytest.param(120, None, levels(kontra=1), RE, id="R7.1-only-kontra-announced-re-120-wins"),
    pytest.param(
        119, None, levels(kontra=1), KONTRA, id="R7.1-only-kontra-announced-kontra-121-wins"
    ),
    pytest.param(121, None, levels(1, 1), RE, id="R7.1-both-announced-re-121-wins"),
    pytest.param(120, None, levels(1, 1), KONTRA, id="R7.1-both-announced-re-120-loses"),
    pytest.param(120, None, levels(), KONTRA, id="R7.5-120-120-is-not-a-tie-kontra-wins"),
    # R7.2 a party's own refusal sets its own target
    pytest.param(151, None, levels(re=2), RE, id="R7.2-re-no90-151-wins"),
    pytest.param(150, None, levels(re=2), KONTRA, id="R7.2-re-no90-150-loses"),
    pytest.param(181, None, levels(re=3), RE, id="R7.2-re-no60-181-wins"),
    pytest.param(180, None, levels(re=3), KONTRA, id="R7.2-re-no60-180-loses"),
    pytest.param(211, None, levels(re=4), RE, id="R7.2-re-no30-211-wins"),
    pytest.param(210, None, levels(re=4), KONTRA, id="R7.2-re-no30-210-loses"),
    pytest.param(240, 12, levels(re=5), RE, id="R7.2-re-schwarz-all-tricks-wins"),
    pytest.param(240, 11, levels(re=5), KONTRA, id="R7.2-re-schwarz-11-tricks-240-points-loses"),
    pytest.param(89, None, levels(kontra=2), KONTRA, id="R7.2-kontra-no90-151-wins"),
    pytest.param(90, None, levels(kontra=2), RE, id="R7.2-kontra-no90-150-loses"),
    pytest.param(59, None, levels(1, 3), KONTRA, id="R7.2-kontra-no60-181-wins"),
    pytest.param(60, None, levels(1, 3), RE, id="R7.2-kontra-no60-180-loses"),
    pytest.param(0, 0, levels(kontra=5), KONTRA, id="R7.2-kontra-schwarz-all-tricks-wins"),
    pytest.param(0, 1, levels(kontra=5), RE, id="R7.2-kontra-schwarz-re-one-zero-trick"),
    # R7.3 against an opposing refusal
    pytest.param(150, None, levels(re=2), KONTRA, id="R7.3-kontra-90-against-no90-wins"),
    pytest.param(151, None, levels(re=2), RE, id="R7.3-kontra-89-against-no90-loses"),
    pytest.param(180, None, levels(re=3), KONTRA, id="R7.3-kontra-60-against-no60-wins"),
    pytest.param(181, None, levels(re=3), RE, id="R7.3-kontra-59-against-no60-loses"),
    pytest.param(210, None, levels(re=4), KONTRA, id="R7.3-kontra-30-against-no30-wins"),
    pytest.param(211, None, levels(re=4), RE, id="R7.3-kontra-29-against-no30-loses"),
    pytest.param(240, 11, levels(re=5), KONTRA, id="R7.3-kontra-one-trick-against-schwarz"),
    pytest.param(90, None, levels(kontra=2), RE, id="R7.3-re-90-against-no90-wins"),
    pytest.param(89, None, levels(kontra=2), KONTRA, id="R7.3-re-89-against-no90-loses"),
    pytest.param(30, None, levels(kontra=4), RE, id="R7.3-re-30-against-no30-wins"),
    pytest.param(29, None, levels(kontra=4), KONTRA, id="R7.3-re-29-against-no30-loses"),
    pytest.param(180, None, levels(3, 1), KONTRA, id="R7.3-kontra-said-kontra-60-against-no60"),
    pytest.param(90, None, levels(1, 2), RE, id="R7.3-re-said-re-90-against-no90"),
    # R7.4 a party's own target stands even when the other party misses its own
    pytest.param(151, None, levels(2, 3), RE, id="R7.4-re-reaches-151-kontra-missed-181"),
    pytest.param(89, None, levels(2, 2), KONTRA, id="R7.4-kontra-reaches-151-re-missed"),
    pytest.param(140, None, levels(2, 2), None, id="R7.4-re-missing-151-does-not-make-kontra-win"),
    # R7.5 both miss: no winner
    pytest.param(130, None, levels(2, 2), None, id="R7.5-both-no90-re-130-no-winner"),
    pytest.param(120, None, levels(2, 2), None, id="R7.5-both-no90-120-120-no-winner"),
    pytest.param(170, None, levels(3, 2), None, id="R7.5-re-no60-170-kontra-no90-70"),
    pytest.param(80, None, levels(2, 3), None, id="R7.5-re-no90-80-kontra-no60-160"),
    pytest.param(240, 11, levels(5, 5), None, id="R7.5-both-schwarz-both-have-tricks"),
]


@pytest.mark.parametrize("re_points,re_tricks,announced,winner", R7)
def test_r7_winner(
    re_points: int, re_tricks: int | None, announced: dict[Party, int], winner: Party | None
) -> None:
    f = deal_facts(re_points, re_tricks, levels=announced)
    assert deal_winner(f) is winner
    assert reaches_target(RE, f) is (winner is RE)
    assert reaches_target(KONTRA, f) is (winner is KONTRA)
    result = score(f)
    assert result.winner is winner
    assert result.card_points == {RE: re_points, KONTRA: 240 - re_points}
    assert result.levels == announced


# R6.4: what each refusal promises about the opponents, seen from the refusing party.
R6_4 = [
    pytest.param(RE, 2, 151, None, True, id="R6.4-no90-kept-opponents-89"),
    pytest.param(RE, 2, 150, None, False, id="R6.4-no90-broken-opponents-90"),
    pytest.param(KONTRA, 3, 59, None, True, id="R6.4-no60-kept-opponents-59"),
    pytest.param(KONTRA, 3, 60, None, False, id="R6.4-no60-broken-opponents-60"),
    pytest.param(RE, 4, 211, None, True, id="R6.4-no30-kept-opponents-29"),
    pytest.param(RE, 4, 210, None, False, id="R6.4-no30-broken-opponents-30"),
    pytest.param(KONTRA, 5, 0, 0, True, id="R6.4-schwarz-kept-opponents-no-trick"),
    pytest.param(KONTRA, 5, 0, 1, False, id="R6.4-schwarz-broken-by-a-zero-point-trick"),
]


@pytest.mark.parametrize("party,level,re_points,re_tricks,kept", R6_4)
def test_r6_4_refusal_promises(
    party: Party, level: int, re_points: int, re_tricks: int | None, kept: bool
) -> None:
    announced = {party: level, party.opponent: 0}
    f = deal_facts(re_points, re_tricks, levels=announced)
    assert reaches_target(party, f) is kept
    assert deal_winner(f) is (party if kept else party.opponent)


# --- R8: the game value ----------------------------------------------------------------------


def L(rule: str, party: Party, points: int = 1, times: int = 1) -> list[tuple[str, Party, int]]:
    return [(rule, party, points)] * times


R8 = [
    # R8.1 winning and the losers' low counts
    pytest.param(121, None, levels(), L("R8.1", RE), 1, id="R8.1-won-scores-1"),
    pytest.param(150, None, levels(), L("R8.1", RE), 1, id="R8.1-loser-at-90-not-under-90"),
    pytest.param(151, None, levels(), L("R8.1", RE, times=2), 2, id="R8.1-loser-89-under-90"),
    pytest.param(180, None, levels(), L("R8.1", RE, times=2), 2, id="R8.1-loser-at-60"),
    pytest.param(181, None, levels(), L("R8.1", RE, times=3), 3, id="R8.1-loser-59-under-60"),
    pytest.param(210, None, levels(), L("R8.1", RE, times=3), 3, id="R8.1-loser-at-30"),
    pytest.param(211, None, levels(), L("R8.1", RE, times=4), 4, id="R8.1-loser-29-under-30"),
    pytest.param(
        240, 11, levels(), L("R8.1", RE, times=4), 4, id="R8.1-loser-zero-point-trick-not-schwarz"
    ),
    pytest.param(240, 12, levels(), L("R8.1", RE, times=5), 5, id="R8.1-loser-no-trick"),
    pytest.param(
        89,
        None,
        levels(),
        L("R8.1", KONTRA, times=2) + L("R9.1", KONTRA),
        -3,
        id="R8.1-kontra-wins-re-under-90",
    ),
    # R8.1 announcements: 2 for each of re and kontra, 1 per refusal level (included too)
    pytest.param(121, None, levels(re=1), L("R8.1", RE) + L("R8.1", RE, 2), 3, id="R8.1-re-2"),
    pytest.param(
        121, None, levels(1, 1), L("R8.1", RE) + L("R8.1", RE, 2, 2), 5, id="R8.1-re-kontra-2-each"
    ),
    pytest.param(
        120, None, levels(kontra=1), L("R8.1", RE) + L("R8.1", RE, 2), 3, id="R8.1-losers-kontra-2"
    ),
    pytest.param(
        151,
        None,
        levels(re=2),
        L("R8.1", RE, times=3) + L("R8.1", RE, 2),
        5,
        id="R8.1-no90-includes-re",
    ),
    pytest.param(
        240,
        12,
        levels(re=5),
        L("R8.1", RE, times=9) + L("R8.1", RE, 2),
        11,
        id="R8.1-schwarz-announced-and-made",
    ),
    pytest.param(
        150,
        None,
        levels(2, 1),
        L("R8.1", KONTRA, times=2) + L("R8.1", KONTRA, 2, 2) + L("R9.1", KONTRA),
        -7,
        id="R8.1-losers-refusal-levels-score-for-the-winner",
    ),
    # R8.2 reaching a threshold against an opposing refusal (levels included)
    pytest.param(
        120,
        None,
        levels(re=2),
        L("R8.1", KONTRA, times=2) + L("R8.1", KONTRA, 2) + L("R8.2", KONTRA) + L("R9.1", KONTRA),
        -6,
        id="R8.2-120-against-no90-scores-1",
    ),
    pytest.param(
        121,
        None,
        levels(re=2),
        L("R8.1", KONTRA, times=2) + L("R8.1", KONTRA, 2) + L("R9.1", KONTRA),
        -5,
        id="R8.2-119-against-no90-scores-nothing",
    ),
    pytest.param(
        120,
        None,
        levels(re=3),
        L("R8.1", KONTRA, times=3)
        + L("R8.1", KONTRA, 2)
        + L("R8.2", KONTRA, times=2)
        + L("R9.1", KONTRA),
        -8,
        id="R8.2-120-against-no60-scores-2",
    ),
    pytest.param(
        150,
        None,
        levels(re=3),
        L("R8.1", KONTRA, times=3) + L("R8.1", KONTRA, 2) + L("R8.2", KONTRA) + L("R9.1", KONTRA),
        -7,
        id="R8.2-90-against-no60-scores-1",
    ),
    pytest.param(
        151,
        None,
        levels(re=3),
        L("R8.1", KONTRA, times=3) + L("R8.1", KONTRA, 2) + L("R9.1", KONTRA),
        -6,
        id="R8.2-89-against-no60-scores-nothing",
    ),
    pytest.param(
        180,
        None,
        levels(re=4),
        L("R8.1", KONTRA, times=4) + L("R8.1", KONTRA, 2) + L("R8.2", KONTRA) + L("R9.1", KONTRA),
        -8,
        id="R8.2-60-against-no30-scores-1",
    ),
    pytest.param(
        120,
        None,
        levels(re=4),
        L("R8.1", KONTRA, times=4)
        + L("R8.1", KONTRA, 2)
        + L("R8.2", KONTRA, times=3)
        + L("R9.1", KONTRA),
        -10,
        id="R8.2-120-against-no30-scores-3",
    ),
    pytest.param(
        210,
        None,
        levels(re=5),
        L("R8.1", KONTRA, times=5) + L("R8.1", KONTRA, 2) + L("R8.2", KONTRA) + L("R9.1", KONTRA),
        -9,
        id="R8.2-30-against-schwarz-scores-1",
    ),
    pytest.param(
        240,
        11,
        levels(re=5),
        L("R8.1", KONTRA, times=5) + L("R8.1", KONTRA, 2) + L("R9.1", KONTRA),
        -8,
        id="R8.2-zero-point-trick-against-schwarz-wins-scores-nothing",
    ),
    pytest.param(
        90,
        None,
        levels(kontra=3),
        L("R8.1", RE, times=3) + L("R8.1", RE, 2) + L("R8.2", RE),
        6,
        id="R8.2-re-90-against-no60",
    ),
    pytest.param(
        120, None, levels(2, 2), L("R8.2", RE) + L("R8.2", KONTRA), 0, id="R8.2-both-sides-cancel"
    ),
    # R8.3 no winner: only the low counts, R8.2 and R9 remain
    pytest.param(130, None, levels(2, 2), L("R8.2", RE), 1, id="R8.3-E8-re-120-against-no90"),
    pytest.param(
        80,
        None,
        levels(2, 3),
        L("R8.3", KONTRA) + L("R8.2", KONTRA),
        -2,
        id="R8.3-re-under-90-and-kontra-120-against-no90",
    ),
    pytest.param(
        240,
        11,
        levels(5, 5),
        L("R8.3", RE, times=3) + L("R8.2", RE, times=4),
        7,
        id="R8.3-both-schwarz-kontra-one-zero-trick",
    ),
]


@pytest.mark.parametrize("re_points,re_tricks,announced,expected,value", R8)
def test_r8_game_value(
    re_points: int,
    re_tricks: int | None,
    announced: dict[Party, int],
    expected: list[tuple[str, Party, int]],
    value: int,
) -> None:
    result = score(deal_facts(re_points, re_tricks, levels=announced))
    assert lines_of(result) == Counter(expected)
    assert result.value == value == signed(result)


def test_r8_3_drops_winning_and_announcement_points() -> None:
    result = score(deal_facts(130, levels=levels(2, 2)))
    assert result.winner is None
    assert all(ln.rule in {"R8.2", "R8.3"} for ln in result.lines)
    assert not any(ln.reason == "won" or "announced" in ln.reason for ln in result.lines)


def test_r8_line_reasons() -> None:
    """The itemized lines name what they are for."""
    result = score(deal_facts(211, levels=levels(2, 1)))
    reasons = [(ln.rule, ln.party, ln.points, ln.reason) for ln in result.lines]
    assert reasons == [
        ("R8.1", RE, 1, "won"),
        ("R8.1", RE, 1, "kontra under 90"),
        ("R8.1", RE, 1, "kontra under 60"),
        ("R8.1", RE, 1, "kontra under 30"),
        ("R8.1", RE, 2, "re announced"),
        ("R8.1", RE, 1, "no90 announced by re"),
        ("R8.1", RE, 2, "kontra announced"),
    ]


# --- R9: extras ------------------------------------------------------------------------------

FOX_BY_RE = {1: (trick(S0, "QC AD 9D 9D"), S0)}  # S1's AD (Kontra) captured by S0 (Re)
FOX_BY_PARTNER = {1: (trick(S0, "QC 9D AD 9D"), S0)}  # S2's AD (Re) taken by S0 (Re)
FOX_WINS_ITSELF = {1: (trick(S1, "AD 9D 9D KD"), S1)}  # S1's AD wins its own trick
FOX_BY_KONTRA = {1: (trick(S1, "QC AD JH JH"), S1)}  # S2's AD (Re) captured by S1 (Kontra)
TWO_FOXES = {1: (trick(S0, "10H AD QC AD"), S0)}  # S1's and S3's ADs captured by S0
DOPPELKOPF_40_KONTRA = {2: (trick(S1, "10C 10S 10C 10S"), S1)}
DOPPELKOPF_40_RE = {2: (trick(S0, "10C 10S 10C 10S"), S0)}
NEARLY_DOPPELKOPF_37 = {2: (trick(S1, "AC AS AH KH"), S1)}
KARLCHEN_RE = {12: (trick(S0, "JC 9D KD 10D"), S0)}
KARLCHEN_KONTRA = {12: (trick(S1, "JC 9D KD 10D"), S1)}
JC_CAPTURED = {12: (trick(S0, "JC QD 9D KD"), S1)}  # S1's QD beats S0's JC
FIRST_OF_TWO_JC = {12: (trick(S0, "JC JC 9D KD"), S0)}  # the first JC played wins (R3.4)
JC_WINS_TRICK_11 = {11: (trick(S0, "JC 9D KD 10D"), S0)}

R9 = [
    # R9.1 gegen die Alten
    pytest.param(120, levels(), {}, L("R9.1", KONTRA), id="R9.1-kontra-wins-scores-1"),
    pytest.param(121, levels(), {}, [], id="R9.1-re-wins-nothing"),
    pytest.param(130, levels(2, 2), {}, [], id="R9.1-no-winner-nothing"),
    # R9.2 Doppelkopf
    pytest.param(121, levels(), DOPPELKOPF_40_KONTRA, L("R9.2", KONTRA), id="R9.2-40-counts"),
    pytest.param(131, levels(), DOPPELKOPF_40_RE, L("R9.2", RE), id="R9.2-40-for-re"),
    pytest.param(121, levels(), NEARLY_DOPPELKOPF_37, [], id="R9.2-37-highest-below-40-not"),
    pytest.param(
        121,
        levels(),
        {**DOPPELKOPF_40_KONTRA, 3: (trick(S1, "10H 10D AC AS"), S1)},
        L("R9.2", KONTRA, times=2),
        id="R9.2-one-per-trick",
    ),
    # R9.3 fox
    pytest.param(121, levels(), FOX_BY_RE, L("R9.3", RE), id="R9.3-fox-caught-by-opponents"),
    pytest.param(121, levels(), FOX_BY_KONTRA, L("R9.3", KONTRA), id="R9.3-kontra-catches-fox"),
    pytest.param(121, levels(), FOX_BY_PARTNER, [], id="R9.3-fox-taken-by-partner-nothing"),
    pytest.param(121, levels(), FOX_WINS_ITSELF, [], id="R9.3-fox-winning-its-trick-nothing"),
    pytest.param(121, levels(), TWO_FOXES, L("R9.3", RE, times=2), id="R9.3-two-foxes-in-a-trick"),
    # R9.4 Karlchen
    pytest.param(121, levels(), KARLCHEN_RE, L("R9.4", RE), id="R9.4-karlchen-wins-last-trick"),
    pytest.param(121, levels(), KARLCHEN_KONTRA, L("R9.4", KONTRA), id="R9.4-karlchen-kontra"),
    pytest.param(121, levels(), JC_CAPTURED, [], id="R9.4-jc-captured-by-higher-trump-nothing"),
    pytest.param(121, levels(), FIRST_OF_TWO_JC, L("R9.4", RE), id="R9.4-first-of-two-jc-wins"),
    pytest.param(121, levels(), JC_WINS_TRICK_11, [], id="R9.4-jc-wins-trick-11-nothing"),
    # extras still count in a no-winner deal (R8.3), gegen die Alten does not
    pytest.param(
        130,
        levels(2, 2),
        {**FOX_BY_KONTRA, **DOPPELKOPF_40_KONTRA, **KARLCHEN_KONTRA},
        L("R9.3", KONTRA) + L("R9.2", KONTRA) + L("R9.4", KONTRA),
        id="R8.3-R9-extras-count-without-winner",
    ),
]


@pytest.mark.parametrize("re_points,announced,fixed,expected", R9)
def test_r9_extras(
    re_points: int,
    announced: dict[Party, int],
    fixed: dict[int, tuple[Trick, Seat]],
    expected: list[tuple[str, Party, int]],
) -> None:
    result = score(deal_facts(re_points, levels=announced, fixed=fixed))
    got = [(ln.rule, ln.party, ln.points) for ln in result.lines if ln.rule.startswith("R9")]
    assert Counter(got) == Counter(expected)
    assert result.value == signed(result)


def test_r9_2_no_trick_holds_38_or_39() -> None:
    """R9.2's boundary: 40 is the least Doppelkopf; 4 cards cannot make 38 or 39 (37 at most)."""
    sums = {sum(c) for c in combinations_with_replacement((11, 10, 4, 3, 2, 0), 4)}
    assert 38 not in sums and 39 not in sums
    assert max(s for s in sums if s < 40) == 37


def test_r9_extras_net_against_the_value() -> None:
    """Re wins for 1; Kontra's Doppelkopf and fox bring the value to -1 (no clamping)."""
    fixed = {**FOX_BY_KONTRA, **DOPPELKOPF_40_KONTRA}
    result = score(deal_facts(121, fixed=fixed))
    assert result.winner is RE and result.value == -1
    assert result.entries == (-1, 1, -1, 1)
    result = score(deal_facts(121, fixed=DOPPELKOPF_40_KONTRA))
    assert result.value == 0 and result.entries == (0, 0, 0, 0)


# Would-be extras for Kontra (soloist S0 against S1-S3): S0's AD captured by S1, a 40-point
# trick and a JC winning the last trick (the JC wins it in every game type below).
SOLO_EXTRAS = {
    1: (trick(S1, "10H 9S 9S AD"), S1),
    2: (trick(S1, "AC AC 10C 10C"), S1),
    12: (trick(S1, "JC 9D KD 10D"), S1),
}
NO_EXTRA_TYPES = [
    *(pytest.param(gt, True, id=f"R9-no-extras-{gt.value}") for gt in sorted(SOLOS)),
    pytest.param(GameType.SILENT_SOLO, True, id="R9-no-extras-silent_solo"),
    pytest.param(GameType.MARRIAGE, True, id="R9-no-extras-marriage-without-partner"),
]


@pytest.mark.parametrize("game_type,solo", NO_EXTRA_TYPES)
def test_r9_no_extras_in_any_solo(game_type: GameType, solo: bool) -> None:
    f = deal_facts(100, game_type=game_type, solo=solo, fixed=SOLO_EXTRAS)
    assert f.parties == SOLO_PARTIES
    last = f.tricks[11]
    assert last.cards[winning_index(last.cards, order_of(game_type))] is Card.JC
    result = score(f)
    assert result.winner is KONTRA and extras(result) == []
    assert lines_of(result) == Counter(L("R8.1", KONTRA))
    assert result.value == -1 and result.entries == (-3, 1, 1, 1)


@pytest.mark.parametrize(
    "game_type",
    [
        pytest.param(GameType.NORMAL, id="R9-extras-normal"),
        pytest.param(GameType.MARRIAGE, id="R9-extras-marriage-with-partner"),
    ],
)
def test_r9_extras_in_normal_game_and_marriage_with_partner(game_type: GameType) -> None:
    """The same tricks as in the solo test, with Re = S0 and S2: every extra counts."""
    result = score(deal_facts(100, game_type=game_type, solo=False, fixed=SOLO_EXTRAS))
    assert Counter(extras(result)) == Counter(["R9.1", "R9.2", "R9.3", "R9.4"])
    assert result.value == -5 and result.entries == (-5, 5, -5, 5)


# --- R10: the scoresheet -------------------------------------------------------------------

R10 = [
    pytest.param(NORMAL_PARTIES, 3, False, (3, -3, 3, -3), id="R10.1-re-wins-3"),
    pytest.param(NORMAL_PARTIES, -8, False, (-8, 8, -8, 8), id="R10.1-kontra-wins-8"),
    pytest.param((KONTRA, RE, KONTRA, RE), 5, False, (-5, 5, -5, 5), id="R10.1-re-seats-1-3"),
    pytest.param((RE, RE, KONTRA, KONTRA), -1, False, (-1, -1, 1, 1), id="R10.1-re-seats-0-1"),
    pytest.param(NORMAL_PARTIES, 0, False, (0, 0, 0, 0), id="R10.1-value-0"),
    pytest.param(SOLO_PARTIES, 2, True, (6, -2, -2, -2), id="R10.2-soloist-wins-2"),
    pytest.param(SOLO_PARTIES, -6, True, (-18, 6, 6, 6), id="R10.2-soloist-loses-6"),
    pytest.param((KONTRA, KONTRA, RE, KONTRA), 4, True, (-4, -4, 12, -4), id="R10.2-soloist-s2"),
    pytest.param((KONTRA, KONTRA, KONTRA, RE), -1, True, (1, 1, 1, -3), id="R10.2-soloist-s3"),
]


@pytest.mark.parametrize("parties,value,solo,expected", R10)
def test_r10_entries(
    parties: tuple[Party, ...], value: int, solo: bool, expected: tuple[int, ...]
) -> None:
    assert entries(parties, value, solo=solo) == expected
    assert sum(expected) == 0


@pytest.mark.parametrize("value", range(-12, 13))
@pytest.mark.parametrize("solo", [False, True], ids=["R10.1", "R10.2"])
def test_r10_entries_sum_to_zero(value: int, solo: bool) -> None:
    parties = SOLO_PARTIES if solo else NORMAL_PARTIES
    got = entries(parties, value, solo=solo)
    assert sum(got) == 0
    assert got[0] == (3 * value if solo else value) and got[1] == -value


# --- score lines: every row of the tables above ----------------------------------------------

ALL_FACTS = [
    *(pytest.param(p.values[0], p.values[1], p.values[2], {}, id=p.id) for p in (*R7, *R8)),
    *(pytest.param(p.values[0], None, p.values[1], p.values[2], id=p.id) for p in R9),
]


@pytest.mark.parametrize("re_points,re_tricks,announced,fixed", ALL_FACTS)
def test_score_lines_carry_rule_and_party(
    re_points: int,
    re_tricks: int | None,
    announced: dict[Party, int],
    fixed: dict[int, tuple[Trick, Seat]],
) -> None:
    """Each line names its rule (R8.1, R8.2, R8.3, R9.x) and party; the value is their
    signed sum (Re +, Kontra -); the entries follow R10.1 and sum to 0."""
    f = deal_facts(re_points, re_tricks, levels=announced, fixed=fixed)
    result = score(f)
    assert result.value == signed(result)
    assert result.entries == entries(f.parties, result.value, solo=False)
    assert sum(result.entries) == 0
    rules = {ln.rule for ln in result.lines}
    assert rules <= {"R8.1", "R8.2", "R8.3", "R9.1", "R9.2", "R9.3", "R9.4"}
    assert all(ln.points > 0 and ln.party in (RE, KONTRA) and ln.reason for ln in result.lines)
    if result.winner is None:
        assert not rules & {"R8.1", "R9.1"}
    else:
        assert "R8.3" not in rules
        assert all(ln.party is result.winner for ln in result.lines if ln.rule == "R8.1")
        assert ("R8.1", result.winner, 1) in lines_of(result)
    assert result.re_seats == (S0, S2)
    assert result.tricks == {RE: f.tricks_of(RE), KONTRA: f.tricks_of(KONTRA)}


BOUNDARIES = (0, 29, 30, 59, 60, 89, 90, 119, 120, 121, 150, 151, 180, 181, 210, 211, 240)


@pytest.mark.parametrize("re_level", range(6), ids=[f"R7-R8-re-level-{n}" for n in range(6)])
def test_value_over_every_boundary(re_level: int) -> None:
    """For each pair of levels, over Re's points at every threshold (no extras but R9.1):
    at most one party reaches its target (R7); there is no winner only when both parties
    refused (R7.5); the value never falls as Re's points rise; entries sum to 0 (R10.1)."""
    for kontra_level in range(6):
        values = []
        for re_points in BOUNDARIES:
            re_tricks = 12 if re_points == 240 and re_level == 5 else None
            f = deal_facts(re_points, re_tricks, levels=levels(re_level, kontra_level))
            reached = [p for p in Party if reaches_target(p, f)]
            assert len(reached) <= 1
            result = score(f)
            assert result.winner is (reached[0] if reached else None)
            if result.winner is None:
                assert re_level >= 2 and kontra_level >= 2
            assert result.value == signed(result) and sum(result.entries) == 0
            values.append(result.value)
        assert values == sorted(values), (re_level, kontra_level, values)


# --- the worked examples -------------------------------------------------------------------
# Each docstring quotes RULES.md verbatim, its minus signs (U+2212) included.


def test_e2() -> None:
    """E2 (R8, R9) Re 160, Kontra 80; Re announced `re` and `no90`. Re wins
    (needs 151; Kontra needed 90). Value 1 (won) + 1 (Kontra under 90) + 2 (re)
    + 1 (no90) = 5. A fox caught by Re and a 40-point trick won by Kontra cancel.
    Re players +5 each, Kontra −5 each."""  # noqa: RUF002
    f = deal_facts(160, levels=levels(re=2), fixed={**FOX_BY_RE, **DOPPELKOPF_40_KONTRA})
    assert f.points_of(KONTRA) == 80
    result = score(f)
    assert result.winner is RE
    assert lines_of(result) == Counter(
        L("R8.1", RE, times=3) + L("R8.1", RE, 2) + L("R9.3", RE) + L("R9.2", KONTRA)
    )
    assert result.value == 5
    assert result.entries == (5, -5, 5, -5)


def test_e3() -> None:
    """E3 No announcements, Re wins with 131, no extras: Re +1 each, Kontra −1."""  # noqa: RUF002
    result = score(deal_facts(131))
    assert result.winner is RE
    assert lines_of(result) == Counter(L("R8.1", RE))
    assert result.value == 1
    assert result.entries == (1, -1, 1, -1)


def test_e4() -> None:
    """E4 Kontra announced `kontra` and `no60`; Kontra ends with 183. Value 1 + 2
    (kontra) + 1 + 1 (under 90, under 60) + 2 (no90, no60) = 7, plus gegen die
    Alten 1 = 8. Kontra +8 each, Re −8 each (no other extras)."""  # noqa: RUF002
    f = deal_facts(240 - 183, levels=levels(kontra=3))
    result = score(f)
    assert result.winner is KONTRA
    assert lines_of(result) == Counter(
        L("R8.1", KONTRA, times=5) + L("R8.1", KONTRA, 2) + L("R9.1", KONTRA)
    )
    assert result.value == -8  # from Re's side
    assert result.entries == (-8, 8, -8, 8)


def test_e5() -> None:
    """E5 Re announced `re`, `no60`; Kontra said `kontra`; Kontra ends with 60.
    Re missed 181, Kontra reached 60 against no60: Kontra wins. 1 + 2 + 2 + 2
    (no90, no60) + 1 (gegen die Alten) = 8. With 90 instead of 60: 9 (R8.2)."""
    result = score(deal_facts(240 - 60, levels=levels(3, 1)))
    assert result.winner is KONTRA
    assert lines_of(result) == Counter(
        L("R8.1", KONTRA) + L("R8.1", KONTRA, 2, 2) + L("R8.1", KONTRA, times=2) + L("R9.1", KONTRA)
    )
    assert result.value == -8
    assert result.entries == (-8, 8, -8, 8)
    result = score(deal_facts(240 - 90, levels=levels(3, 1)))
    assert result.winner is KONTRA
    assert ("R8.2", KONTRA, 1) in lines_of(result)
    assert result.value == -9
    assert result.entries == (-9, 9, -9, 9)


def test_e6() -> None:
    """E6 Solo, no announcements, soloist 153: 1 + 1 (under 90) = 2. Soloist +6,
    others −2 each."""  # noqa: RUF002
    result = score(deal_facts(153, game_type=GameType.CLUBS_SOLO))
    assert result.winner is RE and result.solo
    assert lines_of(result) == Counter(L("R8.1", RE, times=2))
    assert result.value == 2
    assert result.entries == (6, -2, -2, -2)


def test_e7() -> None:
    """E7 Soloist announced `re`, `no90` and ends with 87: Kontra wins. 1 + 2 + 1
    (no90) + 1 (120 against no90) + 1 (soloist under 90) = 6. Soloist −18,
    others +6 each."""  # noqa: RUF002
    result = score(deal_facts(87, game_type=GameType.QUEEN_SOLO, levels=levels(re=2)))
    assert result.winner is KONTRA and result.solo
    assert lines_of(result) == Counter(
        L("R8.1", KONTRA) + L("R8.1", KONTRA, 2) + L("R8.1", KONTRA, times=2) + L("R8.2", KONTRA)
    )
    assert result.value == -6
    assert result.entries == (-18, 6, 6, 6)


def test_e8() -> None:
    """E8 (R7.5, R8.3) Re announced `re`, `no90`; Kontra `kontra`, `no90`. Re 130,
    Kontra 110: both miss 151. No winner; Re has 120 against Kontra's no90: +1;
    Kontra 110 has nothing. Re +1 each, Kontra −1 each (no extras)."""  # noqa: RUF002
    result = score(deal_facts(130, levels=levels(2, 2)))
    assert result.winner is None
    assert lines_of(result) == Counter(L("R8.2", RE))
    assert result.value == 1
    assert result.entries == (1, -1, 1, -1)


def test_e9() -> None:
    """E9 (R7.1) Only Kontra announced; Re ends with exactly 120: Re wins. Value
    1 + 2 (kontra) = 3, Re +3 each."""
    result = score(deal_facts(120, levels=levels(kontra=1)))
    assert result.winner is RE
    assert lines_of(result) == Counter(L("R8.1", RE) + L("R8.1", RE, 2))
    assert result.value == 3
    assert result.entries == (3, -3, 3, -3)


# --- E3 and E9 played in full from preset hands ---------------------------------------------

# Dealer WEST, so NORTH (0) leads; Re = 0 and 2 (one QC each). Every trick stays under 40,
# both ADs go to their own party, and KD wins the last trick.
E3_HANDS = hands(
    "10H QC QS QD JC JS 10C KC 10S KS AH KH",
    "10H QS QH JH 10D KD KD 10C 9C 10S 9S AH",
    "QC QH JC AD 10D 9D 9D AC KC AS KS KH",
    "QD JS JH JD JD AD AC 9C AS 9S 9H 9H",
)
E3_TRICKS = (
    "QC JH 9D JD",  # 0 leads and wins: 7 to Re
    "10H KD AD QD",  # 0: 28 to Re (S2's AD, partner)
    "QS 10H 10D JS",  # 1: 25 to Kontra
    "QS JC AD JS",  # 1 leads and wins: 18 to Kontra (S3's AD, partner)
    "QH QC JH QD",  # 2: 11 to Re
    "QH JD JC 10D",  # 2 leads and wins: 17 to Re
    "AC 9C 10C 9C",  # 2: 21 to Re
    "AS 9S 10S 9S",  # 2: 21 to Re
    "KC AC KC 10C",  # 3: 29 to Kontra
    "AS KS 10S KS",  # 3 leads and wins: 29 to Kontra
    "9H AH AH KH",  # 0: 26 to Re (the first AH)
    "KH KD 9D 9H",  # 0 leads, 1 wins with KD: 8 to Kontra
)  # Re 131, Kontra 109
E9_HANDS = hands(
    "10H QC QS QD JC JS 10C KC 10S KS AH 9H",
    "10H QS QH JH 10D KD KD 10C KC 10S KS KH",
    "QC QH JC AD 10D 9D 9D AC 9C AS 9S KH",
    "QD JS JH JD JD AD AC 9C AS 9S AH 9H",
)
E9_TRICKS = (
    *E3_TRICKS[:6],  # Re 63, Kontra 43 as in E3
    "AC 9C KC KC",  # 2: 19 to Re
    "AS 9S KS KS",  # 2: 19 to Re
    "9C AC 10C 10C",  # 3: 31 to Kontra
    "AS 10S 10S 9S",  # 3 leads and wins: 31 to Kontra
    "9H AH KH KH",  # 0: 19 to Re
    "9H KD 9D AH",  # 0 leads, 1 wins with KD: 15 to Kontra
)  # Re 120, Kontra 120


def play_deal(dealt: tuple[tuple[Card, ...], ...]) -> DealState:
    state, _ = start_play(deal_state(dealt, dealer=Seat.WEST))
    assert state.game_type is GameType.NORMAL and state.parties == NORMAL_PARTIES
    return state


def test_e3_played_in_full() -> None:
    """E3 No announcements, Re wins with 131, no extras: Re +1 each, Kontra −1."""  # noqa: RUF002
    state = play_deal(E3_HANDS)
    state, events = play(state, *E3_TRICKS)
    assert state.phase is Phase.SCORED
    scored = events[-1]
    assert isinstance(scored, DealScored) and state.score == scored
    result = scored.score
    assert result.card_points == {RE: 131, KONTRA: 109}
    assert result.tricks == {RE: 7, KONTRA: 5}
    assert result.winner is RE
    assert lines_of(result) == Counter(L("R8.1", RE))
    assert result.value == 1
    assert result.entries == (1, -1, 1, -1)
    assert result == score(facts(state))


def test_e9_played_in_full() -> None:
    """E9 (R7.1) Only Kontra announced; Re ends with exactly 120: Re wins. Value
    1 + 2 (kontra) = 3, Re +3 each."""
    state = play_deal(E9_HANDS)
    state, _ = run(state, Announce(S3, Word.KONTRA))  # with 12 cards, before the first lead
    state, events = play(state, *E9_TRICKS)
    scored = events[-1]
    assert isinstance(scored, DealScored)
    result = scored.score
    assert result.card_points == {RE: 120, KONTRA: 120}
    assert result.levels == {RE: 0, KONTRA: 1}
    assert result.winner is RE
    assert lines_of(result) == Counter(L("R8.1", RE) + L("R8.1", RE, 2))
    assert result.value == 3
    assert result.entries == (3, -3, 3, -3)


def test_e9_deal_without_the_announcement_goes_to_kontra() -> None:
    """R7.1 control for E9: the same 120:120 without Kontra's announcement is Kontra's."""
    _, events = play(play_deal(E9_HANDS), *E9_TRICKS)
    scored = events[-1]
    assert isinstance(scored, DealScored)
    assert scored.score.winner is KONTRA
    assert scored.score.value == -2  # won 1 + gegen die Alten 1
