"""Dealing (R2.2): a versioned, deterministic algorithm from a 32-byte seed, or preset hands.

Algorithm ``doko-deal-v1``, for anyone to recompute a deal:

1. Random stream: block ``i`` (i = 0, 1, ...) is ``SHA-256(seed || i as 8-byte
   big-endian)``; the stream is the blocks concatenated.
2. A number below ``n``: take the next 4 bytes as a big-endian unsigned integer
   ``u``; if ``u >= 2**32 - 2**32 % n`` discard it and take the next 4 (no bias);
   otherwise the number is ``u % n``.
3. Shuffle: start from the canonical deck (`domain.cards.DECK`: the 24 codes in
   the order C S H D x A 10 K Q J 9, then the same again); Fisher-Yates from
   the top: for ``i`` from 47 down to 1, swap positions ``i`` and a number below ``i + 1``.
4. Cut (the dealer's right-hand player): ``c = 3 +`` a number below 43, so
   each part keeps at least 3 cards; the deck becomes ``deck[c:] + deck[:c]``.
5. Deal: four rounds; in each, starting with the dealer's left and going
   clockwise, each player takes the next 3 cards from the top.

The commitment published before the deal is ``SHA-256(seed)`` in hex; after
the deal the seed is revealed and `verify_deal` recomputes the hands.

At a table the server seed of deal ``k`` is committed to before anyone sits
down and each player may add entropy when taking a seat; the deal is then
shuffled from ``SHA-256(server seed || entropy of seats 0..3 || k as 4-byte
big-endian)`` so that no single party controls it (`deal_seed`). Without
entropy the server seed is the deal seed.

A deal dealt again after an Armut all refused (V4.8, `domain.variants.armut`), its
``r``-th redeal (r = 1, 2 ...), is shuffled from ``SHA-256(server seed || entropy of
seats 0..3 || k as 4-byte big-endian || r as 4-byte big-endian)``, with or without
entropy; its record names ``r`` (`domain.events.Dealing.redeal`).

Algorithm ``doko-deal-v1-40`` (V1.2, `domain.variants.without_nines`) deals the 40-card
deck the same way: the same steps on the deck without the nines, three rounds of 3, 4
and 3 cards. A deal's record names its algorithm, so it is verified without its rule set.
"""

from __future__ import annotations

import hashlib
import struct
from collections import Counter
from collections.abc import Iterator
from typing import TypeVar

from msgspec import UNSET

from domain.cards import Card
from domain.decks import ALGORITHM, DECKS
from domain.errors import InvalidDeal
from domain.events import Dealing
from domain.seats import Seat

SEED_BYTES = 32
T = TypeVar("T")


def commitment(seed: bytes) -> str:
    """The SHA-256 of the seed, in hex: published before the deal."""
    return hashlib.sha256(seed).hexdigest()


_WORDS = struct.Struct(">8I")
"""A 32-byte block as eight big-endian unsigned 4-byte integers."""


def _stream(seed: bytes) -> Iterator[int]:
    block = 0
    while True:
        yield from _WORDS.unpack(hashlib.sha256(seed + block.to_bytes(8, "big")).digest())
        block += 1


def _below(stream: Iterator[int], n: int) -> int:
    limit = 2**32 - 2**32 % n
    while True:
        u = next(stream)
        if u < limit:
            return u % n


def _shuffle(stream: Iterator[int], items: list[T]) -> None:
    """Fisher-Yates from the top, in place: for ``i`` from the last position down to 1, swap
    positions ``i`` and a number below ``i + 1``."""
    for i in range(len(items) - 1, 0, -1):
        j = _below(stream, i + 1)
        items[i], items[j] = items[j], items[i]


