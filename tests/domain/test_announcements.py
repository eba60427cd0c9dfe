"""R6 announcements: deadlines, skipping, repeats, replies, marriage shifts, parties, precedence.

The tables drive the pure `domain.announcements.check` directly; the second half runs the
same rules through the deal aggregate (`decide` with `Announce`) on preset hands.

"cards" is always the number of cards still in the announcer's hand (R6.1). Levels: 0
nothing, 1 re/kontra, 2 no90, 3 no60, 4 no30, 5 schwarz.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from domain.announcements import (
    REFUSALS,
    Allowance,
    PartyAnnouncements,
    Word,
    check,
    deadline,
    party_word,
    reply_deadline,
    until_cards,
    words_of,
)
from domain.cards import Card
from domain.commands import Announce, Declaration, Declare, PlayCard
from domain.deal import DealState, Phase
from domain.errors import (
    AlreadyAnnounced,
    AnnouncementTooLate,
    DomainError,
    IncludedLevelTooLate,
    LateReplyBlocksRefusals,
    MarriageNotClarified,
    PhaseClosed,
    WrongParty,
)
from domain.events import Announced, MarriageClarified
from domain.game_types import GameType
from domain.observations import allowed_announcements, observe
from domain.parties import Party
from domain.seats import Seat

from .builders import deal_state, first_legal, hands, play, rejects, run, start_play

RE, KONTRA = Party.RE, Party.KONTRA
NO90, NO60, NO30, SCHWARZ = Word.NO90, Word.NO60, Word.NO30, Word.SCHWARZ
S0, S1, S2, S3 = Seat(0), Seat(1), Seat(2), Seat(3)

LEVEL_NAME = {1: "re", 2: "no90", 3: "no60", 4: "no30", 5: "schwarz"}


# --- the pure check() --------------------------------------------------------------------


class Ok(NamedTuple):
    """check() accepts: the words added (the word and every level it includes), late reply."""

    words: tuple[Word, ...]
    late: bool = False


class Err(NamedTuple):
    """check() rejects with exactly this error class and rule id."""

    error: type[DomainError]
    rule: str


def case(
    id: str,
    party: Party,
    word: Word,
    cards: int,
    expect: Ok | Err,
    *,
    own: int = 0,
    late: bool = False,
    opp: int = 0,
    shift: int = 0,
) -> object:
    own_state = PartyAnnouncements(level=own, late_reply=late)
    return pytest.param(
        party, word, cards, own_state, PartyAnnouncements(opp), shift, expect, id=id
    )


def assert_check(
    party: Party,
    word: Word,
    cards: int,
    own: PartyAnnouncements,
    opp: PartyAnnouncements,
    shift: int,
    expect: Ok | Err,
) -> None:
    def call() -> tuple[tuple[Word, ...], bool]:
        return check(party=party, word=word, cards=cards, own=own, opponents=opp, shift=shift)

    if isinstance(expect, Err):
        with pytest.raises(DomainError) as caught:
            call()
        error = caught.value
        assert type(error) is expect.error, f"expected {expect.error.__name__}, got {error!r}"
        assert error.rule == expect.rule, f"expected rule {expect.rule}, got {error!r}"
        assert error.message
    else:
        assert call() == (expect.words, expect.late)


CHECK_ARGS = "party,word,cards,own,opp,shift,expect"


def test_levels_and_words_of() -> None:
    """A party's level counts what it said; included levels come in order (R6.3)."""
    assert [w.level for w in Word] == [1, 1, 2, 3, 4, 5]
    assert words_of(RE, 0) == ()
    assert words_of(RE, 3) == (Word.RE, NO90, NO60)
    assert words_of(KONTRA, 5) == (Word.KONTRA, NO90, NO60, NO30, SCHWARZ)
    assert party_word(RE) is Word.RE and party_word(KONTRA) is Word.KONTRA


# R6.2: each word at exactly its deadline and one card late, for both parties. The level
# below is already said, so nothing is included and only the word's own deadline counts.
R6_2_DEADLINES = {1: 11, 2: 10, 3: 9, 4: 8, 5: 7}


def _r6_2_cases() -> list[object]:
    cases = []
    for party in (RE, KONTRA):
        for level, limit in R6_2_DEADLINES.items():
            word = party_word(party) if level == 1 else REFUSALS[level - 2]
            name = word.value if level == 1 else f"{party.value}-{word.value}"
            cases += [
                case(f"R6.2-{name}-at-12-cards-ok", party, word, 12, Ok((word,)), own=level - 1),
                case(
                    f"R6.2-{name}-at-{limit}-cards-ok",
                    party,
                    word,
                    limit,
                    Ok((word,)),
                    own=level - 1,
                ),
                case(
                    f"R6.2-{name}-at-{limit - 1}-cards-late",
                    party,
                    word,
                    limit - 1,
                    Err(AnnouncementTooLate, "R6.2"),
                    own=level - 1,
                ),
            ]
    return cases


@pytest.mark.parametrize(CHECK_ARGS, _r6_2_cases())
def test_r6_2_deadlines(
    party: Party,
    word: Word,
    cards: int,
    own: PartyAnnouncements,
    opp: PartyAnnouncements,
    shift: int,
    expect: Ok | Err,
) -> None:
    assert_check(party, word, cards, own, opp, shift, expect)


@pytest.mark.parametrize(
    "level,shift,expected",
    [
        pytest.param(lvl, s, lim - s, id=f"R6.2-R6.7-deadline-{LEVEL_NAME[lvl]}-shift-{s}")
        for lvl, lim in R6_2_DEADLINES.items()
        for s in (0, 1, 2)
    ],
)
def test_deadline_function(level: int, shift: int, expected: int) -> None:
    assert deadline(level, shift) == expected


