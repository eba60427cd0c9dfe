"""Players that pick a legal action from a seat's observation: random and greedy.

Chance comes from outside: the caller passes a `Chooser` (``random.Random(seed)``
fits), so the domain itself never draws random numbers. Tests, bots and
benchmarks use it.
"""

from __future__ import annotations

from typing import Protocol

import msgspec
from msgspec import UNSET

from domain.cards import CARD_POINTS, Card, Rank
from domain.commands import (
    Announce,
    AnswerPoverty,
    DealCommand,
    Declaration,
    Declare,
    NameContract,
    PlayCard,
    ReturnPoverty,
    ShowSchweinchen,
)
from domain.deal import Phase
from domain.game_types import CardOrder, GameType, order_of
from domain.observations import Observation
from domain.rule_set import TRICKS, in_force
from domain.tricks import winning_index
from domain.variants.schweinchen import deal_order
from domain.variants.second_heart_ten import second_heart_ten_wins


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
    contract, or plays a random legal card (showing Schweinchen first, V3.1, half the
    time), accepts an Armut half the time and gives back random cards (V4.3, V4.4); at
    any moment of play it sometimes makes a random allowed announcement.
    """
    seat = observation.viewer
    assert seat is not None
    options = observation.options
    if observation.phase is Phase.RESERVATIONS and options.declarations:
        married = observation.hand.count(Card.QC) == 2
        reserve = chooser.random() < (MARRIAGE_RATE if married else RESERVATION_RATE)
        return Declare(seat, declaration(observation, reserve))
    if GameType.MARRIAGE in options.contracts and chooser.random() < MARRIAGE_RATE:
        return NameContract(seat, GameType.MARRIAGE)
    if options.contracts:
        return NameContract(seat, options.contracts[chooser.randrange(len(options.contracts))])
    if options.announcements and chooser.random() < ANNOUNCE_RATE:
        allowance = options.announcements[chooser.randrange(len(options.announcements))]
        return Announce(seat, allowance.word)
    if options.schweinchen is True and chooser.random() < MARRIAGE_RATE:
        return ShowSchweinchen(seat)
    if options.cards:
        return PlayCard(seat, options.cards[chooser.randrange(len(options.cards))])
    if options.answer_poverty is True:
        return AnswerPoverty(seat, chooser.random() < MARRIAGE_RATE)
    if isinstance(options.return_cards, int):
        rest = list(observation.hand)
        cards = tuple(rest.pop(chooser.randrange(len(rest))) for _ in range(options.return_cards))
        return ReturnPoverty(seat, cards)
    return None


def declaration(observation: Observation, reserve: bool) -> Declaration:
    """R4.1: `reservation` if the player wants one or it is the only word allowed (the seat
    vorgeführt, V6.7), else `healthy`."""
    allowed = observation.options.declarations
    return Declaration.RESERVATION if reserve or len(allowed) == 1 else Declaration.HEALTHY


def strongest(hand: tuple[Card, ...], contracts: tuple[GameType, ...]) -> GameType:
    """The contract in which ``hand`` holds the most trumps, the first of equals: the greedy
    player's choice, also of its solo when vorgeführt (V6.7)."""
    return max(contracts, key=lambda g: sum(order_of(g).is_trump(c) for c in hand))


def observed_order(observation: Observation) -> CardOrder:
    """The card order of the deal as the seat sees it: its game type's (R5.6), the AD
    highest once Schweinchen are shown (V3.2)."""
    game_type = observation.game_type or GameType.NORMAL
    return deal_order(game_type, observation.schweinchen is not UNSET)


STRONG_TRUMPS = 8
"""The greedy player announces its party's word holding at least this many trumps of 12
cards (two thirds of a hand: without nines, V1.1, 7 of 10)."""


