"""What a declared solo says about the soloist's hand (R5.1-R5.5).

A seat declares a solo only with a hand that carries it: enough trumps of the solo's own
order and enough of its highest ones (for a fleischloser, R5.5, enough aces). The expert
weighs a solo of its own only on such a hand (`expert.reservations.candidates`), and it
reads another seat's declared solo the same way: the inference (`expert.inference`)
deals the soloist at least these cards, counting what he has played, so that a Kontra
or a refusal against a solo is priced on the solo's real strength and not on a random
hand that happens to have been declared.
"""

from __future__ import annotations

import msgspec

from domain.cards import Card, Rank
from domain.game_types import GameType, order_of
from expert.core import CODE, CODES, mask_of


class Floor(msgspec.Struct, frozen=True):
    """The fewest cards of ``codes`` (each code's two copies count) a hand holds."""

    codes: frozenset[int]
    fewest: int


SOLO_TRUMPS: dict[GameType, int] = {
    GameType.DIAMONDS_SOLO: 8,
    GameType.HEARTS_SOLO: 8,
    GameType.SPADES_SOLO: 8,
    GameType.CLUBS_SOLO: 8,
    GameType.QUEEN_SOLO: 4,
    GameType.JACK_SOLO: 4,
}
"""R5.2-R5.4: the fewest trumps of a solo's own order to carry it."""

HIGH_TRUMPS: dict[GameType, tuple[int, int]] = {
    GameType.DIAMONDS_SOLO: (4, 3),
    GameType.HEARTS_SOLO: (4, 3),
    GameType.SPADES_SOLO: (4, 3),
    GameType.CLUBS_SOLO: (4, 3),
    GameType.QUEEN_SOLO: (2, 2),
    GameType.JACK_SOLO: (2, 2),
}
"""R5.2-R5.4: (the top n trumps of the order, the fewest copies of them) to carry a solo:
a suit solo with three of the Dullen and the black and red queens above it, a queen or
jack solo with two of its two highest."""

FLEISCHLOS_ACES = 3
"""R5.5: the fewest aces to carry a fleischloser."""

ACES = frozenset(CODE[c] for c in CODES if c.rank is Rank.ACE)


def floors(game_type: GameType) -> tuple[Floor, ...]:
    """What a hand holds to carry this solo (none for a contract that is not one)."""
    if game_type is GameType.FLEISCHLOS:
        return (Floor(ACES, FLEISCHLOS_ACES),)
    if game_type not in SOLO_TRUMPS:
        return ()
    trumps = [CODE[c] for c in order_of(game_type).trumps]  # the highest first
    top, fewest = HIGH_TRUMPS[game_type]
    return (
        Floor(frozenset(trumps[:top]), fewest),
        Floor(frozenset(trumps), SOLO_TRUMPS[game_type]),
    )


FLOORS: dict[GameType, tuple[Floor, ...]] = {g: floors(g) for g in GameType}


def held(bits: int, codes: frozenset[int]) -> int:
    """How many cards of ``codes`` the bit set holds."""
    return sum((bits >> (2 * c) & 3).bit_count() for c in codes)


def carries(hand: tuple[Card, ...], game_type: GameType) -> bool:
    """Whether the hand reaches every floor of the solo."""
    bits = mask_of(list(hand))
    return all(held(bits, f.codes) >= f.fewest for f in FLOORS[game_type])
