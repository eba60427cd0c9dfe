"""The deal aggregate: ``decide(state, command) -> events`` and ``evolve(state, event)``.

A deal moves through the phases reservations -> contracts -> play -> scored.
`decide` validates and raises a `DomainError`; `evolve` never validates, so
replaying a deal is a fold of `evolve` over its events.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

import msgspec

from domain.announcements import PartyAnnouncements, check
from domain.cards import Card, without
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
from domain.errors import (
    CardNotInHand,
    ContractNotAllowed,
    DomainError,
    DutySoloForced,
    MarriageNotClarified,
    MustFollow,
    NotYourTurn,
    PhaseClosed,
    PovertyReturnInvalid,
    SchweinchenNotAllowed,
)
from domain.events import (
    Announced,
    CardPlayed,
    ContractNamed,
    DealDealt,
    DealEvent,
    Dealing,
    DealScored,
    Declared,
    GameTypeFixed,
    MarriageClarified,
    PovertyAnswered,
    PovertyReturned,
    SchweinchenShown,
    Score,
    TrickWon,
)
from domain.game_types import CONTRACTS, SOLOS, CardOrder, GameType
from domain.parties import Party
from domain.rule_set import DEFAULT, RuleSet
from domain.scoring import DealFacts, score
from domain.seats import SEATS, Seat
from domain.tricks import Trick, follows, trick_winner
from domain.variants.armut import ArmutRefused, Poverty, holds, poor, trumps_of
from domain.variants.bock import bock_triggers, doubled
from domain.variants.duty_solo import NO_DUTY, Duty, duty_solo_winner
from domain.variants.schweinchen import deal_order, schweinchen_possible
from domain.variants.second_heart_ten import second_heart_ten_wins

T = TypeVar("T")


class Phase(StrEnum):
    """R4, R3: the phases of a deal, each with its own legal actions; ``poverty`` between
    contracts and play while an Armut is offered and given back (V4.3, V4.4)."""

    RESERVATIONS = "reservations"
    CONTRACTS = "contracts"
    POVERTY = "poverty"
    PLAY = "play"
    SCORED = "scored"


class DealState(msgspec.Struct, frozen=True):
    """Everything true about a deal so far (hidden parts included), and the ``rules`` it is
    played by (`domain.rule_set`). ``schweinchen``: the seat that showed both AD (V3.1);
    ``bock``: whether it is a Bock deal, counted double (V5.6); ``poverty``: the Armut
    offered, if any (V4.3-V4.7); ``duty``: who owes the duty solo and who is vorgeführt
    (V6.2, V6.7); ``duty_solo``: whether the game is a duty solo (V6.3)."""

    deal_no: int
    dealer: Seat
    dealt: tuple[tuple[Card, ...], ...]
    dealing: Dealing
    hands: tuple[tuple[Card, ...], ...]
    phase: Phase = Phase.RESERVATIONS
    declarations: tuple[Declaration | None, ...] = (None, None, None, None)
    contracts: tuple[GameType | None, ...] = (None, None, None, None)
    game_type: GameType | None = None
    declarer: Seat | None = None
    parties: tuple[Party | None, ...] = (None, None, None, None)
    clarified_in: int | None = None
    trick: Trick | None = None
    tricks: tuple[Trick, ...] = ()
    winners: tuple[Seat, ...] = ()
    re: PartyAnnouncements = PartyAnnouncements()
    kontra: PartyAnnouncements = PartyAnnouncements()
    announcements: tuple[Announced, ...] = ()
    score: DealScored | None = None
    rules: RuleSet = DEFAULT
    schweinchen: Seat | None = None
    bock: bool = False
    poverty: Poverty | None = None
    duty: Duty = NO_DUTY
    duty_solo: bool = False

    @property
    def first(self) -> Seat:
        """R3.5, R4.1: the player on the dealer's left declares and leads first."""
        return self.dealer.left()

    @property
    def void(self) -> bool:
        """V4.8: all three refused the Armut and the option deals again: the deal ends
        unscored, and the same deal is dealt anew."""
        poverty = self.poverty
        redeal = self.rules.armut_refused is ArmutRefused.REDEAL
        return redeal and self.phase is Phase.POVERTY and poverty is not None and poverty.lapsed

    @property
    def leader(self) -> Seat:
        """R3.5: who leads the first trick: the player on the dealer's left; in a duty solo
        the soloist (V6.5). Only once the game type is fixed."""
        if self.duty_solo:
            assert self.declarer is not None
            return self.declarer
        return self.first

    @property
    def turn(self) -> Seat | None:
        """Whose turn it is to declare, name a contract or play; None when nobody's."""
        if self.phase is Phase.RESERVATIONS:
            declared = sum(d is not None for d in self.declarations)
            # after the fourth declaration, until its GameTypeFixed or PhaseChanged
            return self.first.after(declared) if declared < len(self.declarations) else None
        if self.phase is Phase.CONTRACTS:
            return next(
                (
                    s
                    for s in self.first.round()
                    if self.declarations[s] is Declaration.RESERVATION and self.contracts[s] is None
                ),
                None,  # between the last ContractNamed and its GameTypeFixed (a cut log)
            )
        if self.phase is Phase.POVERTY:
            assert self.poverty is not None
            answer = self.poverty.to_answer
            return self.poverty.partner if answer is None else answer
        if self.phase is Phase.PLAY and self.trick is not None and not self.trick.complete:
            return self.trick.to_play
        return None  # also between a trick's fourth card and its `TrickWon`

    def party_announcements(self, party: Party) -> PartyAnnouncements:
        return self.re if party is Party.RE else self.kontra

    @property
    def marriage_shift(self) -> int:
        """R6.7: deadlines are 0, 1 or 2 cards lower by the marriage's clarifying trick."""
        return 0 if self.clarified_in is None else self.clarified_in - 1

    @property
    def deadline_shift(self) -> int:
        """R6.7, V1.3: how many cards lower every announcement deadline is: the marriage's
        shift, and two more without nines."""
        return self.marriage_shift + self.rules.deadline_shift

    @property
    def solo(self) -> bool:
        """Scored as a solo: a declared or silent solo, or a marriage turned diamond solo."""
        gt = self.game_type
        return (
            gt in SOLOS
            or gt is GameType.SILENT_SOLO
            or (gt is GameType.MARRIAGE and self.clarified_in is not None and self.alone)
        )

    @property
    def alone(self) -> bool:
        """R4.6: Re is a single player (a solo, or a marriage without partner)."""
        return sum(p is Party.RE for p in self.parties) == 1

    @property
    def order(self) -> CardOrder:
        """The card order of the game type (R5.6), the AD highest once Schweinchen are
        shown (V3.2). Only once the game type is fixed."""
        assert self.game_type is not None
        return deal_order(self.game_type, self.schweinchen is not None)


