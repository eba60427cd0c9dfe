"""V1 Without nines: 40 cards, 10 a hand (V1.1), dealt by doko-deal-v1-40 (V1.2), every
announcement deadline two cards lower (V1.3), a marriage's shift on top (V1.4), the last
trick trick 10 (V1.5).

Expectations come from the rule text (service/web/HOUSE_RULES.md, RULES.md R2, R6, R9.4),
written out by hand: the deadline tables below are V1.3's numbers, not `deadline()`'s.
Whole sessions played without nines are checked by the property tests' invariants (240
card points, 10 tricks, zero-sum entries, replay, every command outside the options
refused) and by the deadlines of every announcement made in them.
"""

from __future__ import annotations

import hashlib
import random

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import replay
from domain.announcements import PartyAnnouncements, Word
from domain.cards import CARD_POINTS, Card, Rank
from domain.commands import (
    Announce,
    DealCommand,
    Declaration,
    Declare,
    NameContract,
    StartSession,
)
from domain.deal import DealState, deal_started
from domain.dealing import (
    ALGORITHM,
    deal_from_seed,
    seeded_dealing,
    validate_preset,
    verify_deal,
)
from domain.errors import (
    AnnouncementTooLate,
    DomainError,
    IncludedLevelTooLate,
    InvalidDeal,
    LateReplyBlocksRefusals,
    MarriageNotClarified,
)
from domain.events import (
    Announced,
    DealDealt,
    Dealing,
    DealScored,
    Event,
    GameTypeFixed,
    MarriageClarified,
)
from domain.game_types import SOLOS, GameType
from domain.observations import Observation, observe, options
from domain.parties import Party
from domain.players import Chooser, greedy_action, random_action
from domain.rule_set import DEFAULT, RuleSet
from domain.scoring import DealFacts, score
from domain.seats import SEATS, Seat
from domain.session import SessionState
from domain.simulation import Player, play_session
from domain.tricks import Trick
from domain.variants import without_nines
from domain.variants.second_heart_ten import SecondHeartTen
from tests.domain.builders import (
    first_legal,
    hand,
    hands,
    play,
    play_out,
    rejects,
    run,
    start_play,
)
from tests.domain.test_properties import play_checked
from tests.domain.variants import random_sessions

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
V1 = RuleSet(without_nines=True)

CODES_40 = "AC 10C KC QC JC AS 10S KS QS JS AH 10H KH QH JH AD 10D KD QD JD"
"""V1.1 by hand: the 20 codes of the deck without nines, in the canonical order."""


def test_v1_1_the_deck_is_40_cards_of_240_points() -> None:
    assert hand(CODES_40) * 2 == without_nines.DECK
    assert len(without_nines.DECK) == 40 and Rank.NINE not in {c.rank for c in without_nines.DECK}
    assert sum(CARD_POINTS[c] for c in without_nines.DECK) == 240
    assert V1.tricks == 10 and DEFAULT.tricks == 12
    assert V1.variants == ("V1.1",)
    assert RuleSet(without_nines=True, second_heart_ten=SecondHeartTen.ALWAYS).variants == (
        "V1.1",
        "V2.1",
    )
    assert msgspec.json.encode(V1) == b'{"without_nines":true}'


SEEDS = [bytes([n]) * 32 for n in (0, 1, 7, 255)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dealer", list(SEATS))
def test_v1_2_a_seeded_deal_is_four_hands_of_ten_of_the_40_cards(seed: bytes, dealer: Seat) -> None:
    dealt = deal_from_seed(seed, dealer, without_nines.ALGORITHM)
    assert [len(h) for h in dealt] == [10, 10, 10, 10]
    assert sorted(c for h in dealt for c in h) == sorted(without_nines.DECK)
    assert deal_from_seed(seed, dealer, without_nines.ALGORITHM) == dealt  # deterministic
    record = seeded_dealing(seed, algorithm=without_nines.ALGORITHM)
    assert record.algorithm == "doko-deal-v1-40"
    assert verify_deal(record, dealer, dealt)
    assert not verify_deal(seeded_dealing(seed), dealer, dealt)  # the 48-card algorithm
    assert not verify_deal(record, dealer.left(), dealt)
    assert len(deal_from_seed(seed, dealer)[0]) == 12  # R2.2 unchanged


def _oracle_deal(seed: bytes, dealer: Seat) -> list[list[Card]]:
    """V1.2 written from its text: SHA-256(seed || block) words, numbers below n without
    bias, Fisher-Yates from position 39, cut 3 + a number below 35, packets 3, 4, 3."""
    words: list[int] = []
    blocks = iter(range(1000))

    def below(n: int) -> int:
        while True:
            if not words:
                digest = hashlib.sha256(seed + next(blocks).to_bytes(8, "big")).digest()
                words.extend(int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4))
            u = words.pop(0)
            if u < 2**32 - 2**32 % n:
                return u % n

    deck = list(hand(CODES_40)) * 2
    for i in range(39, 0, -1):
        j = below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    cut = 3 + below(35)
    deck = deck[cut:] + deck[:cut]
    dealt: list[list[Card]] = [[], [], [], []]
    for packet in (3, 4, 3):
        for k in range(1, 5):
            seat = (dealer + k) % 4
            dealt[seat].extend(deck[:packet])
            deck = deck[packet:]
    return dealt


