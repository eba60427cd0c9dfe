"""V4 Armut (poverty): a player with three trumps or fewer hands them to a partner.

- V4.1 Option armut true: a player holding three trumps or fewer (the normal game's
  trumps, R3.1; the foxes, AD, count as trumps like every other) may say `reservation`
  (R4.1) and name the contract `poverty` (Armut). With four trumps or more they may not.
  (FreeDoko: "poverty" with at most 3 trumps, "poverty fox do not count" off.)
- V4.2 Precedence: any solo beats Armut, Armut beats a marriage; of two Armut the one
  named by the earlier player from the dealer's left stands (R4.3). (FreeDoko's order.)
- V4.3 The offer: the poor player's trumps, all of them and nothing else (0-3 cards), are
  offered to the other three in turn from the poor player's left; each accepts or
  refuses. The first who accepts takes them into their hand; those after them are not
  asked. (FreeDoko shifts three cards, the trumps filled up with plain cards of the
  poor player's choice; here only the trumps go.)
- V4.4 Giving back: the partner gives back to the poor player exactly as many cards as
  they took, any cards of their hand (trumps too, also the ones just taken). Another
  number of cards, a card twice more often than held, or a card not held is refused.
  Every hand then holds 12 cards again.
- V4.5 The game: the poor player and the partner are Re, the other two Kontra, and
  everyone knows it. It is a normal game in all else: the normal card order, the
  dealer's left leads (R3.5), announcements with their deadlines (R6), and the score
  with every extra of a normal game (R7-R10, R9 included: against the old ladies when
  Kontra wins, Doppelkopf, fox, Karlchen). Not a solo.
- V4.6 Hidden: the cards exchanged are seen only by the poor player and the partner.
  Everyone else (the other two, spectators) sees who offered, who refused and who
  accepted, how many cards went each way, and how many trumps came back (as FreeDoko
  tells the table). Once the deal is scored its record shows everything.
- V4.7 Nobody accepts (option armut_refused "play_on", the default): the offer lapses and
  the deal goes on as if the poor player had not named it: the other contracts stand (a
  marriage), else a normal game or a silent solo (R4.3-R4.5); the poor player keeps their
  cards. A second Armut named in the same deal lapses with it.
- V4.8 Option armut_refused "redeal" (FreeDoko's "poverty: redeal when nobody accepts"):
  when the third refuses, the deal is void and the same dealer deals again. The void deal
  is not scored and not counted: the session's deal number, the dealer, the Bock deals
  still to come (V5: no Bock trigger) and who owes a duty solo (V6: not a chance, as no
  solo was played; a vorgeführt player names a solo, which beats an Armut, so that deal
  never lapses) are as before it. The new hands come from the same committed seed: the
  r-th redeal of deal k is shuffled from SHA-256(server seed || entropy || k || r), k and
  r as 4-byte big-endian (`domain.dealing.deal_seed`), so the audit recomputes every hand
  dealt once the seed is revealed; the void hands are thus public when the deal of that
  number is scored, as the record shows them, and secret before like any hand. Each
  redeal is another Armut refused by all three: there is no cap, the seed decides. Only
  with armut, and not at a table dealing preset hands (one preset deal per deal
  number): both are refused (`invalid_table_option`). (The DDV tournament rules have no
  Armut; FreeDoko deals again, here playing on stays the default, V4.7.)
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from domain.cards import Card
from domain.errors import InvalidTableOption
from domain.game_types import GameType, order_of
from domain.seats import Seat

RULE = "V4.1"
"""The option's id, as `domain.rule_set.RuleSet.variants` lists it."""

REDEAL = "V4.8"
"""The id of the redeal when nobody accepts, as `domain.rule_set.RuleSet.variants` lists it."""

MOST_TRUMPS = 3
"""V4.1: the most trumps a poor hand holds."""

_NORMAL = order_of(GameType.NORMAL)


