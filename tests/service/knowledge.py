"""What each viewer may know of a table: an oracle built from the full log read as plain JSON.

Written from RULES.md, independently of `domain.table_view` and `domain.observations`
(the code under test). The log is the stored events' JSON payloads, never decoded through
the domain. `RULES` says, per event type, what a viewer is shown of the event (`shown`)
and what the event adds to the table's facts (`fold`), from which the views are expected:

* secrets never leave the service: token hashes, server seeds and preset hands are blanked
  in every event; a deal's seed is not shown in its ``deal_dealt`` (R2.2: revealed once
  the deal is scored, in the deal's record and in views of the scored deal);
* ``deal_dealt`` shows the viewer its own hand only (a spectator none);
* ``contract_named`` reaches its namer only (R4.3: a contract that lost priority stays hidden);
* ``game_type_fixed`` of a silent solo is a normal game without declarer to all but the
  soloist (R4.5);
* everything else (declarations, cards played, tricks, announcements (R6.8), marriage
  clarification, scores (R4.3: a scored deal is public), the session's end) is public.

An event type without an entry in `RULES` fails the audit (`UnknownEvent`): a new event
needs its line there, e.g. ``"table_renamed": EventRule(public, fold=_renamed)``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]
Viewer = int | None

QC = "QC"
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
    score: Json | None = None

    def hand(self, seat: int) -> list[str]:
        """What ``seat`` holds now: its dealt hand less the cards it played."""
        left = list(self.dealt[seat])
        for who, card in self.played:
            if who == seat:
                left.remove(card)
        return left

    def qc_played_by(self, seat: int) -> int:
        return sum(1 for who, card in self.played if who == seat and card == QC)

    def re_seats(self) -> set[int]:
        """R5: Re is the QC holders in a normal game, the soloist in a solo (also a silent
        one), the marriage declarer with the partner found (or alone)."""
        if self.game_type == "normal":
            return {s for s in range(4) if QC in self.dealt[s]}
        assert self.declarer is not None, self.game_type
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
    first_dealer: int | None = None
    deals: int = 12
    sheet: list[list[int]] = field(default_factory=list)
    winners: list[int] | None = None
    deal: Deal | None = None


# -- the rules: what a viewer is shown of each event, and what the event adds --------------

Shown = Callable[[Json, Viewer], Json | None]
Fold = Callable[[Table, Json], None]


def public(event: Json, viewer: Viewer) -> Json:
    return event


def blanked(*secrets: str) -> Shown:
    """The event with the secret fields emptied (an empty value of the same JSON type)."""

    def shown(event: Json, viewer: Viewer) -> Json:
        return {**event, **{key: type(event[key])() for key in secrets}}

    return shown


def own_hand_only(event: Json, viewer: Viewer) -> Json:
    """R2.2: the viewer's own hand, no other, and not the seed."""
    hands = [hand if seat == viewer else [] for seat, hand in enumerate(event["hands"])]
    return {**event, "hands": hands, "dealing": {**event["dealing"], "seed": None}}


def namer_only(event: Json, viewer: Viewer) -> Json | None:
    """R4.3: a named contract reaches its namer only."""
    return event if event["seat"] == viewer else None


def silent_solo_as_normal(event: Json, viewer: Viewer) -> Json:
    """R4.5: a silent solo is a normal game without declarer to all but the soloist."""
    if event["game_type"] == "silent_solo" and event["declarer"] != viewer:
        return {**event, "game_type": "normal", "declarer": None}
    return event


def _nothing(table: Table, event: Json) -> None:
    return None


def _created(table: Table, event: Json) -> None:
    table.created = event


def _seated(table: Table, event: Json) -> None:
    table.seats[event["seat"]] = event


def _started(table: Table, event: Json) -> None:
    table.first_dealer, table.deals = event["first_dealer"], event["deals"]


def _dealt(table: Table, event: Json) -> None:
    table.deal = Deal(event["deal_no"], event["dealer"], event["hands"], event["dealing"])


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


def _announced(table: Table, event: Json) -> None:
    _deal(table).announcements.append(event)


def _scored(table: Table, event: Json) -> None:
    deal = _deal(table)
    deal.score = event
    table.sheet.append(event["score"]["entries"])
    re_seats = sorted(deal.re_seats())
    assert event["score"]["re_seats"] == re_seats, (event["score"]["re_seats"], re_seats)


def _finished(table: Table, event: Json) -> None:
    table.winners = event["winners"]


@dataclass(frozen=True)
class EventRule:
    """What a viewer is shown of an event of one type, and what it adds to the facts."""

    shown: Shown
    fold: Fold = _nothing


RULES: dict[str, EventRule] = {
    "table_created": EventRule(
        blanked("server_seeds", "presets", "host_token_hash"), fold=_created
    ),
    "seat_taken": EventRule(blanked("token_hash"), fold=_seated),
    "session_started": EventRule(public, fold=_started),
    "deal_dealt": EventRule(own_hand_only, fold=_dealt),
    "declared": EventRule(public, fold=_declared),
    "contract_named": EventRule(namer_only, fold=_named),
    "game_type_fixed": EventRule(silent_solo_as_normal, fold=_fixed),
    "card_played": EventRule(public, fold=_played),
    "trick_won": EventRule(public, fold=_won),
    "marriage_clarified": EventRule(public, fold=_clarified),
    "announced": EventRule(public, fold=_announced),
    "deal_scored": EventRule(public, fold=_scored),
    "session_finished": EventRule(public, fold=_finished),
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
        """Strings that nobody may be shown at this version: token hashes, and the server
        seeds of the deals not scored yet (R2.2)."""
        table = self.facts[version]
        created = table.created or {}
        hashes = {created.get("host_token_hash", "")} | {
            s["token_hash"] for s in table.seats if s is not None
        }
        seeds = set(created.get("server_seeds", ())[len(table.sheet) :])
        return (hashes | seeds) - {""}


def dealing_method(created: Json) -> str:
    """R2.2: preset hands, seeds chosen by the host, or server seeds."""
    if created["presets"]:
        return "preset"
    return "host_seeded" if created["shared_seeds"] else "seeded"


def expected_view(table: Table, viewer: Viewer) -> Json:
    """Every field of a table view as the viewer may see it, but ``deal.phase``,
    ``deal.turn``, ``deal.trick_leader`` and ``deal.options`` (which follow from the rules of
    play, not from what may be known: the audit checks them apart) and ``deal.hand`` (its
    order is the view's choice: the audit compares it as a multiset)."""
    created = table.created
    assert created is not None
    sheet = table.sheet
    return {
        "name": created["name"],
        "viewer": viewer,
        "seats": [
            {"seat": s, "name": p["name"], "bot": p["bot"] or None}
            if p is not None
            else {"seat": s, "name": None, "bot": None}
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
    }


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