def deal_started(
    event: DealDealt, rules: RuleSet = DEFAULT, bock: bool = False, duty: Duty = NO_DUTY
) -> DealState:
    """The state right after the cards are dealt, played by ``rules``; a Bock deal if
    ``bock`` (V5.6); ``duty``: who owes the duty solo and who is vorgeführt (V6.2, V6.7)."""
    return DealState(
        deal_no=event.deal_no,
        dealer=event.dealer,
        dealt=event.hands,
        dealing=event.dealing,
        hands=event.hands,
        rules=rules,
        bock=bock,
        duty=duty,
    )


def decide(state: DealState, command: DealCommand) -> tuple[DealEvent, ...]:
    """Validate a command against the deal; return the events it causes."""
    if isinstance(command, PlayCard):
        return _play(state, command)
    if isinstance(command, Announce):
        return (_announce(state, command),)
    if isinstance(command, Declare):
        return _declare(state, command)
    if isinstance(command, ShowSchweinchen):
        return (_show_schweinchen(state, command.seat),)
    if isinstance(command, AnswerPoverty):
        return _answer_poverty(state, command)
    if isinstance(command, ReturnPoverty):
        return (_return_poverty(state, command),)
    return _name_contract(state, command)


def _require_turn(state: DealState, seat: Seat, rule: str) -> None:
    if state.turn is not seat:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s", rule=rule)