@pytest.mark.parametrize("seed", SEEDS)
def test_v1_2_the_deal_is_the_rule_texts(seed: bytes) -> None:
    """The hands are those of V1.2's steps, recomputed here from the text."""
    for dealer in SEATS:
        dealt = deal_from_seed(seed, dealer, without_nines.ALGORITHM)
        assert [list(h) for h in dealt] == _oracle_deal(seed, dealer)


_LOW, _HIGH = " ".join(CODES_40.split()[:10]), " ".join(CODES_40.split()[10:])
SPLIT = hands(_LOW, _HIGH, _LOW, _HIGH)
"""Four hands of 10: North and South AC 10C KC QC JC AS 10S KS QS JS, East and West
AH 10H KH QH JH AD 10D KD QD JD (a normal game: Re is North and South)."""

PRESETS = [
    (SPLIT, V1, None),
    (SPLIT, DEFAULT, ("R2.2", "a deal is 4 hands of 12 cards, not [10, 10, 10, 10]")),
    (
        hands(*((*h[:9], Card.NINEC) for h in SPLIT)),  # each last card (JS, JD) a 9C
        V1,
        ("V1.1", "every card but the nines twice; wrong count for 9C, JD, JS"),
    ),
    (
        hands(*((*h, h[0]) for h in SPLIT)),
        V1,
        ("V1.2", "a deal is 4 hands of 10 cards, not [11, 11, 11, 11]"),
    ),
]


@pytest.mark.parametrize(("dealt", "rules", "refusal"), PRESETS)
def test_v1_2_preset_hands(
    dealt: tuple[tuple[Card, ...], ...], rules: RuleSet, refusal: tuple[str, str] | None
) -> None:
    """Preset hands are 4 hands of 10, every code but the nines twice."""
    if refusal is None:
        assert validate_preset(dealt, rules.algorithm) == dealt
        return
    with pytest.raises(InvalidDeal) as caught:
        validate_preset(dealt, rules.algorithm)
    assert (caught.value.rule, caught.value.message) == refusal


def normal_deal(rules: RuleSet = V1) -> DealState:
    """`SPLIT` dealt by North: East leads; a normal game, Re North and South."""
    state = deal_started(DealDealt(1, N, SPLIT, Dealing("preset")), rules)
    state, _ = start_play(state)
    assert state.game_type is GameType.NORMAL
    assert state.parties == (Party.RE, Party.KONTRA, Party.RE, Party.KONTRA)
    return state


def after_tricks(state: DealState, tricks: int) -> DealState:
    """The deal after ``tricks`` more complete tricks, each seat playing its first legal card."""
    for _ in range(4 * tricks):
        state, _ = run(state, first_legal(state))
    return state


def said(state: DealState, *words: tuple[Seat, Word]) -> DealState:
    state, _ = run(state, *(Announce(seat, word) for seat, word in words))
    return state


RE_UP_TO = {
    Word.RE: (),
    Word.NO90: ((N, Word.RE),),
    Word.NO60: ((N, Word.RE), (N, Word.NO90)),
    Word.NO30: ((N, Word.RE), (N, Word.NO90), (N, Word.NO60)),
    Word.SCHWARZ: ((N, Word.RE), (N, Word.NO90), (N, Word.NO60), (N, Word.NO30)),
}
"""What Re said before, at 10 cards, so that the word is its next level."""

