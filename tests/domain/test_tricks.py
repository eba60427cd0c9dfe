"""R3.3 following, R3.4 winning a trick, R3.5 leading, R3.6 turn and own hand (and E1)."""

from __future__ import annotations

import pytest

from domain.cards import Card
from domain.commands import PlayCard
from domain.deal import DealState, Phase
from domain.errors import CardNotInHand, MustFollow, NotYourTurn, PhaseClosed
from domain.events import CardPlayed, DealScored, TrickWon
from domain.game_types import SOLOS, GameType, order_of
from domain.seats import SEATS, Seat
from domain.tricks import Trick, legal_cards, trick_winner, winning_index

from .builders import (
    deal_state,
    decide,
    declare,
    events_of,
    first_legal,
    hand,
    play,
    play_out,
    rejects,
    run,
    start_play,
)

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST

# --- R3.3: which cards may be played --------------------------------------------------------

LEGAL = [
    pytest.param(GameType.NORMAL, "QC 9D AC AS", "", "QC 9D AC AS", id="R3.3-leading-any-card"),
    pytest.param(GameType.NORMAL, "QC QC 9D", "", "QC 9D", id="R3.3-identical-cards-listed-once"),
    pytest.param(
        GameType.NORMAL, "AS KS QS 9H", "9D", "QS", id="R3.3-trump-led-must-trump-QS-is-trump"
    ),
    pytest.param(GameType.NORMAL, "AS KS QS 9H", "QS", "QS", id="R3.3-QS-led-is-trump-not-spade"),
    pytest.param(
        GameType.NORMAL, "QS KS 9S AC", "AS", "KS 9S", id="R3.3-spade-led-QS-does-not-follow"
    ),
    pytest.param(GameType.NORMAL, "QS JH 10H AC", "AS", "QS JH 10H AC", id="R3.3-void-free"),
    pytest.param(
        GameType.NORMAL, "10H KH 9H QH", "AH", "KH 9H", id="R3.2-hearts-led-10H-QH-are-trumps"
    ),
    pytest.param(GameType.NORMAL, "9D JC AS", "QC 10H", "9D JC", id="R3.3-no-obligation-to-beat"),
    pytest.param(
        GameType.NORMAL, "9D AS 9H", "AC 10C", "9D AS 9H", id="R3.3-no-obligation-to-trump"
    ),
    pytest.param(
        GameType.NORMAL, "AC 9C 10H", "9C AD", "AC 9C", id="R3.3-led-card-decides-not-best"
    ),
    pytest.param(
        GameType.CLUBS_SOLO, "10D AC 9H", "AD", "10D", id="R5.2-clubs-solo-10D-follows-diamonds"
    ),
    pytest.param(GameType.CLUBS_SOLO, "AC KS 9H", "JD", "AC", id="R5.2-clubs-solo-AC-is-trump"),
    pytest.param(
        GameType.HEARTS_SOLO, "AH 10D KS", "9H", "AH", id="R5.2-hearts-solo-hearts-are-trumps"
    ),
    pytest.param(
        GameType.HEARTS_SOLO, "AH 10D QD", "AD", "10D", id="R5.2-hearts-solo-diamonds-plain"
    ),
    pytest.param(GameType.JACK_SOLO, "QS JS AC", "AS", "QS", id="R5.4-jack-solo-QS-follows-spades"),
    pytest.param(GameType.JACK_SOLO, "QS AD 9D", "JH", "QS AD 9D", id="R5.4-jack-solo-void"),
    pytest.param(
        GameType.QUEEN_SOLO, "JC QD 9C", "AC", "JC 9C", id="R5.3-queen-solo-JC-follows-clubs"
    ),
    pytest.param(
        GameType.FLEISCHLOS, "QC JC 10H", "AC", "QC JC", id="R5.5-fleischlos-QC-is-a-club"
    ),
    pytest.param(
        GameType.FLEISCHLOS, "10H 9D QH", "AH", "10H QH", id="R5.5-fleischlos-10H-is-a-heart"
    ),
]


@pytest.mark.parametrize(("game_type", "cards", "trick", "legal"), LEGAL)
def test_r3_3_legal_cards(game_type: GameType, cards: str, trick: str, legal: str) -> None:
    """R3.3 with R5.6: follow the led category if able, else play anything."""
    got = legal_cards(hand(cards), Trick(N, hand(trick)), order_of(game_type))
    assert got == hand(legal)


# --- R3.4: who wins a trick ------------------------------------------------------------------