@pytest.mark.parametrize(
    "level,shift,expected",
    [
        pytest.param(lvl, s, lim - 1 - s, id=f"R6.6-reply-deadline-at-{LEVEL_NAME[lvl]}-shift-{s}")
        for lvl, lim in R6_2_DEADLINES.items()
        for s in (0, 1, 2)
    ],
)
def test_reply_deadline_function(level: int, shift: int, expected: int) -> None:
    """R6.6: opponents at re: 10 cards; no90: 9; no60: 8; no30: 7; schwarz: 6 (R6.7 shifts)."""
    assert reply_deadline(level, shift) == expected


R6_3 = [
    # A refusal includes the party's own re/kontra (a refusal needs it first).
    case("R6.3-re-no90-includes-re-at-11-ok", RE, NO90, 11, Ok((Word.RE, NO90))),
    case("R6.3-re-no90-includes-re-at-10-late", RE, NO90, 10, Err(IncludedLevelTooLate, "R6.3")),
    case("R6.3-kontra-no90-includes-kontra-at-11-ok", KONTRA, NO90, 11, Ok((Word.KONTRA, NO90))),
    case(
        "R6.3-kontra-no90-includes-kontra-at-10-late",
        KONTRA,
        NO90,
        10,
        Err(IncludedLevelTooLate, "R6.3"),
    ),
    case(
        "R6.3-re-schwarz-from-nothing-at-11-ok",
        RE,
        SCHWARZ,
        11,
        Ok((Word.RE, NO90, NO60, NO30, SCHWARZ)),
    ),
    case(
        "R6.3-re-schwarz-from-nothing-at-10-late",
        RE,
        SCHWARZ,
        10,
        Err(IncludedLevelTooLate, "R6.3"),
    ),
    case(
        "R6.3-kontra-no60-from-nothing-at-11-ok",
        KONTRA,
        NO60,
        11,
        Ok((Word.KONTRA, NO90, NO60)),
    ),
    # Skipping from re: the lowest included level (no90) decides.
    case("R6.3-re-no60-from-re-at-10-ok", RE, NO60, 10, Ok((NO90, NO60)), own=1),
    case("R6.3-re-no60-from-re-at-9-late", RE, NO60, 9, Err(IncludedLevelTooLate, "R6.3"), own=1),
    case("R6.3-re-no30-from-re-at-10-ok", RE, NO30, 10, Ok((NO90, NO60, NO30)), own=1),
    case("R6.3-re-no30-from-re-at-9-late", RE, NO30, 9, Err(IncludedLevelTooLate, "R6.3"), own=1),
    case(
        "R6.3-kontra-schwarz-from-kontra-at-10-ok",
        KONTRA,
        SCHWARZ,
        10,
        Ok((NO90, NO60, NO30, SCHWARZ)),
        own=1,
    ),
    case(
        "R6.3-kontra-schwarz-from-kontra-at-9-late",
        KONTRA,
        SCHWARZ,
        9,
        Err(IncludedLevelTooLate, "R6.3"),
        own=1,
    ),
    # Skipping from no90: no60 decides.
    case("R6.3-kontra-no30-from-no90-at-9-ok", KONTRA, NO30, 9, Ok((NO60, NO30)), own=2),
    case(
        "R6.3-kontra-no30-from-no90-at-8-late",
        KONTRA,
        NO30,
        8,
        Err(IncludedLevelTooLate, "R6.3"),
        own=2,
    ),
    case("R6.3-re-schwarz-from-no90-at-9-ok", RE, SCHWARZ, 9, Ok((NO60, NO30, SCHWARZ)), own=2),
    case(
        "R6.3-re-schwarz-from-no90-at-8-late",
        RE,
        SCHWARZ,
        8,
        Err(IncludedLevelTooLate, "R6.3"),
        own=2,
    ),
    # Skipping from no60: no30 decides.
    case("R6.3-re-schwarz-from-no60-at-8-ok", RE, SCHWARZ, 8, Ok((NO30, SCHWARZ)), own=3),
    case(
        "R6.3-re-schwarz-from-no60-at-7-late",
        RE,
        SCHWARZ,
        7,
        Err(IncludedLevelTooLate, "R6.3"),
        own=3,
    ),
    # The opponents' announcement does not matter when the included re/kontra is timely itself.
    case(
        "R6.3-kontra-no90-after-re-at-11-timely-not-late",
        KONTRA,
        NO90,
        11,
        Ok((Word.KONTRA, NO90)),
        opp=1,
    ),
    case("R6.3-re-no60-after-kontra-no90-at-11", RE, NO60, 11, Ok((Word.RE, NO90, NO60)), opp=2),
    # The R6.6 reply window never makes an included re/kontra timely (audit item 8): Re is
    # at `re`, so kontra alone would still be a (late) reply only down to 10 cards.
    case(
        "R6.3-included-kontra-outside-reply-window",
        KONTRA,
        NO60,
        9,
        Err(IncludedLevelTooLate, "R6.3"),
        opp=1,
    ),
]


@pytest.mark.parametrize(CHECK_ARGS, R6_3)
def test_r6_3_skipping_levels(
    party: Party,
    word: Word,
    cards: int,
    own: PartyAnnouncements,
    opp: PartyAnnouncements,
    shift: int,
    expect: Ok | Err,
) -> None:
    assert_check(party, word, cards, own, opp, shift, expect)