DEADLINES = [
    # (said before at 10 cards, who says, what, last allowed cards, first refused, error)
    ((), N, Word.RE, 9, 8, AnnouncementTooLate),
    (RE_UP_TO[Word.NO90], N, Word.NO90, 8, 7, AnnouncementTooLate),
    (RE_UP_TO[Word.NO60], N, Word.NO60, 7, 6, AnnouncementTooLate),
    (RE_UP_TO[Word.NO30], N, Word.NO30, 6, 5, AnnouncementTooLate),
    (RE_UP_TO[Word.SCHWARZ], N, Word.SCHWARZ, 5, 4, AnnouncementTooLate),
    # R6.6 shifted: kontra as a reply, one card below the deadline of Re's highest level
    (RE_UP_TO[Word.NO90], E, Word.KONTRA, 8, 7, AnnouncementTooLate),
    (RE_UP_TO[Word.NO60], E, Word.KONTRA, 7, 6, AnnouncementTooLate),
    (RE_UP_TO[Word.NO30], E, Word.KONTRA, 6, 5, AnnouncementTooLate),
    (RE_UP_TO[Word.SCHWARZ], E, Word.KONTRA, 5, 4, AnnouncementTooLate),
    ((*RE_UP_TO[Word.SCHWARZ], (N, Word.SCHWARZ)), E, Word.KONTRA, 4, 3, AnnouncementTooLate),
    # R6.3 shifted: no90 without re first includes re, which needs 9 cards
    ((), N, Word.NO90, 9, 8, IncludedLevelTooLate),
]
"""V1.3 by hand: re/kontra 9, no90 8, no60 7, no30 6, schwarz 5; a reply 8, 7, 6, 5, 4."""


@pytest.mark.parametrize(("before", "seat", "word", "allowed", "refused", "error"), DEADLINES)
def test_v1_3_announcement_deadlines_are_two_cards_lower(
    before: tuple[tuple[Seat, Word], ...],
    seat: Seat,
    word: Word,
    allowed: int,
    refused: int,
    error: type[DomainError],
) -> None:
    """The last card count at which the word is allowed, and the first at which it is
    refused, naming V1.3."""
    start = said(normal_deal(), *before)
    at_allowed = after_tricks(start, 10 - allowed)
    assert len(at_allowed.hands[seat]) == allowed
    (event,) = run(at_allowed, Announce(seat, word))[1]
    assert isinstance(event, Announced) and event.cards == allowed
    at_refused = after_tricks(start, 10 - refused)
    assert len(at_refused.hands[seat]) == refused
    rejects(at_refused, Announce(seat, word), error, "V1.3")


@pytest.mark.parametrize(
    ("cards", "allowed"),
    [(10, True), (9, True), (8, False)],
)
def test_v1_3_the_options_name_the_shifted_deadlines(cards: int, allowed: bool) -> None:
    """The seat's options offer re and every refusal (which include re) until 9 cards."""
    state = after_tricks(normal_deal(), 10 - cards)
    offered = {a.word: a.until_cards for a in options(state, N).announcements}
    if allowed:
        assert offered == dict.fromkeys((Word.RE, *RE_UP_TO.keys()), 9)
    else:
        assert offered == {}


def test_x1_1() -> None:
    """X1.1 (V1.3, R6.6) Without nines, a normal game. North (Re) says `re` before the first
    card. After two tricks every hand holds 8 cards: East (Kontra) may still reply `kontra`
    (a reply to `re` needs 8), but late (its own deadline is 9), so Kontra may announce no
    refusal after it; North may say `no90` (it needs 8). After three tricks (7 cards)
    North's `no90` is refused, naming V1.3."""
    start = said(normal_deal(), (N, Word.RE))
    state = after_tricks(start, 2)
    assert {len(h) for h in state.hands} == {8}
    replied, (event,) = run(state, Announce(E, Word.KONTRA))
    assert isinstance(event, Announced) and event.late_reply and event.cards == 8
    rejects(replied, Announce(E, Word.NO90), LateReplyBlocksRefusals, "R6.6")
    (refusal,) = run(state, Announce(N, Word.NO90))[1]
    assert isinstance(refusal, Announced) and refusal.words == (Word.NO90,)
    later = after_tricks(start, 3)
    rejects(later, Announce(N, Word.NO90), AnnouncementTooLate, "V1.3")


MARRIAGE = hands(
    "QD QD JD JD AD AD KH KH 10D 10D",
    "QC QC 10H 10H KC KC AS AS 10S 10S",
    "AC AC QS QS QH QH 10C 10C KS KS",
    "JC JC JS JS JH JH AH AH KD KD",
)
"""East declares a marriage, wins tricks 1 and 2 with the 10H, South wins trick 3 with AC."""