def _declare(state: DealState, command: Declare) -> tuple[DealEvent, ...]:
    """R4.1: in turn from the dealer's left, each says `healthy` or `reservation`; V6.7: the
    seat vorgeführt says `reservation`."""
    if state.phase is not Phase.RESERVATIONS:
        raise PhaseClosed("reservations are over for this deal", rule="R4.1")
    _require_turn(state, command.seat, "R4.1")
    if command.seat is state.duty.forced and command.declaration is Declaration.HEALTHY:
        raise DutySoloForced(
            "you are vorgeführt: your duty solo is due in this deal, say reservation", rule="V6.7"
        )
    declared = Declared(command.seat, command.declaration)
    declarations = _set(state.declarations, command.seat, command.declaration)
    if None in declarations:
        return (declared,)
    if Declaration.RESERVATION in declarations:
        return (declared,)
    return (declared, _fix_game_type(state, state.contracts))


def _name_contract(state: DealState, command: NameContract) -> tuple[DealEvent, ...]:
    """R4.2: a player who said `reservation` names a solo, or a marriage holding both QC;
    V4.1: an Armut with three trumps or fewer; V6.7: the seat vorgeführt only a solo."""
    if state.phase is not Phase.CONTRACTS:
        raise PhaseClosed("contracts are named only after all four reservations", rule="R4.2")
    _require_turn(state, command.seat, "R4.2")
    contract = command.contract
    if contract is GameType.POVERTY:
        _check_poverty(state, command.seat)
    elif contract not in CONTRACTS:
        raise ContractNotAllowed(
            f"{contract.value} cannot be named: name a solo or a marriage", rule="R4.2"
        )
    if contract in _NOT_A_SOLO and command.seat is state.duty.forced:
        raise DutySoloForced("you are vorgeführt: name a solo of your choice", rule="V6.7")
    if contract is GameType.MARRIAGE and state.hands[command.seat].count(Card.QC) < 2:
        raise ContractNotAllowed("a marriage needs both QC in hand", rule="R4.2")
    named = ContractNamed(command.seat, contract)
    contracts = _set(state.contracts, command.seat, contract)
    waiting = any(
        d is Declaration.RESERVATION and c is None
        for d, c in zip(state.declarations, contracts, strict=True)
    )
    if waiting:
        return (named,)
    return (named, _fix_game_type(state, contracts))


_NOT_A_SOLO = (GameType.MARRIAGE, GameType.POVERTY)
"""V6.7: the contracts the seat vorgeführt may not name."""


def _check_poverty(state: DealState, seat: Seat) -> None:
    """V4.1: Armut is named only at a table that plays it, with three trumps or fewer."""
    if not state.rules.armut:
        raise ContractNotAllowed("this table plays without Armut", rule="V4.1")
    if not poor(state.hands[seat]):
        raise ContractNotAllowed(
            f"Armut needs three trumps or fewer, not {len(trumps_of(state.hands[seat]))}",
            rule="V4.1",
        )


def _fix_game_type(state: DealState, contracts: tuple[GameType | None, ...]) -> GameTypeFixed:
    """R4.3-R4.5: any solo beats a marriage; between solos the earlier player wins. With
    Armut (V4.2) a solo beats it and it beats a marriage; the earlier Armut stands.

    With no winning reservation the game is normal, or a silent solo for a player
    holding both QC. V6.4: a duty solo beats them all.
    """
    named = [(s, c) for s in state.first.round() if (c := contracts[s]) is not None]
    duty = duty_solo_winner(named, state.duty.owed)
    if duty is not None:
        seat, contract = duty
        return GameTypeFixed(contract, seat, duty_solo=True)
    for seat, contract in named:
        if contract in SOLOS:
            return GameTypeFixed(contract, seat)
    for kind in (GameType.POVERTY, GameType.MARRIAGE):
        for seat, contract in named:
            if contract is kind:
                return GameTypeFixed(kind, seat)
    for seat in SEATS:
        if state.hands[seat].count(Card.QC) == 2:
            return GameTypeFixed(GameType.SILENT_SOLO, seat)
    return GameTypeFixed(GameType.NORMAL, None)


