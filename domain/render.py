"""Readable, deterministic text of a deal (or a whole session) from its events.

For audits, golden tests and logs: the dealer, the hands as dealt (sorted with
`sort_hand` for the game type), the declarations, the contracts, the game type,
every trick card by card with its winner and points, every announcement where
it was made (with the cards then in hand), and the score lines with their rule
ids, the value and the scoresheet entries. A partial deal renders up to its
last event. The whole deal is shown, hidden parts included: this is the view
after the deal, not a player's observation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from msgspec import UNSET

from domain import deal
from domain.announcements import words_of
from domain.cards import Card, Suit
from domain.deal import DealState
from domain.events import (
    Announced,
    CardPlayed,
    ContractNamed,
    DealDealt,
    DealEvent,
    DealScored,
    Declared,
    Event,
    GameTypeFixed,
    MarriageClarified,
    PovertyAnswered,
    PovertyReturned,
    SchweinchenShown,
    Score,
    SessionFinished,
    SessionStarted,
    TrickWon,
)
from domain.game_types import TRUMP, GameType, order_of, sort_hand
from domain.parties import Party
from domain.rule_set import in_force
from domain.seats import SEATS, Seat

INDENT = "  "
_Out = Callable[[str], None]
_GROUPS = (
    (TRUMP, "trumps"),
    ("C", "clubs"),
    ("S", "spades"),
    ("H", "hearts"),
    ("D", "diamonds"),
)


def seat_name(seat: Seat) -> str:
    return f"seat {int(seat)}"


def seats_name(seats: Iterable[Seat]) -> str:
    listed = [int(s) for s in seats]
    if not listed:
        return "nobody"
    word = "seat" if len(listed) == 1 else "seats"
    return f"{word} {', '.join(str(s) for s in listed)}"


def game_type_name(game_type: GameType) -> str:
    return game_type.value.replace("_", " ")


def signed(n: int) -> str:
    return f"{n:+d}"


def hand_text(hand: Sequence[Card], game_type: GameType) -> str:
    """A hand sorted for the game type, grouped: trumps, then each plain suit."""
    order = order_of(game_type)
    cards = sort_hand(tuple(hand), game_type)
    parts = []
    for category, label in _GROUPS:
        exists = order.trumps if category == TRUMP else order.plain[Suit(category)]
        if not exists:  # no such category in this game type (plain diamonds in a normal game)
            continue
        group = [c.value for c in cards if order.category[c] == category]
        parts.append(f"{label} {' '.join(group) if group else '-'}")
    return " | ".join(parts)


def split_deals(events: Iterable[Event]) -> list[list[DealEvent]]:
    """The events of each deal, in order, each list starting with its `DealDealt`."""
    deals: list[list[DealEvent]] = []
    for event in events:
        if isinstance(event, DealDealt):
            deals.append([event])
        elif not isinstance(event, SessionStarted | SessionFinished) and deals:
            deals[-1].append(event)
    return deals


def _fold(events: Sequence[DealEvent]) -> DealState:
    first = events[0]
    assert isinstance(first, DealDealt)  # as `split_deals` makes them
    state = deal.deal_started(first)
    for event in events[1:]:
        state = deal.evolve(state, event)
    return state


def _party_label(party: Party | None) -> str:
    return party.value if party is not None else "?"


def render_deal(log: Iterable[Event]) -> str:
    """The text of one deal from its events (from `DealDealt`; partial deals allowed).

    Session events around the deal are ignored; the log must hold exactly one deal.
    """
    deals = split_deals(log)
    if len(deals) != 1:
        raise ValueError(f"render_deal needs the events of one deal, not {len(deals)}")
    events = deals[0]
    final = _fold(events)
    parties = final.parties
    shown = final.game_type or GameType.NORMAL
    lines: list[str] = []
    out = lines.append

    state: DealState | None = None
    points = dict.fromkeys(Party, 0)
    header: list[str] = []  # the next trick's header, written before its first card

    def flush() -> None:
        if header:
            out("")
            out(header.pop())

    for event in events:
        if isinstance(event, DealDealt):
            state = deal.deal_started(event)
            _dealt(event, state, shown, out)
            continue
        assert state is not None
        before = state
        state = deal.evolve(state, event)
        if isinstance(event, Declared):
            if before.phase is deal.Phase.RESERVATIONS and not any(before.declarations):
                out("")
                out(f"Reservations (R4.1), from {seat_name(before.first)} clockwise:")
            out(f"{INDENT}{seat_name(event.seat)}  {event.declaration.value}")
        elif isinstance(event, ContractNamed):
            if not any(before.contracts):
                out("")
                out("Contracts named (R4.2):")
            named = "a contract" if event.contract is None else game_type_name(event.contract)
            out(f"{INDENT}{seat_name(event.seat)}  {named}")
        elif isinstance(event, GameTypeFixed):
            _game_type(event, state, out)
            header.append(f"Trick 1, led by {seat_name(state.leader)}")
        elif isinstance(event, CardPlayed):
            flush()
            out(f"{INDENT}{seat_name(event.seat)}  {event.card.value}")
        elif isinstance(event, TrickWon):
            trick = before.trick
            assert trick is not None and before.game_type is not None
            best = trick.cards[(event.winner - trick.leader) % 4]
            party = parties[event.winner]
            if party is not None:
                points[party] += event.points
            out(
                f"{INDENT}won by {seat_name(event.winner)} ({_party_label(party)}) "
                f"with {best.value}: {event.points} points "
                f"(re {points[Party.RE]}, kontra {points[Party.KONTRA]})"
            )
            if state.trick is not None:
                header.append(f"Trick {event.trick_no + 1}, led by {seat_name(event.winner)}")
        elif isinstance(event, MarriageClarified):
            if event.partner is None:
                out(
                    f"{INDENT}marriage clarified in trick {event.trick_no}: "
                    f"{seat_name(_declarer(state))} won the first 3 tricks and plays alone "
                    "as a diamonds solo (R4.6)"
                )
            else:
                out(
                    f"{INDENT}marriage clarified in trick {event.trick_no}: "
                    f"{seat_name(event.partner)} is {seat_name(_declarer(state))}'s partner (R4.6)"
                )
        elif isinstance(event, Announced):
            flush()
            said = ", ".join(w.value for w in event.words)
            late = ", a late reply (R6.6)" if event.late_reply else ""
            out(
                f"{INDENT}{INDENT}> {seat_name(event.seat)} ({event.party.value}) announces "
                f"{event.word.value} [{said}] with {event.cards} cards in hand{late}"
            )
        elif isinstance(event, SchweinchenShown):
            flush()
            out(
                f"{INDENT}{INDENT}> {seat_name(event.seat)} shows Schweinchen: both AD are "
                "the highest trumps (V3.2)"
            )
        elif isinstance(event, PovertyAnswered):
            answer = "takes the trumps" if event.accepted else "refuses"
            out(f"{INDENT}Armut: {seat_name(event.seat)} {answer} (V4.3)")
        elif isinstance(event, PovertyReturned):
            cards = "?" if event.cards is None else " ".join(c.value for c in event.cards)
            out(
                f"{INDENT}Armut: {seat_name(event.seat)} gives back {event.count} cards, "
                f"{event.trumps} trumps: {cards} (V4.4); re {seat_name(event.poor)} and "
                f"{seat_name(event.seat)} (V4.5)"
            )
        elif isinstance(event, DealScored):
            _score(event.score, out)
    if state is not None and state.score is None:
        poverty = state.poverty
        if state.phase is deal.Phase.POVERTY and poverty is not None and poverty.lapsed:
            out("")  # under V4.7 the game type follows at once: the deal is void
            out("(void: all refused the Armut; the same dealer deals it again, V4.8)")
            return "\n".join(lines) + "\n"
        flush()
        out("")
        turn = state.turn
        whose = f", {seat_name(turn)} to act" if turn is not None else ""
        out(f"(deal in progress: phase {state.phase.value}{whose})")
    return "\n".join(lines) + "\n"


def _declarer(state: DealState) -> Seat:
    assert state.declarer is not None
    return state.declarer


def _dealt(event: DealDealt, state: DealState, shown: GameType, out: _Out) -> None:
    out(
        f"Deal {event.deal_no}: dealer {seat_name(event.dealer)}, "
        f"{seat_name(state.first)} declares and leads first"
    )
    if event.forced is not UNSET:
        out(f"Vorführung (V6.7): {seat_name(event.forced)} must play the duty solo now")
    dealing = event.dealing
    if dealing.method == "seeded":
        out(f"Dealing: seeded, {dealing.algorithm}, seed {dealing.seed}")
        out(f"{INDENT}commitment {dealing.commitment}")
        if dealing.entropy:
            mixed = ", ".join(
                f"{seat_name(SEATS[i])} {e or '-'}" for i, e in enumerate(dealing.entropy)
            )
            out(f"{INDENT}mixed with the players' entropy: {mixed}")
    else:
        out(f"Dealing: {dealing.method}")
    if dealing.redeals:
        out(f"{INDENT}dealt again: redeal {dealing.redeals} (V4.8)")
    out("")
    out(f"Hands as dealt, sorted in the {game_type_name(shown)} order:")
    for seat in SEATS:
        out(f"{INDENT}{seat_name(seat)}  {hand_text(event.hands[seat], shown)}")


def _game_type(event: GameTypeFixed, state: DealState, out: _Out) -> None:
    out("")
    name = game_type_name(event.game_type)
    if event.declarer is None:
        out(f"Game type: {name}")
    else:
        out(f"Game type: {name}, declarer {seat_name(event.declarer)}")
    if event.duty_solo is True:
        out(f"{INDENT}a duty solo (V6.3): the soloist leads (V6.5), the dealer deals again (V6.6)")
    if event.game_type is GameType.MARRIAGE:
        out(f"{INDENT}re {seat_name(_declarer(state))}; the partner is found in tricks 1-3")
        return
    if event.game_type is GameType.POVERTY:
        assert state.poverty is not None
        given = " ".join(c.value for c in state.poverty.given) or "none"
        out(f"{INDENT}Armut offered, the trumps: {given} (V4.3)")
        return
    re = [s for s in SEATS if state.parties[s] is Party.RE]
    kontra = [s for s in SEATS if state.parties[s] is Party.KONTRA]
    why = {
        GameType.NORMAL: "the QC holders, R4.4",
        GameType.SILENT_SOLO: "both QC: a silent solo, R4.5",
    }.get(event.game_type, "the soloist, R5.1")
    out(f"{INDENT}re {seats_name(re)} ({why}); kontra {seats_name(kontra)}")


def _score(score: Score, out: _Out) -> None:
    out("")
    scored_as = "a solo" if score.solo else "a normal game"
    out(f"Score: {game_type_name(score.game_type)}, scored as {scored_as} (R7-R10)")
    for party in Party:
        seats = [s for s in SEATS if (s in score.re_seats) == (party is Party.RE)]
        level = score.levels[party]
        said = ", ".join(w.value for w in words_of(party, level)) or "-"
        out(
            f"{INDENT}{party.value:7} {seats_name(seats)}: {score.card_points[party]} card points, "
            f"{score.tricks[party]} tricks, announced {said}"
        )
    winner = score.winner.value if score.winner is not None else "none (R7.5)"
    out(f"{INDENT}winner  {winner}")
    for line in score.lines:
        out(f"{INDENT}{line.rule:5} {line.party.value:7} {signed(line.points)}  {line.reason}")
    out(f"{INDENT}value   {signed(score.value)} (from re's side)")
    entries = ", ".join(f"{seat_name(s)} {signed(score.entries[s])}" for s in SEATS)
    out(f"{INDENT}entries {entries}")
    if score.bock is True:
        out(f"{INDENT}a Bock deal: it counts double (V5.6)")
    if isinstance(score.bock_triggers, tuple):
        out(f"{INDENT}brings a Bock round (V5.1): {', '.join(score.bock_triggers)}")
    if score.duty_solo is True:
        out(f"{INDENT}a duty solo: not one of the session's counted deals (V6.6, V6.8)")


def render_session(events: Sequence[Event]) -> str:
    """Every deal of a session log, then the totals and the winners."""
    parts: list[str] = []
    for event in events:
        if isinstance(event, SessionStarted):
            duty = " and a duty solo each (V6.2)" if in_force(event.rules).duty_solo else ""
            parts.append(
                f"Session: {event.deals} deals{duty}, "
                f"first dealer {seat_name(event.first_dealer)}\n"
            )
    parts.extend(render_deal(d) for d in split_deals(events))
    for event in events:
        if isinstance(event, SessionFinished):
            totals = ", ".join(f"{seat_name(s)} {signed(event.totals[s])}" for s in SEATS)
            parts.append(f"Session finished: {totals}; winners {seats_name(event.winners)}\n")
    return "\n".join(parts)