def deal_from_seed(
    seed: bytes, dealer: Seat, algorithm: str = ALGORITHM
) -> tuple[tuple[Card, ...], ...]:
    """R2.2: shuffle, cut leaving >= 3 cards each side, deal 4 x 3 from the dealer's left
    (V1.2: the 40 cards, 3, 4 and 3)."""
    if len(seed) != SEED_BYTES:
        raise InvalidDeal(f"a deal seed has {SEED_BYTES} bytes, not {len(seed)}", rule="R2.2")
    cards, packets = DECKS[algorithm]
    stream = _stream(seed)
    deck = list(cards)
    _shuffle(stream, deck)
    cut = 3 + _below(stream, len(deck) - 5)
    deck = deck[cut:] + deck[:cut]
    hands: list[list[Card]] = [[], [], [], []]
    top = 0
    for packet in packets:
        for seat in dealer.left().round():
            hands[seat].extend(deck[top : top + packet])
            top += packet
    return tuple(tuple(h) for h in hands)


def permutation(seed: bytes, n: int) -> tuple[int, ...]:
    """A lot: the numbers ``0..n-1`` in the order a Fisher-Yates shuffle of the seed's random
    stream puts them (steps 1-3 above, on ``range(n)`` instead of the deck). An event draws
    its seating with it (`domain.seating`, E3.1)."""
    order = list(range(n))
    _shuffle(_stream(seed), order)
    return tuple(order)


def deal_seed(seed: bytes, entropy: tuple[bytes, ...], deal_no: int, redeal: int = 0) -> bytes:
    """The seed the deck is shuffled from: the server seed mixed with the players' entropy,
    and for a redeal (V4.8) with its number."""
    if not entropy and not redeal:
        return seed
    again = redeal.to_bytes(4, "big") if redeal else b""
    return hashlib.sha256(b"".join((seed, *entropy, deal_no.to_bytes(4, "big"), again))).digest()


def seeded_dealing(
    seed: bytes, entropy: tuple[bytes, ...] = (), algorithm: str = ALGORITHM, redeal: int = 0
) -> Dealing:
    """The record of a seeded deal: algorithm, commitment, the (server) seed and entropy,
    and which redeal it is (V4.8; left out for the first dealing)."""
    return Dealing(
        "seeded",
        algorithm,
        commitment(seed),
        seed.hex(),
        tuple(e.hex() for e in entropy),
        redeal or UNSET,
    )


def verify_deal(
    dealing: Dealing, dealer: Seat, hands: tuple[tuple[Card, ...], ...], deal_no: int = 1
) -> bool:
    """Whether a revealed seed matches its commitment and reproduces the hands.

    ``deal_no`` matters only for seeds mixed with entropy or dealt again (`deal_seed`).
    """
    algorithm = dealing.algorithm
    if dealing.method != "seeded" or dealing.seed is None or algorithm is None:
        return False
    if algorithm not in DECKS:
        return False
    try:
        seed = bytes.fromhex(dealing.seed)
        entropy = tuple(bytes.fromhex(e) for e in dealing.entropy)
        mixed = deal_seed(seed, entropy, deal_no, dealing.redeals)
        reproduced = deal_from_seed(mixed, dealer, algorithm) == hands
        return commitment(seed) == dealing.commitment and reproduced
    except (ValueError, InvalidDeal):  # a tampered record: not hex, or not a 32-byte seed
        return False


def validate_preset(
    hands: tuple[tuple[Card, ...], ...], algorithm: str = ALGORITHM
) -> tuple[tuple[Card, ...], ...]:
    """R2.1, R2.2: preset hands must be 4 hands of 12 with every card code exactly twice
    (V1.2: of 10, the nines none)."""
    deck = DECKS[algorithm][0]
    size = len(deck) // 4
    full = algorithm == ALGORITHM
    if len(hands) != 4 or any(len(h) != size for h in hands):
        sizes = [len(h) for h in hands]
        rule = "R2.2" if full else "V1.2"
        raise InvalidDeal(f"a deal is 4 hands of {size} cards, not {sizes}", rule=rule)
    counts = Counter(c for h in hands for c in h)
    expected = Counter(deck)
    wrong = sorted(c.value for c in Card if counts[c] != expected[c])
    if wrong:
        what = "every card exists exactly twice" if full else "every card but the nines twice"
        raise InvalidDeal(
            f"{what}; wrong count for {', '.join(wrong)}", rule="R2.1" if full else "V1.1"
        )
    return hands