def _answer_poverty(state: DealState, command: AnswerPoverty) -> tuple[DealEvent, ...]:
    """V4.3: the seats asked accept or refuse the Armut in turn from the poor player's
    left; V4.7: when the third refuses, the deal goes on without it; V4.8: or it is void
    (`DealState.void`), and the session deals it again."""
    poverty = state.poverty
    if state.phase is not Phase.POVERTY or poverty is None or poverty.to_answer is None:
        raise PhaseClosed("no Armut is waiting for an answer", rule="V4.3")
    _require_turn(state, command.seat, "V4.3")
    answered = PovertyAnswered(command.seat, command.accept)
    refused = msgspec.structs.replace(poverty, refused=(*poverty.refused, command.seat))
    if command.accept or not refused.lapsed:
        return (answered,)
    if state.rules.armut_refused is ArmutRefused.REDEAL:
        return (answered,)
    lapsed = tuple(None if c is GameType.POVERTY else c for c in state.contracts)
    return (answered, _fix_game_type(state, lapsed))


def _return_poverty(state: DealState, command: ReturnPoverty) -> PovertyReturned:
    """V4.4: the partner gives back as many cards as it took, from its hand."""
    poverty = state.poverty
    if state.phase is not Phase.POVERTY or poverty is None or poverty.partner is None:
        raise PhaseClosed("cards are given back once an Armut is accepted", rule="V4.4")
    _require_turn(state, command.seat, "V4.4")
    cards, hand = command.cards, state.hands[command.seat]
    if len(cards) != len(poverty.given):
        raise PovertyReturnInvalid(
            f"give back {len(poverty.given)} cards, not {len(cards)}", rule="V4.4"
        )
    if not holds(hand, cards):
        raise PovertyReturnInvalid("give back only cards you hold", rule="V4.4")
    return PovertyReturned(command.seat, poverty.poor, cards, len(cards), len(trumps_of(cards)))


def schweinchen_refusal(state: DealState, seat: Seat) -> DomainError | None:
    """V3.1, V3.3: why ``seat`` may not show Schweinchen now; None when it may: the table
    plays them, the game type is fixed and AD a trump in it, it is the seat's turn to play,
    it holds both AD and nobody has shown them yet."""
    if not state.rules.schweinchen:
        return SchweinchenNotAllowed("this table plays without Schweinchen", rule="V3.1")
    if state.phase is not Phase.PLAY or state.game_type is None:
        return PhaseClosed(
            "Schweinchen are shown in the play, once the game type is fixed", rule="V3.1"
        )
    if not schweinchen_possible(state.game_type):
        return SchweinchenNotAllowed(
            f"AD is no trump in a {state.game_type.value}: no Schweinchen", rule="V3.3"
        )
    if state.turn is not seat:
        return NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s", rule="V3.1")
    if state.schweinchen is not None:
        return SchweinchenNotAllowed("Schweinchen are shown already", rule="V3.1")
    if state.hands[seat].count(Card.AD) < 2:
        return SchweinchenNotAllowed("Schweinchen are both AD in one hand", rule="V3.1")
    return None


def _show_schweinchen(state: DealState, seat: Seat) -> SchweinchenShown:
    """V3.1: the holder of both AD shows them on their turn (see `schweinchen_refusal`)."""
    refusal = schweinchen_refusal(state, seat)
    if refusal is not None:
        raise refusal
    return SchweinchenShown(seat)