R6_5 = [
    case("R6.5-re-said-directly", RE, Word.RE, 12, Err(AlreadyAnnounced, "R6.5"), own=1),
    case(
        "R6.5-kontra-said-directly", KONTRA, Word.KONTRA, 12, Err(AlreadyAnnounced, "R6.5"), own=1
    ),
    case("R6.5-re-included-by-no90", RE, Word.RE, 12, Err(AlreadyAnnounced, "R6.5"), own=2),
    case(
        "R6.5-kontra-included-by-schwarz",
        KONTRA,
        Word.KONTRA,
        12,
        Err(AlreadyAnnounced, "R6.5"),
        own=5,
    ),
    case("R6.5-no90-said-directly", RE, NO90, 12, Err(AlreadyAnnounced, "R6.5"), own=2),
    case("R6.5-no90-included-by-no60", KONTRA, NO90, 12, Err(AlreadyAnnounced, "R6.5"), own=3),
    case("R6.5-no60-included-by-no30", RE, NO60, 12, Err(AlreadyAnnounced, "R6.5"), own=4),
    case("R6.5-no30-said-directly", KONTRA, NO30, 12, Err(AlreadyAnnounced, "R6.5"), own=4),
    case("R6.5-no30-included-by-schwarz", RE, NO30, 12, Err(AlreadyAnnounced, "R6.5"), own=5),
    case("R6.5-schwarz-said-directly", RE, SCHWARZ, 12, Err(AlreadyAnnounced, "R6.5"), own=5),
    case(
        "R6.5-kontra-after-late-reply",
        KONTRA,
        Word.KONTRA,
        10,
        Err(AlreadyAnnounced, "R6.5"),
        own=1,
        late=True,
        opp=1,
    ),
    # The opponents' words are theirs: Kontra at `no90` does not stop Re's `no90`.
    case("R6.5-opponents-words-are-not-a-repeat", RE, NO90, 11, Ok((Word.RE, NO90)), opp=2),
]


@pytest.mark.parametrize(CHECK_ARGS, R6_5)
def test_r6_5_repeats(
    party: Party,
    word: Word,
    cards: int,
    own: PartyAnnouncements,
    opp: PartyAnnouncements,
    shift: int,
    expect: Ok | Err,
) -> None:
    assert_check(party, word, cards, own, opp, shift, expect)


def _r6_6_reply_cases() -> list[object]:
    cases = []
    for party in (KONTRA, RE):
        word = party_word(party)
        for level, limit in R6_2_DEADLINES.items():
            reply = limit - 1
            at = party_word(party.opponent).value if level == 1 else LEVEL_NAME[level]
            cases += [
                case(
                    f"R6.6-{word.value}-reply-to-{at}-at-{reply}-cards-ok",
                    party,
                    word,
                    reply,
                    Ok((word,), late=True),
                    opp=level,
                ),
                case(
                    f"R6.6-{word.value}-reply-to-{at}-at-{reply - 1}-cards-late",
                    party,
                    word,
                    reply - 1,
                    Err(AnnouncementTooLate, "R6.6"),
                    opp=level,
                ),
            ]
    return cases


R6_6 = [
    *_r6_6_reply_cases(),
    # A reply with the party's own deadline still met is an ordinary, timely announcement.
    case("R6.6-kontra-reply-at-11-is-timely", KONTRA, Word.KONTRA, 11, Ok((Word.KONTRA,)), opp=1),
    case("R6.6-re-reply-at-11-is-timely", RE, Word.RE, 11, Ok((Word.RE,)), opp=5),
    case(
        "R6.6-timely-reply-allows-refusals",
        KONTRA,
        NO90,
        10,
        Ok((NO90,)),
        own=1,
        opp=1,
    ),
    # A late reply blocks the party's refusals afterwards (the partner's too: it is the
    # party's state), each refusal otherwise timely.
    case(
        "R6.6-late-reply-blocks-no90-afterwards",
        KONTRA,
        NO90,
        10,
        Err(LateReplyBlocksRefusals, "R6.6"),
        own=1,
        late=True,
        opp=1,
    ),
    case(
        "R6.6-late-reply-blocks-no60-afterwards",
        RE,
        NO60,
        9,
        Err(LateReplyBlocksRefusals, "R6.6"),
        own=1,
        late=True,
        opp=2,
    ),
    case(
        "R6.6-late-reply-blocks-schwarz-afterwards",
        KONTRA,
        SCHWARZ,
        7,
        Err(LateReplyBlocksRefusals, "R6.6"),
        own=1,
        late=True,
        opp=4,
    ),
    # ... and a refusal that would include a late reply.
    case(
        "R6.6-no90-including-late-reply-to-re",
        KONTRA,
        NO90,
        10,
        Err(LateReplyBlocksRefusals, "R6.6"),
        opp=1,
    ),
    case(
        "R6.6-no60-including-late-reply-to-no90",
        KONTRA,
        NO60,
        9,
        Err(LateReplyBlocksRefusals, "R6.6"),
        opp=2,
    ),
    case(
        "R6.6-no30-including-late-reply-to-no60",
        RE,
        NO30,
        8,
        Err(LateReplyBlocksRefusals, "R6.6"),
        opp=3,
    ),
    case(
        "R6.6-schwarz-including-late-reply-to-no30",
        RE,
        SCHWARZ,
        7,
        Err(LateReplyBlocksRefusals, "R6.6"),
        opp=4,
    ),
]


@pytest.mark.parametrize(CHECK_ARGS, R6_6)
def test_r6_6_replies(
    party: Party,
    word: Word,
    cards: int,
    own: PartyAnnouncements,
    opp: PartyAnnouncements,
    shift: int,
    expect: Ok | Err,
) -> None:
    assert_check(party, word, cards, own, opp, shift, expect)


