"""R2.2 dealing: the seeded algorithm doko-deal-v1, its commitment, and preset hands (R2.1)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator

import msgspec
import pytest

from domain import dealing, session
from domain.cards import DECK, Card
from domain.commands import DealPreset, DealSeeded, StartSession
from domain.dealing import (
    ALGORITHM,
    commitment,
    deal_from_seed,
    seeded_dealing,
    validate_preset,
    verify_deal,
)
from domain.errors import InvalidDeal
from domain.events import DealDealt, Dealing
from domain.seats import SEATS, Seat

from .builders import Hands, fill, hand, rejects, run

SEEDS = [bytes([i]) * 32 for i in range(8)] + [bytes(range(32)), hashlib.sha256(b"x").digest()]

# --- an independent implementation of doko-deal-v1, written from its documentation ----------


def _words(seed: bytes) -> Iterator[int]:
    block = 0
    while True:
        digest = hashlib.sha256(seed + block.to_bytes(8, "big")).digest()
        for i in range(8):
            yield int.from_bytes(digest[4 * i : 4 * i + 4], "big")
        block += 1


def _number_below(words: Iterator[int], n: int) -> int:
    while True:
        u = next(words)
        if u < 2**32 - 2**32 % n:
            return u % n


def reference_deal(seed: bytes, dealer: Seat) -> tuple[Hands, int]:
    """doko-deal-v1 from the module docstring: the hands and the cut position."""
    codes = [r + s for s in "CSHD" for r in ("A", "10", "K", "Q", "J", "9")]
    deck = [Card(c) for c in codes * 2]
    words = _words(seed)
    for i in range(47, 0, -1):
        j = _number_below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    cut = 3 + _number_below(words, 43)
    return deal_out(deck[cut:] + deck[:cut], dealer), cut


def deal_out(deck: list[Card], dealer: Seat) -> Hands:
    """Four rounds of 3 cards from the top, from the dealer's left, clockwise."""
    dealt: dict[int, list[Card]] = {s: [] for s in range(4)}
    top = 0
    for _ in range(4):
        for k in range(1, 5):
            dealt[(dealer + k) % 4] += deck[top : top + 3]
            top += 3
    return tuple(tuple(dealt[s]) for s in range(4))


@pytest.mark.parametrize("dealer", SEATS, ids=lambda s: f"R2.2-dealer-{s.value}")
def test_r2_2_deal_matches_the_documented_algorithm(dealer: Seat) -> None:
    """R2.2: anyone can recompute a seeded deal from the documented doko-deal-v1."""
    for seed in SEEDS:
        expected, _ = reference_deal(seed, dealer)
        assert deal_from_seed(seed, dealer) == expected


def test_r2_2_known_deal_vector() -> None:
    """R2.2: a fixed test vector of doko-deal-v1 (seed 00 01 .. 1f, dealer 0)."""
    seed = bytes(range(32))
    expected = (
        hand("10S KH KS 9S AC AS QH AH 10D KS AC JC"),
        hand("KD JC 10C KC AH 9D AS 9H AD JH KH QS"),
        hand("QD 9C JD QC 10S KD JS QS AD JD KC 10D"),
        hand("QC 10C 10H 9C JS 9S JH QH 9H 9D QD 10H"),
    )
    assert deal_from_seed(seed, Seat.NORTH) == expected
    assert reference_deal(seed, Seat.NORTH)[0] == expected


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"R2.2-seed-{s.hex()[:6]}")
def test_r2_2_same_seed_same_hands_12_each_every_code_twice(seed: bytes) -> None:
    """R2.2: deterministic; 12 cards each, no stock; R2.1: the deck is every code twice."""
    dealt = deal_from_seed(seed, Seat.SOUTH)
    assert deal_from_seed(seed, Seat.SOUTH) == dealt
    assert [len(h) for h in dealt] == [12, 12, 12, 12]
    assert Counter(c for h in dealt for c in h) == Counter(DECK)
    assert validate_preset(dealt) == dealt


def test_r2_2_different_seeds_different_hands() -> None:
    """R2.2: the seed is the shuffle: distinct seeds give distinct deals."""
    deals = {deal_from_seed(seed, Seat.NORTH) for seed in SEEDS}
    assert len(deals) == len(SEEDS)


