"""R4 reservations and the game type: turn order, contracts, priority, parties, silent solo,
marriage; R5.1 the soloist alone against three."""

from __future__ import annotations

import msgspec
import pytest

from domain.announcements import Word
from domain.commands import Announce, Declaration, Declare, NameContract
from domain.deal import DealState, Phase
from domain.errors import ContractNotAllowed, MarriageNotClarified, NotYourTurn, PhaseClosed
from domain.events import ContractNamed, DealScored, Declared, GameTypeFixed, MarriageClarified
from domain.game_types import SOLOS, GameType
from domain.observations import observe
from domain.parties import Party
from domain.seats import SEATS, Seat

from .builders import (
    deal_state,
    declare,
    events_of,
    first_legal,
    play,
    play_out,
    rejects,
    run,
    start_play,
)

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
RE, KO = Party.RE, Party.KONTRA

# --- R4.1: healthy / reservation in turn from the dealer's left -------------------------------


@pytest.mark.parametrize("dealer", SEATS, ids=lambda s: f"R4.1-dealer-{s.value}")
def test_r4_1_declarations_in_turn_from_the_dealers_left(dealer: Seat) -> None:
    """R4.1: starting with the dealer's left, clockwise; anyone else is NotYourTurn (R4.1)."""
    state = deal_state(dealer=dealer)
    for expected in dealer.left().round():
        assert state.phase is Phase.RESERVATIONS
        assert state.turn is expected
        for other in SEATS:
            if other is not expected:
                rejects(state, Declare(other, Declaration.HEALTHY), NotYourTurn, "R4.1")
        state, events = run(state, Declare(expected, Declaration.HEALTHY))
        assert events[0] == Declared(expected, Declaration.HEALTHY)
    assert state.phase is Phase.PLAY


def test_r4_1_all_healthy_fixes_a_normal_game_with_the_fourth_word() -> None:
    """R4.1, R4.4: four `healthy` without a double-QC holder: normal game, fixed at once."""
    state = deal_state(dealer=N)
    state, events = declare(state, "healthy", "healthy", "healthy")
    assert state.phase is Phase.RESERVATIONS
    assert not events_of(events, GameTypeFixed)
    state, events = run(state, Declare(N, Declaration.HEALTHY))
    assert events == (Declared(N, Declaration.HEALTHY), GameTypeFixed(GameType.NORMAL, None))
    assert state.game_type is GameType.NORMAL and state.declarer is None


@pytest.mark.parametrize("reserving", SEATS, ids=lambda s: f"R4.1-reservation-by-{s.value}")
def test_r4_1_a_reservation_opens_contracts_after_all_four_words(reserving: Seat) -> None:
    """R4.1, R4.2: all four speak first; then the reserving player names a contract."""
    state = deal_state(dealer=N)
    for seat in E.round():
        assert state.phase is Phase.RESERVATIONS
        word = Declaration.RESERVATION if seat is reserving else Declaration.HEALTHY
        state, events = run(state, Declare(seat, word))
        assert events == (Declared(seat, word),)
    assert state.phase is Phase.CONTRACTS
    assert state.turn is reserving
    assert state.game_type is None


def test_r4_1_the_four_words_are_public() -> None:
    """R4.1: every seat and a spectator see who said `healthy` and who `reservation`."""
    state, _ = declare(deal_state(dealer=N), "healthy", "reservation")
    expected = (None, Declaration.HEALTHY, Declaration.RESERVATION, None)
    for viewer in (*SEATS, None):
        assert observe(state, viewer).declarations == expected


@pytest.mark.parametrize(
    "words",
    [
        pytest.param(("reservation", "healthy", "healthy", "healthy"), id="R4.1-in-contracts"),
        pytest.param(("healthy",) * 4, id="R4.1-in-play"),
    ],
)
def test_r4_1_no_declaring_after_the_reservations(words: tuple[str, ...]) -> None:
    """R4.1: once all four have spoken, Declare is PhaseClosed (R4.1)."""
    state, _ = declare(deal_state(dealer=N), *words)
    assert state.phase is not Phase.RESERVATIONS
    for seat in SEATS:
        for word in Declaration:
            rejects(state, Declare(seat, word), PhaseClosed, "R4.1")


