"""What a seat or a spectator may see (R4.3, R4.4, R4.5, R6.8) and what it may do (options)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec
import pytest

from domain.announcements import Word
from domain.cards import Card
from domain.commands import Announce, DealSeeded, Declaration, NameContract, PlayCard, StartSession
from domain.deal import DealState, Phase
from domain.dealing import commitment, verify_deal
from domain.errors import MustFollow
from domain.game_types import CONTRACTS, SOLOS, GameType, order_of, sort_hand
from domain.observations import Observation, Options, observe, options
from domain.parties import Party
from domain.seats import SEATS, Seat
from domain.session import SessionState
from domain.tricks import legal_cards

from .builders import (
    deal_state,
    decide,
    declare,
    first_legal,
    play,
    play_out,
    rejects,
    run,
    start_play,
)

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
RE, KO = Party.RE, Party.KONTRA
VIEWERS = [*SEATS, None]
SEED = bytes(range(100, 132))


def _card_lists(node: Any, path: str = "") -> list[tuple[str, list[str]]]:
    """Every list of card codes anywhere in an encoded observation, with its path."""
    codes = {c.value for c in Card}
    found: list[tuple[str, list[str]]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _card_lists(value, f"{path}.{key}")
    elif isinstance(node, list):
        if node and all(isinstance(x, str) and x in codes for x in node):
            found.append((path, node))
        else:
            for i, value in enumerate(node):
                found += _card_lists(value, f"{path}[{i}]")
    return found


def assert_sees_only_own_hand(state: DealState, viewer: Seat | None) -> Observation:
    """No other hand is present before scoring: the only card lists longer than a trick are
    the viewer's own hand and its legal cards; `dealt` is absent."""
    seen = observe(state, viewer)
    assert seen.dealt is None
    own = Counter(state.hands[viewer]) if viewer is not None else Counter()
    assert Counter(seen.hand) == own
    for path, cards in _card_lists(msgspec.to_builtins(seen)):
        if path in (".hand", ".options.cards"):
            assert Counter(Card(c) for c in cards) <= own
        else:
            assert len(cards) <= 4, f"{path} holds {len(cards)} cards"
    assert seen.hand_sizes == tuple(len(h) for h in state.hands)
    return seen


def _seeded() -> DealState:
    state, _ = run(SessionState(), StartSession(W), DealSeeded(SEED))
    assert state.deal is not None
    return state.deal


def _stages() -> list[tuple[str, DealState]]:
    """A seeded deal at several moments before it is scored."""
    stages = [("dealt", _seeded())]
    state, _ = declare(stages[0][1], "healthy", "reservation")
    stages.append(("reserving", state))
    state, _ = declare(state, "healthy", "healthy")
    stages.append(("contracts", state))
    state, _ = run(state, NameContract(E, GameType.CLUBS_SOLO))
    stages.append(("play", state))
    for _ in range(22):
        state, _ = run(state, first_legal(state))
    stages.append(("mid-trick-6", state))
    for _ in range(25):
        state, _ = run(state, first_legal(state))
    stages.append(("last-card", state))
    return stages


STAGES = _stages()


@pytest.mark.parametrize("viewer", VIEWERS, ids=lambda v: f"viewer-{v}")
@pytest.mark.parametrize(("stage", "state"), STAGES, ids=[f"R4.3-{s}" for s, _ in STAGES])
def test_own_hand_only_before_scoring(stage: str, state: DealState, viewer: Seat | None) -> None:
    """R4.3, R4.4: a seat sees its own hand only; the spectator sees no hand at all; the other
    hands are never present before the deal is scored."""
    seen = assert_sees_only_own_hand(state, viewer)
    assert seen.viewer is viewer
    if viewer is None:
        assert seen.hand == ()
        assert seen.options == Options()
        assert seen.own_contract is None


