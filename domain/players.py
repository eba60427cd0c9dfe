"""A seeded random legal player: picks a legal action from a seat's observation.

Chance comes from outside: the caller passes a `Chooser` (``random.Random(seed)``
fits), so the domain itself never draws random numbers. Tests, bots and
benchmarks use it.
"""

from __future__ import annotations

from typing import Protocol

from domain.cards import Card
from domain.commands import Announce, DealCommand, Declaration, Declare, NameContract, PlayCard
from domain.deal import Phase
from domain.game_types import GameType
from domain.observations import Observation


class Chooser(Protocol):
    """A source of chance, such as ``random.Random``."""

    def random(self) -> float: ...

    def randrange(self, stop: int, /) -> int: ...


RESERVATION_RATE = 0.15
MARRIAGE_RATE = 0.5
ANNOUNCE_RATE = 0.06


def random_action(observation: Observation, chooser: Chooser) -> DealCommand | None:
    """A legal action for the viewing seat, or None when it has nothing to do now.

    On its turn it declares (sometimes `reservation`, often with both QC), names a random allowed
    contract, or plays a random legal card; at any moment of play it sometimes
    makes a random allowed announcement.
    """
    seat = observation.viewer
    assert seat is not None
    options = observation.options
    if observation.phase is Phase.RESERVATIONS and options.declarations:
        married = observation.hand.count(Card.QC) == 2
        reserve = chooser.random() < (MARRIAGE_RATE if married else RESERVATION_RATE)
        return Declare(seat, Declaration.RESERVATION if reserve else Declaration.HEALTHY)
    if GameType.MARRIAGE in options.contracts and chooser.random() < MARRIAGE_RATE:
        return NameContract(seat, GameType.MARRIAGE)
    if options.contracts:
        return NameContract(seat, options.contracts[chooser.randrange(len(options.contracts))])
    if options.announcements and chooser.random() < ANNOUNCE_RATE:
        allowance = options.announcements[chooser.randrange(len(options.announcements))]
        return Announce(seat, allowance.word)
    if options.cards:
        return PlayCard(seat, options.cards[chooser.randrange(len(options.cards))])
    return None
