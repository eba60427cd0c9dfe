"""Who won the deal (R7), the game value (R8), extras (R9) and the scoresheet (R10)."""

from __future__ import annotations

from functools import cached_property

import msgspec

from domain.announcements import PartyAnnouncements
from domain.cards import Card
from domain.events import Score, ScoreLine
from domain.game_types import GameType
from domain.parties import Party
from domain.seats import SEATS, Seat
from domain.tricks import Trick

_OWN_TARGET = {2: 151, 3: 181, 4: 211}
"""R7.2: a party's own refusal sets its target (schwarz: all tricks, 12 or V1.5: 10)."""
_AGAINST_TARGET = {2: 90, 3: 60, 4: 30}
"""R7.3: against an opposing refusal (schwarz: one trick)."""
_REACHED = ((2, 120), (3, 90), (4, 60), (5, 30))
"""R8.2: card points that earn 1 against each opposing refusal level."""
_UNDER = ((90, "under 90"), (60, "under 60"), (30, "under 30"))
_LEVEL_NAMES = {2: "no90", 3: "no60", 4: "no30", 5: "schwarz"}


class DealFacts(msgspec.Struct, frozen=True, dict=True):
    """What the scoring of a finished deal needs to know.

    ``dict=True`` only lets the per-party totals be computed once (cached).
    """

    game_type: GameType
    solo: bool
    parties: tuple[Party, ...]
    tricks: tuple[Trick, ...]
    winners: tuple[Seat, ...]
    announcements: dict[Party, PartyAnnouncements]

    @cached_property
    def _points(self) -> dict[Party, int]:
        totals = dict.fromkeys(Party, 0)
        for t, w in zip(self.tricks, self.winners, strict=True):
            totals[self.parties[w]] += t.points
        return totals

    @cached_property
    def _tricks(self) -> dict[Party, int]:
        counts = dict.fromkeys(Party, 0)
        for w in self.winners:
            counts[self.parties[w]] += 1
        return counts

    def points_of(self, party: Party) -> int:
        return self._points[party]

    def tricks_of(self, party: Party) -> int:
        return self._tricks[party]


def reaches_target(party: Party, facts: DealFacts) -> bool:
    """R7.1-R7.4: whether a party reached its own target.

    R7.2 its own refusal sets it; else R7.3 an opposing refusal sets it; else
    R7.1 Re needs 121 and Kontra 120, the other way round when only Kontra announced.
    """
    own = facts.announcements[party].level
    opposing = facts.announcements[party.opponent].level
    pts = facts.points_of(party)
    if own >= 2:
        if own == 5:
            return facts.tricks_of(party.opponent) == 0
        return pts >= _OWN_TARGET[own]
    if opposing >= 2:
        if opposing == 5:
            return facts.tricks_of(party) >= 1
        return pts >= _AGAINST_TARGET[opposing]
    only_kontra = (
        facts.announcements[Party.KONTRA].level >= 1 and facts.announcements[Party.RE].level == 0
    )
    if party is Party.RE:
        return pts >= (120 if only_kontra else 121)
    return pts >= (121 if only_kontra else 120)


def deal_winner(facts: DealFacts) -> Party | None:
    """R7: the party that reached its target; None when both missed (R7.5)."""
    for party in Party:
        if reaches_target(party, facts):
            return party
    return None


def _losers_lines(scorer: Party, facts: DealFacts) -> list[ScoreLine]:
    """R8.1 / R8.3: 1 each for the opponents ending under 90, 60, 30 and with no trick."""
    loser = scorer.opponent
    pts = facts.points_of(loser)
    rule = "R8.1"
    lines = [
        ScoreLine(rule, scorer, 1, f"{loser.value} {label}")
        for threshold, label in _UNDER
        if pts < threshold
    ]
    if facts.tricks_of(loser) == 0:
        lines.append(ScoreLine(rule, scorer, 1, f"{loser.value} schwarz (no trick)"))
    return lines