def _play(state: DealState, command: PlayCard) -> tuple[DealEvent, ...]:
    """R3.3, R3.6: play on one's turn a card from one's hand, following if able."""
    current = state.trick
    if state.phase is not Phase.PLAY or current is None or state.game_type is None:
        raise PhaseClosed(
            "cards are played only once the game type is fixed and until the last trick",
            rule="R3.6",
        )
    seat, played = command.seat, command.card
    _require_turn(state, seat, "R3.6")
    hand = state.hands[seat]
    if played not in hand:
        raise CardNotInHand(f"{played.value} is not in seat {seat}'s hand", rule="R3.6")
    order = state.order
    if not follows(played, hand, current, order):
        led = current.cards[0]
        what = "a trump" if order.is_trump(led) else f"a card of suit {order.category[led]}"
        raise MustFollow(f"{led.value} was led: you hold {what} and must play it", rule="R3.3")
    if len(current.cards) < 3:  # the trick is not complete with this card
        return (CardPlayed(seat, played),)
    events: list[DealEvent] = [CardPlayed(seat, played)]
    trick = Trick(current.leader, (*current.cards, played))
    trick_no = len(state.tricks) + 1
    last = state.rules.tricks
    later_ten = second_heart_ten_wins(state.rules.second_heart_ten, order, trick_no, last)
    winner = trick_winner(trick, order, later_ten)
    events.append(TrickWon(trick_no, winner, trick.points))
    if state.game_type is GameType.MARRIAGE and state.clarified_in is None:
        if winner is not state.declarer:
            events.append(MarriageClarified(trick_no, winner))
        elif trick_no == 3:
            events.append(MarriageClarified(trick_no, None))
    if trick_no == last:
        final = state
        for event in events:
            final = evolve(final, event)
        events.append(DealScored(state.deal_no, final_score(final)))
    return tuple(events)


def final_score(state: DealState) -> Score:
    """R7-R10 for a deal whose tricks are complete (12, V1.1: 10); a duty solo marked (V6.8);
    with Bock rounds (V5) a Bock deal doubled (V5.6) and the triggers the deal met named
    (V5.2-V5.5)."""
    deal_facts = facts(state)
    result = score(deal_facts)
    if state.duty_solo:
        result = msgspec.structs.replace(result, duty_solo=True)
    if not state.rules.bock_rounds:
        return result
    if state.bock:
        result = doubled(result, deal_facts.parties)
    triggers = bock_triggers(result)
    return msgspec.structs.replace(result, bock_triggers=triggers) if triggers else result


def facts(state: DealState) -> DealFacts:
    """What scoring needs from a deal whose tricks are complete."""
    assert state.game_type is not None
    return DealFacts(
        game_type=state.game_type,
        solo=state.solo,
        parties=tuple(p or Party.KONTRA for p in state.parties),
        tricks=state.tricks,
        winners=state.winners,
        announcements={Party.RE: state.re, Party.KONTRA: state.kontra},
    )


def _announce(state: DealState, command: Announce) -> Announced:
    """R6: announce for one's own party, at any moment of play, within the deadlines."""
    if state.phase is not Phase.PLAY:
        raise PhaseClosed(
            "announcements open once the game type is fixed and close with the last trick",
            rule="R6.1",
        )
    if state.game_type is GameType.MARRIAGE and state.clarified_in is None:
        raise MarriageNotClarified(
            "nobody may announce before the marriage's clarifying trick is complete",
            rule="R6.7",
        )
    seat = command.seat
    party = state.parties[seat]
    assert party is not None
    cards = len(state.hands[seat])
    words, late = check(
        party=party,
        word=command.word,
        cards=cards,
        own=state.party_announcements(party),
        opponents=state.party_announcements(party.opponent),
        shift=state.deadline_shift,
        deadline_rule=state.rules.deadline_rule,
    )
    return Announced(seat, party, command.word, words, cards, late)