def _r6_7_cases() -> list[object]:
    cases = []
    for shift in (1, 2):
        trick = shift + 1
        for level, limit in R6_2_DEADLINES.items():
            party = RE if level % 2 else KONTRA
            word = party_word(party) if level == 1 else REFUSALS[level - 2]
            name = word.value if level == 1 else f"{party.value}-{word.value}"
            cases += [
                case(
                    f"R6.7-clarified-in-{trick}-{name}-at-{limit - shift}-cards-ok",
                    party,
                    word,
                    limit - shift,
                    Ok((word,)),
                    own=level - 1,
                    shift=shift,
                ),
                case(
                    f"R6.7-clarified-in-{trick}-{name}-at-{limit - shift - 1}-cards-late",
                    party,
                    word,
                    limit - shift - 1,
                    Err(AnnouncementTooLate, "R6.2"),
                    own=level - 1,
                    shift=shift,
                ),
            ]
            reply = limit - 1 - shift
            cases += [
                case(
                    f"R6.7-clarified-in-{trick}-reply-to-{LEVEL_NAME[level]}-at-{reply}-ok",
                    KONTRA,
                    Word.KONTRA,
                    reply,
                    Ok((Word.KONTRA,), late=True),
                    opp=level,
                    shift=shift,
                ),
                case(
                    f"R6.7-clarified-in-{trick}-reply-to-{LEVEL_NAME[level]}-at-{reply - 1}-late",
                    KONTRA,
                    Word.KONTRA,
                    reply - 1,
                    Err(AnnouncementTooLate, "R6.6"),
                    opp=level,
                    shift=shift,
                ),
            ]
        normal = 11 - shift
        cases += [
            # The late-reply threshold shifts too: a reply at the shifted re deadline is timely.
            case(
                f"R6.7-clarified-in-{trick}-reply-at-{normal}-is-timely",
                KONTRA,
                Word.KONTRA,
                normal,
                Ok((Word.KONTRA,)),
                opp=1,
                shift=shift,
            ),
            case(
                f"R6.7-clarified-in-{trick}-no90-including-kontra-at-{normal}-ok",
                KONTRA,
                NO90,
                normal,
                Ok((Word.KONTRA, NO90)),
                opp=1,
                shift=shift,
            ),
            case(
                f"R6.7-clarified-in-{trick}-no90-including-late-reply-at-{normal - 1}",
                KONTRA,
                NO90,
                normal - 1,
                Err(LateReplyBlocksRefusals, "R6.6"),
                opp=1,
                shift=shift,
            ),
            # Included levels use the shifted deadlines.
            case(
                f"R6.7-clarified-in-{trick}-no90-including-re-at-{normal}-ok",
                RE,
                NO90,
                normal,
                Ok((Word.RE, NO90)),
                shift=shift,
            ),
            case(
                f"R6.7-clarified-in-{trick}-no90-including-re-at-{normal - 1}-late",
                RE,
                NO90,
                normal - 1,
                Err(IncludedLevelTooLate, "R6.3"),
                shift=shift,
            ),
            case(
                f"R6.7-clarified-in-{trick}-no60-from-re-at-{normal - 2}-late",
                RE,
                NO60,
                normal - 2,
                Err(IncludedLevelTooLate, "R6.3"),
                own=1,
                shift=shift,
            ),
        ]
    return cases


@pytest.mark.parametrize(CHECK_ARGS, _r6_7_cases())
def test_r6_7_marriage_shifted_deadlines(
    party: Party,
    word: Word,
    cards: int,
    own: PartyAnnouncements,
    opp: PartyAnnouncements,
    shift: int,
    expect: Ok | Err,
) -> None:
    assert_check(party, word, cards, own, opp, shift, expect)


R6_9 = [
    case("R6.9-kontra-player-says-re", KONTRA, Word.RE, 12, Err(WrongParty, "R6.9")),
    case("R6.9-re-player-says-kontra", RE, Word.KONTRA, 12, Err(WrongParty, "R6.9")),
    case("R6.9-re-players-refusal-counts-for-re", RE, NO90, 12, Ok((Word.RE, NO90))),
    case(
        "R6.9-kontra-players-refusal-counts-for-kontra",
        KONTRA,
        NO30,
        12,
        Ok((Word.KONTRA, NO90, NO60, NO30)),
    ),
]


@pytest.mark.parametrize(CHECK_ARGS, R6_9)
def test_r6_9_own_party_only(
    party: Party,
    word: Word,
    cards: int,
    own: PartyAnnouncements,
    opp: PartyAnnouncements,
    shift: int,
    expect: Ok | Err,
) -> None:
    assert_check(party, word, cards, own, opp, shift, expect)


# R6.10: several rules broken at once; the comment lists every rule each case breaks.
R6_10 = [
    # R6.9 + R6.5 (Kontra already at kontra, and `re` is not its word)
    case("R6.10-R6.9-over-R6.5", KONTRA, Word.RE, 12, Err(WrongParty, "R6.9"), own=1),
    # R6.9 + R6.2
    case("R6.10-R6.9-over-R6.2", KONTRA, Word.RE, 3, Err(WrongParty, "R6.9")),
    # R6.9 + R6.5 + R6.6 reply window
    case("R6.10-R6.9-over-R6.6-reply", RE, Word.KONTRA, 2, Err(WrongParty, "R6.9"), own=1, opp=1),
    # R6.5 + R6.2
    case("R6.10-R6.5-over-R6.2", RE, NO90, 3, Err(AlreadyAnnounced, "R6.5"), own=2),
    # R6.5 + R6.6 reply window (the repeated kontra would be far too late as a reply)
    case(
        "R6.10-R6.5-over-R6.6-reply",
        KONTRA,
        Word.KONTRA,
        4,
        Err(AlreadyAnnounced, "R6.5"),
        own=1,
        opp=1,
    ),
    # R6.5 + R6.6 late reply + R6.3
    case(
        "R6.10-R6.5-over-R6.6-late-reply",
        KONTRA,
        Word.KONTRA,
        9,
        Err(AlreadyAnnounced, "R6.5"),
        own=1,
        late=True,
        opp=2,
    ),
    # R6.2 (no90 needs 10) + R6.6 late reply + R6.3 (kontra not timely)
    case(
        "R6.10-R6.2-over-R6.6-late-reply-in-word",
        KONTRA,
        NO90,
        9,
        Err(AnnouncementTooLate, "R6.2"),
        opp=1,
    ),
    # R6.2 + the party's earlier late reply
    case(
        "R6.10-R6.2-over-R6.6-late-reply-earlier",
        KONTRA,
        NO90,
        9,
        Err(AnnouncementTooLate, "R6.2"),
        own=1,
        late=True,
        opp=1,
    ),
    # R6.2 (no60 needs 9) + R6.3 (re needs 11, no90 10)
    case("R6.10-R6.2-over-R6.3", RE, NO60, 8, Err(AnnouncementTooLate, "R6.2")),
    # R6.6 reply deadline alone: the word's own deadline as a reply
    case(
        "R6.10-R6.6-reply-deadline", KONTRA, Word.KONTRA, 9, Err(AnnouncementTooLate, "R6.6"), opp=1
    ),
    # R6.6 late reply (included kontra at 10 after re) + R6.3 (kontra needs 11)
    case(
        "R6.10-R6.6-late-reply-over-R6.3-included",
        KONTRA,
        NO60,
        10,
        Err(LateReplyBlocksRefusals, "R6.6"),
        opp=1,
    ),
    # R6.6 earlier late reply + R6.3 (no90 needs 10)
    case(
        "R6.10-R6.6-late-reply-earlier-over-R6.3",
        KONTRA,
        NO60,
        9,
        Err(LateReplyBlocksRefusals, "R6.6"),
        own=1,
        late=True,
        opp=1,
    ),
    # R6.3 alone
    case("R6.10-R6.3-alone", RE, NO60, 9, Err(IncludedLevelTooLate, "R6.3"), own=1),
    # In a marriage the shifted deadlines keep their ids.
    case("R6.10-shift-2-R6.2-keeps-id", RE, Word.RE, 8, Err(AnnouncementTooLate, "R6.2"), shift=2),
    case(
        "R6.10-shift-2-R6.6-reply-keeps-id",
        KONTRA,
        Word.KONTRA,
        7,
        Err(AnnouncementTooLate, "R6.6"),
        opp=1,
        shift=2,
    ),
    case(
        "R6.10-shift-1-R6.6-late-reply-over-R6.3",
        KONTRA,
        NO60,
        9,
        Err(LateReplyBlocksRefusals, "R6.6"),
        opp=1,
        shift=1,
    ),
    case(
        "R6.10-shift-2-R6.3-keeps-id",
        RE,
        NO60,
        7,
        Err(IncludedLevelTooLate, "R6.3"),
        own=1,
        shift=2,
    ),
]


