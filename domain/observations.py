"""What one seat, or a spectator, may see of a deal (R4.3, R4.4, R4.5, R6.8).

Hidden until the deal is scored: the other hands, parties not yet revealed by
an announcement or a played QC, the contracts that lost priority, and a silent
solo (it looks like a normal game until its soloist has played both QC). Once
the deal is scored the whole deal is public.
"""

from __future__ import annotations

import functools

import msgspec
from msgspec import UNSET, UnsetType

from domain.announcements import Allowance, allowances
from domain.cards import Card
from domain.commands import Declaration
from domain.deal import DealState, Phase, schweinchen_refusal
from domain.events import Announced, Dealing, DealScored
from domain.game_types import SOLOS, GameType, sort_hand
from domain.parties import Party
from domain.rule_set import RuleSet, recorded
from domain.seats import SEATS, Seat
from domain.tricks import Trick, legal_cards
from domain.variants.armut import PovertyView, poor, poverty_view
from domain.variants.schweinchen import sort_shown


class PlayedTrick(msgspec.Struct, frozen=True):
    """A complete trick as everyone saw it."""

    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat
    points: int


class Options(msgspec.Struct, frozen=True):
    """What the viewing seat may do now; ``schweinchen`` true when it may show them (V3.1;
    left out otherwise); ``answer_poverty`` true when it is to accept or refuse an Armut
    (V4.3), ``return_cards`` how many cards it is to give back (V4.4; each left out
    otherwise)."""

    declarations: tuple[Declaration, ...] = ()
    contracts: tuple[GameType, ...] = ()
    cards: tuple[Card, ...] = ()
    announcements: tuple[Allowance, ...] = ()
    schweinchen: bool | UnsetType = UNSET
    answer_poverty: bool | UnsetType = UNSET
    return_cards: int | UnsetType = UNSET


class Observation(msgspec.Struct, frozen=True):
    """A deal as seen by ``viewer`` (None: a spectator). Holds nothing the viewer may not see.
    ``rules``: the house rules the deal is played by (`domain.rule_set`; left out for
    RULES.md exactly); ``schweinchen``: the seat that showed both AD, seen by everyone (V3.1;
    left out while nobody has); ``bock``: true for a Bock deal, counted double (V5.6; left
    out otherwise); ``poverty``: the Armut offered, as the viewer may know it (V4.6; left
    out where none was); with duty solos (V6.2, public): ``duty_owed``, the seats that owed
    their duty solo when the deal began, ``forced``, the seat vorgeführt (V6.7), ``duty_solo``,
    true once the game is fixed as a duty solo (V6.3); each left out otherwise."""

    viewer: Seat | None
    deal_no: int
    dealer: Seat
    phase: Phase
    turn: Seat | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    declarations: tuple[Declaration | None, ...]
    own_contract: GameType | None
    game_type: GameType | None
    declarer: Seat | None
    parties: tuple[Party | None, ...]
    marriage_clarified_in: int | None
    trick: tuple[Card, ...]
    trick_leader: Seat | None
    tricks: tuple[PlayedTrick, ...]
    announcements: tuple[Announced, ...]
    options: Options
    dealing: Dealing
    dealt: tuple[tuple[Card, ...], ...] | None = None
    contracts: tuple[GameType | None, ...] | None = None
    score: DealScored | None = None
    rules: RuleSet | UnsetType = UNSET
    schweinchen: Seat | UnsetType = UNSET
    bock: bool | UnsetType = UNSET
    poverty: PovertyView | UnsetType = UNSET
    duty_owed: tuple[Seat, ...] | UnsetType = UNSET
    forced: Seat | UnsetType = UNSET
    duty_solo: bool | UnsetType = UNSET


def _qc_players(trick: Trick) -> list[Seat]:
    """The seats that played a QC in the trick."""
    return [trick.seat_of(i) for i, c in enumerate(trick.cards) if c is Card.QC]


