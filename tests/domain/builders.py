"""Small builders for domain tests: compact hands, preset deals, commands run through the rules.

    hand("QC QC 10H AD")                 -> (Card.QC, Card.QC, Card.TENH, Card.AD)
    fill({Seat(1): "QC 10H", ...})       -> four 12-card hands, every code twice
    deal_state(hands, dealer=Seat.NORTH) -> the DealState right after a preset deal
    start_play(state, {Seat(2): GameType.CLUBS_SOLO})  -> reservations done, play open
    run(state, *commands)                -> (state, events) through decide + evolve
    play(state, "10H 10H QC AD", ...)    -> plays each card by the seat whose turn it is
    play_out(state)                      -> plays the first legal card until the deal is scored
    rejects(state, command, MustFollow, "R3.3") -> the DomainError, state shown unchanged

Everything goes through the public `decide`/`evolve` of `domain.deal` or
`domain.session` (chosen by the state's type), so events are exactly those the
service would store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

import msgspec
import pytest

from domain import deal, session
from domain.cards import DECK, Card
from domain.commands import Command, Declaration, Declare, NameContract, PlayCard
from domain.deal import DealState, Phase
from domain.dealing import validate_preset
from domain.errors import DomainError
from domain.events import DealDealt, Dealing, Event
from domain.game_types import GameType, order_of
from domain.rule_set import DEFAULT, RuleSet
from domain.seats import Seat
from domain.session import SessionState
from domain.tricks import legal_cards

Hands = tuple[tuple[Card, ...], ...]
State = TypeVar("State", DealState, SessionState)


def hand(text: str | Iterable[Card]) -> tuple[Card, ...]:
    """Cards from whitespace-separated codes (``"QC QC 10H ad"``); cards pass through."""
    if isinstance(text, str):
        return tuple(Card.parse(code) for code in text.split())
    return tuple(text)


def hands(*texts: str | Iterable[Card]) -> Hands:
    """Four hands, seat 0 first, each written as for `hand`."""
    assert len(texts) == 4, "a deal has four hands"
    return tuple(hand(t) for t in texts)


def fill(partial: Mapping[Seat, str | Iterable[Card]] | None = None) -> Hands:
    """Complete partial hands to a valid deal (R2.1, R2.2): 4 x 12, every code twice.

    A QC not given goes to the lowest seat without a QC (so the filler never makes
    a double-QC holder, R4.5: write both QC explicitly for that); the other cards
    not given are handed out in canonical deck order, seat 0 first, each seat
    topped up to 12.
    """
    wanted = {int(s): hand(cards) for s, cards in (partial or {}).items()}
    given = [list(wanted.get(s, ())) for s in range(4)]
    rest = list(DECK)
    for h in given:
        assert len(h) <= 12, f"a hand has at most 12 cards: {h}"
        for c in h:
            rest.remove(c)  # ValueError: the card is given three times
    while Card.QC in rest:
        rest.remove(Card.QC)
        seat = next(s for s in range(4) if Card.QC not in given[s] and len(given[s]) < 12)
        given[seat].append(Card.QC)
    for s in range(4):
        need = 12 - len(given[s])
        given[s].extend(rest[:need])
        del rest[:need]
    return validate_preset(tuple(tuple(h) for h in given))


def deal_state(
    dealt: Hands | Mapping[Seat, str | Iterable[Card]] | None = None,
    dealer: Seat = Seat.NORTH,
    deal_no: int = 1,
    rules: RuleSet = DEFAULT,
) -> DealState:
    """The deal right after preset hands are dealt (a mapping is completed with `fill`),
    played by ``rules``."""
    if dealt is None or isinstance(dealt, Mapping):
        dealt = fill(dealt)
    event = DealDealt(deal_no, dealer, validate_preset(dealt), Dealing("preset"))
    return deal.deal_started(event, rules)


def decide(state: DealState | SessionState, command: Command) -> tuple[Event, ...]:
    """`deal.decide` or `session.decide`, by the state's type."""
    if isinstance(state, SessionState):
        return session.decide(state, command)
    return deal.decide(state, command)  # type: ignore[arg-type]


def evolve(state: State, event: Event) -> State:
    """`deal.evolve` or `session.evolve`, by the state's type."""
    if isinstance(state, SessionState):
        return session.evolve(state, event)  # type: ignore[return-value]
    return deal.evolve(state, event)  # type: ignore[arg-type]