# --- R4.2: naming a contract -----------------------------------------------------------------


@pytest.mark.parametrize("solo", sorted(SOLOS), ids=lambda g: f"R4.2-name-{g.value}")
def test_r4_2_any_player_may_name_any_solo(solo: GameType) -> None:
    """R4.2, R5: a voluntary solo needs nothing in hand; it wins unopposed."""
    state, _ = declare(deal_state(dealer=N), "healthy", "healthy", "reservation", "healthy")
    state, events = run(state, NameContract(W, solo))
    assert events == (ContractNamed(W, solo), GameTypeFixed(solo, W))
    assert state.phase is Phase.PLAY


def test_r4_2_marriage_with_both_qc() -> None:
    """R4.2: holding both QC, a marriage may be named."""
    state, _ = declare(deal_state({S: "QC QC"}, dealer=N), "healthy", "reservation")
    state, _ = declare(state, "healthy", "healthy")
    state, events = run(state, NameContract(S, GameType.MARRIAGE))
    assert events == (ContractNamed(S, GameType.MARRIAGE), GameTypeFixed(GameType.MARRIAGE, S))


@pytest.mark.parametrize(
    ("partial", "contract"),
    [
        pytest.param({S: "QC", W: "QC"}, GameType.MARRIAGE, id="R4.2-marriage-with-one-QC"),
        pytest.param({N: "QC", W: "QC"}, GameType.MARRIAGE, id="R4.2-marriage-with-no-QC"),
        pytest.param({S: "QC", W: "QC"}, GameType.NORMAL, id="R4.2-normal-cannot-be-named"),
        pytest.param({S: "QC QC"}, GameType.NORMAL, id="R4.2-normal-not-even-with-both-QC"),
        pytest.param({S: "QC", W: "QC"}, GameType.SILENT_SOLO, id="R4.2-silent-solo-not-named"),
        pytest.param({S: "QC QC"}, GameType.SILENT_SOLO, id="R4.5-silent-solo-never-named"),
    ],
)
def test_r4_2_a_contract_the_player_may_not_play_is_rejected(
    partial: dict[Seat, str], contract: GameType
) -> None:
    """R4.2: ContractNotAllowed (R4.2); the player may then name an allowed one."""
    state, _ = declare(deal_state(partial, dealer=N), "healthy", "reservation")
    state, _ = declare(state, "healthy", "healthy")
    error = rejects(state, NameContract(S, contract), ContractNotAllowed, "R4.2")
    assert error.code == "contract_not_allowed"
    state, events = run(state, NameContract(S, GameType.QUEEN_SOLO))
    assert events[-1] == GameTypeFixed(GameType.QUEEN_SOLO, S)


def test_r4_2_contracts_named_in_turn_by_the_reserving_players_only() -> None:
    """R4.2 with R4.1's order: a healthy player or one out of turn is NotYourTurn (R4.2)."""
    state, _ = declare(deal_state(dealer=W), "reservation", "healthy", "reservation", "healthy")
    # dealer West: North, East, South, West; North and South reserved
    assert state.turn is N
    for seat in (E, S, W):
        rejects(state, NameContract(seat, GameType.JACK_SOLO), NotYourTurn, "R4.2")
    state, events = run(state, NameContract(N, GameType.JACK_SOLO))
    assert events == (ContractNamed(N, GameType.JACK_SOLO),)
    assert state.turn is S
    for seat in (N, E, W):
        rejects(state, NameContract(seat, GameType.JACK_SOLO), NotYourTurn, "R4.2")


@pytest.mark.parametrize(
    "words",
    [
        pytest.param((), id="R4.2-before-any-word"),
        pytest.param(("reservation", "healthy"), id="R4.2-before-all-four-words"),
        pytest.param(("healthy",) * 4, id="R4.2-after-game-type-fixed"),
    ],
)
def test_r4_2_contracts_only_in_the_contracts_phase(words: tuple[str, ...]) -> None:
    """R4.2: naming a contract before all four spoke or once play is open: PhaseClosed."""
    state, _ = declare(deal_state(dealer=N), *words)
    for seat in SEATS:
        rejects(state, NameContract(seat, GameType.FLEISCHLOS), PhaseClosed, "R4.2")


