"""Hand inference: deal the cards the viewer cannot see, consistently with what it saw.

The unseen cards are the 48 (without nines 40, V1.1) less the viewer's hand and every card
played. Each other seat gets exactly as many as it holds, and never a card it cannot hold:
- a card of a category it failed to follow (R3.3: a void shown);
- a QC when it is known Kontra in a normal game (R4.4: the QC holders are Re), or when
  another seat declared the marriage (R4.6: the declarer holds both QC);
and a seat known Re in a normal game (by an announcement, R6.8) that has played no QC
gets one, as the marriage's declarer gets every QC not yet played, and the declarer of a
solo gets what the declaration says he holds (`expert.soloist`: enough trumps and high
trumps, or aces for a fleischloser, R5), counting what he has played. Cards go out most
constrained first, each to an eligible seat chosen with chance weighted by the room
left, so that every consistent deal can come out; a dead end starts again. What a
soloist should hold gives way first (`ATTEMPTS` dead ends: a player may declare a solo
his hand does not carry), the voids after as many again.
"""

from __future__ import annotations

import random

from msgspec import UNSET

from domain.decks import DECKS
from domain.game_types import GameType
from domain.observations import Observation
from domain.parties import Party
from domain.rule_set import in_force
from domain.seats import SEATS
from expert.core import (
    AD,
    CODE,
    CODES,
    PAIR,
    QC,
    Tables,
    mask_of,
    observed_tables,
    schweinchen_rank,
)
from expert.soloist import FLOORS, Floor

ATTEMPTS = 40
"""Fresh starts before the voids are ignored (a dead end is rare)."""


def played_cards(observation: Observation) -> list[tuple[int, tuple[int, ...]]]:
    """Every trick so far, complete or not, as (leader, codes)."""
    tricks = [(int(t.leader), tuple(CODE[c] for c in t.cards)) for t in observation.tricks]
    if observation.trick:
        assert observation.trick_leader is not None
        tricks.append((int(observation.trick_leader), tuple(CODE[c] for c in observation.trick)))
    return tricks


def voids(observation: Observation, tables: Tables) -> list[int]:
    """R3.3: per seat, the bit set of the categories it showed it does not hold."""
    shown = [0, 0, 0, 0]
    category = tables.category
    for leader, cards in played_cards(observation):
        led = category[cards[0]]
        for i in range(1, len(cards)):
            if category[cards[i]] != led:
                shown[(leader + i) % 4] |= tables.masks[led]
    return shown


def unseen(observation: Observation) -> list[int]:
    """The codes of the cards the viewer has not seen, one entry per copy."""
    rest = mask_of(list(DECKS[in_force(observation.rules).algorithm][0]))  # V1.1: 40 cards
    rest &= ~mask_of(list(observation.hand))
    seen = [c for _, cards in played_cards(observation) for c in cards]
    for c in seen:
        pair = rest & PAIR[c]
        rest ^= pair & -pair
    codes = []
    while rest:
        low = rest & -rest
        codes.append((low.bit_length() - 1) >> 1)
        rest ^= low
    return codes


Needs = list[tuple[int, Floor]]


def _rules(observation: Observation) -> tuple[set[int], Needs, Needs]:
    """The seats that may hold no QC (R4.4, R4.6), the cards a seat must still get (the
    QC of a known Re or of the marriage's declarer, the AD of a seat that showed
    Schweinchen, V3.1), and those a soloist should get: what his declaration says he holds
    (`expert.soloist`), less what he has played of them."""
    viewer = observation.viewer
    game_type = observation.game_type
    declarer = observation.declarer
    forbidden: set[int] = set()
    needs: Needs = []
    wishes: Needs = []
    played: list[list[int]] = [[], [], [], []]
    for leader, cards in played_cards(observation):
        for i, c in enumerate(cards):
            played[(leader + i) % 4].append(c)
    if game_type is GameType.MARRIAGE:
        assert declarer is not None
        forbidden = {int(s) for s in SEATS if s is not declarer}
        if declarer is not viewer:
            needs.append((int(declarer), Floor(frozenset({QC}), 2 - played[declarer].count(QC))))
    elif game_type is GameType.NORMAL:
        for s in SEATS:
            if s is viewer:
                continue
            party = observation.parties[s]
            if party is Party.KONTRA:
                forbidden.add(int(s))
            elif party is Party.RE and QC not in played[s]:
                needs.append((int(s), Floor(frozenset({QC}), 1)))
    elif game_type is GameType.POVERTY:
        needs.extend(_exchanged(observation, played))
    elif game_type is not None and declarer is not None and declarer is not viewer:
        for floor in FLOORS[game_type]:
            shown = sum(c in floor.codes for c in played[declarer])
            wishes.append((int(declarer), Floor(floor.codes, floor.fewest - shown)))
    holder = observation.schweinchen
    if holder is not UNSET and holder is not viewer:  # V3.1: it showed both AD
        needs.append((int(holder), Floor(frozenset({AD}), 2 - played[holder].count(AD))))
    return forbidden, needs, wishes