WINS = [
    pytest.param(GameType.NORMAL, "10H 10H QC AD", 0, id="R3.4-identical-10H-first-wins"),
    pytest.param(GameType.NORMAL, "QC 10H QC AD", 1, id="R3.1-10H-beats-QC"),
    pytest.param(GameType.NORMAL, "9D QC 9D QC", 1, id="R3.4-identical-QC-first-wins"),
    pytest.param(GameType.NORMAL, "AC AC 10C KC", 0, id="R3.4-identical-plain-AC-first-wins"),
    pytest.param(GameType.NORMAL, "KS 9S KS AS", 3, id="R3.4-plain-ace-highest"),
    pytest.param(GameType.NORMAL, "KC 10C 9C KC", 1, id="R3.2-plain-10-beats-K"),
    pytest.param(GameType.NORMAL, "AC 9D 10C AC", 1, id="R3.4-any-trump-beats-plain"),
    pytest.param(GameType.NORMAL, "9C AS AH KH", 0, id="R3.4-off-suit-never-wins"),
    pytest.param(GameType.NORMAL, "AH 9D JD AH", 2, id="R3.4-highest-trump-wins"),
    pytest.param(GameType.NORMAL, "AS QS KS 10S", 1, id="R3.2-QS-trumps-spade-lead"),
    pytest.param(GameType.NORMAL, "AH KH 10H 9H", 2, id="R3.1-10H-trumps-hearts-lead"),
    pytest.param(GameType.NORMAL, "JD AD 10D KD", 0, id="R3.1-jacks-over-diamonds"),
    pytest.param(GameType.NORMAL, "QD JC", 0, id="R3.4-partial-trick"),
    pytest.param(GameType.CLUBS_SOLO, "AD 10D KD 9D", 0, id="R5.2-clubs-solo-A-10-K-9-D"),
    pytest.param(GameType.CLUBS_SOLO, "AD 10D 9C KD", 2, id="R5.2-clubs-solo-9C-trumps"),
    pytest.param(GameType.CLUBS_SOLO, "AC JD 10C QD", 3, id="R5.2-clubs-solo-queen-over-AC"),
    pytest.param(GameType.HEARTS_SOLO, "AD 9H 10D AD", 1, id="R5.2-hearts-solo-9H-trumps"),
    pytest.param(GameType.HEARTS_SOLO, "AH 10H KH 9H", 1, id="R5.2-hearts-solo-10H-top"),
    pytest.param(GameType.HEARTS_SOLO, "JD AH 9H KH", 0, id="R5.2-hearts-solo-JD-over-AH"),
    pytest.param(GameType.DIAMONDS_SOLO, "9D AD 10D KD", 1, id="R5.2-diamonds-solo-normal"),
    pytest.param(GameType.QUEEN_SOLO, "JC 10C KC AC", 3, id="R5.3-queen-solo-plain-A-10-K-J"),
    pytest.param(GameType.QUEEN_SOLO, "10H 10H AH JD", 2, id="R5.3-queen-solo-10H-plain"),
    pytest.param(GameType.QUEEN_SOLO, "AH QD QC 10H", 2, id="R5.3-queen-solo-QC-top"),
    pytest.param(GameType.JACK_SOLO, "QC AC 10C KC", 1, id="R5.4-jack-solo-A-over-Q"),
    pytest.param(GameType.JACK_SOLO, "AS QS JD JC", 3, id="R5.4-jack-solo-JC-top"),
    pytest.param(GameType.JACK_SOLO, "AH QC 10H QH", 0, id="R5.4-jack-solo-QC-no-trump"),
    pytest.param(GameType.FLEISCHLOS, "10H AH QC JH", 1, id="R5.5-fleischlos-AH-over-10H"),
    pytest.param(GameType.FLEISCHLOS, "JC QC 9C JC", 1, id="R5.5-fleischlos-Q-over-J"),
    pytest.param(GameType.FLEISCHLOS, "9D AC AS AH", 0, id="R5.5-fleischlos-nothing-trumps"),
    pytest.param(GameType.FLEISCHLOS, "KS KS 9S 9S", 0, id="R3.4-fleischlos-identical-first"),
]


@pytest.mark.parametrize(("game_type", "cards", "winner"), WINS)
def test_r3_4_winning_card(game_type: GameType, cards: str, winner: int) -> None:
    """R3.4 with R5.6: highest trump, else highest of the led suit; first of identicals."""
    order = order_of(game_type)
    assert winning_index(hand(cards), order) == winner
    for leader in SEATS:
        trick = Trick(leader, hand(cards))
        assert trick_winner(trick, order) is leader.after(winner)