@pytest.mark.parametrize("dealer", SEATS, ids=lambda s: f"R2.2-rotate-dealer-{s.value}")
def test_r2_2_dealer_decides_who_gets_which_packet(dealer: Seat) -> None:
    """R2.2: dealing starts with the dealer's left: moving the dealer one seat left moves
    every hand one seat left (same seed, same packets)."""
    for seed in SEEDS[:4]:
        now = deal_from_seed(seed, dealer)
        nxt = deal_from_seed(seed, dealer.left())
        for seat in SEATS:
            assert nxt[seat.left()] == now[seat]


def test_r2_2_four_rounds_of_three_from_the_dealers_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """R2.2: with an identity shuffle and the deepest cut (45), the dealer's left gets the
    first 3 cards of the cut deck (the 3 left below the cut), then each seat 3, four rounds."""
    monkeypatch.setattr(dealing, "_below", lambda stream, n: n - 1)
    deck = list(DECK[45:] + DECK[:45])
    dealt = deal_from_seed(bytes(32), Seat.WEST)
    assert dealt[Seat.NORTH][:3] == hand("QD JD 9D")
    for seat in SEATS:
        k = (seat - Seat.WEST - 1) % 4
        expected = [c for r in range(4) for c in deck[12 * r + 3 * k : 12 * r + 3 * k + 3]]
        assert list(dealt[seat]) == expected