@pytest.mark.parametrize(CHECK_ARGS, R6_10)
def test_r6_10_precedence(
    party: Party,
    word: Word,
    cards: int,
    own: PartyAnnouncements,
    opp: PartyAnnouncements,
    shift: int,
    expect: Ok | Err,
) -> None:
    assert_check(party, word, cards, own, opp, shift, expect)


@pytest.mark.parametrize(
    "word,own,opp,shift,expected",
    [
        pytest.param(Word.RE, 0, 0, 0, 11, id="R6.2-until-re-11"),
        pytest.param(Word.RE, 0, 2, 0, 9, id="R6.6-until-reply-to-no90-9"),
        pytest.param(NO90, 0, 0, 0, 11, id="R6.3-until-no90-with-included-re-11"),
        pytest.param(SCHWARZ, 1, 0, 0, 10, id="R6.3-until-schwarz-from-re-10"),
        pytest.param(NO30, 3, 0, 0, 8, id="R6.2-until-no30-from-no60-8"),
        pytest.param(Word.RE, 0, 1, 2, 8, id="R6.7-until-reply-shift-2-8"),
        pytest.param(NO60, 2, 0, 1, 8, id="R6.7-until-no60-shift-1-8"),
    ],
)
def test_until_cards(word: Word, own: int, opp: int, shift: int, expected: int) -> None:
    """The fewest cards with which a word stays allowed (shown as an option)."""
    got = until_cards(
        word=word, own=PartyAnnouncements(own), opponents=PartyAnnouncements(opp), shift=shift
    )
    assert got == expected


def _verdict(
    party: Party, word: Word, cards: int, own: PartyAnnouncements, opp: int, shift: int
) -> tuple[tuple[Word, ...], bool] | DomainError:
    try:
        return check(
            party=party,
            word=word,
            cards=cards,
            own=own,
            opponents=PartyAnnouncements(opp),
            shift=shift,
        )
    except DomainError as error:
        return error


def _reachable() -> list[tuple[Party, PartyAnnouncements, int]]:
    """Every party state that can occur: a late reply is a bare re/kontra after the opponents."""
    states = []
    for party in (RE, KONTRA):
        for opp in range(6):
            states += [(party, PartyAnnouncements(own), opp) for own in range(6)]
            if opp:
                states.append((party, PartyAnnouncements(1, late_reply=True), opp))
    return states


@pytest.mark.parametrize("shift", [0, 1, 2], ids=["R6.10-all-shift-0", "shift-1", "shift-2"])
def test_check_is_consistent_everywhere(shift: int) -> None:
    """Over every reachable state, word and hand size: a rejection names one of the R6.10
    rules; what is allowed stays allowed with more cards; an allowed word adds exactly the
    levels up to it; a late reply is a bare re/kontra below the party's own deadline;
    `until_cards` is the exact boundary."""
    rules = {"R6.9", "R6.5", "R6.2", "R6.6", "R6.3"}
    for party, own, opp in _reachable():
        for word in Word:
            verdicts = [_verdict(party, word, n, own, opp, shift) for n in range(13)]
            for n, verdict in enumerate(verdicts):
                if isinstance(verdict, DomainError):
                    assert verdict.rule in rules
                    continue
                words, late = verdict
                assert words == words_of(party, word.level)[own.level :] and words[-1] is word
                assert late == (word.level == 1 and opp > 0 and n < 11 - shift)
                if n < 12:
                    assert not isinstance(verdicts[n + 1], DomainError), (party, word, n, own)
            allowed = [n for n, v in enumerate(verdicts) if not isinstance(v, DomainError)]
            if allowed:
                limit = until_cards(
                    word=word, own=own, opponents=PartyAnnouncements(opp), shift=shift
                )
                assert min(allowed) == limit, (party, word, own, opp)


# --- through the deal aggregate ----------------------------------------------------------

