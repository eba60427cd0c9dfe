"""Announcements: `re`/`kontra` and the refusals, with their deadlines (R6).

"Cards" always means the cards still in the announcer's own hand. A party's
*level* counts what it has announced: 0 nothing, 1 re/kontra, 2 no90, 3 no60,
4 no30, 5 schwarz.
"""

from __future__ import annotations

import functools
from enum import StrEnum

import msgspec

from domain.errors import (
    AlreadyAnnounced,
    AnnouncementTooLate,
    IncludedLevelTooLate,
    LateReplyBlocksRefusals,
    WrongParty,
)
from domain.parties import Party


class Word(StrEnum):
    """What a player may say: the party's own word, or a refusal (Absage)."""

    RE = "re"
    KONTRA = "kontra"
    NO90 = "no90"
    NO60 = "no60"
    NO30 = "no30"
    SCHWARZ = "schwarz"

    @property
    def level(self) -> int:
        return _LEVEL[self]


_LEVEL = {
    Word.RE: 1,
    Word.KONTRA: 1,
    Word.NO90: 2,
    Word.NO60: 3,
    Word.NO30: 4,
    Word.SCHWARZ: 5,
}
REFUSALS: tuple[Word, ...] = (Word.NO90, Word.NO60, Word.NO30, Word.SCHWARZ)


def party_word(party: Party) -> Word:
    """The word that names a party: `re` for Re, `kontra` for Kontra."""
    return Word.RE if party is Party.RE else Word.KONTRA


def words_of(party: Party, level: int) -> tuple[Word, ...]:
    """The words a party at ``level`` has said, directly or included (R6.3)."""
    return ((party_word(party), *REFUSALS))[:level]


def deadline(level: int, shift: int = 0) -> int:
    """R6.2: the fewest cards with which a level may still be announced.

    re/kontra 11, no90 10, no60 9, no30 8, schwarz 7; every deadline is ``shift``
    cards lower in a marriage (R6.7: 0, 1 or 2 by the clarifying trick) and without nines
    (V1.3: 2 more).
    """
    return 12 - level - shift


def reply_deadline(opponent_level: int, shift: int = 0) -> int:
    """R6.6: re/kontra as a reply is allowed one card below the opponents' highest level."""
    return deadline(opponent_level, shift) - 1


class PartyAnnouncements(msgspec.Struct, frozen=True):
    """What one party has announced: its level, and whether its re/kontra came late."""

    level: int = 0
    late_reply: bool = False


class Allowance(msgspec.Struct, frozen=True):
    """A word a player may say now, and the fewest cards with which it stays allowed."""

    word: Word
    until_cards: int


def check(
    *,
    party: Party,
    word: Word,
    cards: int,
    own: PartyAnnouncements,
    opponents: PartyAnnouncements,
    shift: int = 0,
    deadline_rule: str | None = None,
) -> tuple[tuple[Word, ...], bool]:
    """Validate an announcement; return the words it adds and whether it is a late reply.

    Checked in the order of R6.10 (R6.7 and the phase are checked by the deal):
    R6.9 wrong party; R6.5 repeat; R6.2 / R6.6 the word's own deadline (as a
    reply where the opponents have announced); R6.6 a late reply blocks
    refusals; R6.3 an included level no longer timely. A refusal for a deadline names
    ``deadline_rule`` instead where a house rule shifts the deadlines (V1.3).
    """
    if word in (Word.RE, Word.KONTRA) and word is not party_word(party):
        raise WrongParty(
            f"a {party.value} player cannot say {word.value}: announce only for your own party",
            rule="R6.9",
        )
    level = word.level
    if own.level >= level:
        raise AlreadyAnnounced(
            f"{party.value} has already announced {words_of(party, own.level)[-1].value}, "
            f"which includes {word.value}",
            rule="R6.5",
        )
    normal = deadline(1, shift)
    if level == 1:
        if opponents.level == 0:
            if cards < normal:
                raise AnnouncementTooLate(
                    f"{word.value} needs at least {normal} cards in hand; you hold {cards}",
                    rule=deadline_rule or "R6.2",
                )
        else:
            reply = reply_deadline(opponents.level, shift)
            if cards < reply:
                raise AnnouncementTooLate(
                    f"{word.value} as a reply needs at least {reply} cards in hand; "
                    f"you hold {cards}",
                    rule=deadline_rule or "R6.6",
                )
        return (word,), cards < normal
    own_deadline = deadline(level, shift)
    if cards < own_deadline:
        raise AnnouncementTooLate(
            f"{word.value} needs at least {own_deadline} cards in hand; you hold {cards}",
            rule=deadline_rule or "R6.2",
        )
    replying_late = (
        own.level == 0
        and opponents.level > 0
        and reply_deadline(opponents.level, shift) <= cards < normal
    )
    if own.late_reply or replying_late:
        raise LateReplyBlocksRefusals(
            f"{party_word(party).value} after its deadline of {normal} cards is a late reply: "
            f"it allows {party.value} no refusal",
            rule="R6.6",
        )
    lowest = own.level + 1
    if cards < deadline(lowest, shift):
        missing = words_of(party, lowest)[-1]
        raise IncludedLevelTooLate(
            f"{word.value} includes {missing.value}, which needs at least "
            f"{deadline(lowest, shift)} cards in hand; you hold {cards}",
            rule=deadline_rule or "R6.3",
        )
    return words_of(party, level)[own.level :], False


def until_cards(
    *, word: Word, own: PartyAnnouncements, opponents: PartyAnnouncements, shift: int = 0
) -> int:
    """The fewest cards with which ``word`` stays allowed, all else unchanged."""
    if word.level == 1:
        normal = deadline(1, shift)
        return normal if opponents.level == 0 else reply_deadline(opponents.level, shift)
    return deadline(own.level + 1, shift)


def allowances(
    *,
    party: Party,
    cards: int,
    own: PartyAnnouncements,
    opponents: PartyAnnouncements,
    shift: int = 0,
) -> tuple[Allowance, ...]:
    """Every word `check` accepts, own word first, each with its `until_cards`; never raises.

    The party's word is allowed before it is said, down to its `until_cards` (R6.2, R6.6).
    The refusals above the party's level are allowed together, down to the deadline of its
    next level (R6.3), unless its re/kontra was a late reply (R6.6); a late reply in the
    making needs fewer cards than that next level, so it never decides.
    """
    return _allowances(party, cards, own, opponents, shift)


@functools.cache
def _allowances(
    party: Party, cards: int, own: PartyAnnouncements, opponents: PartyAnnouncements, shift: int
) -> tuple[Allowance, ...]:
    """`allowances`, remembered: its arguments take a few thousand values."""
    allowed: list[Allowance] = []
    level = own.level
    if level == 0:
        word = party_word(party)
        own_until = until_cards(word=word, own=own, opponents=opponents, shift=shift)
        if cards >= own_until:
            allowed.append(Allowance(word, own_until))
    refusals_until = deadline(level + 1, shift)
    if cards >= refusals_until and not own.late_reply:
        allowed += (Allowance(w, refusals_until) for w in REFUSALS[max(level - 1, 0) :])
    return tuple(allowed)