def test_trick_turns_and_points() -> None:
    """R3.6: clockwise from the leader; R2.1: the trick's card points."""
    trick = Trick(W, hand("10H 10H QC"))
    assert trick.to_play is S
    assert [trick.seat_of(i) for i in range(3)] == [W, N, E]
    assert not trick.complete
    assert trick.points == 23
    assert Trick(E).to_play is E
    assert Trick(E, hand("AC AC AC AC")).complete


# --- E1 verbatim through the deal aggregate ---------------------------------------------------

E1_HANDS = {
    # dealer North: A = East leads, B = South, C = West, D = North
    E: "10H 9D",
    S: "10H KD",
    W: "QC JD",
    N: "AD QC",
}


def test_e1_first_of_two_10h_wins_34_points_no_doppelkopf() -> None:
    """E1 (R3.4, R9.2): normal game; A leads 10H, B plays the other 10H, C QC, D AD; all
    followed trump. A wins: the later identical card does not beat the first. Card points
    10+10+3+11 = 34: no Doppelkopf point."""
    state, _ = start_play(deal_state(E1_HANDS, dealer=N))
    assert state.game_type is GameType.NORMAL
    state, events = run(
        state,
        PlayCard(E, Card.TENH),
        PlayCard(S, Card.TENH),
        PlayCard(W, Card.QC),
        PlayCard(N, Card.AD),
    )
    assert events == (
        CardPlayed(E, Card.TENH),
        CardPlayed(S, Card.TENH),
        CardPlayed(W, Card.QC),
        CardPlayed(N, Card.AD),
        TrickWon(1, E, 34),
    )
    assert state.trick is not None and state.trick.leader is E
    state, rest = play_out(state)
    (scored,) = events_of(rest, DealScored)
    assert not any(ln.rule == "R9.2" and "trick 1" in ln.reason for ln in scored.score.lines)
    assert state.winners[0] is E


# --- R3.3 through the deal: MustFollow ---------------------------------------------------------

FOLLOW = [
    pytest.param(
        {},
        "QS",
        "AS 10S KS 9S 9H 9H KH KH AH AH 9D AC",
        "AS",
        "9D",
        id="R3.3-QS-led-is-trump-spade-rejected",
    ),
    pytest.param(
        {},
        "AS",
        "QS KS 9H 9H KH KH AH AH AC AC 10C 10C",
        "QS",
        "KS",
        id="R3.3-spade-led-QS-rejected-KS-follows",
    ),
    pytest.param(
        {},
        "10H",
        "QC AC AC 10C 10C KC KC 9C 9C AS AS 10S",
        "AC",
        "QC",
        id="R3.3-trump-led-plain-rejected",
    ),
    pytest.param(
        {W: GameType.JACK_SOLO},
        "AS",
        "QS JC JC AC AC 10C 10C KC KC 9C 9C AH",
        "JC",
        "QS",
        id="R5.4-jack-solo-QS-must-follow-spades",
    ),
    pytest.param(
        {W: GameType.CLUBS_SOLO},
        "AD",
        "10D AC AC 9H 9H KH KH AH AH QH QH 10S",
        "AC",
        "10D",
        id="R5.2-clubs-solo-10D-must-follow-diamonds",
    ),
    pytest.param(
        {W: GameType.HEARTS_SOLO},
        "AH",
        "QD 10D 10D AD AD KD KD 9D 9D AC AC 10C",
        "10D",
        "QD",
        id="R5.2-hearts-solo-AH-led-is-trump",
    ),
    pytest.param(
        {W: GameType.FLEISCHLOS},
        "AC",
        "QC 10H 10H AH AH KH KH 9H 9H AS AS 10S",
        "10H",
        "QC",
        id="R5.5-fleischlos-QC-must-follow-clubs",
    ),
    pytest.param(
        {W: GameType.QUEEN_SOLO},
        "QD",
        "QH JC JC AC AC 10C 10C KC KC 9C 9C AH",
        "JC",
        "QH",
        id="R5.3-queen-solo-queen-led-must-queen",
    ),
]


