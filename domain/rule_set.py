"""The rule set a table plays: RULES.md as it stands, or with house rules (V1-V6).

A table is created with its rule set (`domain.table.CreateTable`), and its first event and
its session's first event record it (`TableCreated`, `SessionStarted`), so that replay and
verification play by it. The default is RULES.md exactly: it is recorded by leaving it out,
so a default table's log is what it was before rule sets existed, and a log without one
replays by RULES.md.

Each variant is a field with a stable id (``V2.1``, ``V2.2`` ...), its rule in its module
of `domain.variants` and its text on the rules page (``service/web/HOUSE_RULES.md``, the
German in ``rules.de.json``).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import UNSET, Meta, UnsetType

from domain.decks import ALGORITHM
from domain.variants import armut, duty_solo, schweinchen, without_nines
from domain.variants.armut import ArmutRefused
from domain.variants.second_heart_ten import SecondHeartTen

TRICKS = 12
"""R3.5: the tricks of a deal, 12 cards a hand (V1.1: 10)."""


class RuleSet(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """The house rules in force: every field's default is RULES.md's rule.

    ``without_nines``: whether the deck is 40 cards, 10 a hand, the deadlines two cards
    lower (V1.1-V1.5).
    ``second_heart_ten``: which 10H wins a trick holding both (V2.1, V2.2; R3.4 by default).
    ``schweinchen``: whether both AD in one hand may be shown as the highest trumps (V3.1).
    ``bock_rounds``: whether certain deals bring a round of deals that count double (V5.1).
    ``armut``: whether a player with three trumps or fewer may offer them (V4.1).
    ``armut_refused``: what happens when all three refuse it: play on or deal again (V4.7,
    V4.8).
    ``session_deals``: the counted deals of a session (V6.1; R1.1's 12 by default).
    ``duty_solo``: whether each player must play one duty solo in the session (V6.2).
    """

    without_nines: Annotated[
        bool,
        Meta(
            description="V1.1-V1.5: 40 cards without the nines, 10 a hand and 10 tricks "
            "(still 240 card points); dealt by doko-deal-v1-40; every announcement "
            "deadline two cards lower (re/kontra with at least 9 cards)"
        ),
    ] = False
    second_heart_ten: SecondHeartTen = SecondHeartTen.FIRST
    schweinchen: Annotated[
        bool,
        Meta(
            description="V3.1-V3.3: the holder of both AD may show them on their turn in the "
            "play; shown, they are the highest trumps where AD is a trump"
        ),
    ] = False
    bock_rounds: Annotated[
        bool,
        Meta(
            description="V5.1-V5.7: after a deal of value 0, 120 to 120, a lost solo or Kontra "
            "winning against re, the next four deals count double (rounds queued)"
        ),
    ] = False
    armut: Annotated[
        bool,
        Meta(
            description="V4.1-V4.7: a player with three trumps or fewer (foxes count) may "
            "name poverty (Armut; a solo beats it, it beats a marriage); the others in turn "
            "accept or refuse; the first to accept takes the trumps, gives back as many "
            "cards and plays with the poor player as Re; only the two see the cards; if "
            "all refuse, armut_refused says what happens"
        ),
    ] = False
    armut_refused: Annotated[
        ArmutRefused,
        Meta(
            description="V4.7, V4.8 (only with armut): when all three refuse the Armut, "
            "play_on (the deal goes on without it) or redeal (the deal is void, not scored "
            "and not counted; the same dealer deals again from the same committed seed; not "
            "at a table with preset hands)"
        ),
    ] = ArmutRefused.PLAY_ON
    session_deals: Annotated[
        int,
        Meta(
            ge=duty_solo.ROUND,
            le=duty_solo.LONGEST,
            multiple_of=duty_solo.ROUND,
            description="V6.1: the counted deals of a session, a multiple of 4 from 4 to 48 "
            "(RULES.md: 12)",
        ),
    ] = duty_solo.DEALS
    duty_solo: Annotated[
        bool,
        Meta(
            description="V6.2-V6.8: each player must play one duty solo (Pflichtsolo): it "
            "beats every other contract, its soloist leads, the same dealer deals again; who "
            "still owes it once the counted deals are scored is vorgeführt in an extra deal"
        ),
    ] = False

    @property
    def variants(self) -> tuple[str, ...]:
        """The ids of the variants in force, in order (none: RULES.md exactly)."""
        ids = (
            without_nines.RULE if self.without_nines else None,
            self.second_heart_ten.rule,
            schweinchen.RULE if self.schweinchen else None,
            armut.RULE if self.armut else None,
            armut.REDEAL if self.armut_refused is ArmutRefused.REDEAL else None,
            "V5.1" if self.bock_rounds else None,  # domain.variants.bock (it reads events)
            "V6.1" if self.session_deals != duty_solo.DEALS else None,
            "V6.2" if self.duty_solo else None,
        )
        return tuple(i for i in ids if i is not None)

    @property
    def tricks(self) -> int:
        """The tricks of a deal, as many as the cards of a hand: 12 (R3.5), 10 (V1.1)."""
        return without_nines.TRICKS if self.without_nines else TRICKS

    @property
    def algorithm(self) -> str:
        """The dealing algorithm (R2.2; V1.2: the 40-card deck)."""
        return without_nines.ALGORITHM if self.without_nines else ALGORITHM

    @property
    def deadline_rule(self) -> str | None:
        """The rule a refusal for a shifted announcement deadline names (V1.3); None where
        R6's deadlines stand, its refusals naming R6.2, R6.3 or R6.6."""
        return without_nines.DEADLINES if self.without_nines else None

    @property
    def deadline_shift(self) -> int:
        """How many cards lower every announcement deadline is (V1.3: two, else none)."""
        return without_nines.DEADLINE_SHIFT if self.without_nines else 0

    @property
    def all_deals(self) -> int:
        """R1.1, V6.6: the deals a session has: its counted deals, and with duty solos one
        more for each player."""
        return duty_solo.all_deals(self.session_deals, self.duty_solo)


DEFAULT = RuleSet()
"""RULES.md exactly: no house rule."""


def recorded(rules: RuleSet) -> RuleSet | UnsetType:
    """What an event records of ``rules``: nothing for the default (the log stays as a log
    before rule sets), else the rule set."""
    return UNSET if rules == DEFAULT else rules


def in_force(rules: RuleSet | UnsetType) -> RuleSet:
    """The rule set an event records: the default where it records none."""
    return rules if isinstance(rules, RuleSet) else DEFAULT