def _set(values: tuple[T, ...], seat: Seat, value: T) -> tuple[T, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def _parties(
    game_type: GameType, declarer: Seat | None, state: DealState
) -> tuple[Party | None, ...]:
    """R4.4, R4.5, R4.6, R5.1: Re is the QC holders, the soloist, or the marriage declarer;
    V4.5: the poor player (and its partner once the cards are given back)."""
    if game_type is GameType.NORMAL:
        return tuple(Party.RE if Card.QC in h else Party.KONTRA for h in state.hands)
    if game_type in (GameType.MARRIAGE, GameType.POVERTY):
        return tuple(Party.RE if s is declarer else None for s in SEATS)
    return tuple(Party.RE if s is declarer else Party.KONTRA for s in SEATS)


def _evolve_poverty(state: DealState, event: PovertyAnswered | PovertyReturned) -> DealState:
    """V4.3: an accepted Armut's trumps move to the partner; V4.4: the cards given back
    move to the poor player, and the play begins with the two as Re (V4.5)."""
    poverty = state.poverty
    assert poverty is not None
    replace = msgspec.structs.replace
    poor_seat, seat = poverty.poor, event.seat
    if isinstance(event, PovertyAnswered) and not event.accepted:
        return replace(state, poverty=replace(poverty, refused=(*poverty.refused, seat)))
    moved = poverty.given if isinstance(event, PovertyAnswered) else event.cards
    assert moved is not None  # the log holds the cards given back
    source, target = (poor_seat, seat) if isinstance(event, PovertyAnswered) else (seat, poor_seat)
    hands = _set(state.hands, source, without(state.hands[source], moved))
    hands = _set(hands, target, (*hands[target], *moved))
    if isinstance(event, PovertyAnswered):
        return replace(state, hands=hands, poverty=replace(poverty, partner=seat))
    parties = tuple(Party.RE if s in (poor_seat, seat) else Party.KONTRA for s in SEATS)
    return replace(
        state,
        hands=hands,
        poverty=replace(poverty, returned=moved),
        phase=Phase.PLAY,
        parties=parties,
        trick=Trick(state.first),
    )


def evolve(state: DealState, event: DealEvent) -> DealState:
    """Apply one event. Never validates: events are facts."""
    replace = msgspec.structs.replace
    if isinstance(event, CardPlayed):
        assert state.trick is not None
        return replace(
            state,
            hands=_set(state.hands, event.seat, without(state.hands[event.seat], (event.card,))),
            trick=Trick(state.trick.leader, (*state.trick.cards, event.card)),
        )
    if isinstance(event, TrickWon):
        assert state.trick is not None
        return replace(
            state,
            tricks=(*state.tricks, state.trick),
            winners=(*state.winners, event.winner),
            trick=Trick(event.winner) if event.trick_no < state.rules.tricks else None,
        )
    if isinstance(event, Announced):
        log = (*state.announcements, event)
        own = PartyAnnouncements(
            level=state.party_announcements(event.party).level + len(event.words),
            late_reply=state.party_announcements(event.party).late_reply or event.late_reply,
        )
        if event.party is Party.RE:
            return replace(state, re=own, announcements=log)
        return replace(state, kontra=own, announcements=log)
    if isinstance(event, Declared):
        declarations = _set(state.declarations, event.seat, event.declaration)
        phase = state.phase
        if None not in declarations and Declaration.RESERVATION in declarations:
            phase = Phase.CONTRACTS
        return replace(state, declarations=declarations, phase=phase)
    if isinstance(event, ContractNamed):
        return replace(state, contracts=_set(state.contracts, event.seat, event.contract))
    if isinstance(event, GameTypeFixed) and event.game_type is GameType.POVERTY:
        assert event.declarer is not None
        poverty = Poverty(event.declarer, trumps_of(state.hands[event.declarer]))
        return replace(
            state,
            phase=Phase.POVERTY,
            game_type=event.game_type,
            declarer=event.declarer,
            parties=_parties(event.game_type, event.declarer, state),
            poverty=poverty,
        )
    if isinstance(event, GameTypeFixed):
        fixed = replace(
            state,
            phase=Phase.PLAY,
            game_type=event.game_type,
            declarer=event.declarer,
            parties=_parties(event.game_type, event.declarer, state),
            duty_solo=event.duty_solo is True,
        )
        return replace(fixed, trick=Trick(fixed.leader))
    if isinstance(event, MarriageClarified):
        partner = event.partner
        parties = tuple(
            Party.RE if s is state.declarer or s is partner else Party.KONTRA for s in SEATS
        )
        return replace(state, clarified_in=event.trick_no, parties=parties)
    if isinstance(event, SchweinchenShown):
        return replace(state, schweinchen=event.seat)
    if isinstance(event, PovertyAnswered | PovertyReturned):
        return _evolve_poverty(state, event)
    if isinstance(event, DealScored):
        return replace(state, phase=Phase.SCORED, score=event)
    return deal_started(event, state.rules)