# A normal game, dealer WEST so NORTH (0) leads: Re = 0 and 2 (one QC each), Kontra = 1, 3.
# The 12 tricks below, in play order, are legal and won as noted (the E3 deal of
# test_scoring: Re 131, no extras).
NORMAL = hands(
    "10H QC QS QD JC JS 10C KC 10S KS AH KH",
    "10H QS QH JH 10D KD KD 10C 9C 10S 9S AH",
    "QC QH JC AD 10D 9D 9D AC KC AS KS KH",
    "QD JS JH JD JD AD AC 9C AS 9S 9H 9H",
)
NORMAL_TRICKS = (
    "QC JH 9D JD",  # 0 leads, 0 wins
    "10H KD AD QD",  # 0 wins
    "QS 10H 10D JS",  # 1 wins
    "QS JC AD JS",  # 1 leads, 1 wins
    "QH QC JH QD",  # 2 wins
    "QH JD JC 10D",  # 2 leads, 2 wins
    "AC 9C 10C 9C",  # 2 wins
    "AS 9S 10S 9S",  # 2 wins
    "KC AC KC 10C",  # 3 wins
    "AS KS 10S KS",  # 3 leads, 3 wins
    "9H AH AH KH",  # 0 wins
    "KH KD 9D 9H",  # 0 leads, 1 wins
)


def normal_game() -> DealState:
    state, _ = start_play(deal_state(NORMAL, dealer=Seat.WEST))
    assert state.parties == (RE, KONTRA, RE, KONTRA)
    return state


def next_card(state: DealState, tricks: tuple[str, ...]) -> PlayCard:
    """The designed card for the seat to play now."""
    seat = state.turn
    assert seat is not None and state.trick is not None
    codes = tricks[len(state.tricks)].split()
    return PlayCard(seat, Card(codes[len(state.trick.cards)]))


def play_until(
    state: DealState, seat: Seat, cards: int, tricks: tuple[str, ...] = NORMAL_TRICKS
) -> DealState:
    """Play the designed cards until ``seat`` has just got down to ``cards`` cards."""
    while len(state.hands[seat]) > cards:
        state, _ = run(state, next_card(state, tricks))
    assert len(state.hands[seat]) == cards
    return state


def announce(state: DealState, seat: Seat, word: Word) -> tuple[DealState, Announced]:
    state, events = run(state, Announce(seat, word))
    (event,) = events
    assert isinstance(event, Announced)
    return state, event


def test_r6_1_closed_before_the_game_type_is_fixed() -> None:
    dealt = deal_state(NORMAL, dealer=Seat.WEST)
    for seat in (S0, S1):
        rejects(dealt, Announce(seat, party_word(RE)), PhaseClosed, "R6.1")
    state, _ = run(dealt, Declare(S0, Declaration.HEALTHY))
    rejects(state, Announce(S2, Word.RE), PhaseClosed, "R6.1")
    # S1 holds a reservation: contracts are still to be named, the game type is not fixed.
    state, _ = run(
        dealt,
        Declare(S0, Declaration.HEALTHY),
        Declare(S1, Declaration.RESERVATION),
        Declare(S2, Declaration.HEALTHY),
        Declare(S3, Declaration.HEALTHY),
    )
    assert state.phase is Phase.CONTRACTS
    rejects(state, Announce(S0, Word.RE), PhaseClosed, "R6.1")
    rejects(state, Announce(S1, Word.KONTRA), PhaseClosed, "R6.1")


def test_r6_1_closed_after_scoring() -> None:
    state = normal_game()
    state, _ = play(state, *NORMAL_TRICKS)
    assert state.phase is Phase.SCORED
    for seat in (S0, S1):
        rejects(state, Announce(seat, party_word(state.parties[seat] or RE)), PhaseClosed, "R6.1")


def test_r6_1_any_moment_not_only_on_ones_turn() -> None:
    state = normal_game()
    assert state.turn is S0
    state, event = announce(state, S3, Word.KONTRA)  # S3 is last to play
    assert event == Announced(S3, KONTRA, Word.KONTRA, (Word.KONTRA,), 12, False)
    assert state.turn is S0, "an announcement does not use or change the turn"
    # Mid-trick, after playing: S0 holds 11 cards, the 12th lies in the trick.
    state, _ = play(state, "QC JH")
    assert state.turn is S2 and len(state.hands[S0]) == 11
    state, event = announce(state, S0, Word.RE)
    assert (event.seat, event.party, event.words, event.cards) == (S0, RE, (Word.RE,), 11)
    assert state.re == PartyAnnouncements(1) and state.kontra == PartyAnnouncements(1)
    assert state.announcements == (
        Announced(S3, KONTRA, Word.KONTRA, (Word.KONTRA,), 12, False),
        event,
    )


def test_r6_8_announcements_are_public_and_reveal_the_party() -> None:
    state = normal_game()
    assert observe(state, S1).parties == (None, KONTRA, None, None)
    assert observe(state, None).parties == (None, None, None, None)
    state, event = announce(state, S2, Word.RE)
    for viewer in (S0, S1, S3, None):
        seen = observe(state, viewer)
        assert seen.announcements == (event,)
        assert seen.parties[S2] is RE
    # S0, S2's partner, is not revealed by S2's announcement.
    assert observe(state, S1).parties == (None, KONTRA, RE, None)
    state, event = announce(state, S3, NO90)
    assert observe(state, S0).parties == (RE, None, RE, KONTRA)
    assert observe(state, S2).parties == (None, None, RE, KONTRA)
    assert observe(state, None).announcements[-1] == event


def _deal_deadline_cases() -> list[object]:
    cases = []
    for seat in (S0, S1):
        party = RE if seat is S0 else KONTRA
        for level, limit in R6_2_DEADLINES.items():
            word = party_word(party) if level == 1 else REFUSALS[level - 2]
            name = word.value if level == 1 else f"{party.value}-{word.value}"
            for cards, ok in ((limit, True), (limit - 1, False)):
                verdict = "ok" if ok else "late"
                cases.append(
                    pytest.param(
                        seat,
                        level,
                        word,
                        cards,
                        ok,
                        id=f"R6.2-deal-{name}-at-{cards}-cards-{verdict}",
                    )
                )
    return cases