@pytest.mark.parametrize(
    ("pick", "cut"),
    [
        pytest.param(lambda n: 0, 3, id="R2.2-shallowest-cut-3"),
        pytest.param(lambda n: n - 1, 45, id="R2.2-deepest-cut-45-leaves-3"),
    ],
)
def test_r2_2_cut_leaves_at_least_3_cards_in_each_part(
    monkeypatch: pytest.MonkeyPatch, pick: Callable[[int], int], cut: int
) -> None:
    """R2.2: the cut is 3 + a number below 43: both parts keep at least 3 cards."""
    calls: list[int] = []

    def below(stream: Iterator[int], n: int) -> int:
        calls.append(n)
        return pick(n)

    monkeypatch.setattr(dealing, "_below", below)
    deck = list(DECK)
    for i in range(47, 0, -1):
        j = pick(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    deck = deck[cut:] + deck[:cut]
    dealt = deal_from_seed(bytes(32), Seat.NORTH)
    assert calls == [*range(48, 1, -1), 43]
    assert dealt[Seat.EAST][:3] == tuple(deck[:3])
    assert dealt[Seat.NORTH][-3:] == tuple(deck[-3:])


MANY_SEEDS = [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(4000)]
"""Thousands of fixed seeds: production against the reference, and production's cuts."""


def test_r2_2_production_deals_as_the_reference_on_thousands_of_seeds() -> None:
    """R2.2: `deal_from_seed` and the reference written from the documentation agree."""
    for i, seed in enumerate(MANY_SEEDS):
        dealer = SEATS[i % 4]
        assert deal_from_seed(seed, dealer) == reference_deal(seed, dealer)[0], (seed.hex(), dealer)


def test_r2_2_production_cuts_leave_3_cards_on_each_side(monkeypatch: pytest.MonkeyPatch) -> None:
    """R2.2: the cut production makes leaves at least 3 cards on each side. Observed from
    outside: production's 47 shuffle draws are recorded and replayed on the deck, and the
    cut is the rotation of that deck that deals production's hands. Over thousands of
    seeds every cut from 3 to 45 occurs and no other."""
    real = dealing._below
    draws: list[int] = []

    def recorded(stream: Iterator[int], n: int) -> int:
        draws.append(real(stream, n))
        return draws[-1]

    monkeypatch.setattr(dealing, "_below", recorded)
    cuts: set[int] = set()
    for seed in MANY_SEEDS:
        draws.clear()
        hands = deal_from_seed(seed, Seat.NORTH)
        deck = list(DECK)
        for i, j in zip(range(47, 0, -1), draws, strict=False):
            deck[i], deck[j] = deck[j], deck[i]
        rotations = [deck[c:] + deck[:c] for c in range(48)]
        found = [
            c
            for c, cut in enumerate(rotations)
            if cut[:3] == list(hands[Seat.EAST][:3]) and deal_out(cut, Seat.NORTH) == hands
        ]
        assert len(found) == 1, (seed.hex(), found)
        cuts.add(found[0])
    assert cuts == set(range(3, 46))


@pytest.mark.parametrize(
    ("words", "n", "number"),
    [
        pytest.param([2**32 - 1, 7], 3, 1, id="R2.2-unbiased-draw-discards-top-word"),
        pytest.param([2**32 - 2, 7], 3, (2**32 - 2) % 3, id="R2.2-largest-kept-word"),
        pytest.param([2**32 - 1], 2, 1, id="R2.2-power-of-two-keeps-everything"),
        pytest.param([0], 48, 0, id="R2.2-zero"),
    ],
)
def test_r2_2_number_below_n_without_bias(words: list[int], n: int, number: int) -> None:
    """R2.2 / doko-deal-v1 step 2: words at or above 2**32 - 2**32 % n are discarded."""
    assert dealing._below(iter(words), n) == number


@pytest.mark.parametrize("size", [0, 16, 31, 33, 64], ids=lambda n: f"R2.2-seed-of-{n}-bytes")
def test_r2_2_seed_must_have_32_bytes(size: int) -> None:
    """R2.2: a seed of the wrong length is an InvalidDeal citing R2.2."""
    with pytest.raises(InvalidDeal) as caught:
        deal_from_seed(bytes(size), Seat.NORTH)
    assert (caught.value.code, caught.value.rule) == ("invalid_deal", "R2.2")


# --- commitment and verification ---------------------------------------------------------------


def test_r2_2_commitment_is_sha256_of_the_seed() -> None:
    """R2.2: SHA-256(seed) in hex is published before the deal; the seed after."""
    seed = SEEDS[3]
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert seeded_dealing(seed) == Dealing("seeded", ALGORITHM, commitment(seed), seed.hex())
    assert ALGORITHM == "doko-deal-v1"


def _swap_first_cards(dealt: Hands) -> Hands:
    a, b = dealt[0], dealt[1]
    i = next(i for i, c in enumerate(a) if c not in b)
    j = next(j for j, c in enumerate(b) if c not in a)
    return ((*a[:i], b[j], *a[i + 1 :]), (*b[:j], a[i], *b[j + 1 :]), dealt[2], dealt[3])


SEED, OTHER = SEEDS[1], SEEDS[2]
GOOD = seeded_dealing(SEED)
HANDS = deal_from_seed(SEED, Seat.EAST)
replace = msgspec.structs.replace


@pytest.mark.parametrize(
    ("record", "dealer", "dealt", "valid"),
    [
        pytest.param(GOOD, Seat.EAST, HANDS, True, id="R2.2-verify-true"),
        pytest.param(GOOD, Seat.EAST, _swap_first_cards(HANDS), False, id="R2.2-tampered-hand"),
        pytest.param(
            replace(GOOD, seed=OTHER.hex()), Seat.EAST, HANDS, False, id="R2.2-tampered-seed"
        ),
        pytest.param(
            seeded_dealing(OTHER), Seat.EAST, HANDS, False, id="R2.2-other-seed-and-commitment"
        ),
        pytest.param(
            replace(GOOD, commitment=commitment(OTHER)),
            Seat.EAST,
            HANDS,
            False,
            id="R2.2-tampered-commitment",
        ),
        pytest.param(GOOD, Seat.SOUTH, HANDS, False, id="R2.2-wrong-dealer"),
        pytest.param(replace(GOOD, seed=None), Seat.EAST, HANDS, False, id="R2.2-seed-hidden"),
        pytest.param(
            replace(GOOD, algorithm="doko-deal-v0"), Seat.EAST, HANDS, False, id="R2.2-algorithm"
        ),
        pytest.param(Dealing("preset"), Seat.EAST, HANDS, False, id="R2.2-preset-unverifiable"),
        pytest.param(
            replace(GOOD, seed="not hex"), Seat.EAST, HANDS, False, id="R2.2-seed-not-hex"
        ),
        pytest.param(
            replace(GOOD, seed=SEED[:31].hex(), commitment=commitment(SEED[:31])),
            Seat.EAST,
            HANDS,
            False,
            id="R2.2-committed-31-byte-seed",
        ),
        pytest.param(
            replace(GOOD, entropy=("zz",)), Seat.EAST, HANDS, False, id="R2.2-entropy-not-hex"
        ),
    ],
)
def test_r2_2_verify_deal(record: Dealing, dealer: Seat, dealt: Hands, valid: bool) -> None:
    """R2.2: verify_deal holds only for the committed seed reproducing exactly these hands."""
    assert verify_deal(record, dealer, dealt) is valid


ENTROPY = (b"north", b"", b"south", b"west")


@pytest.mark.parametrize(
    ("record", "deal_no", "valid"),
    [
        pytest.param(seeded_dealing(SEED, ENTROPY), 5, True, id="R2.2-entropy-verify-true"),
        pytest.param(seeded_dealing(SEED, ENTROPY), 4, False, id="R2.2-entropy-other-deal-no"),
        pytest.param(seeded_dealing(SEED, ENTROPY[::-1]), 5, False, id="R2.2-entropy-reordered"),
        pytest.param(seeded_dealing(SEED), 5, False, id="R2.2-entropy-withheld"),
    ],
)
def test_r2_2_verify_deal_mixed_with_entropy(record: Dealing, deal_no: int, valid: bool) -> None:
    """R2.2: a table deal is shuffled from SHA-256(server seed || entropy || deal no); it
    verifies only with the same entropy, in seat order, and the same deal number."""
    mixed = hashlib.sha256(SEED + b"".join(ENTROPY) + (5).to_bytes(4, "big")).digest()
    dealt = reference_deal(mixed, Seat.NORTH)[0]
    assert verify_deal(record, Seat.NORTH, dealt, deal_no) is valid
    assert record.commitment == commitment(SEED)


@pytest.mark.parametrize(
    ("entropy", "redeal", "recorded", "valid"),
    [
        pytest.param(ENTROPY, 2, 2, True, id="V4.8-entropy-redeal-2"),
        pytest.param((), 2, 2, True, id="V4.8-no-entropy-redeal-2"),
        pytest.param(ENTROPY, 2, 1, False, id="V4.8-another-redeal-number"),
        pytest.param(ENTROPY, 2, 0, False, id="V4.8-redeal-number-left-out"),
    ],
)
def test_v4_8_a_redeal_is_shuffled_with_its_number(
    entropy: tuple[bytes, ...], redeal: int, recorded: int, valid: bool
) -> None:
    """V4.8: the r-th redeal of deal k is shuffled from SHA-256(server seed || entropy || k
    || r), with or without entropy; it verifies only with its own redeal number."""
    k, r = (5).to_bytes(4, "big"), redeal.to_bytes(4, "big")
    mixed = hashlib.sha256(SEED + b"".join(entropy) + k + r).digest()
    dealt = reference_deal(mixed, Seat.NORTH)[0]
    record = seeded_dealing(SEED, entropy, redeal=recorded)
    assert verify_deal(record, Seat.NORTH, dealt, 5) is valid


def test_r2_2_seed_without_entropy_is_the_deal_seed() -> None:
    """R2.2: without entropy the server seed is the deal seed (any deal number)."""
    assert dealing.deal_seed(SEED, (), 7) == SEED
    assert verify_deal(seeded_dealing(SEED), Seat.EAST, HANDS, 7)


# --- preset hands ------------------------------------------------------------------------------

VALID = fill()


def _third_copy(dealt: Hands) -> Hands:
    """Seat 0's first card replaced by seat 1's last: one code three times, one once."""
    assert dealt[0][0] is not dealt[1][-1]
    return ((dealt[1][-1], *dealt[0][1:]), *dealt[1:])


@pytest.mark.parametrize(
    ("dealt", "rule"),
    [
        pytest.param((VALID[0][:11], *VALID[1:]), "R2.2", id="R2.2-47-cards"),
        pytest.param(tuple((*h, h[0]) for h in VALID), "R2.2", id="R2.2-13-card-hands"),
        pytest.param(
            ((*VALID[0], VALID[1][0]), VALID[1][1:], *VALID[2:]),
            "R2.2",
            id="R2.2-13-and-11-cards-still-48",
        ),
        pytest.param(VALID[:3], "R2.2", id="R2.2-three-hands"),
        pytest.param((*VALID, ()), "R2.2", id="R2.2-five-hands"),
        pytest.param(_third_copy(VALID), "R2.1", id="R2.1-a-code-three-times"),
        pytest.param((hand("QC") * 12, *VALID[1:]), "R2.1", id="R2.1-twelve-QC"),
    ],
)
def test_r2_2_validate_preset_rejects(dealt: Hands, rule: str) -> None:
    """R2.1, R2.2: preset hands must be 4 x 12 with every code exactly twice: InvalidDeal."""
    with pytest.raises(InvalidDeal) as caught:
        validate_preset(dealt)
    assert (caught.value.code, caught.value.rule) == ("invalid_deal", rule)


def test_r2_1_a_code_three_times_is_named() -> None:
    """R2.1: the error names the codes whose count is wrong."""
    dealt = _third_copy(VALID)
    counts = Counter(c for h in dealt for c in h)
    wrong = sorted(c.value for c in Card if counts[c] != 2)
    assert len(wrong) == 2
    with pytest.raises(InvalidDeal) as caught:
        validate_preset(dealt)
    assert all(code in caught.value.message for code in wrong)


def test_r2_2_validate_preset_accepts_a_valid_deal() -> None:
    """R2.1, R2.2: a valid preset is returned unchanged."""
    assert validate_preset(VALID) is VALID


# --- through the session -----------------------------------------------------------------------


def _started(first: Seat = Seat.NORTH) -> session.SessionState:
    state, _ = run(session.SessionState(), StartSession(first))
    return state


def test_r2_2_seeded_deal_records_algorithm_commitment_and_seed() -> None:
    """R2.2: DealSeeded deals from the seed, records doko-deal-v1, the commitment and the
    seed, and the recorded deal verifies."""
    state, events = run(_started(Seat.WEST), DealSeeded(SEED))
    (dealt,) = events
    assert isinstance(dealt, DealDealt)
    assert (dealt.deal_no, dealt.dealer) == (1, Seat.WEST)
    assert dealt.hands == deal_from_seed(SEED, Seat.WEST)
    assert dealt.dealing == seeded_dealing(SEED)
    assert verify_deal(dealt.dealing, dealt.dealer, dealt.hands)
    assert state.deal is not None and state.deal.hands == dealt.hands


def test_r2_2_seeded_deal_with_entropy_records_and_verifies() -> None:
    """R2.2: DealSeeded with the players' entropy records it (hex) next to the server seed's
    commitment; the deal verifies with its deal number."""
    _, events = run(_started(Seat.SOUTH), DealSeeded(SEED, ENTROPY))
    (dealt,) = events
    assert isinstance(dealt, DealDealt)
    assert dealt.dealing == seeded_dealing(SEED, ENTROPY)
    assert dealt.dealing.entropy == tuple(e.hex() for e in ENTROPY)
    assert verify_deal(dealt.dealing, Seat.SOUTH, dealt.hands, 1)
    assert not verify_deal(dealt.dealing, Seat.SOUTH, dealt.hands, 2)
    assert dealt.hands == deal_from_seed(dealing.deal_seed(SEED, ENTROPY, 1), Seat.SOUTH)


def test_r2_2_preset_deal_is_recorded_as_preset() -> None:
    """R2.2: preset hands are dealt as given, marked preset (nothing to verify)."""
    _, events = run(_started(), DealPreset(VALID))
    assert events == (DealDealt(1, Seat.NORTH, VALID, Dealing("preset")),)


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        pytest.param(DealPreset((VALID[0][:11], *VALID[1:])), "R2.2", id="R2.2-preset-47"),
        pytest.param(DealPreset(_third_copy(VALID)), "R2.1", id="R2.1-preset-code-thrice"),
        pytest.param(DealSeeded(bytes(31)), "R2.2", id="R2.2-seed-31-bytes"),
    ],
)
def test_r2_2_invalid_deal_commands_change_nothing(
    command: DealPreset | DealSeeded, rule: str
) -> None:
    """R2.1, R2.2: an invalid deal is rejected (InvalidDeal) and the session is unchanged."""
    rejects(_started(), command, InvalidDeal, rule)
