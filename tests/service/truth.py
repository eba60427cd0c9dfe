"""The truth of a table (its whole event log) and what each viewer may be shown of it.

`Truth` folds the stored events of a table into its state at every version;
`Auditor` checks everything the service delivered (recorded in a transcript of
`service.client.Received`) against that truth, with rules written out here
independently of `domain.table_view` and `domain.observations`:

* before a deal is scored nobody is shown another seat's hand: a seat's ``deal.hand``
  is exactly its remaining hand, a spectator's is empty, ``dealt`` and ``contracts``
  are null, the seed is not revealed, legal cards come from the own hand, and no card
  code appears anywhere in a payload unless the viewer holds it or it was played;
* a seat's party is shown to another viewer only once it announced or played a QC, or
  the game is a declared solo, a marriage (its declarer; everyone once clarified),
  a revealed silent solo, or the deal is scored;
* a silent solo is a normal game without declarer to all but its soloist until the
  soloist has played both QC;
* token and invitation hashes, server seeds, presets never leave the service; a named
  contract reaches its namer only, also when the turn clock's stand-in named it; a
  timeout names the action its seat takes in the events right after it (a card is then
  played in public); a stream delivers every event the viewer may see, as the viewer may
  see it (`domain.table_view.redact`), in version order, once;
* every ``deal_scored`` and ``session_finished`` message, and no other, carries the
  stored hash chain value of its version as ``chain_head`` (the witness of issue 12).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from domain.cards import Card
from domain.commands import NameContract
from domain.deal import DealState, Phase
from domain.events import (
    ContractNamed,
    DealDealt,
    DealScored,
    GameTypeFixed,
    SessionFinished,
)
from domain.game_types import SOLOS, GameType
from domain.observations import Options
from domain.replay import command_of
from domain.seats import SEATS, Seat
from domain.table import SeatAway, TableCreated, TableEvent, TableState, TurnTimedOut, evolve
from domain.table_view import TableView, redact
from infra.event_store import StoredEvent
from service.client import Received

CARD_CODES = frozenset(c.value for c in Card)
SECRET_KEYS = ("token_hash", "host_token_hash", "invitation_hash", "server_seeds", "presets")
WITNESSED = ("deal_scored", "session_finished")


class Truth:
    """A table's events and its state after each version (``states[v]``, ``events[v]``)."""

    def __init__(self, table_id: str, stored: Sequence[tuple[StoredEvent, TableEvent]]) -> None:
        self.table_id = table_id
        self.stored = [s for s, _ in stored]
        self.events: list[TableEvent | None] = [None, *(e for _, e in stored)]
        self.states: list[TableState] = [TableState()]
        for _, event in stored:
            self.states.append(evolve(self.states[-1], event))
        assert [s.version for s in self.stored] == list(range(1, len(self.stored) + 1))

    @property
    def version(self) -> int:
        return len(self.stored)

    def visible_versions(self, viewer: Seat | None) -> list[int]:
        """The versions a viewer's stream must deliver: all but those withheld from it."""
        return [v for v in range(1, self.version + 1) if redact(self.event(v), viewer) is not None]

    def event(self, version: int) -> TableEvent:
        event = self.events[version]
        assert event is not None
        return event


def played_cards(deal: DealState) -> list[Card]:
    tricks = [*deal.tricks, *([deal.trick] if deal.trick is not None else [])]
    return [c for t in tricks for c in t.cards]


def played_qc(deal: DealState, seat: Seat) -> int:
    """How many QC ``seat`` has played in this deal."""
    tricks = [*deal.tricks, *([deal.trick] if deal.trick is not None else [])]
    return sum(
        1 for t in tricks for i, c in enumerate(t.cards) if c is Card.QC and t.seat_of(i) is seat
    )


