"""The session aggregate: 12 deals, the dealer moving left, running totals (R1); with
house rules another length and the duty solos (V6, `domain.variants.duty_solo`).

One table's event stream holds its session events and the events of every deal;
`decide` and `evolve` here route deal commands and events to `domain.deal`.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET

from domain import deal
from domain.cards import Card
from domain.commands import Command, DealPreset, DealSeeded, StartSession
from domain.dealing import deal_from_seed, deal_seed, seeded_dealing, validate_preset
from domain.errors import InvalidTableOption, PhaseClosed, SessionOver
from domain.events import (
    Announced,
    CardPlayed,
    ContractNamed,
    DealDealt,
    Dealing,
    DealScored,
    Declared,
    Event,
    GameTypeFixed,
    MarriageClarified,
    PovertyAnswered,
    PovertyReturned,
    SchweinchenShown,
    SessionFinished,
    SessionStarted,
    TrickWon,
)
from domain.game_types import GameType
from domain.rule_set import DEFAULT, RuleSet, in_force, recorded
from domain.seats import SEATS, Seat
from domain.variants import duty_solo
from domain.variants.armut import check_refused
from domain.variants.bock import marked, pending_after
from domain.variants.duty_solo import DEALS, Duty, check_session_deals

IN_PLAY = (
    CardPlayed,
    TrickWon,
    Announced,
    Declared,
    ContractNamed,
    GameTypeFixed,
    MarriageClarified,
    SchweinchenShown,
    PovertyAnswered,
    PovertyReturned,
)
"""Deal events that change only the deal in progress (`evolve`'s fast path)."""


class SheetGame(msgspec.Struct, frozen=True):
    """What the scoresheet marks of a scored deal (R10, public once scored: R4.3): its game
    type, whether it was a solo, the seats of the Re party (the soloist alone in a
    solo), whether it was a Bock deal (V5.6) and whether a duty solo (V6.8)."""

    game_type: GameType
    solo: bool
    re_seats: tuple[Seat, ...]
    bock: bool = False
    duty_solo: bool = False


class SessionState(msgspec.Struct, frozen=True):
    """A table's session: who dealt first, the deal in progress, the scoresheet, by deal
    what it marks of the game (``games``), the ``rules`` its deals are played by
    (`domain.rule_set`), the Bock deals still to come (``bock_pending``, V5.1, V5.7), the
    scored deals that count toward its ``deals`` (``counted``: all but the duty solos, V6.6)
    and the seats that still owe their duty solo (``owed``, V6.2)."""

    first_dealer: Seat | None = None
    deals: int = DEALS
    deal: deal.DealState | None = None
    sheet: tuple[tuple[int, ...], ...] = ()
    totals: tuple[int, ...] = (0, 0, 0, 0)
    winners: tuple[Seat, ...] | None = None
    games: tuple[SheetGame, ...] = ()
    rules: RuleSet = DEFAULT
    bock_pending: int = 0
    counted: int = 0
    owed: tuple[Seat, ...] = ()

    @property
    def started(self) -> bool:
        return self.first_dealer is not None

    @property
    def finished(self) -> bool:
        return self.winners is not None

    @property
    def over(self) -> bool:
        """R1.1, V6.8: every deal of the session is scored."""
        return duty_solo.over(self.counted, self.deals, self.owed)

    @property
    def next_dealer(self) -> Seat:
        """R1.2: after each deal the dealer moves one seat to the left; after a duty solo
        the same dealer deals again (V6.6)."""
        assert self.first_dealer is not None
        return self.first_dealer.after(self.counted)


def session_winners(totals: tuple[int, ...]) -> tuple[Seat, ...]:
    """R1.3: the highest individual total wins; equal totals share the win."""
    best = max(totals)
    return tuple(s for s in SEATS if totals[s] == best)


def check_deals(
    rules: RuleSet, presets: tuple[tuple[tuple[Card, ...], ...], ...], seeds: int
) -> None:
    """What a table is given to deal its session from: preset hands that are decks of its
    rule set's dealing (R2.2; V1.2 without nines), a session length of 4-48 counted deals
    (V6.1), the redeal of a refused Armut only with armut and seeds (V4.8), and a seed or
    a preset deal for every deal of the session (R1.1; V6.6: N + 4 with duty solos)."""
    for hands in presets:
        validate_preset(hands, rules.algorithm)
    check_session_deals(rules.session_deals)
    check_refused(rules.armut, rules.armut_refused, bool(presets))
    given = len(presets) or seeds
    if given != rules.all_deals:
        raise InvalidTableOption(
            f"the session has {rules.all_deals} deals: give a seed or preset deal for each, "
            f"not {given}",
            rule="R1.1" if rules.all_deals == DEALS else "V6.1",
        )


def decide(state: SessionState, command: Command) -> tuple[Event, ...]:
    """Validate a command against the session and its current deal."""
    if isinstance(command, StartSession):
        if state.started:
            raise PhaseClosed("the session has started already", rule="R1.2")
        rules = command.rules
        return (SessionStarted(command.first_dealer, rules.session_deals, recorded(rules)),)
    if not state.started:
        raise PhaseClosed("the session has not started: four players must sit", rule="R1.1")
    if isinstance(command, DealSeeded | DealPreset):
        return (_deal(state, command),)
    if state.deal is None:
        raise PhaseClosed("no deal has been dealt yet", rule="R2.2")
    events: tuple[Event, ...] = deal.decide(state.deal, command)
    last = events[-1]
    if isinstance(last, DealScored):
        after = evolve(state, last)
        if after.over:
            events = (*events, SessionFinished(after.totals, session_winners(after.totals)))
    return events


def _deal(state: SessionState, command: DealSeeded | DealPreset) -> DealDealt:
    """R2.2: deal the next deal, once the previous one is scored; V4.8: deal the same deal
    again, its next redeal, once an Armut lapsed; V6.7: name the seat vorgeführt in it, if
    any."""
    if state.finished or state.over:
        raise SessionOver(f"all {len(state.sheet)} deals of the session are played", rule="R1.1")
    current = state.deal
    redeal = 0
    if current is not None and current.score is None:
        if not current.void:
            raise PhaseClosed("the current deal is not finished", rule="R2.2")
        redeal = current.dealing.redeals + 1
    dealer = state.next_dealer
    deal_no = len(state.sheet) + 1
    algorithm = state.rules.algorithm  # R2.2; V1.2 without nines
    forced = duty_solo.forced_seat(state.counted, state.deals, state.owed, dealer.left())
    vorgefuehrt = UNSET if forced is None else forced
    if isinstance(command, DealSeeded):
        seed = deal_seed(command.seed, command.entropy, deal_no, redeal)
        hands = deal_from_seed(seed, dealer, algorithm)
        dealing = seeded_dealing(command.seed, command.entropy, algorithm, redeal)
        return DealDealt(deal_no, dealer, hands, dealing, vorgefuehrt)
    hands = validate_preset(command.hands, algorithm)
    return DealDealt(deal_no, dealer, hands, Dealing("preset", redeal=redeal or UNSET), vorgefuehrt)


def _add(totals: tuple[int, ...], entries: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(t + e for t, e in zip(totals, entries, strict=True))


def evolve(state: SessionState, event: Event) -> SessionState:
    """Apply one event to the session. Never validates."""
    replace = msgspec.structs.replace
    if isinstance(event, IN_PLAY):  # the common case first: most events are plays
        assert state.deal is not None
        return replace(state, deal=deal.evolve(state.deal, event))
    if isinstance(event, SessionStarted):
        rules = in_force(event.rules)
        return replace(
            state,
            first_dealer=event.first_dealer,
            deals=event.deals,
            rules=rules,
            owed=duty_solo.owing_at_start(rules.duty_solo),
        )
    if isinstance(event, SessionFinished):
        return replace(state, winners=event.winners)
    if isinstance(event, DealDealt):
        bock = state.bock_pending > 0
        forced = None if event.forced is UNSET else event.forced
        duty = Duty(state.owed, forced)
        return replace(state, deal=deal.deal_started(event, state.rules, bock, duty))
    assert state.deal is not None
    score = event.score
    entries = score.entries
    duty_played = score.duty_solo is True
    game = SheetGame(score.game_type, score.solo, score.re_seats, marked(score), duty_played)
    return replace(
        state,
        deal=deal.evolve(state.deal, event),
        sheet=(*state.sheet, entries),
        games=(*state.games, game),
        totals=_add(state.totals, entries),
        bock_pending=pending_after(state.bock_pending, state.deal.bock, score),
        counted=state.counted + (0 if duty_played else 1),
        owed=duty_solo.paid(state.owed, score.re_seats[0]) if duty_played else state.owed,
    )


def fold(
    events: list[Event] | tuple[Event, ...], state: SessionState | None = None
) -> SessionState:
    """The state after the events: a fold of `evolve`, without re-validating."""
    state = state or SessionState()
    for event in events:
        state = evolve(state, event)
    return state
