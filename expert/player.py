"""The expert player: decides from the seat's `Observation` alone.

Reservations by playing the hand's contracts out (`expert.reservations`), cards and
announcements by determinized search (`expert.search`). Chance comes in through the
chooser only (it seeds the search's generator), and the budget is a count, so the same
observation, chooser state and budget give the same decision.
"""

from __future__ import annotations

import random

from domain.commands import (
    Announce,
    DealCommand,
    Declaration,
    Declare,
    NameContract,
    PlayCard,
    ShowSchweinchen,
)
from domain.game_types import GameType
from domain.observations import Observation
from domain.players import Chooser, greedy_action
from domain.rule_set import in_force
from domain.variants.armut import poor
from expert.core import CODES
from expert.duty_solo import bar
from expert.reservations import best_contract, contract_means, duty_contract, forced_solos
from expert.search import Budget, announcement, evaluate, word_rollouts

DEFAULT_BUDGET = Budget()


def acts_now(observation: Observation) -> bool:
    """Whether the expert has something to decide now: only on its own turn (to declare,
    name a contract, answer an Armut, give back cards or play; it announces before its
    card)."""
    options = observation.options
    return bool(
        options.declarations
        or options.contracts
        or options.cards
        or options.answer_poverty is True
        or isinstance(options.return_cards, int)
    )


def decide(
    observation: Observation, seed: str, budget: Budget = DEFAULT_BUDGET
) -> DealCommand | None:
    """`expert_action` with chance from ``random.Random(seed)``: what a process pool runs."""
    return expert_action(observation, random.Random(seed), budget)


def expert_action(
    observation: Observation,
    chooser: Chooser,
    budget: Budget = DEFAULT_BUDGET,
    plan_duty: bool = True,
) -> DealCommand | None:
    """The expert's action for the viewing seat, or None when it has nothing to do now.

    It announces only on its own turn, before its card (R6.2's deadlines count its own
    cards, so a turn is always early enough when the word is allowed at all). It shows
    Schweinchen at its first turn in the play (V3.1): the shown AD are never beaten, where
    unshown a higher trump may catch them as foxes (R9.3), and its search ranks them so.
    With three trumps or fewer and no solo worth playing it offers an Armut (V4.1); asked,
    it answers and gives back cards as the greedy player does (V4.3, V4.4). Owing its duty
    solo (V6.2) it declares a solo by the bar of `expert.duty_solo` (``plan_duty`` false:
    as if it owed none, until it is vorgeführt, V6.7).
    """
    seat = observation.viewer
    assert seat is not None
    options = observation.options
    owing = bar(observation) if plan_duty else None  # V6.2: the duty solo's bar, if owed
    if options.declarations:
        if len(options.declarations) == 1:  # vorgeführt (V6.7): its solo is chosen next
            return Declare(seat, options.declarations[0])
        rng = random.Random(chooser.randrange(1 << 30))
        means = contract_means(observation, rng, budget)
        named = best_contract(means) if owing is None else duty_contract(means, owing)
        offer = in_force(observation.rules).armut and poor(observation.hand)
        reserve = named is not None or offer
        return Declare(seat, Declaration.RESERVATION if reserve else Declaration.HEALTHY)
    if options.contracts:
        rng = random.Random(chooser.randrange(1 << 30))
        means = contract_means(observation, rng, budget, forced_solos(observation))
        weighed = [g for g in options.contracts if g in means]  # those it reserved for
        if owing is not None and (named := duty_contract(means, owing)) in options.contracts:
            return NameContract(seat, named)
        if best_contract(means) is None and GameType.POVERTY in options.contracts:
            return NameContract(seat, GameType.POVERTY)
        return NameContract(seat, max(weighed or options.contracts, key=lambda g: means.get(g, 0)))
    if not acts_now(observation):
        return None
    if options.answer_poverty is True or isinstance(options.return_cards, int):
        return greedy_action(observation, chooser)
    if options.schweinchen is True:
        return ShowSchweinchen(seat)
    if len(options.cards) == 1 and not options.announcements:
        return PlayCard(seat, options.cards[0])
    rng = random.Random(chooser.randrange(1 << 30))
    best = evaluate(observation, rng, budget).best
    if options.announcements:
        word = announcement(observation, word_rollouts(observation, best, rng, budget))
        if word is not None:
            return Announce(seat, word)
    return PlayCard(seat, CODES[best])