@pytest.mark.parametrize("seat,level,word,cards,ok", _deal_deadline_cases())
def test_r6_2_deadlines_through_the_deal(
    seat: Seat, level: int, word: Word, cards: int, ok: bool
) -> None:
    state = normal_game()
    party = state.parties[seat]
    assert party is not None
    for lower in words_of(party, level - 1):  # said step by step while holding 12 cards
        state, _ = announce(state, seat, lower)
    state = play_until(state, seat, cards)
    if ok:
        state, event = announce(state, seat, word)
        assert event == Announced(seat, party, word, (word,), cards, False)
        assert state.party_announcements(party).level == level
    else:
        rejects(state, Announce(seat, word), AnnouncementTooLate, "R6.2")


def test_r6_3_skipping_through_the_deal() -> None:
    state = normal_game()
    state = play_until(state, S0, 11)
    state, event = announce(state, S0, NO60)
    assert event.words == (Word.RE, NO90, NO60) and state.re.level == 3
    # S2 is Re too: no30 from no60 at 11 cards adds only no30.
    state, event = announce(state, S2, NO30)
    assert event.words == (NO30,) and event.party is RE and state.re.level == 4
    # Kontra: no90 at 10 cards would include kontra, no longer timely (and a late reply).
    state = play_until(state, S1, 10)
    rejects(state, Announce(S1, NO90), LateReplyBlocksRefusals, "R6.6")
    state = play_until(state, S3, 9)
    rejects(state, Announce(S3, NO90), AnnouncementTooLate, "R6.2")


def test_r6_3_included_level_too_late_through_the_deal() -> None:
    state = normal_game()
    state, _ = announce(state, S0, Word.RE)
    state = play_until(state, S2, 9)
    rejects(state, Announce(S2, NO60), IncludedLevelTooLate, "R6.3")
    rejects(state, Announce(S2, NO90), AnnouncementTooLate, "R6.2")


def test_r6_5_partner_cannot_repeat_through_the_deal() -> None:
    state = normal_game()
    state, _ = announce(state, S0, NO90)
    rejects(state, Announce(S2, Word.RE), AlreadyAnnounced, "R6.5")
    rejects(state, Announce(S2, NO90), AlreadyAnnounced, "R6.5")
    state, event = announce(state, S2, NO60)
    assert event.words == (NO60,)


def test_r6_6_late_reply_through_the_deal() -> None:
    state = normal_game()
    state, _ = announce(state, S0, Word.RE)
    state = play_until(state, S1, 10)
    assert len(state.hands[S3]) == 11
    # A refusal including the late reply is rejected; the reply alone is allowed, late.
    rejects(state, Announce(S1, NO90), LateReplyBlocksRefusals, "R6.6")
    state, event = announce(state, S1, Word.KONTRA)
    assert event == Announced(S1, KONTRA, Word.KONTRA, (Word.KONTRA,), 10, True)
    assert state.kontra == PartyAnnouncements(1, late_reply=True)
    # The partner, still holding 11 cards, may not refuse either.
    rejects(state, Announce(S3, NO90), LateReplyBlocksRefusals, "R6.6")
    rejects(state, Announce(S3, SCHWARZ), LateReplyBlocksRefusals, "R6.6")
    # Re's refusals are untouched.
    state, event = announce(state, S0, NO90)
    assert event.words == (NO90,)


def test_r6_6_reply_window_through_the_deal() -> None:
    state = normal_game()
    state, _ = announce(state, S0, NO90)  # re + no90: a reply is allowed down to 9 cards
    state = play_until(state, S1, 9)
    state, event = announce(state, S1, Word.KONTRA)
    assert (event.words, event.cards, event.late_reply) == ((Word.KONTRA,), 9, True)
    state = normal_game()
    state, _ = announce(state, S0, Word.RE)  # re only: a reply needs 10 cards
    state = play_until(state, S1, 9)
    rejects(state, Announce(S1, Word.KONTRA), AnnouncementTooLate, "R6.6")
    state, _ = announce(state, S2, NO90)  # now Re is at no90: the window reopens
    state, event = announce(state, S1, Word.KONTRA)
    assert event.late_reply


def test_r6_6_timely_reply_keeps_refusals_open() -> None:
    state = normal_game()
    state, _ = announce(state, S0, Word.RE)
    state, event = announce(state, S1, Word.KONTRA)
    assert not event.late_reply
    state = play_until(state, S3, 10)
    state, event = announce(state, S3, NO90)
    assert event.words == (NO90,)


def test_r6_9_through_the_deal() -> None:
    state = normal_game()
    rejects(state, Announce(S1, Word.RE), WrongParty, "R6.9")
    rejects(state, Announce(S3, Word.RE), WrongParty, "R6.9")
    rejects(state, Announce(S0, Word.KONTRA), WrongParty, "R6.9")
    rejects(state, Announce(S2, Word.KONTRA), WrongParty, "R6.9")
    state, event = announce(state, S2, NO90)
    assert (event.party, event.words) == (RE, (Word.RE, NO90))
    assert state.re.level == 2 and state.kontra.level == 0


# A marriage: NORTH (0) holds both QC, dealer WEST so NORTH leads. The first tricks are all
# trumps; who wins them decides the clarifying trick (R4.6).
MARRIAGE = hands(
    "QC QC QD 9D 9D JC AC AC 10C 10C KC KC",
    "10H KD JH JS QS AD AS AS 10S 10S KS KS",
    "JD 10D AD JS QH JH 9C 9C 9S 9S AH AH",
    "10H QS QH QD JC JD 10D KD KH KH 9H 9H",
)
MARRIAGE_OPENINGS = {
    # clarified in trick: (the opening tricks, the partner found)
    1: (("9D 10H JD KD",), S1),
    2: (("QC KD JD KD", "9D 10H 10D JD"), S1),
    3: (("QC KD JD KD", "QC JH 10D JD", "9D JS QH 10D"), S2),
    # the declarer wins the first three tricks: a diamond solo, clarified in trick 3
    0: (("QC KD JD KD", "QC JH 10D JD", "QD JS JH JC"), None),
}