# --- R4.3: priority ----------------------------------------------------------------------------

PRIORITY = [
    pytest.param(
        N,
        {E: GameType.MARRIAGE, S: GameType.CLUBS_SOLO},
        GameType.CLUBS_SOLO,
        S,
        id="R4.3-later-solo-beats-earlier-marriage",
    ),
    pytest.param(
        N,
        {E: GameType.MARRIAGE, N: GameType.DIAMONDS_SOLO},
        GameType.DIAMONDS_SOLO,
        N,
        id="R4.3-dealers-solo-beats-marriage",
    ),
    pytest.param(
        N,
        {E: GameType.JACK_SOLO, S: GameType.QUEEN_SOLO},
        GameType.JACK_SOLO,
        E,
        id="R4.3-earlier-solo-wins",
    ),
    pytest.param(
        N,
        {S: GameType.FLEISCHLOS, N: GameType.HEARTS_SOLO},
        GameType.FLEISCHLOS,
        S,
        id="R4.3-earlier-solo-wins-any-kind",
    ),
    pytest.param(
        S,
        {N: GameType.QUEEN_SOLO, W: GameType.JACK_SOLO},
        GameType.JACK_SOLO,
        W,
        id="R4.3-order-from-dealers-left-not-seat-number",
    ),
    pytest.param(
        E,
        {E: GameType.SPADES_SOLO, S: GameType.DIAMONDS_SOLO},
        GameType.DIAMONDS_SOLO,
        S,
        id="R4.3-dealer-speaks-last",
    ),
    pytest.param(
        N,
        {
            E: GameType.QUEEN_SOLO,
            S: GameType.JACK_SOLO,
            W: GameType.FLEISCHLOS,
            N: GameType.CLUBS_SOLO,
        },
        GameType.QUEEN_SOLO,
        E,
        id="R4.3-four-solos-first-wins",
    ),
    pytest.param(N, {W: GameType.MARRIAGE}, GameType.MARRIAGE, W, id="R4.3-lone-marriage"),
    pytest.param(N, {N: GameType.MARRIAGE}, GameType.MARRIAGE, N, id="R4.3-dealers-marriage"),
]


def _qc_for(contracts: dict[Seat, GameType]) -> dict[Seat, str]:
    """Both QC to the seat naming a marriage; otherwise one QC to each of two seats."""
    married = [s for s, c in contracts.items() if c is GameType.MARRIAGE]
    if married:
        return {married[0]: "QC QC"}
    return {}


@pytest.mark.parametrize(("dealer", "contracts", "game_type", "declarer"), PRIORITY)
def test_r4_3_priority(
    dealer: Seat, contracts: dict[Seat, GameType], game_type: GameType, declarer: Seat
) -> None:
    """R4.3: any solo beats a marriage; between solos the earlier in R4.1's order wins.
    The game type is fixed only once every reserving player has named a contract."""
    state = deal_state(_qc_for(contracts), dealer=dealer)
    state, events = start_play(state, contracts)
    fixed = events_of(events, GameTypeFixed)
    assert fixed == [GameTypeFixed(game_type, declarer)]
    assert events[-1] == fixed[0]
    assert (state.game_type, state.declarer) == (game_type, declarer)
    named = [e.seat for e in events_of(events, ContractNamed)]
    assert named == [s for s in dealer.left().round() if s in contracts]


def _hidden_contract_deal() -> DealState:
    """Dealer North. East names a jack solo, West a queen solo and North a clubs solo:
    East wins (R4.3); the queen and clubs solos lose."""
    state, _ = start_play(
        deal_state(dealer=N),
        {E: GameType.JACK_SOLO, W: GameType.QUEEN_SOLO, N: GameType.CLUBS_SOLO},
    )
    return state


def test_r4_3_losing_contracts_stay_hidden_until_the_deal_ends() -> None:
    """R4.3: only the winning contract and declarer are public before play; each player
    sees only their own named contract; the spectator sees none."""
    state = _hidden_contract_deal()
    for viewer in (*SEATS, None):
        seen = observe(state, viewer)
        assert (seen.game_type, seen.declarer) == (GameType.JACK_SOLO, E)
        assert seen.contracts is None
        assert seen.own_contract == (state.contracts[viewer] if viewer is not None else None)
        text = msgspec.json.encode(seen)
        if viewer is not W:
            assert b"queen_solo" not in text
        if viewer is not N:
            assert b"clubs_solo" not in text
    assert observe(state, W).own_contract is GameType.QUEEN_SOLO


