"""Hand inference: deal the cards the viewer cannot see, consistently with what it saw.

The unseen cards are the 48 less the viewer's hand and every card played. Each other
seat gets exactly as many as it holds, and never a card it cannot hold:
- a card of a category it failed to follow (R3.3: a void shown);
- a QC when it is known Kontra in a normal game (R4.4: the QC holders are Re), or when
  another seat declared the marriage (R4.6: the declarer holds both QC);
and a seat known Re in a normal game (by an announcement, R6.8) that has played no QC
gets one, as the marriage's declarer gets every QC not yet played. Cards go out most
constrained first, each to an eligible seat chosen with chance weighted by the room
left, so that every consistent deal can come out; a dead end starts again.
"""

from __future__ import annotations

import random

from domain.cards import DECK
from domain.game_types import GameType
from domain.observations import Observation
from domain.parties import Party
from domain.seats import SEATS
from expert.core import CODE, CODES, PAIR, QC, Tables, mask_of, observed_tables

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
    rest = mask_of(list(DECK))
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


def _qc_rules(observation: Observation) -> tuple[set[int], dict[int, int]]:
    """The seats that may hold no QC, and how many QC a seat must get (R4.4, R4.6)."""
    viewer = observation.viewer
    game_type = observation.game_type
    forbidden: set[int] = set()
    needed: dict[int, int] = {}
    played = {int(s): 0 for s in SEATS}
    for leader, cards in played_cards(observation):
        for i, c in enumerate(cards):
            if c == QC:
                played[(leader + i) % 4] += 1
    if game_type is GameType.MARRIAGE:
        declarer = observation.declarer
        assert declarer is not None
        forbidden = {int(s) for s in SEATS if s is not declarer}
        if declarer is not viewer:
            needed[int(declarer)] = 2 - played[int(declarer)]
    elif game_type is GameType.NORMAL:
        for s in SEATS:
            if s is viewer:
                continue
            party = observation.parties[s]
            if party is Party.KONTRA:
                forbidden.add(int(s))
            elif party is Party.RE and played[int(s)] == 0:
                needed[int(s)] = 1
    return forbidden, needed


def sample(observation: Observation, rng: random.Random) -> tuple[int, ...]:
    """One deal of the unseen cards to the other seats: the four hands as bit sets."""
    viewer = observation.viewer
    assert viewer is not None
    tables = observed_tables(observation.game_type or GameType.NORMAL, observation.rules)
    shown = voids(observation, tables)
    forbidden, needed = _qc_rules(observation)
    cards = unseen(observation)
    others = [int(s) for s in SEATS if s is not viewer]
    for attempt in range(ATTEMPTS + 1):
        dealt = _deal(
            observation,
            cards,
            others,
            shown if attempt < ATTEMPTS else [0] * 4,
            forbidden,
            needed,
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
    needed: dict[int, int],
    rng: random.Random,
) -> dict[int, list[int]] | None:
    """One attempt: the unseen codes by seat, or None at a dead end."""
    room = {s: observation.hand_sizes[s] for s in others}
    dealt: dict[int, list[int]] = {s: [] for s in others}
    pool = list(cards)
    rng.shuffle(pool)
    for seat, n in needed.items():
        for _ in range(n):
            pool.remove(QC)  # there: the observation is consistent
            dealt[seat].append(QC)
            room[seat] -= 1

    def eligible(code: int) -> list[int]:
        bit = PAIR[code]
        return [s for s in others if not shown[s] & bit and not (code == QC and s in forbidden)]

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
