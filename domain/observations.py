"""What one seat, or a spectator, may see of a deal (R4.3, R4.4, R4.5, R6.8).

Hidden until the deal is scored: the other hands, parties not yet revealed by
an announcement or a played QC, the contracts that lost priority, and a silent
solo (it looks like a normal game until its soloist has played both QC). Once
the deal is scored the whole deal is public.
"""

from __future__ import annotations

import msgspec

from domain.announcements import REFUSALS, Allowance, Word, check, party_word, until_cards
from domain.cards import Card
from domain.commands import Declaration
from domain.deal import DealState, Phase
from domain.errors import DomainError
from domain.events import Announced, Dealing, DealScored
from domain.game_types import CONTRACTS, SOLOS, GameType, order_of, sort_hand
from domain.parties import Party
from domain.seats import SEATS, Seat
from domain.tricks import legal_cards


class PlayedTrick(msgspec.Struct, frozen=True):
    """A complete trick as everyone saw it."""

    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat
    points: int


class Options(msgspec.Struct, frozen=True):
    """What the viewing seat may do now."""

    declarations: tuple[Declaration, ...] = ()
    contracts: tuple[GameType, ...] = ()
    cards: tuple[Card, ...] = ()
    announcements: tuple[Allowance, ...] = ()


class Observation(msgspec.Struct, frozen=True):
    """A deal as seen by ``viewer`` (None: a spectator). Holds nothing the viewer may not see."""

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


def _silent_solo_revealed(state: DealState) -> bool:
    """A silent solo is out once its soloist has played both QC."""
    seat = state.declarer
    played = [t.seat_of(i) for t in state.tricks for i, c in enumerate(t.cards) if c is Card.QC]
    if state.trick is not None:
        played += [state.trick.seat_of(i) for i, c in enumerate(state.trick.cards) if c is Card.QC]
    return played.count(seat) == 2 if seat is not None else False


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


def visible_parties(state: DealState, viewer: Seat | None) -> tuple[Party | None, ...]:
    """R4.4, R6.8: each seat's party as far as the viewer may know it."""
    game_type, _ = visible_game_type(state, viewer)
    if (
        state.phase is Phase.SCORED
        or game_type in SOLOS
        or game_type is GameType.SILENT_SOLO
        or (game_type is GameType.MARRIAGE and state.clarified_in is not None)
    ):
        return state.parties
    if game_type is GameType.MARRIAGE:
        return tuple(Party.RE if s is state.declarer else None for s in SEATS)
    if game_type is None:
        return (None, None, None, None)
    revealed = {a.seat for a in state.announcements}
    for trick in (*state.tricks, state.trick):
        if trick is not None:
            revealed.update(trick.seat_of(i) for i, c in enumerate(trick.cards) if c is Card.QC)
    if viewer is not None:
        revealed.add(viewer)
    return tuple(state.parties[s] if s in revealed else None for s in SEATS)


def allowed_announcements(state: DealState, seat: Seat) -> tuple[Allowance, ...]:
    """R6: every word the seat may say now, with the fewest cards it stays allowed with."""
    party = state.parties[seat]
    if (
        state.phase is not Phase.PLAY
        or party is None
        or (state.game_type is GameType.MARRIAGE and state.clarified_in is None)
    ):
        return ()
    own = state.party_announcements(party)
    opponents = state.party_announcements(party.opponent)
    shift = state.marriage_shift
    cards = len(state.hands[seat])
    # Shortcut, same answer: re/kontra needs `until_cards` of it; every refusal needs the
    # deadline of the party's next level (R6.3). Below both, `check` rejects every word.
    own_word = party_word(party)
    if cards < until_cards(word=own_word, own=own, opponents=opponents, shift=shift) and (
        cards < until_cards(word=Word.NO90, own=own, opponents=opponents, shift=shift)
    ):
        return ()
    allowed: list[Allowance] = []
    for word in (own_word, *REFUSALS):
        try:
            check(
                party=party,
                word=word,
                cards=cards,
                own=own,
                opponents=opponents,
                shift=shift,
            )
        except DomainError:
            continue
        allowed.append(
            Allowance(word, until_cards(word=word, own=own, opponents=opponents, shift=shift))
        )
    return tuple(allowed)


def options(state: DealState, seat: Seat) -> Options:
    """What ``seat`` may do now: declare, name a contract, play, announce."""
    turn = state.turn is seat
    if state.phase is Phase.RESERVATIONS:
        return Options(declarations=tuple(Declaration) if turn else ())
    if state.phase is Phase.CONTRACTS:
        if not turn:
            return Options()
        both = state.hands[seat].count(Card.QC) == 2
        allowed = tuple(c for c in GameType if c in CONTRACTS and (both or c in SOLOS))
        return Options(contracts=allowed)
    cards: tuple[Card, ...] = ()
    if turn and state.trick is not None and state.game_type is not None:
        cards = legal_cards(state.hands[seat], state.trick, order_of(state.game_type))
    return Options(cards=cards, announcements=allowed_announcements(state, seat))


def observe(state: DealState, viewer: Seat | None) -> Observation:
    """The deal as ``viewer`` sees it; a spectator with ``viewer=None``."""
    game_type, declarer = visible_game_type(state, viewer)
    scored = state.phase is Phase.SCORED
    shown = game_type or GameType.NORMAL
    hand = sort_hand(state.hands[viewer], shown) if viewer is not None else ()
    dealing = state.dealing if scored else msgspec.structs.replace(state.dealing, seed=None)
    tricks = tuple(
        PlayedTrick(t.leader, t.cards, w, t.points)
        for t, w in zip(state.tricks, state.winners, strict=True)
    )
    return Observation(
        viewer=viewer,
        deal_no=state.deal_no,
        dealer=state.dealer,
        phase=state.phase,
        turn=state.turn,
        hand=hand,
        hand_sizes=tuple(len(h) for h in state.hands),
        declarations=state.declarations,
        own_contract=state.contracts[viewer] if viewer is not None else None,
        game_type=game_type,
        declarer=declarer,
        parties=visible_parties(state, viewer),
        marriage_clarified_in=state.clarified_in,
        trick=state.trick.cards if state.trick is not None else (),
        trick_leader=state.trick.leader if state.trick is not None else None,
        tricks=tricks,
        announcements=state.announcements,
        options=options(state, viewer) if viewer is not None else Options(),
        dealing=dealing,
        dealt=state.dealt if scored else None,
        contracts=state.contracts if scored else None,
        score=state.score,
    )