@pytest.mark.parametrize(("contracts", "lead", "follower", "illegal", "legal"), FOLLOW)
def test_r3_3_must_follow_in_the_deal(
    contracts: dict[Seat, GameType], lead: str, follower: str, illegal: str, legal: str
) -> None:
    """R3.3: the second player holding the led category must play it (MustFollow, R3.3)."""
    state = deal_state({E: f"{lead} QC", S: follower}, dealer=N)
    state, _ = start_play(state, contracts)
    state, _ = play(state, lead)
    error = rejects(state, PlayCard(S, Card.parse(illegal)), MustFollow, "R3.3")
    assert error.code == "must_follow"
    assert lead in error.message
    state, events = run(state, PlayCard(S, Card.parse(legal)))
    assert events == (CardPlayed(S, Card.parse(legal)),)


VOID = [
    pytest.param({}, "AC", "9D", id="R3.3-void-in-clubs-may-trump"),
    pytest.param({}, "AC", "AH", id="R3.3-void-in-clubs-need-not-trump"),
    pytest.param({}, "AC", "QS", id="R3.3-void-may-play-QS"),
    pytest.param({W: GameType.FLEISCHLOS}, "AC", "QH", id="R5.5-fleischlos-void-discard"),
]


@pytest.mark.parametrize(("contracts", "lead", "card"), VOID)
def test_r3_3_void_player_may_play_any_card(
    contracts: dict[Seat, GameType], lead: str, card: str
) -> None:
    """R3.3: a player with no card of the led category may play any card."""
    follower = "QS QS 9D 9D AH AH KH KH 9H 9H QH QH"
    state = deal_state({E: f"{lead} QC", S: follower}, dealer=N)
    state, _ = start_play(state, contracts)
    state, _ = play(state, lead)
    state, events = run(state, PlayCard(S, Card.parse(card)))
    assert events == (CardPlayed(S, Card.parse(card)),)


# --- R3.5: who leads -----------------------------------------------------------------------------

GAME_TYPES = [
    pytest.param(GameType.NORMAL, id="R3.5-normal"),
    pytest.param(GameType.SILENT_SOLO, id="R3.5-silent-solo"),
    pytest.param(GameType.MARRIAGE, id="R3.5-marriage"),
    *(pytest.param(g, id=f"R3.5-{g.value}") for g in sorted(SOLOS)),
]


def _deal_for(game_type: GameType, dealer: Seat) -> tuple[dict[Seat, str], dict[Seat, GameType]]:
    """Hands and contracts that make ``game_type``, the declarer on the dealer's right."""
    declarer = dealer.right()
    if game_type is GameType.NORMAL:
        return {declarer: "QC", dealer: "QC"}, {}
    if game_type is GameType.SILENT_SOLO:
        return {declarer: "QC QC"}, {}
    if game_type is GameType.MARRIAGE:
        return {declarer: "QC QC"}, {declarer: GameType.MARRIAGE}
    return {declarer: "QC", dealer: "QC"}, {declarer: game_type}


@pytest.mark.parametrize("dealer", SEATS, ids=lambda s: f"dealer-{s.value}")
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_r3_5_dealers_left_leads_first_in_every_game_type(
    game_type: GameType, dealer: Seat
) -> None:
    """R3.5: the player on the dealer's left leads trick 1 whatever the game type; others
    are rejected (R3.6); the trick's winner leads the next."""
    partial, contracts = _deal_for(game_type, dealer)
    state, _ = start_play(deal_state(partial, dealer=dealer), contracts)
    assert state.game_type is game_type
    assert state.trick == Trick(dealer.left())
    assert state.turn is dealer.left()
    for seat in SEATS:
        if seat is not dealer.left():
            rejects(state, PlayCard(seat, state.hands[seat][0]), NotYourTurn, "R3.6")
    for _ in range(4):
        state, events = run(state, first_legal(state))
    (won,) = events_of(events, TrickWon)
    assert state.trick == Trick(won.winner)
    assert state.turn is won.winner


# --- R3.6: turn, own hand, phase -------------------------------------------------------------


@pytest.fixture
def playing() -> DealState:
    """A normal game, dealer North: East leads."""
    state, _ = start_play(deal_state({E: "AC QC 9D", S: "AC QC 9S"}, dealer=N))
    return state


def test_r3_6_only_the_leader_may_start(playing: DealState) -> None:
    """R3.6: clockwise from the leader; anyone else is NotYourTurn (R3.6)."""
    for seat in (S, W, N):
        rejects(playing, PlayCard(seat, playing.hands[seat][0]), NotYourTurn, "R3.6")