def greedy_action(observation: Observation, chooser: Chooser) -> DealCommand | None:
    """A simple heuristic player: never reserves unless vorgeführt (V6.7: then it names the
    solo with the most trumps, `strongest`); announces with strong hands; shows Schweinchen
    when it may (V3.1); accepts an Armut holding many trumps and gives back its least useful
    cards (V4.3, V4.4: `poverty_return`); in play wins tricks holding many points as cheaply
    as it can, gives points to a partner who is winning, and otherwise follows with its
    cheapest card.

    ``chooser`` only breaks ties, so the player is deterministic for a given one.
    """
    seat = observation.viewer
    assert seat is not None
    options = observation.options
    if options.declarations:
        return Declare(seat, declaration(observation, False))
    if options.contracts:
        return NameContract(seat, strongest(observation.hand, options.contracts))
    if options.schweinchen is True:
        return ShowSchweinchen(seat)
    order = observed_order(observation)
    if options.answer_poverty is True:
        return AnswerPoverty(seat, sum(map(order.is_trump, observation.hand)) >= STRONG_TRUMPS)
    if isinstance(options.return_cards, int):
        return ReturnPoverty(seat, poverty_return(observation.hand, options.return_cards, order))
    own = [a for a in options.announcements if a.word.level == 1]
    strong = -(-STRONG_TRUMPS * in_force(observation.rules).tricks // TRICKS)
    if own and sum(order.is_trump(c) for c in observation.hand) >= strong:
        return Announce(seat, own[0].word)
    if not options.cards:
        return None
    return PlayCard(seat, _greedy_card(observation, options.cards, order))


def poverty_return(hand: tuple[Card, ...], count: int, order: CardOrder) -> tuple[Card, ...]:
    """V4.4: the ``count`` cards an Armut's partner gives back: its plain cards before its
    trumps, the fewest card points first, the weakest first among equals."""
    ranked = sorted(hand, key=lambda c: (order.is_trump(c), CARD_POINTS[c], order.strength[c]))
    return tuple(ranked[:count])


def _greedy_card(observation: Observation, legal: tuple[Card, ...], order: CardOrder) -> Card:
    """The card the greedy player picks among the legal ones."""
    trick = observation.trick
    cheapest = min(legal, key=lambda c: (CARD_POINTS[c], order.is_trump(c), order.strength[c]))
    if not trick:
        aces = [c for c in legal if c.rank is Rank.ACE and not order.is_trump(c)]
        return aces[0] if aces else cheapest
    leader = observation.trick_leader
    assert leader is not None
    rules = in_force(observation.rules)
    later_ten = second_heart_ten_wins(
        rules.second_heart_ten, order, len(observation.tricks) + 1, rules.tricks
    )
    winner = leader.after(winning_index(trick, order, later_ten))
    seat = observation.viewer
    assert seat is not None
    if (
        observation.parties[winner] is not None
        and observation.parties[winner] is observation.parties[seat]
    ):
        return max(legal, key=lambda c: (CARD_POINTS[c], -order.strength[c]))
    winning = [c for c in legal if winning_index((*trick, c), order, later_ten) == len(trick)]
    if winning and sum(CARD_POINTS[c] for c in trick) >= 10:
        return min(winning, key=lambda c: (order.is_trump(c), order.strength[c]))
    return cheapest


class FirstChoice:
    """A `Chooser` without chance: every draw is the first option (and ``random()`` is 0)."""

    def random(self) -> float:
        return 0.0

    def randrange(self, stop: int, /) -> int:
        return 0


def stand_in_action(
    observation: Observation,
) -> Declare | NameContract | PlayCard | AnswerPoverty | ReturnPoverty | None:
    """T3.2: what the stand-in does for a seat whose turn timed out: the greedy player's
    choice among the turn's own actions (it declares `healthy`, or `reservation` when
    vorgeführt, V6.7; names the allowed contract with the most trumps, answers an Armut and
    gives back cards as the greedy player does, V4.3, V4.4, or plays the greedy card), never
    an announcement nor Schweinchen; ties go to
    the first option, so the choice is a function of the observation alone and replays
    exactly.

    None when the seat has no turn action now.
    """
    quiet = msgspec.structs.replace(
        observation,
        options=msgspec.structs.replace(observation.options, announcements=(), schweinchen=UNSET),
    )
    action = greedy_action(quiet, FirstChoice())
    assert not isinstance(action, Announce | ShowSchweinchen)
    return action