def test_r4_3_named_contracts_hidden_while_others_still_name() -> None:
    """R4.3: during the contracts phase nobody sees another's named contract."""
    state, _ = declare(deal_state(dealer=N), "reservation", "healthy", "reservation", "healthy")
    state, _ = run(state, NameContract(E, GameType.FLEISCHLOS))
    assert state.phase is Phase.CONTRACTS
    for viewer in (S, W, N, None):
        seen = observe(state, viewer)
        assert seen.contracts is None
        assert seen.own_contract is None
        assert seen.game_type is None and seen.declarer is None
    assert observe(state, E).own_contract is GameType.FLEISCHLOS


def test_r4_3_all_contracts_public_once_scored() -> None:
    """R4.3: "until the deal ends": after scoring every named contract is visible."""
    state, _ = play_out(_hidden_contract_deal())
    assert state.phase is Phase.SCORED
    expected = (GameType.CLUBS_SOLO, GameType.JACK_SOLO, None, GameType.QUEEN_SOLO)
    for viewer in (*SEATS, None):
        assert observe(state, viewer).contracts == expected


# --- R4.4: the normal game's parties -----------------------------------------------------------


@pytest.mark.parametrize(
    "holders",
    [(a, b) for i, a in enumerate(SEATS) for b in SEATS[i + 1 :]],
    ids=lambda h: f"R4.4-QC-{h[0].value}-{h[1].value}",
)
def test_r4_4_normal_game_re_are_the_two_qc_holders(holders: tuple[Seat, Seat]) -> None:
    """R4.4: no winning reservation: the two QC holders are Re, the others Kontra."""
    state, _ = start_play(deal_state({holders[0]: "QC", holders[1]: "QC"}, dealer=N))
    assert state.game_type is GameType.NORMAL
    assert state.parties == tuple(RE if s in holders else KO for s in SEATS)
    assert not state.solo


# --- R4.5: silent solo ---------------------------------------------------------------------------


@pytest.mark.parametrize("holder", SEATS, ids=lambda s: f"R4.5-both-QC-at-{s.value}")
def test_r4_5_double_qc_holder_without_reservation_plays_a_silent_solo(holder: Seat) -> None:
    """R4.5: both QC and the game would otherwise be normal: silent solo, alone as Re."""
    state, events = start_play(deal_state({holder: "QC QC"}, dealer=N))
    assert events[-1] == GameTypeFixed(GameType.SILENT_SOLO, holder)
    assert state.parties == tuple(RE if s is holder else KO for s in SEATS)
    assert state.alone and state.solo


def test_r4_5_silent_solo_looks_normal_to_everyone_else() -> None:
    """R4.5: it is not announced; others and the spectator see a normal game without declarer
    (no trace of "silent_solo" anywhere in their views); the soloist sees the truth."""
    state, _ = start_play(deal_state({S: "QC QC"}, dealer=N))
    for viewer in (N, E, W, None):
        seen = observe(state, viewer)
        assert (seen.game_type, seen.declarer) == (GameType.NORMAL, None)
        assert b"silent_solo" not in msgspec.json.encode(seen)
        assert seen.parties[S] is None
    mine = observe(state, S)
    assert (mine.game_type, mine.declarer) == (GameType.SILENT_SOLO, S)


def test_r4_5_silent_solo_revealed_once_both_qc_are_played() -> None:
    """R4.5 "until revealed": after the soloist has played both QC, all see the silent solo."""
    state, _ = start_play(deal_state({E: "QC QC 10H 10H"}, dealer=N))
    state, _ = play(state, "QC")
    assert observe(state, N).game_type is GameType.NORMAL
    assert observe(state, N).parties[E] is RE  # R4.4: playing a QC reveals Re
    for _ in range(3):
        state, _ = run(state, first_legal(state))
    assert state.winners == (E,)
    state, _ = play(state, "QC")
    for viewer in (N, S, W, None):
        seen = observe(state, viewer)
        assert (seen.game_type, seen.declarer) == (GameType.SILENT_SOLO, E)
        assert seen.parties == (KO, RE, KO, KO)


