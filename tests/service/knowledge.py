"""What each viewer may know of a table: an oracle built from the full log read as plain JSON.

Written from RULES.md, independently of `domain.table_view` and `domain.observations`
(the code under test). The log is the stored events' JSON payloads, never decoded through
the domain. `RULES` says, per event type, what a viewer is shown of the event (`shown`)
and what the event adds to the table's facts (`fold`), from which the views are expected:

* secrets never leave the service: token and invitation hashes, server seeds and preset
  hands are blanked in every event; a deal's seed is not shown in its ``deal_dealt`` (R2.2:
  revealed once the deal is scored, in the deal's record and in views of the scored deal);
* ``deal_dealt`` shows the viewer its own hand only (a spectator none);
* ``contract_named`` shows its contract to its namer only (R4.3: a contract that lost
  priority stays hidden): every other viewer is told that the seat named one, ``contract``
  null; the action of a ``turn_timed_out`` that names a contract is null to the others too
  (T3.2);
* ``game_type_fixed`` of a silent solo is a normal game without declarer to all but the
  soloist (R4.5);
* an Armut (V4): the trumps offered move to the seat that accepts (``poverty_answered``,
  public), and the cards it gives back (``poverty_returned``) are shown to the two of the
  Armut only: the others see ``cards`` null (V4.6), and so is a timeout's giving back to
  all but its seat; a deal's view names the exchanged cards to the two only (or once the
  deal is scored), to the others how many went each way and how many trumps came back;
* everything else (declarations, cards played, tricks, announcements (R6.8), marriage
  clarification, Schweinchen shown (V3.1), scores (R4.3: a scored deal is public), the
  session's end, the table's life: visibility and turn clock (T1.1, T3.1), that an
  invitation was replaced (T1.2: the new code's hash is a secret like every other), seats
  left (T2), timeouts with their declaration or card (T3.2), seats away and back (T3.3),
  closing and abandoning (T4)) is public;
* every viewer's table stream carries every event (no version is left out); the messages of
  ``deal_scored`` and ``session_finished`` (`EventRule.witnessed`), and no other, carry the
  stored hash chain value of their version as ``chain_head`` (a witness,
  `infra.audit.witness`); every table stream message also says what the table asks once its
  event happened (`PROMPT`: whose turn, its clock, the seat's options), which follows from
  the rules of play, not from what may be known: the audit checks it apart, as it does a
  view's turn and options; the feed leaves private tables out (T1.1);
* every view and stream message carries ``server_time``, the service's clock when it
  answered: it tells nothing of the table, so any time is expected as long as it is one
  (an RFC 3339 date-time in UTC: `with_server_time`); a view's life ``actions`` are public to
  the role that asked (a seat's player, the host) and follow from the facts by T1.2 and
  T2-T4 (`expected_actions`).

An event type without an entry in `RULES` fails the audit (`UnknownEvent`): a new event
needs its line there, e.g. ``"table_renamed": EventRule(public, fold=_renamed)``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import msgspec

Json = dict[str, Any]
Viewer = int | None

QC = "QC"
NORMAL_TRUMPS = frozenset(
    ["10H", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AD", "10D", "KD", "9D"]
)
"""R3.1: the trumps of a normal game (V4.1: an Armut offers the hand's trumps)."""
NOT_DECLARED_SOLOS = ("normal", "marriage", "silent_solo")
"""Game types that are not a solo declared for everyone to see (R4.2, R4.5)."""


class UnknownEvent(AssertionError):
    """An event type the oracle has no rule for: teach it one in `RULES`."""


# -- the facts of a table, folded from its log ---------------------------------------------


@dataclass
class Deal:
    """One deal's facts, everything the log says (including what some may not see)."""

    deal_no: int
    dealer: int
    dealt: list[list[str]]
    dealing: Json
    declarations: list[str | None] = field(default_factory=lambda: [None] * 4)
    contracts: list[str | None] = field(default_factory=lambda: [None] * 4)
    game_type: str | None = None
    declarer: int | None = None
    played: list[tuple[int, str]] = field(default_factory=list)
    tricks: list[Json] = field(default_factory=list)
    trick: list[tuple[int, str]] = field(default_factory=list)
    announcements: list[Json] = field(default_factory=list)
    clarified_in: int | None = None
    partner: int | None = None
    schweinchen: int | None = None
    bock: bool = False
    rules: Json | None = None
    duty_owed: list[int] | None = None
    """V6.2: the seats owing their duty solo when the deal began (public; None without)."""
    forced: int | None = None
    duty_solo: bool = False
    score: Json | None = None
    poverty: Json | None = None
    """V4: ``poor``, the trumps ``given``, who ``refused``, the ``partner`` and the cards
    ``returned`` (None until given back)."""
    played_by: list[list[str]] = field(default_factory=lambda: [[], [], [], []])
    """By seat, everyone who held the seat during the deal, in order (T2.2)."""

    def hand(self, seat: int) -> list[str]:
        """What ``seat`` holds now: its dealt hand, with an Armut's cards moved (V4.3,
        V4.4), less the cards it played."""
        left = list(self.dealt[seat])
        for source, target, cards in self.exchanged():
            for card in cards:
                if seat == source:
                    left.remove(card)
                elif seat == target:
                    left.append(card)
        for who, card in self.played:
            if who == seat:
                left.remove(card)
        return left

    def exchanged(self) -> list[tuple[int, int, list[str]]]:
        """V4.3, V4.4: the Armut's moves of cards so far, (from, to, cards)."""
        p = self.poverty
        if p is None or p["partner"] is None:
            return []
        moves = [(p["poor"], p["partner"], p["given"])]
        if p["returned"] is not None:
            moves.append((p["partner"], p["poor"], p["returned"]))
        return moves

    def sees_exchange(self, viewer: Viewer) -> bool:
        """V4.6: the two of the Armut see its cards; everyone once the deal is scored."""
        p = self.poverty
        seat = viewer is not None and viewer in (p["poor"], p["partner"]) if p else False
        return p is not None and (self.scored or seat)

    def qc_played_by(self, seat: int) -> int:
        return sum(1 for who, card in self.played if who == seat and card == QC)

    def re_seats(self) -> set[int]:
        """R5: Re is the QC holders in a normal game, the soloist in a solo (also a silent
        one), the marriage declarer with the partner found (or alone)."""
        if self.game_type == "normal":
            return {s for s in range(4) if QC in self.dealt[s]}
        assert self.declarer is not None, self.game_type
        if self.game_type == "poverty":  # V4.5: the poor player and its partner
            assert self.poverty is not None
            return {self.declarer, self.poverty["partner"]} - {None}
        partner = (
            {self.partner} if self.game_type == "marriage" and self.partner is not None else set()
        )
        return {self.declarer} | partner

    def party(self, seat: int) -> str:
        return "re" if seat in self.re_seats() else "kontra"

    @property
    def scored(self) -> bool:
        return self.score is not None

    def silent_solo_hidden(self, viewer: Viewer) -> bool:
        """R4.5: a silent solo looks like a normal game to all but its soloist until the
        soloist has played both QC (or the deal is scored)."""
        return (
            self.game_type == "silent_solo"
            and not self.scored
            and viewer != self.declarer
            and self.declarer is not None
            and self.qc_played_by(self.declarer) < 2
        )

    def seen_game(self, viewer: Viewer) -> tuple[str | None, int | None]:
        """The game type and declarer as the viewer knows them."""
        if self.silent_solo_hidden(viewer):
            return "normal", None
        return self.game_type, self.declarer

    def party_known(self, seat: int, viewer: Viewer) -> bool:
        """R4.4, R6.8: may the viewer know ``seat``'s party? Before the game type is fixed
        nobody's; then in a solo (as the viewer sees it) everyone's; in a marriage the
        declarer's, and everyone's once clarified (R4.6); in a normal game the viewer's own
        and those who announced or played a QC; everyone's once the deal is scored."""
        game, declarer = self.seen_game(viewer)
        if self.scored:
            return True
        if game is None:
            return False
        if game == "poverty":  # V4.5: known to all once the cards are given back
            assert self.poverty is not None
            return self.poverty["returned"] is not None or seat == declarer
        if game not in NOT_DECLARED_SOLOS or game == "silent_solo":
            return True
        if game == "marriage":
            return self.clarified_in is not None or seat == declarer
        return (
            seat == viewer
            or any(a["seat"] == seat for a in self.announcements)
            or self.qc_played_by(seat) > 0
        )


@dataclass
class Table:
    """A table's facts after some version of its log."""

    created: Json | None = None
    seats: list[Json | None] = field(default_factory=lambda: [None] * 4)
    away: list[bool] = field(default_factory=lambda: [False] * 4)
    started: bool = False
    first_dealer: int | None = None
    deals: int = 12
    sheet: list[list[int]] = field(default_factory=list)
    winners: list[int] | None = None
    deal: Deal | None = None
    closed: bool = False
    abandoned: bool = False
    timeouts: list[int] = field(default_factory=lambda: [0] * 4)
    rules: Json | None = None
    bock_pending: int = 0
    """V5.1, V5.7: the Bock deals still to come (a round of 4 per deal that met a trigger,
    queued)."""
    owed: list[int] = field(default_factory=list)
    """V6.2, V6.3: the seats that have not yet played their duty solo."""

    @property
    def status(self) -> str:
        """T4.1, T4.2, R1.3: closed before it started, abandoned, finished (after the last
        deal), playing (the session started), or open (seats free)."""
        if self.closed:
            return "closed"
        if self.abandoned:
            return "abandoned"
        if self.winners is not None:
            return "finished"
        return "playing" if self.started else "open"

    def seat_status(self, seat: int) -> str:
        """T2.1, T2.2, T3.3: an empty seat is free before the session and vacant during
        it; a seated player is away after three timeouts in a row until they act again."""
        if self.seats[seat] is None:
            return "vacant" if self.started else "free"
        return "away" if self.away[seat] else "seated"


# -- the rules: what a viewer is shown of each event, and what the event adds --------------

Shown = Callable[[Json, Viewer], Json | None]
Fold = Callable[[Table, Json], None]


def public(event: Json, viewer: Viewer) -> Json:
    return event


def blanked(*secrets: str) -> Shown:
    """The event with the secret fields emptied (an empty value of the same JSON type)."""

    def shown(event: Json, viewer: Viewer) -> Json:
        return {**event, **{key: type(event[key])() for key in secrets if key in event}}

    return shown


def own_hand_only(event: Json, viewer: Viewer) -> Json:
    """R2.2: the viewer's own hand, no other, and not the seed."""
    hands = [hand if seat == viewer else [] for seat, hand in enumerate(event["hands"])]
    return {**event, "hands": hands, "dealing": {**event["dealing"], "seed": None}}


def contract_to_its_namer(event: Json, viewer: Viewer) -> Json:
    """R4.3: a named contract is shown to its namer only; the others are told that the seat
    named one."""
    return event if event["seat"] == viewer else {**event, "contract": None}


def contract_action_to_its_seat(event: Json, viewer: Viewer) -> Json:
    """T3.2, R4.3, V4.6: a timeout's action is public, but a contract named, or cards given
    back, for the seat reach that seat only (to the others the action is null)."""
    action = event["action"]
    secret = ("name_contract", "return_poverty")
    if action is not None and action["command"] in secret and event["seat"] != viewer:
        return {**event, "action": None}
    return event


def returned_to_the_two(event: Json, viewer: Viewer) -> Json:
    """V4.6: the cards given back in an Armut reach its two players only."""
    return event if viewer in (event["seat"], event["poor"]) else {**event, "cards": None}


def silent_solo_as_normal(event: Json, viewer: Viewer) -> Json:
    """R4.5: a silent solo is a normal game without declarer to all but the soloist."""
    if event["game_type"] == "silent_solo" and event["declarer"] != viewer:
        return {**event, "game_type": "normal", "declarer": None}
    return event


def _nothing(table: Table, event: Json) -> None:
    return None


def _created(table: Table, event: Json) -> None:
    table.created = event
    rules = event.get("rules", {})  # R1.1: 12 deals; V6.1, V6.6: N, and 4 duty solos
    table.deals = rules.get("session_deals", 12) + (4 if rules.get("duty_solo") is True else 0)


def _seated(table: Table, event: Json) -> None:
    """R1.1, T2.2: a newcomer during a deal plays on with the seat's cards."""
    seat = event["seat"]
    table.seats[seat], table.away[seat], table.timeouts[seat] = event, False, 0
    if table.deal is not None and not table.deal.scored:
        table.deal.played_by[seat].append(event["name"])


def _left(table: Table, event: Json) -> None:
    table.seats[event["seat"]], table.away[event["seat"]] = None, False
    table.timeouts[event["seat"]] = 0


def _timed_out(table: Table, event: Json) -> None:
    """T3.3: the seat's timeouts in a row, counted until its player is back."""
    table.timeouts[event["seat"]] += 1


def _away(table: Table, event: Json) -> None:
    table.away[event["seat"]] = True


def _back(table: Table, event: Json) -> None:
    table.away[event["seat"]], table.timeouts[event["seat"]] = False, 0


def _closed(table: Table, event: Json) -> None:
    table.closed = True


def _abandoned(table: Table, event: Json) -> None:
    """T4.2: the session ends with the deals scored so far and their totals."""
    table.abandoned = True
    totals = [sum(row[s] for row in table.sheet) for s in range(4)]
    assert (event["deals"], event["totals"]) == (len(table.sheet), totals), event


DECLARED_SOLOS = (
    "diamonds_solo",
    "hearts_solo",
    "spades_solo",
    "clubs_solo",
    "queen_solo",
    "jack_solo",
    "fleischlos",
)
"""R5: the solos named after `reservation` (V6.3: only these are duty solos)."""


def _started(table: Table, event: Json) -> None:
    table.started = True
    table.first_dealer = event["first_dealer"]
    table.rules = event.get("rules")
    assert event["deals"] == (table.rules or {}).get("session_deals", 12), event  # V6.1
    table.owed = [0, 1, 2, 3] if (table.rules or {}).get("duty_solo") is True else []


def _dealt(table: Table, event: Json) -> None:
    table.deal = Deal(event["deal_no"], event["dealer"], event["hands"], event["dealing"])
    table.deal.rules, table.deal.bock = table.rules, table.bock_pending > 0
    if (table.rules or {}).get("duty_solo") is True:  # V6.2, V6.7: public
        table.deal.duty_owed, table.deal.forced = list(table.owed), event.get("forced")
    table.deal.played_by = [[] if p is None else [p["name"]] for p in table.seats]


def _deal(table: Table) -> Deal:
    assert table.deal is not None, "a deal event before any deal"
    return table.deal


def _declared(table: Table, event: Json) -> None:
    _deal(table).declarations[event["seat"]] = event["declaration"]


def _named(table: Table, event: Json) -> None:
    _deal(table).contracts[event["seat"]] = event["contract"]


def _fixed(table: Table, event: Json) -> None:
    deal = _deal(table)
    deal.game_type, deal.declarer = event["game_type"], event["declarer"]
    deal.duty_solo = event.get("duty_solo", False) is True
    owing = deal.declarer in (deal.duty_owed or []) and deal.game_type in DECLARED_SOLOS
    assert deal.duty_solo is owing, event  # V6.3, V6.4
    if deal.game_type == "poverty":  # V4.3: the poor player's trumps are offered
        trumps = [c for c in deal.hand(deal.declarer) if c in NORMAL_TRUMPS]
        deal.poverty = {
            "poor": deal.declarer,
            "given": trumps,
            "refused": [],
            "partner": None,
            "returned": None,
        }


def _answered(table: Table, event: Json) -> None:
    poverty = _deal(table).poverty
    assert poverty is not None, "an answer to no Armut"
    if event["accepted"]:
        poverty["partner"] = event["seat"]
    else:
        poverty["refused"].append(event["seat"])


def _returned(table: Table, event: Json) -> None:
    poverty = _deal(table).poverty
    assert poverty is not None and poverty["partner"] == event["seat"], event
    assert event["poor"] == poverty["poor"] and event["count"] == len(poverty["given"]), event
    assert event["trumps"] == sum(c in NORMAL_TRUMPS for c in event["cards"]), event
    poverty["returned"] = event["cards"]


def _played(table: Table, event: Json) -> None:
    deal = _deal(table)
    deal.played.append((event["seat"], event["card"]))
    deal.trick.append((event["seat"], event["card"]))


def _won(table: Table, event: Json) -> None:
    deal = _deal(table)
    cards = [card for _, card in deal.trick]
    deal.tricks.append(
        {
            "leader": deal.trick[0][0],
            "cards": cards,
            "winner": event["winner"],
            "points": event["points"],
        }
    )
    deal.trick = []


def _clarified(table: Table, event: Json) -> None:
    deal = _deal(table)
    deal.clarified_in, deal.partner = event["trick_no"], event["partner"]


def _schweinchen(table: Table, event: Json) -> None:
    _deal(table).schweinchen = event["seat"]


def _announced(table: Table, event: Json) -> None:
    _deal(table).announcements.append(event)


def _scored(table: Table, event: Json) -> None:
    deal = _deal(table)
    deal.score = event
    table.sheet.append(event["score"]["entries"])
    re_seats = sorted(deal.re_seats())
    assert event["score"]["re_seats"] == re_seats, (event["score"]["re_seats"], re_seats)
    assert event["score"].get("bock", False) is deal.bock, event  # V5.6
    brought = 4 if event["score"].get("bock_triggers") else 0
    table.bock_pending = table.bock_pending - deal.bock + brought  # V5.1, V5.7
    assert event["score"].get("duty_solo", False) is deal.duty_solo, event  # V6.8
    if deal.duty_solo:
        table.owed.remove(deal.declarer)


def _finished(table: Table, event: Json) -> None:
    table.winners = event["winners"]


@dataclass(frozen=True)
class EventRule:
    """What a viewer is shown of an event of one type, what it adds to the facts, and
    whether its message carries the chain head of its version (``witnessed``, a witness:
    `infra.audit.witness`)."""

    shown: Shown
    fold: Fold = _nothing
    witnessed: bool = False


RULES: dict[str, EventRule] = {
    "table_created": EventRule(
        blanked("server_seeds", "presets", "host_token_hash", "invitation_hash"), fold=_created
    ),
    "seat_taken": EventRule(blanked("token_hash"), fold=_seated),
    "seat_left": EventRule(public, fold=_left),
    "invitation_rotated": EventRule(blanked("invitation_hash")),
    "turn_timed_out": EventRule(contract_action_to_its_seat, fold=_timed_out),
    "seat_away": EventRule(public, fold=_away),
    "seat_back": EventRule(public, fold=_back),
    "table_closed": EventRule(public, fold=_closed),
    "session_abandoned": EventRule(public, fold=_abandoned),
    "session_started": EventRule(public, fold=_started),
    "deal_dealt": EventRule(own_hand_only, fold=_dealt),
    "declared": EventRule(public, fold=_declared),
    "contract_named": EventRule(contract_to_its_namer, fold=_named),
    "game_type_fixed": EventRule(silent_solo_as_normal, fold=_fixed),
    "card_played": EventRule(public, fold=_played),
    "trick_won": EventRule(public, fold=_won),
    "marriage_clarified": EventRule(public, fold=_clarified),
    "announced": EventRule(public, fold=_announced),
    "schweinchen_shown": EventRule(public, fold=_schweinchen),  # V3.1: shown to everyone
    "poverty_answered": EventRule(public, fold=_answered),  # V4.3
    "poverty_returned": EventRule(returned_to_the_two, fold=_returned),  # V4.6
    "deal_scored": EventRule(public, fold=_scored, witnessed=True),
    "session_finished": EventRule(public, fold=_finished, witnessed=True),
}


def rule(event: Json) -> EventRule:
    found = RULES.get(event.get("type", ""))
    if found is None:
        raise UnknownEvent(
            f"the oracle has no rule for event type {event.get('type')!r}: "
            "add one to tests.service.knowledge.RULES"
        )
    return found


def shown(event: Json, viewer: Viewer) -> Json | None:
    """The event as ``viewer`` (None: a spectator) must receive it; None: withheld."""
    return rule(event).shown(event, viewer)


PROMPT = ("turn", "clock", "options")
"""The members of a table stream message that say what the table asks once its event
happened (the rules of play: the audit checks them apart, `tests.service.truth`)."""


def without_prompt(received: Json) -> Json:
    """A table stream message's data without its `PROMPT` members."""
    return {k: v for k, v in received.items() if k not in PROMPT}


def message(event: Json, viewer: Viewer, chain_head: str) -> Json | None:
    """A table stream's message of the event (``chain_head``: the stored hash at its
    version) but its `PROMPT`: the event as the viewer may see it, with the chain head if it
    is witnessed."""
    seen = shown(event, viewer)
    if seen is None or not rule(event).witnessed:
        return seen
    return {**seen, "chain_head": chain_head}


def feed_item(
    created: Json, table_id: str, version: int, event: Json, chain_head: str
) -> Json | None:
    """The feed's message of a table's event (``created``: the table's first event): none
    of a private table (T1.1), else the event as a spectator sees it, with its table and
    version, and the chain head if it is witnessed."""
    seen = shown(event, None)
    if seen is None or created.get("visibility") == "private":
        return None
    item = {"table_id": table_id, "version": version, "event": seen}
    return {**item, "chain_head": chain_head} if rule(event).witnessed else item


TURN_ACTIONS = {
    "declare": "declared",
    "name_contract": "contract_named",
    "play_card": "card_played",
    "answer_poverty": "poverty_answered",
    "return_poverty": "poverty_returned",
}
"""A turn's action (the command's tag) and the event that records it being taken."""
PAST = {"accept": "accepted"}
"""A command's member that its event names in the past tense (V4.3)."""


def takes(action: Json, event: Json) -> bool:
    """Whether ``event`` records the turn action ``action`` (same seat, same choice)."""
    choice = {PAST.get(key, key): value for key, value in action.items() if key != "command"}
    return event.get("type") == TURN_ACTIONS[action["command"]] and all(
        event.get(key) == value for key, value in choice.items()
    )


# -- a table's log and the views expected of it ----------------------------------------------


class Log:
    """A table's events as plain JSON (``events[v]`` for version v) and its facts after each
    version (``facts[v]``)."""

    def __init__(self, payloads: list[Json]) -> None:
        self.events: list[Json] = [{}, *payloads]
        table = Table()
        self.facts: list[Table] = [copy.deepcopy(table)]
        for event in payloads:
            rule(event).fold(table, event)
            self.facts.append(copy.deepcopy(table))

    def secrets(self, version: int) -> set[str]:
        """Strings that nobody may be shown at this version: every token and invitation
        hash logged so far (also of seats left since), and the server seeds of the deals
        not scored yet (R2.2)."""
        table = self.facts[version]
        created = table.created or {}
        hashes = {
            event[key]
            for event in self.events[1 : version + 1]
            for key in ("token_hash", "host_token_hash", "invitation_hash")
            if key in event
        }
        seeds = set(created.get("server_seeds", ())[len(table.sheet) :])
        return (hashes | seeds) - {""}

    def taken_at(self, version: int) -> int | None:
        """T3.2, T3.3: the version where the action of the timeout at ``version`` was
        taken: the next event, or the one after the seat's `seat_away`; None if it was not."""
        timed_out = self.events[version]
        after = version + 1
        while after < len(self.events) and self.events[after].get("type") == "seat_away":
            after += 1
        if after < len(self.events) and takes(timed_out["action"], self.events[after]):
            return after
        return None


def dealing_method(created: Json) -> str:
    """R2.2: preset hands, seeds chosen by the host, or server seeds."""
    if created["presets"]:
        return "preset"
    return "host_seeded" if created["shared_seeds"] else "seeded"


def expected_clock(table: Table, turn: int | None, last_event_at: datetime | None) -> Json | None:
    """T3.1-T3.3: the running turn clock: none without ``turn_seconds``, without a seat to
    act (``turn``, as the rules of play have it) or once the table is no longer playing;
    else that seat, its grace (``turn_seconds``, 0 for an away seat) and its deadline, the
    grace after the table's last event (``last_event_at``, as the log recorded it)."""
    created = table.created
    assert created is not None
    seconds = created.get("turn_seconds")
    if seconds is None or turn is None or table.status != "playing":
        return None
    grace = 0 if table.away[turn] else seconds
    deadline = None if last_event_at is None else last_event_at + timedelta(seconds=grace)
    return {"seat": turn, "seconds": grace, "deadline": msgspec.to_builtins(deadline)}


SERVER_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
"""An RFC 3339 date-time in UTC, as the service writes one."""


def with_server_time(expected: Json | None, got: Any) -> Json | None:
    """``expected`` with the ``server_time`` of what was received (``got``), if it is a
    time in UTC: it reveals nothing, and any moment is the service's to tell; if it is not
    one, a placeholder that no message matches."""
    if expected is None:
        return None
    told = got.get("server_time") if isinstance(got, dict) else None
    ok = isinstance(told, str) and SERVER_TIME.fullmatch(told)
    return {**expected, "server_time": told if ok else "an RFC 3339 time in UTC"}


def _permission(action: str, refusal: tuple[str, str] | None, seat: int | None = None) -> Json:
    code, rule_id = refusal or (None, None)
    allowed = refusal is None
    return {"action": action, "allowed": allowed, "code": code, "rule": rule_id, "seat": seat}


def expected_actions(table: Table, seat: Viewer, host: bool, turn: int | None) -> list[Json]:
    """The life actions of the player of ``seat`` (leave, come back) and of the ``host``
    (vacate each seat, close, abandon, replace the invitation), each allowed or refused
    with its code and rule, by T1.2, T2-T4 (a closed table refuses all by T4.1, an
    abandoned one by T4.2; ``turn``: the seat to act); none for a spectator."""
    created = table.created
    assert created is not None
    over = ("phase_closed", "T4.1") if table.closed else None
    over = ("session_over", "T4.2") if table.abandoned else over
    finished = table.winners is not None
    running = table.started and not finished
    found = []
    if seat is not None:
        leave = ("session_over", "T2.2") if finished else None
        leave = leave or (("leave_on_turn", "T2.3") if turn == seat else None)
        back = None if running else ("phase_closed", "T3.3")
        back = back or (("not_away", "T3.3") if not table.timeouts[seat] else None)
        found += [_permission("leave", over or leave), _permission("come_back", over or back)]
    if host:
        for s, player in enumerate(table.seats):
            vacate = ("seat_vacant", "T2.1") if player is None else None
            if player is not None and not (player["bot"] or table.away[s]):
                vacate = ("seat_occupied", "T2.4")
            vacate = ("session_over", "T2.2") if finished else vacate
            found.append(_permission("vacate", over or vacate, s))
        close = ("phase_closed", "T4.1") if table.started else None
        abandon = None if table.started else ("phase_closed", "T4.2")
        abandon = ("session_over", "T4.2") if finished else abandon
        public_table = created.get("visibility", "public") == "public"
        rotate = ("table_public", "T1.2") if public_table else None
        found += [
            _permission("close", over or close),
            _permission("abandon", over or abandon),
            _permission("rotate_invitation", over or rotate),
        ]
    return found


def expected_view(
    table: Table,
    viewer: Viewer,
    turn: int | None,
    last_event_at: datetime | None,
    actions: list[Json] | None = None,
    version: int = 0,
) -> Json:
    """Every field of a table view as the viewer may see it, but ``deal.phase``,
    ``deal.turn``, ``deal.trick_leader`` and ``deal.options`` (which follow from the rules of
    play, not from what may be known: the audit checks them apart) and ``deal.hand`` (its
    order is the view's choice: the audit compares it as a multiset). The clock needs the
    seat to act (``turn``, from the rules of play) and the time of the last event; the
    life ``actions`` are the asker's (`expected_actions`; none: a spectator's); ``version``
    is the table version the view shows. The ``server_time`` is added from what was received
    (`with_server_time`)."""
    created = table.created
    assert created is not None
    sheet = table.sheet
    return {
        "name": created["name"],
        "viewer": viewer,
        "seats": [
            {
                "seat": s,
                "name": None if p is None else p["name"],
                "bot": None if p is None else p["bot"] or None,
                "status": table.seat_status(s),
            }
            for s, p in enumerate(table.seats)
        ],
        "commitments": created["commitments"],
        "preset": bool(created["presets"]),
        "dealing_method": dealing_method(created),
        "first_dealer": table.first_dealer,
        "deals": table.deals,
        "deal": None if table.deal is None else expected_deal(table.deal, viewer),
        "scoresheet": sheet,
        "totals": [sum(row[s] for row in sheet) for s in range(4)],
        "winners": table.winners,
        "status": table.status,
        "visibility": created.get("visibility", "public"),
        "turn_seconds": created.get("turn_seconds"),
        "clock": expected_clock(table, turn, last_event_at),
        "actions": actions or [],
        "version": version,
        **({"rules": created["rules"]} if "rules" in created else {}),
    }


def expected_deal(deal: Deal, viewer: Viewer) -> Json:
    """A deal as the viewer may see it (see `expected_view` for the fields left out)."""
    game, declarer = deal.seen_game(viewer)
    scored = deal.scored
    return {
        "viewer": viewer,
        "deal_no": deal.deal_no,
        "dealer": deal.dealer,
        "hand_sizes": [len(deal.hand(s)) for s in range(4)],
        "declarations": deal.declarations,
        "own_contract": None if viewer is None else deal.contracts[viewer],
        "game_type": game,
        "declarer": declarer,
        "parties": [deal.party(s) if deal.party_known(s, viewer) else None for s in range(4)],
        "marriage_clarified_in": deal.clarified_in,
        "trick": [card for _, card in deal.trick],
        "tricks": deal.tricks,
        "announcements": deal.announcements,
        "dealing": deal.dealing if scored else {**deal.dealing, "seed": None},
        "dealt": deal.dealt if scored else None,
        "contracts": deal.contracts if scored else None,
        "score": deal.score,
        **({} if deal.rules is None else {"rules": deal.rules}),
        **({} if deal.schweinchen is None else {"schweinchen": deal.schweinchen}),
        **({"bock": True} if deal.bock else {}),
        **({} if deal.poverty is None else {"poverty": expected_poverty(deal, viewer)}),
        **({} if deal.duty_owed is None else {"duty_owed": deal.duty_owed}),
        **({} if deal.forced is None else {"forced": deal.forced}),
        **({"duty_solo": True} if deal.duty_solo else {}),
    }


def expected_poverty(deal: Deal, viewer: Viewer) -> Json:
    """V4.6: an Armut as the viewer may see it: counts to all, the cards to the two (and to
    all once scored); what is not (yet) there left out."""
    p = deal.poverty
    assert p is not None
    seen: Json = {"poor": p["poor"], "given": len(p["given"])}
    if p["refused"]:
        seen["refused"] = p["refused"]
    if p["partner"] is not None:
        seen["partner"] = p["partner"]
    back = p["returned"]
    if back is not None:
        seen["returned"] = len(back)
        seen["returned_trumps"] = sum(c in NORMAL_TRUMPS for c in back)
    if deal.sees_exchange(viewer):
        seen["given_cards"] = p["given"]
        if back is not None:
            seen["returned_cards"] = back
    return seen


RULES_OF_PLAY = ("phase", "turn", "trick_leader", "options", "hand")
"""Deal fields `expected_deal` leaves to the audit's own checks."""


def differences(got: Any, expected: Any, path: str = "$") -> list[str]:
    """Where two JSON values differ, field by field (``path: got ... expected ...``)."""
    if isinstance(got, dict) and isinstance(expected, dict):
        found = []
        for key in sorted(got.keys() | expected.keys()):
            if key not in expected:
                found.append(f"{path}.{key}: unexpected field {got[key]!r}")
            elif key not in got:
                found.append(f"{path}.{key}: missing (expected {expected[key]!r})")
            else:
                found.extend(differences(got[key], expected[key], f"{path}.{key}"))
        return found
    if isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected):
        return [
            d
            for i, (g, e) in enumerate(zip(got, expected, strict=True))
            for d in differences(g, e, f"{path}[{i}]")
        ]
    if got != expected or type(got) is not type(expected):
        return [f"{path}: got {got!r}, expected {expected!r}"]
    return []