class ArmutRefused(StrEnum):
    """V4.7, V4.8: what happens when all three refuse the Armut: ``play_on`` or ``redeal``."""

    PLAY_ON = "play_on"
    REDEAL = "redeal"


def check_refused(armut: bool, refused: ArmutRefused, preset: bool) -> None:
    """V4.8: the redeal only with armut, and not at a table dealing preset hands."""
    if refused is ArmutRefused.PLAY_ON:
        return
    if not armut:
        raise InvalidTableOption("a redeal when the Armut is refused needs armut", rule=REDEAL)
    if preset:
        raise InvalidTableOption(
            "a table dealing preset hands cannot deal again: play on when the Armut is refused",
            rule=REDEAL,
        )


def trumps_of(hand: tuple[Card, ...]) -> tuple[Card, ...]:
    """V4.1, V4.3: the hand's trumps of the normal game (foxes included): what Armut offers."""
    return tuple(c for c in hand if _NORMAL.is_trump(c))


def poor(hand: tuple[Card, ...]) -> bool:
    """V4.1: whether the hand may offer Armut: three trumps or fewer."""
    return len(trumps_of(hand)) <= MOST_TRUMPS


def asked(poor_seat: Seat) -> tuple[Seat, Seat, Seat]:
    """V4.3: the seats the offer goes to, in turn from the poor player's left."""
    return (poor_seat.after(1), poor_seat.after(2), poor_seat.after(3))


def holds(hand: tuple[Card, ...], cards: tuple[Card, ...]) -> bool:
    """V4.4: whether ``hand`` holds every card of ``cards`` as often as it is named."""
    return all(hand.count(c) >= cards.count(c) for c in set(cards))


class Poverty(msgspec.Struct, frozen=True):
    """V4.3-V4.7: an Armut under way or played: the ``poor`` seat, the ``given`` trumps,
    the seats that ``refused`` in turn, the ``partner`` who accepted and the cards
    ``returned`` (None until given back)."""

    poor: Seat
    given: tuple[Card, ...]
    refused: tuple[Seat, ...] = ()
    partner: Seat | None = None
    returned: tuple[Card, ...] | None = None

    @property
    def to_answer(self) -> Seat | None:
        """V4.3: the seat to accept or refuse now; None once one accepted or all refused."""
        if self.partner is not None or self.lapsed:
            return None
        return asked(self.poor)[len(self.refused)]

    @property
    def lapsed(self) -> bool:
        """V4.7, V4.8: all three refused."""
        return len(self.refused) == len(asked(self.poor))

    def sees_cards(self, viewer: Seat | None) -> bool:
        """V4.6: whether ``viewer`` may see the cards exchanged (the poor player, the partner)."""
        return viewer is not None and viewer in (self.poor, self.partner)


class PovertyView(msgspec.Struct, frozen=True, omit_defaults=True):
    """V4.6: an Armut as one viewer may know it: ``poor``, who ``refused``, the ``partner``,
    how many cards were ``given``, how many came back and how many of them are
    ``returned_trumps``; the cards themselves (``given_cards``, ``returned_cards``) only to
    the poor player and the partner, or to everyone once the deal is scored."""

    poor: Seat
    given: int
    refused: tuple[Seat, ...] = ()
    partner: Seat | None = None
    returned: int | None = None
    returned_trumps: int | None = None
    given_cards: tuple[Card, ...] | None = None
    returned_cards: tuple[Card, ...] | None = None


def poverty_view(poverty: Poverty, viewer: Seat | None, scored: bool) -> PovertyView:
    """V4.6: ``poverty`` as ``viewer`` may see it (everything once ``scored``)."""
    back = poverty.returned
    sees = scored or poverty.sees_cards(viewer)
    return PovertyView(
        poor=poverty.poor,
        given=len(poverty.given),
        refused=poverty.refused,
        partner=poverty.partner,
        returned=None if back is None else len(back),
        returned_trumps=None if back is None else len(trumps_of(back)),
        given_cards=poverty.given if sees else None,
        returned_cards=back if sees else None,
    )