def test_r3_6_clockwise_within_a_trick(playing: DealState) -> None:
    """R3.6: after East leads, South is to play; East may not play twice, West not early."""
    state, _ = play(playing, "AC")
    assert state.turn is S
    rejects(state, PlayCard(E, Card.QC), NotYourTurn, "R3.6")
    rejects(state, PlayCard(W, state.hands[W][0]), NotYourTurn, "R3.6")
    rejects(state, PlayCard(N, state.hands[N][0]), NotYourTurn, "R3.6")


@pytest.mark.parametrize("owner", [S, W, N], ids=lambda s: f"R3.6-card-of-seat-{s.value}")
def test_r3_6_only_a_card_from_ones_own_hand(playing: DealState, owner: Seat) -> None:
    """R3.6: a card not in the player's hand is CardNotInHand (R3.6), even if another
    player holds it."""
    card = next(c for c in playing.hands[owner] if c not in playing.hands[E])
    error = rejects(playing, PlayCard(E, card), CardNotInHand, "R3.6")
    assert error.code == "card_not_in_hand"


def test_r3_6_a_played_card_is_gone(playing: DealState) -> None:
    """R3.6: East held one 9D; once played it is no longer in the hand."""
    assert playing.hands[E].count(Card.NINED) == 1
    state, _ = play(playing, "9D")
    while state.turn is not E:
        state, _ = run(state, first_legal(state))
    rejects(state, PlayCard(E, Card.NINED), CardNotInHand, "R3.6")


@pytest.mark.parametrize(
    ("words", "phase"),
    [
        pytest.param((), Phase.RESERVATIONS, id="R3.6-before-any-declaration"),
        pytest.param(("healthy", "healthy"), Phase.RESERVATIONS, id="R3.6-during-reservations"),
        pytest.param(("healthy",) * 3, Phase.RESERVATIONS, id="R3.6-before-last-declaration"),
        pytest.param(("reservation",) + ("healthy",) * 3, Phase.CONTRACTS, id="R3.6-contracts"),
    ],
)
def test_r3_6_no_play_before_the_game_type_is_fixed(words: tuple[str, ...], phase: Phase) -> None:
    """R3.6: cards are played only once the game type is fixed: PhaseClosed (R3.6)."""
    state, _ = declare(deal_state(dealer=N), *words)
    assert state.phase is phase
    assert state.game_type is None
    for seat in SEATS:
        error = rejects(state, PlayCard(seat, state.hands[seat][0]), PhaseClosed, "R3.6")
        assert error.code == "phase_closed"


def test_r3_6_nothing_is_played_after_the_12th_trick(playing: DealState) -> None:
    """R3.5, R3.6: exactly 12 tricks; after the 12th, play is PhaseClosed (R3.6)."""
    state, events = play_out(playing)
    assert state.phase is Phase.SCORED
    assert [e.trick_no for e in events_of(events, TrickWon)] == list(range(1, 13))
    assert len(events_of(events, CardPlayed)) == 48
    assert all(h == () for h in state.hands)
    assert state.trick is None and state.turn is None
    for seat in SEATS:
        rejects(state, PlayCard(seat, Card.QC), PhaseClosed, "R3.6")


def test_r3_5_all_12_tricks_are_played_before_counting(playing: DealState) -> None:
    """R3.5: the deal is scored only with the 12th trick, whatever the cards so far."""
    state = playing
    for n in range(47):
        state, events = run(state, first_legal(state))
        assert not events_of(events, DealScored), f"scored after {n + 1} cards"
    state, events = run(state, first_legal(state))
    assert isinstance(events[-1], DealScored)
    assert [type(e) for e in events[:-1]] == [CardPlayed, TrickWon]


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_r3_3_decide_accepts_exactly_the_legal_cards(game_type: GameType) -> None:
    """R3.3, R3.6, R5.6: at every turn of a whole deal, `decide` accepts a card of the hand iff
    `legal_cards` lists it (others are MustFollow, R3.3), in every game type."""
    partial, contracts = _deal_for(game_type, S)
    state, _ = start_play(deal_state(partial, dealer=S), contracts)
    order = order_of(game_type)
    step = 0
    while state.phase is Phase.PLAY:
        seat, trick = state.turn, state.trick
        assert seat is not None and trick is not None
        legal = legal_cards(state.hands[seat], trick, order)
        for c in set(state.hands[seat]):
            if c in legal:
                assert decide(state, PlayCard(seat, c))[0] == CardPlayed(seat, c)
            else:
                rejects(state, PlayCard(seat, c), MustFollow, "R3.3")
        state, _ = run(state, PlayCard(seat, legal[step % len(legal)]))
        step += 1
    assert step == 48