# -- tournaments: what a player at one table of a round may know of the others (E5.3) -----

TOURNAMENT_SECRETS = (
    "seating_seed",
    "round_seeds",
    "presets",
    "host_token_hash",
    "invitation_hash",
)
"""The fields of ``event_created`` nobody is shown (E1.2: the seating seed until
``event_finished`` reveals it, the deal seeds with their deals; E2.1: hashes)."""
TOURNAMENT_RULES: dict[str, Shown] = {
    "event_created": blanked(*TOURNAMENT_SECRETS),
    "player_registered": blanked("token_hash"),
    "player_removed": public,
    "registration_ended": public,
    "round_seated": public,
    "round_started": public,
    "table_ended": public,
    "deal_published": public,  # E6.6: recorded once the deal is public (E5.3)
    "round_ended": public,
    "event_finished": public,
}
"""What anyone allowed to see a tournament is shown of each event of its stream (an event type
without an entry fails: `event_shown`)."""


def event_shown(event: Json) -> Json:
    """An event of a tournament's stream as its stream must show it."""
    found = TOURNAMENT_RULES.get(event.get("type", ""))
    if found is None:
        raise UnknownEvent(f"the oracle has no rule for event type {event.get('type')!r}")
    shown = found(event, None)
    assert shown is not None
    return shown


def table_over(table: Table) -> bool:
    """T4, R1.3: nothing more happens at the table."""
    return table.status in ("finished", "abandoned", "closed")


def public_deals(tables: list[Table]) -> int:
    """E5.3: how many deals of a round are public, the round's tables being ``tables``
    (their facts at one moment): deal n once every table has scored it or is over; none
    before some table has scored it."""
    scored = max((len(t.sheet) for t in tables), default=0)
    count = 0
    while count < scored and all(len(t.sheet) > count or table_over(t) for t in tables):
        count += 1
    return count