def run(state: State, *commands: Command) -> tuple[State, tuple[Event, ...]]:
    """Decide and evolve each command in turn; return the final state and all events."""
    events: list[Event] = []
    for command in commands:
        new = decide(state, command)
        for event in new:
            state = evolve(state, event)
        events.extend(new)
    return state, tuple(events)


def fold(state: State, events: Iterable[Event]) -> State:
    """Evolve without deciding."""
    for event in events:
        state = evolve(state, event)
    return state


def _deal_of(state: DealState | SessionState) -> DealState:
    if isinstance(state, SessionState):
        assert state.deal is not None
        return state.deal
    return state


def declare(state: State, *words: str | Declaration) -> tuple[State, tuple[Event, ...]]:
    """Each word (``"healthy"``/``"reservation"``) said by the seat whose turn it is (R4.1)."""
    events: list[Event] = []
    for word in words:
        seat = _deal_of(state).turn
        assert seat is not None
        state, new = run(state, Declare(seat, Declaration(word)))
        events.extend(new)
    return state, tuple(events)


def start_play(
    state: State, contracts: Mapping[Seat, GameType] | None = None
) -> tuple[State, tuple[Event, ...]]:
    """R4.1, R4.2: everyone declares in turn (`reservation` iff in ``contracts``), then the
    reserving seats name their contracts in turn; returns the state once play is open."""
    contracts = {Seat(s): c for s, c in (contracts or {}).items()}
    events: list[Event] = []
    first = _deal_of(state).first
    for seat in first.round():
        word = Declaration.RESERVATION if seat in contracts else Declaration.HEALTHY
        state, new = run(state, Declare(seat, word))
        events.extend(new)
    for seat in first.round():
        if seat in contracts:
            state, new = run(state, NameContract(seat, contracts[seat]))
            events.extend(new)
    assert _deal_of(state).phase is Phase.PLAY
    return state, tuple(events)


def play(state: State, *tricks: str | Iterable[Card]) -> tuple[State, tuple[Event, ...]]:
    """Play the cards in order, each by the seat whose turn it is (R3.6).

    Usually one string per trick: ``play(s, "10H 10H QC AD", "AC 9C KC 10C")``.
    """
    events: list[Event] = []
    for cards in tricks:
        for c in hand(cards):
            seat = _deal_of(state).turn
            assert seat is not None, f"nobody is to play {c}"
            state, new = run(state, PlayCard(seat, c))
            events.extend(new)
    return state, tuple(events)


def first_legal(state: DealState) -> PlayCard:
    """The seat to play and the first of its legal cards (R3.3), in hand order."""
    seat = state.turn
    assert seat is not None and state.trick is not None and state.game_type is not None
    legal = legal_cards(state.hands[seat], state.trick, order_of(state.game_type))
    return PlayCard(seat, legal[0])


def play_out(state: State) -> tuple[State, tuple[Event, ...]]:
    """Play the first legal card of whoever is to play until the deal is scored."""
    events: list[Event] = []
    while _deal_of(state).phase is Phase.PLAY:
        state, new = run(state, first_legal(_deal_of(state)))
        events.extend(new)
    return state, tuple(events)


def events_of(events: Iterable[Event], kind: type[Any]) -> list[Any]:
    """The events of one type, in order."""
    return [e for e in events if isinstance(e, kind)]


def rejects(
    state: DealState | SessionState,
    command: Command,
    error: type[DomainError],
    rule: str,
) -> DomainError:
    """Assert that ``decide`` rejects the command with exactly ``error`` and ``rule``.

    Also shows the state is unchanged: equal to, and encoding to the same bytes
    as, a snapshot taken before the command (states are frozen; decide emits nothing).
    """
    before = msgspec.json.encode(state)
    snapshot = msgspec.json.decode(before, type=type(state))
    with pytest.raises(DomainError) as caught:
        decide(state, command)
    got = caught.value
    assert type(got) is error, f"expected {error.__name__}, got {got!r}"
    assert got.code == error.code
    assert got.rule == rule, f"expected rule {rule}, got {got!r}"
    assert got.message
    assert msgspec.json.encode(state) == before
    assert state == snapshot
    return got