def _announcement_lines(winner: Party, facts: DealFacts) -> list[ScoreLine]:
    """R8.1: 2 for each of re and kontra said; 1 for every refusal level, included ones too."""
    lines: list[ScoreLine] = []
    for party in Party:
        level = facts.announcements[party].level
        if level >= 1:
            lines.append(ScoreLine("R8.1", winner, 2, f"{party.value} announced"))
        lines.extend(
            ScoreLine("R8.1", winner, 1, f"{_LEVEL_NAMES[lvl]} announced by {party.value}")
            for lvl in range(2, level + 1)
        )
    return lines


def _reached_lines(facts: DealFacts) -> list[ScoreLine]:
    """R8.2: 1 for 120 against no90, 90 against no60, 60 against no30, 30 against schwarz."""
    lines: list[ScoreLine] = []
    for party in Party:
        opposing = facts.announcements[party.opponent].level
        pts = facts.points_of(party)
        lines.extend(
            ScoreLine("R8.2", party, 1, f"{threshold} against {_LEVEL_NAMES[level]}")
            for level, threshold in _REACHED
            if opposing >= level and pts >= threshold
        )
    return lines


def _extra_lines(winner: Party | None, facts: DealFacts) -> list[ScoreLine]:
    """R9: extras of normal games (a marriage with a partner included)."""
    lines: list[ScoreLine] = []
    if winner is Party.KONTRA:
        lines.append(ScoreLine("R9.1", Party.KONTRA, 1, "against the old ladies"))
    last = len(facts.tricks)  # R9.4: trick 12 (V1.5: trick 10)
    for number, (trick, seat) in enumerate(zip(facts.tricks, facts.winners, strict=True), 1):
        party = facts.parties[seat]
        if trick.points >= 40:
            lines.append(ScoreLine("R9.2", party, 1, f"Doppelkopf in trick {number}"))
        for i, c in enumerate(trick.cards):
            if c is Card.AD and facts.parties[trick.seat_of(i)] is not party:
                lines.append(ScoreLine("R9.3", party, 1, f"fox caught in trick {number}"))
        if number == last and trick.cards[(seat - trick.leader) % 4] is Card.JC:
            lines.append(ScoreLine("R9.4", party, 1, "Karlchen wins the last trick"))
    return lines


def score(facts: DealFacts) -> Score:
    """R7-R10: the itemized game value and the scoresheet entries of a finished deal."""
    winner = deal_winner(facts)
    lines: list[ScoreLine] = []
    if winner is not None:
        lines.append(ScoreLine("R8.1", winner, 1, "won"))
        lines.extend(_losers_lines(winner, facts))
        lines.extend(_announcement_lines(winner, facts))
    else:
        for party in Party:
            lines.extend(
                ScoreLine("R8.3", ln.party, ln.points, ln.reason)
                for ln in _losers_lines(party, facts)
            )
    lines.extend(_reached_lines(facts))
    if not facts.solo:
        lines.extend(_extra_lines(winner, facts))
    value = sum(ln.points if ln.party is Party.RE else -ln.points for ln in lines)
    return Score(
        game_type=facts.game_type,
        solo=facts.solo,
        re_seats=tuple(s for s in SEATS if facts.parties[s] is Party.RE),
        card_points={p: facts.points_of(p) for p in Party},
        tricks={p: facts.tricks_of(p) for p in Party},
        levels={p: facts.announcements[p].level for p in Party},
        winner=winner,
        lines=tuple(lines),
        value=value,
        entries=entries(facts.parties, value, solo=facts.solo),
    )


def entries(parties: tuple[Party, ...], value: int, *, solo: bool) -> tuple[int, ...]:
    """R10: scoresheet entries by seat; they sum to 0.

    R10.1 normal: each Re member writes ``value``, each Kontra member ``-value``.
    R10.2 solo: the soloist writes three times the value, each opponent the single
    value with the opposite sign.
    """
    re_factor = 3 if solo else 1
    return tuple(value * re_factor if p is Party.RE else -value for p in parties)