@pytest.mark.parametrize("viewer", VIEWERS, ids=lambda v: f"viewer-{v}")
@pytest.mark.parametrize(("stage", "state"), STAGES, ids=[f"R2.2-{s}" for s, _ in STAGES])
def test_r2_2_seed_hidden_until_scored_commitment_visible(
    stage: str, state: DealState, viewer: Seat | None
) -> None:
    """R2.2: the commitment (SHA-256 of the seed) is public from the deal on; the seed is
    revealed only once the deal is scored."""
    seen = observe(state, viewer)
    assert seen.dealing.method == "seeded"
    assert seen.dealing.algorithm == "doko-deal-v1"
    assert seen.dealing.commitment == commitment(SEED)
    assert seen.dealing.seed is None
    assert SEED.hex().encode() not in msgspec.json.encode(seen)


def test_everything_public_once_scored() -> None:
    """R4.3, R2.2: once scored, every viewer sees the dealt hands, every named contract, the
    score and the seed, and can verify the deal against the commitment."""
    state, _ = play_out(STAGES[-1][1])
    assert state.phase is Phase.SCORED
    for viewer in VIEWERS:
        seen = observe(state, viewer)
        assert seen.dealt == state.dealt
        assert seen.contracts == state.contracts == (None, GameType.CLUBS_SOLO, None, None)
        assert seen.score == state.score and seen.score is not None
        assert seen.dealing.seed == SEED.hex()
        assert verify_deal(seen.dealing, seen.dealer, seen.dealt)
        assert seen.parties == state.parties
        assert seen.options == Options()
        assert seen.hand == ()
        assert len(seen.tricks) == 12


def test_hand_sorted_by_the_visible_game_type() -> None:
    """R5.6: the own hand is shown in the order of the game type: here a jack solo."""
    state, _ = start_play(deal_state({E: "JD QS JC AS 9S 10H"}, dealer=N), {E: GameType.JACK_SOLO})
    seen = observe(state, E)
    assert seen.hand == sort_hand(state.hands[E], GameType.JACK_SOLO)
    assert seen.hand[:2] == (Card.JC, Card.JD)


# --- options ------------------------------------------------------------------------------------


def test_options_declare_only_on_ones_turn() -> None:
    """R4.1: only the seat to speak may say healthy or reservation."""
    state = deal_state(dealer=S)
    for seat in SEATS:
        expected = tuple(Declaration) if seat is W else ()
        assert options(state, seat) == Options(declarations=expected)
        assert observe(state, seat).options == Options(declarations=expected)


@pytest.mark.parametrize(
    ("partial", "contracts"),
    [
        pytest.param({E: "QC QC"}, CONTRACTS, id="R4.2-both-QC-may-marry"),
        pytest.param({E: "QC", S: "QC"}, SOLOS, id="R4.2-one-QC-solos-only"),
        pytest.param({S: "QC", W: "QC"}, SOLOS, id="R4.2-no-QC-solos-only"),
    ],
)
def test_r4_2_contract_options(partial: dict[Seat, str], contracts: frozenset[GameType]) -> None:
    """R4.2: the reserving seat on turn is offered the solos, and a marriage with both QC;
    every offered contract is accepted and nothing else is offered."""
    state, _ = declare(deal_state(partial, dealer=N), "reservation", "healthy", "healthy")
    state, _ = declare(state, "healthy")
    offered = options(state, E).contracts
    assert set(offered) == contracts and len(offered) == len(contracts)
    assert GameType.NORMAL not in offered and GameType.SILENT_SOLO not in offered
    for contract in offered:
        decide(state, NameContract(E, contract))
    for seat in (S, W, N):
        assert options(state, seat) == Options()


def _normal() -> DealState:
    state, _ = start_play(deal_state({E: "AC QC 9D", S: "AC KC QC 9H"}, dealer=N))
    return state