def marriage_clarified_in_trick_3() -> DealState:
    state = deal_started(DealDealt(1, N, MARRIAGE, Dealing("preset")), V1)
    state, _ = start_play(state, {E: GameType.MARRIAGE})
    state, _ = play(state, "10H QS JC QD")
    rejects(state, Announce(E, Word.RE), MarriageNotClarified, "R6.7")
    state, _ = play(state, "10H QS JC QD", "KC AC AH KH")
    assert state.clarified_in == 3 and state.parties[S] is Party.RE
    return state


def test_x1_2() -> None:
    """X1.2 (V1.4) Without nines, East declares a marriage and wins the first two tricks;
    South wins the third and is East's partner. Every hand holds 7 cards: South may say
    `re` (9, two lower for trick 3). After the fourth trick (6 cards) it is refused, naming
    V1.3."""
    state = marriage_clarified_in_trick_3()
    assert len(state.hands[S]) == 7
    (event,) = run(state, Announce(S, Word.RE))[1]
    assert isinstance(event, Announced) and event.cards == 7
    later, _ = play(state, "KS AH KH AS")
    assert len(later.hands[S]) == 6
    rejects(later, Announce(S, Word.RE), AnnouncementTooLate, "V1.3")


def test_v1_4_a_marriage_played_alone_shifts_two_more() -> None:
    """R4.6 with V1.4: East wins the first 3 tricks (both 10H, then QC) and plays alone, a
    diamond solo; clarified in trick 3 every hand holds 7 cards and re needs 7 (V1.3 and
    R6.7), one trick later it is refused; the deal ends after 10 tricks, scored as a solo."""
    state = deal_started(DealDealt(1, N, MARRIAGE, Dealing("preset")), V1)
    state, _ = start_play(state, {E: GameType.MARRIAGE})
    state, events = play(state, "10H QS JC QD", "10H QS JC QD", "QC QH JS JD")
    assert [e for e in events if isinstance(e, MarriageClarified)] == [MarriageClarified(3, None)]
    assert state.alone and state.solo
    (event,) = run(state, Announce(E, Word.RE))[1]
    assert isinstance(event, Announced) and event.cards == 7
    later = after_tricks(state, 1)
    rejects(later, Announce(E, Word.RE), AnnouncementTooLate, "V1.3")
    ended, _ = play_out(later)
    assert ended.score is not None
    result = ended.score.score
    assert result.solo and sum(result.tricks.values()) == 10
    assert sum(result.card_points.values()) == 240 and sum(result.entries) == 0


def _facts(tricks: tuple[Trick, ...], winners: tuple[Seat, ...]) -> DealFacts:
    parties = (Party.RE, Party.KONTRA, Party.RE, Party.KONTRA)
    return DealFacts(
        game_type=GameType.NORMAL,
        solo=False,
        parties=parties,
        tricks=tricks,
        winners=winners,
        announcements={p: PartyAnnouncements() for p in Party},
    )


@pytest.mark.parametrize(("trick_no", "karlchen"), [(10, True), (9, False)])
def test_x1_3(trick_no: int, karlchen: bool) -> None:
    """X1.3 (V1.5, R9.4) Without nines, North (Re) leads JC in trick 10 and wins it:
    Karlchen, 1 for Re. Won in trick 9 of 10 it scores nothing."""
    plain = Trick(E, hand("KH KH AH AH"))  # West's AH wins
    jc = Trick(N, hand("JC JD JD KD"))  # North leads JC, the highest of the trick
    tricks = tuple(jc if n == trick_no else plain for n in range(1, 11))
    winners = tuple(N if n == trick_no else W for n in range(1, 11))
    lines = [(line.rule, line.party, line.points) for line in score(_facts(tricks, winners)).lines]
    assert (("R9.4", Party.RE, 1) in lines) is karlchen


@pytest.mark.parametrize(
    ("north", "announces"),
    [
        ("QC QS QH QD JC JS JH AC AS AH", True),  # 7 trumps of 10: two thirds of a hand
        ("QC QS QH QD JC JS KH AC AS AH", False),  # 6
    ],
)
def test_the_greedy_player_announces_on_two_thirds_of_a_hand_in_trumps(
    north: str, announces: bool
) -> None:
    """The greedy player's threshold (8 trumps of 12) scaled to 10 cards: 7."""
    rest = list(without_nines.DECK)
    for card in hand(north):
        rest.remove(card)
    dealt = (hand(north), *(tuple(rest[10 * i : 10 * i + 10]) for i in range(3)))
    state = deal_started(DealDealt(1, N, dealt, Dealing("preset")), V1)
    state, _ = start_play(state)
    action = greedy_action(observe(state, N), random.Random(0))
    assert (action == Announce(N, Word.RE)) is announces