def marriage() -> DealState:
    state, _ = start_play(deal_state(MARRIAGE, dealer=Seat.WEST), {S0: GameType.MARRIAGE})
    assert state.game_type is GameType.MARRIAGE and state.declarer is S0
    return state


def test_r6_7_no_announcement_before_the_clarifying_trick() -> None:
    state = marriage()
    for seat, word in ((S0, Word.RE), (S1, Word.KONTRA), (S2, NO90), (S3, Word.RE)):
        rejects(state, Announce(seat, word), MarriageNotClarified, "R6.7")
    assert allowed_announcements(state, S0) == ()
    # The declarer wins tricks 1 and 2; trick 3 is not complete: still closed.
    tricks, _ = MARRIAGE_OPENINGS[3]
    state, _ = play(state, tricks[0], tricks[1], "9D JS QH")
    assert state.clarified_in is None
    rejects(state, Announce(S0, Word.RE), MarriageNotClarified, "R6.7")
    rejects(state, Announce(S1, Word.KONTRA), MarriageNotClarified, "R6.7")


@pytest.mark.parametrize(
    "seat,word",
    [
        pytest.param(S0, Word.KONTRA, id="R6.10-R6.7-over-R6.9-declarer-says-kontra"),
        pytest.param(S0, NO90, id="R6.10-R6.7-first-declarer-refuses"),
        pytest.param(S2, Word.KONTRA, id="R6.10-R6.7-over-R6.2-after-playing"),
    ],
)
def test_r6_10_marriage_not_clarified_comes_first(seat: Seat, word: Word) -> None:
    state = marriage()
    state, _ = play(state, "QC KD JD KD", "QC JH 10D JD", "9D")
    rejects(state, Announce(seat, word), MarriageNotClarified, "R6.7")


@pytest.mark.parametrize(
    "clarified_in",
    [
        pytest.param(1, id="R6.7-clarified-in-1"),
        pytest.param(2, id="R6.7-clarified-in-2"),
        pytest.param(3, id="R6.7-clarified-in-3"),
        pytest.param(0, id="R6.7-clarified-in-3-no-partner-solo"),
    ],
)
def test_r6_7_marriage_deadlines_through_the_deal(clarified_in: int) -> None:
    tricks, partner = MARRIAGE_OPENINGS[clarified_in]
    k = clarified_in or 3
    state, events = play(marriage(), *tricks)
    assert MarriageClarified(k, partner) in events
    assert state.clarified_in == k and state.marriage_shift == k - 1
    assert all(len(h) == 12 - k for h in state.hands)
    kontra = next(s for s in Seat if state.parties[s] is KONTRA)
    # Exactly at the shifted re/kontra deadline (12 - k cards): allowed for both parties.
    after, event = announce(state, S0, Word.RE)
    assert (event.party, event.cards, event.late_reply) == (RE, 12 - k, False)
    after, event = announce(after, kontra, Word.KONTRA)
    assert (event.cards, event.late_reply) == (12 - k, False)
    # The shift also applies to included levels: no90 with 12 - k cards includes re.
    _, event = announce(state, S0, NO90)
    assert (event.words, event.cards) == ((Word.RE, NO90), 12 - k)
    # One card later (seats that played in trick k + 1): the own word is too late, and
    # R6.2 keeps its id.
    later, played = play_until_kontra_played(state)
    for seat in played:
        assert len(later.hands[seat]) == 11 - k
        word = party_word(later.parties[seat] or RE)
        rejects(later, Announce(seat, word), AnnouncementTooLate, "R6.2")
    # The reply window shifts too: opponents at re, kontra with 11 - k cards is a late reply.
    replied, _ = announce(state, S0, Word.RE)
    replied, _ = play_until_kontra_played(replied)
    replied, event = announce(replied, played[-1], Word.KONTRA)
    assert (event.cards, event.late_reply) == (11 - k, True)
    # no90 itself is still timely with 11 - k cards (shifted), but the reply was late.
    rejects(replied, Announce(played[-1], NO90), LateReplyBlocksRefusals, "R6.6")


def play_until_kontra_played(state: DealState) -> tuple[DealState, list[Seat]]:
    """Play legal cards in the next trick until a Kontra seat has played one."""
    played: list[Seat] = []
    while not played or state.parties[played[-1]] is not KONTRA:
        command = first_legal(state)
        state, _ = run(state, command)
        played.append(command.seat)
    return state, played


def test_r6_7_marriage_turned_solo_has_kontra_of_three() -> None:
    tricks, _ = MARRIAGE_OPENINGS[0]
    state, _ = play(marriage(), *tricks)
    assert state.parties == (RE, KONTRA, KONTRA, KONTRA) and state.solo
    for seat in (S1, S2, S3):
        rejects(state, Announce(seat, Word.RE), WrongParty, "R6.9")


# --- the options shown to a seat (observations.allowed_announcements) --------------------


def test_allowed_announcements_follow_the_rules() -> None:
    state = normal_game()
    everything = (Word.RE, NO90, NO60, NO30, SCHWARZ)
    assert allowed_announcements(state, S0) == tuple(Allowance(w, 11) for w in everything)
    state, _ = announce(state, S0, Word.RE)
    assert allowed_announcements(state, S0) == (
        Allowance(NO90, 10),
        Allowance(NO60, 10),
        Allowance(NO30, 10),
        Allowance(SCHWARZ, 10),
    )
    assert allowed_announcements(state, S1)[0] == Allowance(Word.KONTRA, 10)
    state = play_until(state, S1, 10)
    # Kontra may only reply now (late), no refusal at all.
    assert allowed_announcements(state, S1) == (Allowance(Word.KONTRA, 10),)
    state = play_until(state, S1, 9)
    assert allowed_announcements(state, S1) == ()
    # Re (at re) with 9 cards: no90 is due, and every higher refusal would include it.
    assert len(state.hands[S0]) == 9
    assert allowed_announcements(state, S0) == ()