def silent_solo_hidden(deal: DealState, viewer: Seat | None) -> bool:
    """Whether this viewer must not see (yet) that the deal is a silent solo."""
    return (
        deal.game_type is GameType.SILENT_SOLO
        and deal.phase is not Phase.SCORED
        and viewer is not deal.declarer
        and deal.declarer is not None
        and played_qc(deal, deal.declarer) < 2
    )


def party_revealed(deal: DealState, seat: Seat, viewer: Seat | None) -> bool:
    """May ``viewer`` know the party of ``seat``? (Their own: always.)"""
    game = deal.game_type
    if seat is viewer or deal.phase is Phase.SCORED:
        return True
    if game is None:
        return False
    if any(a.seat is seat for a in deal.announcements) or played_qc(deal, seat) > 0:
        return True
    if game in SOLOS:
        return True
    if game is GameType.MARRIAGE:
        return deal.clarified_in is not None or seat is deal.declarer
    if game is GameType.SILENT_SOLO:
        return not silent_solo_hidden(deal, viewer)
    return False


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in CARD_CODES:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def secrets_in(value: Any, path: str = "$") -> list[str]:
    """Paths of non-empty secret fields (token hashes, server seeds, presets)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in SECRET_KEYS and item:
                found.append(f"{path}.{key}")
            found.extend(secrets_in(item, f"{path}.{key}"))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(secrets_in(item, f"{path}[{i}]"))
    return found


class Coverage(msgspec.Struct):
    """What the audit saw: so that a test can tell its checks were not vacuous."""

    views: int = 0
    stream_messages: int = 0
    feed_messages: int = 0
    hidden_hands_checked: int = 0
    parties_shown_to_others: int = 0
    parties_hidden_from_others: int = 0
    silent_solo_deals: int = 0
    silent_solo_hidden_views: int = 0
    silent_solo_revealed_views: int = 0
    silent_solo_hidden_events: int = 0
    contracts_named: int = 0
    chain_heads: int = 0
    timeouts: int = 0


class Auditor:
    """Checks a transcript against the truth; collects failures instead of stopping."""

    def __init__(self, truth: Truth) -> None:
        self.truth = truth
        self.failures: list[str] = []
        self.coverage = Coverage()

    def fail(self, where: str, message: str) -> None:
        if len(self.failures) < 50:
            self.failures.append(f"{where}: {message}")

    def expect(self, ok: bool, where: str, message: str) -> None:
        if not ok:
            self.fail(where, message)

    # -- everything delivered ------------------------------------------------------------

    def audit(self, transcript: Iterable[Received]) -> None:
        events = self.truth.events
        self.coverage.silent_solo_deals = sum(
            isinstance(e, GameTypeFixed) and e.game_type is GameType.SILENT_SOLO for e in events
        )
        self.coverage.contracts_named = sum(isinstance(e, ContractNamed) for e in events)
        streams: dict[tuple[str, Seat | None], list[int]] = {}
        for item in transcript:
            raw = msgspec.json.decode(item.body)
            where = f"{item.source} v{item.version} to {_who(item.viewer)}"
            self.expect(not secrets_in(raw), where, f"secret fields {secrets_in(raw)}")
            if item.source == "feed":
                if raw.get("table_id") != self.truth.table_id:
                    continue
                version = raw["version"]
                streams.setdefault(("feed", None), []).append(version)
                self.coverage.feed_messages += 1
                self.chain_head(version, raw.pop("chain_head", None), where)
                self.event_message(None, version, item.event, raw["event"], where)
            elif item.source == "sse":
                streams.setdefault(("sse", item.viewer), []).append(item.version)
                self.coverage.stream_messages += 1
                self.chain_head(item.version, raw.pop("chain_head", None), where)
                self.event_message(item.viewer, item.version, item.event, raw, where)
            else:
                view_raw = raw if item.source == "view" else raw["view"]
                self.coverage.views += 1
                self.view(item.viewer, item.version, view_raw, where)
        for (source, viewer), versions in streams.items():
            self.expect(
                versions == self.truth.visible_versions(viewer),
                f"{source} stream of {_who(viewer)}",
                f"delivered versions {_ranges(versions)}, "
                f"expected {_ranges(self.truth.visible_versions(viewer))}",
            )

    # -- views ---------------------------------------------------------------------------

    def view(self, viewer: Seat | None, version: int, raw: dict[str, Any], where: str) -> None:
        state = self.truth.states[version]
        view = msgspec.convert(raw, TableView)
        self.expect(view.viewer == viewer, where, f"view for {view.viewer}")
        deal = state.session.deal
        if deal is None:
            self.expect(view.deal is None, where, "a deal before any was dealt")
            self.expect(not cards_in(raw), where, f"cards {sorted(cards_in(raw))} before dealing")
            return
        seen = view.deal
        if seen is None:
            self.fail(where, "no deal shown")
            return
        self.expect(seen.deal_no == deal.deal_no, where, f"deal {seen.deal_no} shown")
        if deal.phase is Phase.SCORED:
            self.expect(seen.dealt == deal.dealt, where, "a scored deal's hands are public")
            return
        self.coverage.hidden_hands_checked += 1
        if viewer is None:
            self.expect(seen.hand == (), where, f"a spectator sees the hand {seen.hand}")
            self.expect(seen.options == Options(), where, "a spectator has options")
            self.expect(seen.own_contract is None, where, "a spectator has a contract")
        else:
            self.expect(
                Counter(seen.hand) == Counter(deal.hands[viewer]),
                where,
                f"hand {seen.hand}, but seat {int(viewer)} holds {deal.hands[viewer]}",
            )
            self.expect(
                set(seen.options.cards) <= set(deal.hands[viewer]),
                where,
                f"legal cards {seen.options.cards} outside the hand",
            )
            self.expect(seen.own_contract == deal.contracts[viewer], where, "another own_contract")
        self.expect(seen.dealt is None, where, "the dealt hands are shown")
        self.expect(seen.contracts is None, where, "everyone's contracts are shown")
        self.expect(seen.dealing.seed is None, where, "the seed is revealed before scoring")
        self.expect(seen.score is None, where, "a score before scoring")
        self.known_cards_only(viewer, deal, raw, where)
        for seat in SEATS:
            shown = seen.parties[seat]
            if shown is None:
                if seat is not viewer:
                    self.coverage.parties_hidden_from_others += 1
                continue
            self.expect(shown == deal.parties[seat], where, f"seat {int(seat)} shown {shown}")
            self.expect(
                party_revealed(deal, seat, viewer),
                where,
                f"seat {int(seat)}'s hidden party {shown} shown ({deal.game_type})",
            )
            if seat is not viewer:
                self.coverage.parties_shown_to_others += 1
        if deal.game_type is GameType.SILENT_SOLO:
            if silent_solo_hidden(deal, viewer):
                self.coverage.silent_solo_hidden_views += 1
                self.expect(
                    seen.game_type is GameType.NORMAL and seen.declarer is None,
                    where,
                    f"silent solo shown as {seen.game_type} by {seen.declarer}",
                )
            else:
                self.coverage.silent_solo_revealed_views += 1
                self.expect(
                    seen.game_type is GameType.SILENT_SOLO and seen.declarer is deal.declarer,
                    where,
                    f"a known silent solo shown as {seen.game_type} by {seen.declarer}",
                )
        elif deal.game_type is not None:
            self.expect(
                (seen.game_type, seen.declarer) == (deal.game_type, deal.declarer),
                where,
                f"game {seen.game_type}/{seen.declarer}, truly {deal.game_type}/{deal.declarer}",
            )

    def timeout(
        self, viewer: Seat | None, version: int, truth: TurnTimedOut, raw: Any, where: str
    ) -> None:
        """T3.2: the timeout's action is the one its seat takes next (after a `SeatAway`,
        at the third in a row); a contract is shown to its namer only (R4.3); a card is
        known as it is played."""
        self.coverage.timeouts += 1
        after = version + 1
        while isinstance(self.truth.event(after), SeatAway):
            after += 1
        follow = self.truth.event(after)
        action = truth.action
        self.expect(
            command_of(follow) == action,
            where,
            f"the timeout names {action}, the seat then {follow}",
        )
        if isinstance(action, NameContract) and viewer is not truth.seat:
            self.expect(raw["action"] is None, where, f"the stand-in's contract shown: {raw}")
        deal = self.truth.states[after].session.deal
        assert deal is not None
        self.known_cards_only(viewer, deal, raw, where)

    def known_cards_only(self, viewer: Seat | None, deal: DealState, raw: Any, where: str) -> None:
        """No card code the viewer neither holds(held) nor saw played."""
        known = {c.value for c in played_cards(deal)}
        if viewer is not None:
            known |= {c.value for c in deal.dealt[viewer]}
        leaked = cards_in(raw) - known
        self.expect(not leaked, where, f"cards {sorted(leaked)} of other hands shown")

    # -- stream events -------------------------------------------------------------------

    def chain_head(self, version: int, head: Any, where: str) -> None:
        record = self.truth.stored[version - 1]
        expected = record.hash.hex() if record.type in WITNESSED else None
        self.expect(head == expected, where, f"chain head {head}, stored {expected}")
        if expected is not None:
            self.coverage.chain_heads += 1

    def event_message(
        self, viewer: Seat | None, version: int, event_type: str | None, raw: Any, where: str
    ) -> None:
        truth = self.truth.event(version)
        expected = redact(truth, viewer)
        if expected is None:
            self.fail(where, f"a withheld {type(truth).__name__} was delivered")
            return
        self.expect(
            raw == msgspec.json.decode(msgspec.json.encode(expected)),
            where,
            f"delivered {raw}, expected {expected}",
        )
        self.expect(event_type == raw.get("type"), where, f"SSE event {event_type} for {raw}")
        kind = raw.get("type")
        state = self.truth.states[version]
        deal = state.session.deal
        if isinstance(truth, TableCreated):
            self.expect(
                not raw["server_seeds"] and not raw["presets"] and not raw["host_token_hash"],
                where,
                "table_created shows seeds, presets or the host token hash",
            )
        if kind == "seat_taken":
            self.expect(not raw["token_hash"], where, "seat_taken shows a token hash")
        if isinstance(truth, ContractNamed):
            self.expect(truth.seat is viewer, where, "a contract reached another than its namer")
        if isinstance(truth, TurnTimedOut):
            self.timeout(viewer, version, truth, raw, where)
            return
        if isinstance(truth, DealDealt):
            for seat in SEATS:
                hand = raw["hands"][seat]
                if seat is viewer:
                    self.expect(
                        Counter(hand) == Counter(c.value for c in truth.hands[seat]),
                        where,
                        "own hand differs",
                    )
                else:
                    self.expect(hand == [], where, f"seat {int(seat)}'s hand shown: {hand}")
            self.expect(raw["dealing"]["seed"] is None, where, "the seed of a new deal shown")
        if (
            isinstance(truth, GameTypeFixed)
            and truth.game_type is GameType.SILENT_SOLO
            and viewer is not truth.declarer
        ):
            self.coverage.silent_solo_hidden_events += 1
            self.expect(
                raw["game_type"] == "normal" and raw["declarer"] is None,
                where,
                f"silent solo shown as {raw}",
            )
        if isinstance(truth, DealScored | SessionFinished) or deal is None:
            if deal is None:
                self.expect(not cards_in(raw), where, "cards before any deal")
            return
        self.known_cards_only(viewer, deal, raw, where)


def _who(viewer: Seat | None) -> str:
    return "public" if viewer is None else f"seat {int(viewer)}"


def _ranges(versions: Sequence[int]) -> str:
    if len(versions) <= 12:
        return str(list(versions))
    return f"[{versions[0]}..{versions[-1]}] ({len(versions)})"