def _exchanged(observation: Observation, played: list[list[int]]) -> Needs:
    """V4.6: the cards of an Armut the viewer saw go to the other of the two: the trumps
    the poor viewer gave stay with the partner (those it gave back aside), the cards the
    partner gave back with the poor player; less what each has played of them."""
    poverty, viewer = observation.poverty, observation.viewer
    if poverty is UNSET or poverty.partner is None or viewer not in (poverty.poor, poverty.partner):
        return []
    back = poverty.returned_cards or ()
    if viewer is poverty.poor:
        holder, held = poverty.partner, list(poverty.given_cards or ())
        for c in back:
            if c in held:
                held.remove(c)
    else:
        holder, held = poverty.poor, list(back)
    codes = [CODE[c] for c in held]
    return [
        (int(holder), Floor(frozenset({c}), codes.count(c) - played[holder].count(c)))
        for c in sorted(set(codes))
        if codes.count(c) > played[holder].count(c)
    ]


def sample(observation: Observation, rng: random.Random) -> tuple[int, ...]:
    """One deal of the unseen cards to the other seats: the four hands as bit sets."""
    viewer = observation.viewer
    assert viewer is not None
    game_type = observation.game_type or GameType.NORMAL
    tables = observed_tables(game_type, observation.rules, schweinchen_rank(observation, game_type))
    shown = voids(observation, tables)
    forbidden, needs, wishes = _rules(observation)
    cards = unseen(observation)
    others = [int(s) for s in SEATS if s is not viewer]
    for attempt in range(2 * ATTEMPTS + 1):
        dealt = _deal(
            observation,
            cards,
            others,
            shown if attempt < 2 * ATTEMPTS else [0] * 4,
            forbidden,
            needs + wishes if attempt < ATTEMPTS else needs,
            rng,
        )
        if dealt is not None:
            hands = [0, 0, 0, 0]
            hands[int(viewer)] = mask_of(list(observation.hand))
            for seat in others:
                hands[seat] = mask_of([CODES[c] for c in dealt[seat]])
            return tuple(hands)
    raise ValueError("no deal of the unseen cards fits the observation")


def _deal(
    observation: Observation,
    cards: list[int],
    others: list[int],
    shown: list[int],
    forbidden: set[int],
    needs: Needs,
    rng: random.Random,
) -> dict[int, list[int]] | None:
    """One attempt: the unseen codes by seat, or None at a dead end. The cards a seat
    must get go first (as many as the unseen cards it may hold allow), drawn at random
    among those that fit."""
    room = {s: observation.hand_sizes[s] for s in others}
    dealt: dict[int, list[int]] = {s: [] for s in others}
    pool = list(cards)
    rng.shuffle(pool)

    def fits(code: int, seat: int) -> bool:
        return not shown[seat] & PAIR[code] and not (code == QC and seat in forbidden)

    for seat, floor in needs:
        missing = floor.fewest - sum(c in floor.codes for c in dealt[seat])
        fitting = [i for i, c in enumerate(pool) if c in floor.codes and fits(c, seat)]
        for i in sorted(fitting[: max(0, min(missing, room[seat]))], reverse=True):
            dealt[seat].append(pool.pop(i))
            room[seat] -= 1

    def eligible(code: int) -> list[int]:
        return [s for s in others if fits(code, s)]

    choices = [(c, eligible(c)) for c in pool]
    choices.sort(key=lambda item: len(item[1]))
    for code, seats in choices:
        open_seats = [s for s in seats if room[s] > 0]
        if not open_seats:
            return None
        total = sum(room[s] for s in open_seats)
        pick = rng.randrange(total)
        for s in open_seats:
            pick -= room[s]
            if pick < 0:
                break
        dealt[s].append(code)
        room[s] -= 1
    return dealt