@functools.lru_cache(maxsize=4096)
def _complete_tricks(
    tricks: tuple[Trick, ...], winners: tuple[Seat, ...]
) -> tuple[tuple[PlayedTrick, ...], tuple[Seat, ...]]:
    """The complete tricks as everyone saw them, and the seats that played a QC in them.

    Remembered: they are the same for every viewer, and after every card until the next
    trick is complete; a new trick extends the remembered ones before it.
    """
    if len(tricks) != len(winners):
        raise ValueError(f"{len(tricks)} tricks but {len(winners)} winners")
    if not tricks:
        return (), ()
    played, qc_seats = _complete_tricks(tricks[:-1], winners[:-1])
    last = tricks[-1]
    if Card.QC in last.cards:
        qc_seats = (*qc_seats, *_qc_players(last))
    return (*played, PlayedTrick(last.leader, last.cards, winners[-1], last.points)), qc_seats


def _qc_seats(state: DealState, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
    """The seats that have played a QC so far, in playing order, given ``seats``: those of
    the complete tricks."""
    trick = state.trick
    if trick is not None and Card.QC in trick.cards:
        return (*seats, *_qc_players(trick))
    return seats


def _silent_solo_revealed(state: DealState) -> bool:
    """A silent solo is out once its soloist has played both QC."""
    seat = state.declarer
    if seat is None:
        return False
    return _qc_seats(state, _complete_tricks(state.tricks, state.winners)[1]).count(seat) == 2


def visible_game_type(state: DealState, viewer: Seat | None) -> tuple[GameType | None, Seat | None]:
    """R4.3, R4.5: the game type and declarer as the viewer knows them."""
    if (
        state.game_type is GameType.SILENT_SOLO
        and state.phase is not Phase.SCORED
        and viewer is not state.declarer
        and not _silent_solo_revealed(state)
    ):
        return GameType.NORMAL, None
    return state.game_type, state.declarer


_UNKNOWN: tuple[Party | None, ...] = (None, None, None, None)


def visible_parties(state: DealState, viewer: Seat | None) -> tuple[Party | None, ...]:
    """R4.4, R6.8: each seat's party as far as the viewer may know it."""
    game_type = visible_game_type(state, viewer)[0]
    return _visible_parties(
        state, viewer, game_type, _complete_tricks(state.tricks, state.winners)[1]
    )


def _visible_parties(
    state: DealState, viewer: Seat | None, game_type: GameType | None, qc_seats: tuple[Seat, ...]
) -> tuple[Party | None, ...]:
    """`visible_parties`, given the game type the viewer sees and the seats that played a QC
    in the complete tricks."""
    if (
        state.phase is Phase.SCORED
        or game_type in SOLOS
        or game_type in (GameType.SILENT_SOLO, GameType.POVERTY)
        or (game_type is GameType.MARRIAGE and state.clarified_in is not None)
    ):
        return state.parties
    if game_type is GameType.MARRIAGE:
        return tuple(Party.RE if s is state.declarer else None for s in SEATS)
    if game_type is None:
        return _UNKNOWN
    parties = state.parties
    shown = list(_UNKNOWN)
    for a in state.announcements:
        shown[a.seat] = parties[a.seat]
    for s in _qc_seats(state, qc_seats):
        shown[s] = parties[s]
    if viewer is not None:
        shown[viewer] = parties[viewer]
    return tuple(shown)


def allowed_announcements(state: DealState, seat: Seat) -> tuple[Allowance, ...]:
    """R6: every word the seat may say now, with the fewest cards it stays allowed with."""
    party = state.parties[seat]
    if (
        state.phase is not Phase.PLAY
        or party is None
        or (state.game_type is GameType.MARRIAGE and state.clarified_in is None)
    ):
        return ()
    return allowances(
        party=party,
        cards=len(state.hands[seat]),
        own=state.party_announcements(party),
        opponents=state.party_announcements(party.opponent),
        shift=state.deadline_shift,
    )


_NO_OPTIONS = Options()
_DECLARE = Options(declarations=tuple(Declaration))
_CONTRACTS = {
    (marriage, poverty): Options(
        contracts=tuple(
            c
            for c in GameType
            if c in SOLOS
            or (marriage and c is GameType.MARRIAGE)
            or (poverty and c is GameType.POVERTY)
        )
    )
    for marriage in (False, True)
    for poverty in (False, True)
}
"""R4.2, V4.1: the contracts a seat may name, with or without a marriage and Armut (V6.7:
the seat vorgeführt only the solos)."""
_ANSWER_POVERTY = Options(answer_poverty=True)
_RESERVE = Options(declarations=(Declaration.RESERVATION,))


def options(state: DealState, seat: Seat) -> Options:
    """What ``seat`` may do now: declare, name a contract, play, announce."""
    return _options(state, seat, state.turn)


def _options(state: DealState, seat: Seat, turn: Seat | None) -> Options:
    """`options`, given whose turn it is; a marriage needs both QC (R4.2), Armut three
    trumps or fewer (V4.1); the seat vorgeführt says `reservation` and names a solo (V6.7)."""
    forced = state.duty.forced is seat
    if state.phase is Phase.RESERVATIONS:
        if turn is not seat:
            return _NO_OPTIONS
        return _RESERVE if forced else _DECLARE
    if state.phase is Phase.CONTRACTS:
        if turn is not seat:
            return _NO_OPTIONS
        hand = state.hands[seat]
        if forced:
            return _CONTRACTS[False, False]
        return _CONTRACTS[hand.count(Card.QC) == 2, state.rules.armut and poor(hand)]
    if state.phase is Phase.POVERTY:
        return _poverty_options(state, seat, turn)
    cards: tuple[Card, ...] = ()
    if turn is seat and state.trick is not None and state.game_type is not None:
        cards = legal_cards(state.hands[seat], state.trick, state.order)
    announcements = allowed_announcements(state, seat)
    if not cards and not announcements:
        return _NO_OPTIONS
    if state.rules.schweinchen and cards and schweinchen_refusal(state, seat) is None:
        return Options(cards=cards, announcements=announcements, schweinchen=True)
    return Options(cards=cards, announcements=announcements)


def _poverty_options(state: DealState, seat: Seat, turn: Seat | None) -> Options:
    """V4.3, V4.4: the seat asked answers the Armut; its partner gives back cards."""
    poverty = state.poverty
    if turn is not seat or poverty is None:
        return _NO_OPTIONS
    if poverty.partner is None:
        return _ANSWER_POVERTY
    return Options(return_cards=len(poverty.given))


def observe(state: DealState, viewer: Seat | None) -> Observation:
    """The deal as ``viewer`` sees it; a spectator with ``viewer=None``."""
    game_type, declarer = visible_game_type(state, viewer)
    scored = state.phase is Phase.SCORED
    trick = state.trick
    turn = state.turn
    played, qc_seats = _complete_tricks(state.tricks, state.winners)
    if viewer is None:
        hand: tuple[Card, ...] = ()
        own_contract = None
        seen = _NO_OPTIONS
    else:
        hand = (
            sort_hand(state.hands[viewer], game_type or GameType.NORMAL)
            if state.schweinchen is None or game_type is None
            else sort_shown(state.hands[viewer], game_type)
        )
        own_contract = state.contracts[viewer]
        seen = _options(state, viewer, turn)
    return Observation(  # positional, in field order: the fastest way to build it
        viewer,
        state.deal_no,
        state.dealer,
        state.phase,
        turn,
        hand,
        tuple(map(len, state.hands)),
        state.declarations,
        own_contract,
        game_type,
        declarer,
        _visible_parties(state, viewer, game_type, qc_seats),
        state.clarified_in,
        trick.cards if trick is not None else (),
        trick.leader if trick is not None else None,
        played,
        state.announcements,
        seen,
        state.dealing if scored else msgspec.structs.replace(state.dealing, seed=None),
        state.dealt if scored else None,
        state.contracts if scored else None,
        state.score,
        recorded(state.rules),
        UNSET if state.schweinchen is None else state.schweinchen,
        True if state.bock else UNSET,
        UNSET if state.poverty is None else poverty_view(state.poverty, viewer, scored),
        state.duty.owed if state.rules.duty_solo else UNSET,
        UNSET if state.duty.forced is None else state.duty.forced,
        True if state.duty_solo else UNSET,
    )