def test_r4_5_silent_solo_is_scored_as_a_solo() -> None:
    """R4.5: scored as a solo (R10.2: the soloist writes three times the value)."""
    state, _ = start_play(deal_state({W: "QC QC"}, dealer=N))
    state, events = play_out(state)
    (scored,) = events_of(events, DealScored)
    assert scored.score.solo and scored.score.game_type is GameType.SILENT_SOLO
    assert scored.score.re_seats == (W,)
    value = scored.score.value
    assert scored.score.entries == (-value, -value, -value, 3 * value)
    for viewer in (*SEATS, None):
        assert observe(state, viewer).game_type is GameType.SILENT_SOLO


@pytest.mark.parametrize(
    ("contracts", "game_type", "declarer"),
    [
        pytest.param({E: GameType.HEARTS_SOLO}, GameType.HEARTS_SOLO, E, id="R4.5-other-solo"),
        pytest.param(
            {E: GameType.SPADES_SOLO, S: GameType.CLUBS_SOLO},
            GameType.SPADES_SOLO,
            E,
            id="R4.5-own-solo-loses-to-earlier",
        ),
        pytest.param(
            {S: GameType.MARRIAGE, W: GameType.FLEISCHLOS},
            GameType.FLEISCHLOS,
            W,
            id="R4.5-own-marriage-loses-to-solo",
        ),
    ],
)
def test_r4_5_double_qc_holder_is_kontra_when_another_solo_wins(
    contracts: dict[Seat, GameType], game_type: GameType, declarer: Seat
) -> None:
    """R4.5: if another player's solo wins, the double-QC holder (South) is simply Kontra."""
    state, _ = start_play(deal_state({S: "QC QC"}, dealer=N), contracts)
    assert (state.game_type, state.declarer) == (game_type, declarer)
    assert state.parties[S] is KO
    assert state.parties == tuple(RE if s is declarer else KO for s in SEATS)


@pytest.mark.parametrize(
    ("contract", "game_type"),
    [
        pytest.param(GameType.MARRIAGE, GameType.MARRIAGE, id="R4.5-own-marriage-wins"),
        pytest.param(GameType.JACK_SOLO, GameType.JACK_SOLO, id="R4.5-own-solo-wins"),
        pytest.param(GameType.DIAMONDS_SOLO, GameType.DIAMONDS_SOLO, id="R4.5-own-diamonds-solo"),
    ],
)
def test_r4_5_no_silent_solo_when_the_holder_wins_with_a_contract(
    contract: GameType, game_type: GameType
) -> None:
    """R4.5: a double-QC holder who wins with a marriage or own solo plays that, openly."""
    state, _ = start_play(deal_state({S: "QC QC"}, dealer=N), {S: contract})
    assert (state.game_type, state.declarer) == (game_type, S)
    assert observe(state, N).game_type is game_type


# --- R4.6: marriage ------------------------------------------------------------------------------

MARRIAGES = [
    pytest.param(
        {E: "QC QC 9D", S: "10H", W: "JD", N: "KD"},
        ["9D 10H JD KD"],
        1,
        S,
        id="R4.6-partner-found-in-trick-1",
    ),
    pytest.param(
        {E: "QC QC 10H 9D", S: "KD JD", W: "10H 9D", N: "AD 10D"},
        ["10H KD 9D AD", "9D JD 10H 10D"],
        2,
        W,
        id="R4.6-partner-found-in-trick-2",
    ),
    pytest.param(
        {E: "QC QC 10H 9D", S: "KD JD KD", W: "9D JH 10D", N: "10H AD 10D"},
        ["10H KD 9D AD", "QC JD JH 10D", "9D KD 10D 10H"],
        3,
        N,
        id="R4.6-partner-found-in-trick-3",
    ),
    pytest.param(
        {E: "QC QC 10H 10H 9D", S: "9D KD KD QS", W: "JD JD JH JS", N: "AD AD 10D 10D"},
        ["10H 9D JD AD", "10H KD JD AD", "QC KD JH 10D", "9D QS JS 10D"],
        3,
        None,
        id="R4.6-declarer-wins-tricks-1-3-plays-alone",
    ),
]


