"""The review of a scored deal: every decision each seat made, priced by the expert.

Each decision (R4.1 the declaration, R4.2 the contract, R3.6 each card, R6 each
announcement) is replayed at the moment it was made and weighed against the alternatives
the seat had then, with the expert's own evaluation (`expert.reservations.contract_means`,
`expert.search.evaluate`, `expert.search.word_prices`), in the scoresheet points (R10) of
that seat: the mean entry of every alternative, and the *points lost*, the best
alternative's mean less the chosen one's. The evaluation sees only the seat's
`Observation` at that moment (`domain.observations.observe`), never the hands it could
not see; its chance is seeded from the review's seed and the decision's place in the deal,
so the same deal gives the same review.

An announcement is priced on rollouts from the moment it was said (every seat playing by
the rollout policy), scored with each word the seat could say then and with none
(`expert.search.word_prices`); a card the seat had no choice about is listed with nothing
lost. Only the words said are reviewed, not the turns at which a word was allowed and
none was said.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from enum import StrEnum

import msgspec

from domain.cards import Card
from domain.commands import Announce, Declaration, Declare, NameContract, PlayCard
from domain.deal import DealState, deal_started, evolve
from domain.events import (
    Announced,
    CardPlayed,
    ContractNamed,
    DealDealt,
    DealEvent,
    Declared,
)
from domain.game_types import SOLOS, GameType
from domain.observations import Observation, observe
from domain.rule_set import DEFAULT, RuleSet
from domain.seats import Seat
from expert.core import CODES, QC, count, mask_of
from expert.reservations import candidates, contract_means
from expert.search import Budget, evaluate, silent_mean, word_prices, word_rollouts

REVIEW_BUDGET = Budget(samples=8, iterations=16, words=32)
"""The review's budget: a quarter of a decision's in play (`expert.player.DEFAULT_BUDGET`),
since a review prices a deal's 50-odd decisions in one request (bench/README.md, "Review
time": its time per deal was measured at this budget)."""

SILENT = "none"
"""The alternative of saying nothing (R6)."""


class DecisionKind(StrEnum):
    """What a decision was about: R4.1, R4.2, R3.6, R6."""

    DECLARATION = "declaration"
    CONTRACT = "contract"
    CARD = "card"
    WORD = "word"


class Alternative(msgspec.Struct, frozen=True):
    """One thing the seat could have done, and its mean scoresheet entry (R10)."""

    option: str
    mean: float


class Decision(msgspec.Struct, frozen=True):
    """One decision of a seat: what it chose, what the expert would have chosen, and the
    expected points the choice lost against that (0 when it was the best)."""

    index: int
    seat: Seat
    kind: DecisionKind
    chosen: str
    best: str
    lost: float
    alternatives: tuple[Alternative, ...]


Action = Declare | NameContract | PlayCard | Announce


def action_of(event: DealEvent) -> Action | None:
    """The seat's decision a deal event records; None for what the rules derive, and for
    showing Schweinchen (V3.1: the expert always shows them, there is nothing to weigh)."""
    if isinstance(event, Declared):
        return Declare(event.seat, event.declaration)
    if isinstance(event, ContractNamed) and event.contract is not None:
        return NameContract(event.seat, event.contract)
    if isinstance(event, CardPlayed):
        return PlayCard(event.seat, event.card)
    if isinstance(event, Announced):
        return Announce(event.seat, event.word)
    return None


def _means(
    observation: Observation, action: Action, rng: random.Random, budget: Budget
) -> dict[str, float]:
    """The mean entry of every alternative the seat had for this decision."""
    if isinstance(action, Declare):
        games = _contracts(observation.hand, action.declaration)
        means = contract_means(observation, rng, budget, games)
        reserved = [m for g, m in means.items() if g is not GameType.NORMAL]
        found = {Declaration.HEALTHY.value: means[GameType.NORMAL]}
        if reserved:
            found[Declaration.RESERVATION.value] = max(reserved)
        return found
    if isinstance(action, NameContract):
        games = list(observation.options.contracts)
        means = contract_means(observation, rng, budget, games)
        return {g.value: means[g] for g in games}
    if isinstance(action, PlayCard):
        if len(observation.options.cards) == 1:
            return {action.card.value: 0.0}
        evaluation = evaluate(observation, rng, budget)
        return {CODES[c].value: m for c, m in evaluation.means.items()}
    rollouts = word_rollouts(observation, None, rng, budget)
    found = {SILENT: silent_mean(observation, rollouts)}
    for word, (_, mean) in word_prices(observation, rollouts).items():
        found[word.value] = mean
    return found


def _contracts(hand: tuple[Card, ...], declaration: Declaration) -> list[GameType]:
    """The contracts a reservation could name: those the hand carries (R4.2, R5), or, when
    the seat reserved without such a hand, every contract it may name."""
    found = candidates(hand)
    if found or declaration is Declaration.HEALTHY:
        return found
    return sorted(SOLOS) + ([GameType.MARRIAGE] if count(mask_of(list(hand)), QC) == 2 else [])


def _chosen(action: Action) -> str:
    if isinstance(action, Declare):
        return action.declaration.value
    if isinstance(action, NameContract):
        return action.contract.value
    if isinstance(action, PlayCard):
        return action.card.value
    return action.word.value


KINDS = {
    Declare: DecisionKind.DECLARATION,
    NameContract: DecisionKind.CONTRACT,
    PlayCard: DecisionKind.CARD,
    Announce: DecisionKind.WORD,
}


def review_decision(
    observation: Observation,
    action: Action,
    index: int,
    seed: str,
    budget: Budget = REVIEW_BUDGET,
) -> Decision:
    """One decision priced from the seat's observation alone (chance from seed and index)."""
    rng = random.Random(f"{seed}:{index}")
    means = {o: round(m, 3) for o, m in _means(observation, action, rng, budget).items()}
    chosen = _chosen(action)
    best = max(means, key=lambda o: (means[o], o == chosen))
    return Decision(
        index,
        action.seat,
        KINDS[type(action)],
        chosen,
        best,
        round(means[best] - means[chosen], 3),
        tuple(Alternative(o, m) for o, m in sorted(means.items(), key=_by_mean)),
    )


def _by_mean(item: tuple[str, float]) -> tuple[float, str]:
    return -item[1], item[0]


def review_deal(
    events: Sequence[DealEvent],
    seed: str,
    budget: Budget = REVIEW_BUDGET,
    rules: RuleSet = DEFAULT,
) -> tuple[Decision, ...]:
    """Every decision of the deal whose events (its `DealDealt` first) are given, in order,
    each seat seeing the deal as played by the table's ``rules`` (V1: the 40 cards)."""
    dealt = events[0]
    assert isinstance(dealt, DealDealt)
    state: DealState = deal_started(dealt, rules)
    decisions: list[Decision] = []
    for event in events[1:]:
        action = action_of(event)
        if action is not None:
            observation = observe(state, action.seat)
            decisions.append(review_decision(observation, action, len(decisions), seed, budget))
        state = evolve(state, event)
    return tuple(decisions)