@pytest.mark.parametrize("cards_played", [0, 1, 2, 3, 5, 27], ids=lambda n: f"R3.3-after-{n}")
def test_r3_3_card_options_are_the_legal_cards_on_ones_turn_only(cards_played: int) -> None:
    """R3.3, R3.6: the seat on turn is offered exactly its legal cards, each accepted by the
    rules while every other card of its hand is MustFollow; others are offered no card."""
    state = _normal()
    for _ in range(cards_played):
        state, _ = run(state, first_legal(state))
    turn = state.turn
    assert turn is not None and state.trick is not None
    offered = options(state, turn).cards
    assert offered == legal_cards(state.hands[turn], state.trick, order_of(GameType.NORMAL))
    for c in offered:
        decide(state, PlayCard(turn, c))
    for c in set(state.hands[turn]) - set(offered):
        rejects(state, PlayCard(turn, c), MustFollow, "R3.3")
    for seat in SEATS:
        if seat is not turn:
            assert options(state, seat).cards == ()


def test_r3_3_follower_is_offered_only_following_cards() -> None:
    """R3.3: after East leads AC, South (holding clubs) is offered clubs only."""
    state, _ = play(_normal(), "AC")
    offered = options(state, S).cards
    assert offered and all(c.suit.value == "C" and c is not Card.QC for c in offered)
    assert Card.QC not in offered and Card.AC in offered


def test_r6_1_announcement_options_at_any_moment_of_play() -> None:
    """R6.1: announcements are offered to every seat during play, not only on its turn, and
    each offered word is accepted."""
    state = _normal()
    for seat in SEATS:
        allowed = options(state, seat).announcements
        assert [a.word for a in allowed][:1] == [
            Word.RE if state.parties[seat] is RE else Word.KONTRA
        ]
        for allowance in allowed:
            decide(state, Announce(seat, allowance.word))
    assert options(state, S).cards == ()


def test_no_options_outside_ones_phase() -> None:
    """R4.1, R3.6: in the contracts phase a seat not naming has nothing to do."""
    state, _ = declare(deal_state(dealer=N), "healthy", "reservation", "healthy", "healthy")
    for seat in (E, W, N):
        assert options(state, seat) == Options()


# --- R4.4, R6.8: parties in a normal game -------------------------------------------------------


def test_r4_4_parties_hidden_until_a_qc_is_played_or_an_announcement() -> None:
    """R4.4, R6.8: a viewer knows its own party; another's only once that player plays a QC
    or announces; the spectator starts knowing nothing. Everything is public once scored."""
    state, _ = start_play(deal_state({E: "QC 9D", N: "QC"}, dealer=N))
    assert state.parties == (RE, RE, KO, KO)
    for viewer in VIEWERS:
        expected = tuple(state.parties[s] if s is viewer else None for s in SEATS)
        assert observe(state, viewer).parties == expected

    state, _ = run(state, Announce(S, Word.KONTRA))  # R6.8: reveals South
    for viewer in VIEWERS:
        seen = observe(state, viewer).parties
        assert seen[S] is KO
        assert seen[E] is (RE if viewer is E else None)
        assert seen[N] is (RE if viewer is N else None)
        assert seen[W] is (KO if viewer is W else None)

    state, _ = play(state, "QC")  # R4.4: East's QC reveals East
    for viewer in VIEWERS:
        seen = observe(state, viewer).parties
        assert seen[E] is RE and seen[S] is KO
        assert seen[N] is (RE if viewer is N else None)

    state, _ = play_out(state)
    for viewer in VIEWERS:
        assert observe(state, viewer).parties == (RE, RE, KO, KO)


def test_played_tricks_are_public() -> None:
    """R3.4, R3.5: completed tricks with leader, cards, winner and points are public."""
    state, _ = play(_normal(), "AC")
    for _ in range(3):
        state, _ = run(state, first_legal(state))
    for viewer in VIEWERS:
        (trick,) = observe(state, viewer).tricks
        assert trick.leader is E and trick.cards == state.tricks[0].cards
        assert trick.winner is state.winners[0]
        assert trick.points == state.tricks[0].points
        assert observe(state, viewer).trick_leader is state.winners[0]


def test_observing_does_not_change_the_state() -> None:
    """Views are pure: observing and listing options leave the state as it was."""
    state = STAGES[4][1]
    before = msgspec.json.encode(state)
    for viewer in VIEWERS:
        observe(state, viewer)
    for seat in SEATS:
        options(state, seat)
    assert msgspec.json.encode(state) == before