@pytest.mark.parametrize(("partial", "tricks", "clarified_in", "partner"), MARRIAGES)
def test_r4_6_marriage_partner_is_the_first_other_winner_of_the_first_3_tricks(
    partial: dict[Seat, str], tricks: list[str], clarified_in: int, partner: Seat | None
) -> None:
    """R4.6: the first non-declarer to win one of tricks 1-3 becomes the declarer's Re partner
    (that trick clarifies); if the declarer wins all three, the declarer plays alone, scored
    as a solo, and trick 3 clarifies. Nobody announces before (R6.7)."""
    state, _ = start_play(deal_state(partial, dealer=N), {E: GameType.MARRIAGE})
    assert (state.game_type, state.declarer) == (GameType.MARRIAGE, E)
    assert state.parties == (None, RE, None, None)
    for viewer in (*SEATS, None):
        assert observe(state, viewer).parties == (None, RE, None, None)
    for seat in SEATS:
        rejects(state, Announce(seat, Word.RE), MarriageNotClarified, "R6.7")

    clarified: list[MarriageClarified] = []
    for number, trick in enumerate(tricks, 1):
        state, events = play(state, trick)
        clarified += events_of(events, MarriageClarified)
        if number < clarified_in:
            assert not clarified
            assert state.clarified_in is None
            rejects(state, Announce(E, Word.RE), MarriageNotClarified, "R6.7")
        if number == clarified_in:
            assert events_of(events, MarriageClarified) == [MarriageClarified(number, partner)]
            assert events[-1] == MarriageClarified(number, partner)
    assert state.clarified_in == clarified_in
    expected = tuple(RE if s in (E, partner) else KO for s in SEATS)
    assert state.parties == expected
    assert state.alone is (partner is None)

    state, events = play_out(state)
    assert clarified + events_of(events, MarriageClarified) == [
        MarriageClarified(clarified_in, partner)
    ]
    assert state.parties == expected
    (scored,) = events_of(events, DealScored)
    assert scored.score.game_type is GameType.MARRIAGE
    assert scored.score.solo is (partner is None)
    value = scored.score.value
    if partner is None:
        assert scored.score.entries == (-value, 3 * value, -value, -value)
        assert not any(ln.rule.startswith("R9") for ln in scored.score.lines)
    else:
        assert scored.score.entries == tuple(value if p is RE else -value for p in expected)


def test_r4_6_a_trick_after_the_third_finds_no_partner() -> None:
    """R4.6: only the first 3 tricks can find a partner: trick 4, won by South after the
    declarer took tricks 1-3, changes nothing."""
    partial: dict[Seat, str] = {
        E: "QC QC 10H 10H 9D",
        S: "9D KD KD QS",
        W: "JD JD JH JS",
        N: "AD AD 10D 10D",
    }
    tricks = ["10H 9D JD AD", "10H KD JD AD", "QC KD JH 10D", "9D QS JS 10D"]
    assert MARRIAGES[3].values[:2] == (partial, tricks)
    state, _ = start_play(deal_state(partial, dealer=N), {E: GameType.MARRIAGE})
    state, _ = play(state, *tricks[:3])
    assert state.clarified_in == 3
    state, events = play(state, tricks[3])
    assert state.winners == (E, E, E, S)
    assert not events_of(events, MarriageClarified)
    assert state.parties == (KO, RE, KO, KO)


# --- R5.1: soloist alone against three ----------------------------------------------------------


@pytest.mark.parametrize("soloist", SEATS, ids=lambda s: f"seat-{s.value}")
@pytest.mark.parametrize("solo", sorted(SOLOS), ids=lambda g: f"R5.1-{g.value}")
def test_r5_1_soloist_is_re_against_three_kontra(solo: GameType, soloist: Seat) -> None:
    """R5.1: in a solo, the soloist is Re, the three others Kontra; parties are public."""
    state, _ = start_play(deal_state(dealer=W), {soloist: solo})
    assert state.parties == tuple(RE if s is soloist else KO for s in SEATS)
    assert state.solo and state.alone
    for viewer in (*SEATS, None):
        assert observe(state, viewer).parties == state.parties