# --- whole sessions ------------------------------------------------------------------

V1_DEADLINES = {1: 9, 2: 8, 3: 7, 4: 6, 5: 5}
"""V1.3 by hand: the fewest cards for each level (re/kontra 1 ... schwarz 5)."""


def check_announcement_deadlines(events: list[Event]) -> None:
    """Every announcement of the log met V1.3 (V1.4: less the marriage's shift): its own
    deadline, each included level's, or as a reply one card below the opponents'."""
    levels = {Party.RE: 0, Party.KONTRA: 0}
    shift = 0
    for event in events:
        if isinstance(event, DealDealt):
            levels, shift = {Party.RE: 0, Party.KONTRA: 0}, 0
        elif isinstance(event, Announced):
            own, opponents = levels[event.party], levels[event.party.opponent]
            for word in event.words:
                need = V1_DEADLINES[word.level] - shift
                if event.words == (word,) and word.level == 1 and opponents:
                    need = min(need, V1_DEADLINES[opponents] - 1 - shift)  # a reply
                assert event.cards >= need, (event, need)
            levels[event.party] = own + len(event.words)
        elif isinstance(event, MarriageClarified):
            shift = event.trick_no - 1


@random_sessions(6)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_v1_random_sessions_keep_every_invariant(seed: int) -> None:
    """Whole random sessions without nines: every invariant of the property tests (10
    tricks, 240 card points, zero-sum entries, replay equal to the live state, hidden
    cards stay hidden, commands outside the options refused), and every announcement made
    within V1.3's deadlines."""
    play_checked(seed, V1)
    check_announcement_deadlines(play_session(random.Random(seed), rules=V1)[1])


def forcing(contract: GameType) -> Player:
    """A player that reserves and names ``contract`` whenever it may, else plays at random:
    four of them play ``contract`` in every deal (the first one's, R4.3)."""

    def player(observation: Observation, chooser: Chooser) -> DealCommand | None:
        seat = observation.viewer
        assert seat is not None
        if observation.options.declarations:
            return Declare(seat, Declaration.RESERVATION)
        if contract in observation.options.contracts:
            return NameContract(seat, contract)
        return random_action(observation, chooser)

    return player


@pytest.mark.parametrize("contract", sorted(SOLOS, key=lambda g: g.value))
def test_v1_every_solo_plays_without_nines(contract: GameType) -> None:
    """Every deal of the session a ``contract`` solo: 10 tricks, 240 card points, entries
    summing to 0 and every announcement within V1.3."""
    state, events = play_session(random.Random(contract.value), forcing(contract), V1)
    scored = [e.score for e in events if isinstance(e, DealScored)]
    assert len(scored) == 12 and state.finished
    for s in scored:
        assert s.game_type is contract and s.solo
        assert sum(s.card_points.values()) == 240 and sum(s.tricks.values()) == 10
        assert sum(s.entries) == 0
    check_announcement_deadlines(events)


def test_v1_random_sessions_play_normal_games_marriages_and_silent_solos() -> None:
    """Random play without nines meets the game types that come from the hands (the normal
    game, marriage, silent solo), with announcements, each within V1.3."""
    seen: set[GameType] = set()
    announced = 0
    for seed in range(6):
        state, events = play_session(random.Random(seed), rules=V1)
        assert state.finished and sum(state.totals) == 0
        seen |= {e.game_type for e in events if isinstance(e, GameTypeFixed)}
        announced += sum(isinstance(e, Announced) for e in events)
        for e in events:
            if isinstance(e, DealScored):
                assert sum(e.score.card_points.values()) == 240
                assert sum(e.score.tricks.values()) == 10
        check_announcement_deadlines(events)
    assert {GameType.NORMAL, GameType.MARRIAGE, GameType.SILENT_SOLO} <= seen, seen
    assert announced > 20


def test_v1_a_session_records_the_option_and_replays() -> None:
    state, _ = run(SessionState(), StartSession(N, V1))
    assert state.rules == V1
    _, more = play_session(random.Random(5), rules=V1)
    result = replay.replay(more, replay.SESSION)
    assert result.ok, result.error
    dealt = [e for e in more if isinstance(e, DealDealt)]
    assert all(e.dealing.algorithm == without_nines.ALGORITHM for e in dealt)
    assert all(verify_deal(e.dealing, e.dealer, e.hands, e.deal_no) for e in dealt)
    assert ALGORITHM == "doko-deal-v1"
