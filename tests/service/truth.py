"""The truth of a table (its whole event log) and an audit of what the service delivered.

`Truth` holds a table's stored events; `Auditor` checks everything the service delivered
(recorded in a transcript of `service.tools.client.Received`) against the oracle of
`tests.service.knowledge`, which reads the log as plain JSON and knows, independently of
`domain.table_view`, what each viewer may be shown:

* every stream and feed message equals, field by field, the logged event as the viewer
  may see it (`knowledge.message`, `knowledge.feed_item`), with the stored hash chain value
  of its version as ``chain_head`` on ``deal_scored`` and ``session_finished`` and on no
  other (a witness, `infra.audit.witness`); each viewer's stream delivers every version, in
  order, once (a contract another seat named too, without it: R4.3); the feed every
  version of a public table and nothing of a private one (T1.1);
* every table stream message says what the table asks once its event happened
  (`knowledge.PROMPT`): ``turn`` is the seat to act by the domain's fold of the log (as a
  view's), ``clock`` the oracle's clock of that turn (as a view's), and on a seat's stream
  ``options`` lie within the seat's hand and offer a turn's action exactly when it is the
  seat's turn (a spectator's: null); and wherever a seat fetched its view at a version, its
  stream's message of that version said the view's turn and options: a client that reads
  only its stream is told every turn of its seat, and every word it may still announce
  (`Auditor.turns`);
* a timeout names the action its seat then takes (T3.2: the next event, after a
  ``seat_away`` at the third in a row), so the card it names is public as it is played;
* every view equals, field by field, the view expected of the log at its version
  (`knowledge.expected_view`); the fields that follow from the rules of play (phase, turn,
  the leader of an empty trick) are compared with the domain's fold of the log, the hand
  as a multiset, and the options must lie within the viewer's hand and turn (Schweinchen
  offered exactly to the holder of both AD on its turn where the table plays them); the turn
  clock's seat is that turn, its deadline the log's time of the last event plus the grace;
  the life actions are those the log's facts allow the asker (`knowledge.expected_actions`:
  a seat's player, the host, none for a spectator), with the seat to act from that fold;
* every view and message carries a ``server_time`` in UTC (`knowledge.with_server_time`);
* and, whatever the field: no string the viewer may not know (token and invitation hashes,
  the server seeds of deals not yet scored) and no card code it neither holds nor saw
  played.

Every stream and feed message is also held against the streams' schemas of the OpenAPI
document as committed (`tests.service.stream_schemas`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from domain.cards import Card
from domain.seats import SEATS
from domain.table import TableState, evolve
from infra.event_store import StoredEvent
from infra.tables import CODEC
from service.tools.client import (
    Received,
)
from tests.service.knowledge import (
    PROMPT,
    RULES_OF_PLAY,
    Deal,
    Json,
    Log,
    Viewer,
    differences,
    event_shown,
    expected_actions,
    expected_clock,
    expected_view,
    feed_item,
    message,
    public_deals,
    with_server_time,
    without_prompt,
)
from tests.service.stream_schemas import STREAM_SCHEMAS

CARD_CODES = frozenset(c.value for c in Card)
SECRET_KEYS = ("token_hash", "host_token_hash", "invitation_hash", "server_seeds", "presets")
"""Fields that hold what nobody is shown (of any table: for answers the log cannot
attribute to one table, such as the lobby)."""


class Truth:
    """A table's stored events: as plain JSON (``log``) and folded by the domain
    (``states[v]``, for the rules of play only)."""

    def __init__(self, table_id: str, stored: Sequence[StoredEvent]) -> None:
        self.table_id = table_id
        self.stored = list(stored)
        assert [s.version for s in self.stored] == list(range(1, len(self.stored) + 1))
        self.log = Log([msgspec.json.decode(s.payload) for s in self.stored])
        self.states: list[TableState] = [TableState()]
        for record in self.stored:
            self.states.append(evolve(self.states[-1], CODEC.from_stored(record)))

    @property
    def version(self) -> int:
        return len(self.stored)

    def deal(self, version: int) -> Deal | None:
        return self.log.facts[version].deal

    def chain_head(self, version: int) -> str:
        """The hash chain value stored with the event at ``version`` (hex)."""
        return self.stored[version - 1].hash.hex()

    def message(self, version: int, viewer: Viewer) -> Json | None:
        """The table stream's message at ``version`` as ``viewer`` must receive it."""
        return message(self.log.events[version], viewer, self.chain_head(version))

    def feed_item(self, version: int) -> Json | None:
        """The feed's message of the event at ``version``; None: not in the feed."""
        created = self.log.events[1]
        event = self.log.events[version]
        return feed_item(created, self.table_id, version, event, self.chain_head(version))

    def visible_versions(self, viewer: Viewer) -> list[int]:
        """The versions a viewer's stream must deliver: every one (R4.3: a contract another
        seat named is delivered too, without it)."""
        return list(range(1, self.version + 1))

    def feed_versions(self) -> list[int]:
        """The versions the feed must deliver (none of a private table)."""
        return [v for v in range(1, self.version + 1) if self.feed_item(v) is not None]


AD_TRUMP = ("normal", "marriage", "silent_solo", "diamonds_solo")
"""R3.1, R5.2: the game types where AD is a trump (V3.3: only there are Schweinchen)."""


def strings_in(value: Any) -> set[str]:
    """Every string anywhere in a JSON value (keys too)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def known_cards(deal: Deal, viewer: Viewer) -> set[str]:
    """The cards a viewer holds or held, those played, and an Armut's cards to its two
    (V4.6)."""
    known = {card for _, card in deal.played}
    if deal.sees_exchange(viewer):
        known |= {card for _, _, cards in deal.exchanged() for card in cards}
    return known | set(deal.dealt[viewer]) if viewer is not None else known


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value."""
    return strings_in(value) & CARD_CODES


def secrets_in(value: Any, path: str = "$") -> list[str]:
    """Paths of non-empty secret fields (`SECRET_KEYS`) anywhere in a JSON value."""
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
    contracts_hidden: int = 0
    prompts: int = 0
    turns_told: int = 0
    views_told: int = 0
    chain_heads: int = 0
    timeouts: int = 0
    clocks: int = 0
    actions: int = 0


class Auditor:
    """Checks a transcript against the truth; collects failures instead of stopping."""

    def __init__(self, truth: Truth) -> None:
        self.truth = truth
        self.failures: list[str] = []
        self.coverage = Coverage()
        self.told: dict[tuple[int, int], Json] = {}
        """(seat, version) -> the prompt that seat's stream sent with that version."""
        self.asked: dict[tuple[int, int], tuple[Json, str]] = {}
        """(seat, version) -> a view of that seat at that version: its turn and options."""

    def fail(self, where: str, message: str) -> None:
        if len(self.failures) < 50:
            self.failures.append(f"{where}: {message}")

    def expect(self, ok: bool, where: str, message: str) -> None:
        if not ok:
            self.fail(where, message)

    def audit(self, transcript: Iterable[Received]) -> None:
        events = self.truth.log.events
        self.coverage.silent_solo_deals = sum(
            e.get("type") == "game_type_fixed" and e["game_type"] == "silent_solo" for e in events
        )
        self.coverage.contracts_named = sum(e.get("type") == "contract_named" for e in events)
        streams: dict[tuple[str, Viewer], list[int]] = {}
        for item in transcript:
            raw = msgspec.json.decode(item.body)
            viewer = None if item.viewer is None else int(item.viewer)
            where = f"{item.source} v{item.version} to {_who(viewer)}"
            self.expect(not secrets_in(raw), where, f"secret fields {secrets_in(raw)}")
            if item.source == "feed":
                if raw.get("table_id") != self.truth.table_id:
                    continue
                version = raw["version"]
                streams.setdefault(("feed", None), []).append(version)
                self.coverage.feed_messages += 1
                expected = with_server_time(self.truth.feed_item(version), raw)
                self.event_message(None, version, item.event, raw, expected, where)
            elif item.source == "sse":
                streams.setdefault(("sse", viewer), []).append(item.version)
                self.coverage.stream_messages += 1
                expected = with_server_time(self.truth.message(item.version, viewer), raw)
                self.prompt(viewer, item.version, raw, where)
                self.event_message(
                    viewer, item.version, item.event, without_prompt(raw), expected, where
                )
            else:
                view_raw = raw if item.source == "view" else raw["view"]
                self.coverage.views += 1
                self.secrets(item.version, raw, where)
                self.view(viewer, item.version, view_raw, where, host=item.host)
        for (source, viewer), versions in streams.items():
            if source == "feed":
                due = self.truth.feed_versions()
            else:
                due = self.truth.visible_versions(viewer)
            self.expect(
                versions == due,
                f"{source} stream of {_who(viewer)}",
                f"delivered versions {_ranges(versions)}, expected {_ranges(due)}",
            )
        self.turns()
        for failure in STREAM_SCHEMAS.failures(transcript):
            self.fail("openapi", failure)

    def secrets(self, version: int, raw: Any, where: str) -> None:
        leaked = strings_in(raw) & self.truth.log.secrets(version)
        self.expect(
            not leaked, where, f"secret strings (token or invitation hashes, seeds) shown: {leaked}"
        )

    def known_cards_only(self, viewer: Viewer, version: int, raw: Any, where: str) -> None:
        """No card code the viewer neither holds (held) nor saw played, unless scored."""
        deal = self.truth.deal(version)
        cards = strings_in(raw) & CARD_CODES
        if deal is None:
            self.expect(not cards, where, f"cards {sorted(cards)} before any deal")
        elif not deal.scored:
            leaked = cards - known_cards(deal, viewer)
            self.expect(not leaked, where, f"cards {sorted(leaked)} of other hands shown")

    # -- stream events -------------------------------------------------------------------

    def event_message(
        self,
        viewer: Viewer,
        version: int,
        event_type: str | None,
        raw: Any,
        expected: Json | None,
        where: str,
    ) -> None:
        """A stream or feed message against the one ``expected`` of the log."""
        logged = self.truth.log.events[version]
        if expected is None:
            self.fail(where, f"a withheld {logged['type']} was delivered")
            return
        for difference in differences(raw, expected):
            self.fail(where, f"{logged['type']} {difference}")
        self.expect(event_type == logged["type"], where, f"SSE event {event_type} for {raw}")
        if "chain_head" in expected and raw.get("chain_head") == expected["chain_head"]:
            self.coverage.chain_heads += 1
        self.secrets(version, raw, where)
        if logged["type"] == "turn_timed_out":
            self.timeout(viewer, version, raw, where)
        else:
            self.known_cards_only(viewer, version, raw, where)
        if (
            logged["type"] == "game_type_fixed"
            and logged["game_type"] == "silent_solo"
            and viewer != logged["declarer"]
        ):
            self.coverage.silent_solo_hidden_events += 1
        if logged["type"] == "contract_named" and viewer != logged["seat"]:
            self.coverage.contracts_hidden += raw.get("contract", "") is None

    # -- turns ---------------------------------------------------------------------------

    def prompt(self, viewer: Viewer, version: int, raw: Json, where: str) -> None:
        """R3.6, R4.1, R4.2, R6, T3.2: what a table stream message says the table asks once
        its event happened: the seat the rules have to act (the domain's fold of the log,
        nobody once the table is over), its clock (the oracle's, as in views) and, on a
        seat's stream, the seat's options: within its hand, a turn's action exactly when it
        is its turn (a spectator's stream: none)."""
        if not all(k in raw for k in PROMPT):
            self.fail(where, f"no {[k for k in PROMPT if k not in raw]}")
            return
        self.coverage.prompts += 1
        state = self.truth.states[version]
        turn = None if state.turn is None else int(state.turn)
        self.expect(raw["turn"] == turn, where, f"turn {raw['turn']}, the rules have {turn}")
        recorded_at = self.truth.stored[version - 1].recorded_at
        clock = expected_clock(self.truth.log.facts[version], turn, recorded_at)
        self.expect(raw["clock"] == clock, where, f"clock {raw['clock']}, expected {clock}")
        options = raw["options"]
        if viewer is None:
            self.expect(options is None, where, f"a spectator's options {options}")
            return
        if not isinstance(options, dict):
            self.fail(where, f"options {options!r}")
            return
        deal = self.truth.deal(version)
        hand = deal.hand(viewer) if deal is not None else []
        acts = any(options.get(k) for k in ("declarations", "contracts", "cards")) or any(
            k in options
            for k in ("answer_poverty", "return_cards")  # V4.3, V4.4
        )
        self.expect(acts == (turn == viewer), where, f"options {options} with turn {turn}")
        self.expect(
            set(options.get("cards", ())) <= set(hand),
            where,
            f"legal cards {options.get('cards')} outside the hand",
        )
        self.told[(viewer, version)] = {"turn": raw["turn"], "options": options}

    def turns(self) -> None:
        """Wherever a seat fetched its view while the table was playing, its stream's message
        of that version said the view's turn and options (when the stream was recorded that
        far): what a client would do on its view, its stream alone told it."""
        for key, (asked, where) in self.asked.items():
            told = self.told.get(key)
            if told is None:
                continue
            self.coverage.views_told += 1
            for difference in differences(told, asked):
                self.fail(where, f"the stream's message of this version: {difference}")
            if asked["turn"] == key[0]:
                self.coverage.turns_told += 1

    def timeout(self, viewer: Viewer, version: int, raw: Any, where: str) -> None:
        """T3.2: the timeout's action is the one its seat takes next (after a `seat_away` at
        the third in a row); the card it names is known as it is played."""
        self.coverage.timeouts += 1
        taken = self.truth.log.taken_at(version)
        if taken is None:
            self.fail(where, f"the timeout's action {raw.get('action')} is not the seat's next")
            return
        self.known_cards_only(viewer, taken, raw, where)

    # -- views ---------------------------------------------------------------------------

    def view(
        self, viewer: Viewer, version: int, raw: dict[str, Any], where: str, *, host: bool
    ) -> None:
        table = self.truth.log.facts[version]
        state = self.truth.states[version].session.deal
        turn = None if state is None or state.turn is None else int(state.turn)
        recorded_at = self.truth.stored[version - 1].recorded_at
        actions = expected_actions(table, viewer, host, self.truth.states[version].turn)
        if actions:
            self.coverage.actions += 1
        expected = with_server_time(
            expected_view(table, viewer, turn, recorded_at, actions, version), raw
        )
        assert expected is not None
        if expected["clock"] is not None:
            self.coverage.clocks += 1
        seen = raw.get("deal")
        compared = dict(raw)
        if isinstance(seen, dict):
            compared["deal"] = {k: v for k, v in seen.items() if k not in RULES_OF_PLAY}
        for difference in differences(compared, expected):
            self.fail(where, difference)
        self.known_cards_only(viewer, version, raw, where)
        deal = table.deal
        if deal is None or not isinstance(seen, dict):
            return
        self.rules_of_play(viewer, version, seen, deal, where)
        if viewer is not None and table.status == "playing":
            self.asked[(viewer, version)] = (
                {"turn": seen.get("turn"), "options": seen.get("options")},
                where,
            )
        if deal.scored:
            return
        self.coverage.hidden_hands_checked += 1
        for seat in SEATS:
            if seat != viewer:
                if seen["parties"][seat] is None:
                    self.coverage.parties_hidden_from_others += 1
                else:
                    self.coverage.parties_shown_to_others += 1
        if deal.game_type == "silent_solo":
            if deal.silent_solo_hidden(viewer):
                self.coverage.silent_solo_hidden_views += 1
            else:
                self.coverage.silent_solo_revealed_views += 1

    def rules_of_play(
        self, viewer: Viewer, version: int, seen: dict[str, Any], deal: Deal, where: str
    ) -> None:
        """Phase, turn and the trick's leader as the domain's fold of the log has them; the
        hand (as a multiset) as the log has it; options within the viewer's hand and turn."""
        state = self.truth.states[version].session.deal
        assert state is not None
        self.expect(seen.get("phase") == state.phase.value, where, f"phase {seen.get('phase')}")
        self.expect(seen.get("turn") == state.turn, where, f"turn {seen.get('turn')}")
        leader = state.trick.leader if state.trick is not None else None
        self.expect(seen.get("trick_leader") == leader, where, "another trick leader")
        hand = deal.hand(viewer) if viewer is not None else []
        self.expect(
            Counter(seen.get("hand", ())) == Counter(hand),
            where,
            f"hand {seen.get('hand')}, but {_who(viewer)} holds {sorted(hand)}",
        )
        options = seen.get("options", {})
        may_show = (  # V3.1, V3.3: on its turn in the play, holding both AD where AD is trump
            viewer is not None
            and state.turn == viewer
            and (deal.rules or {}).get("schweinchen") is True
            and deal.game_type in AD_TRUMP
            and deal.schweinchen is None
            and hand.count("AD") == 2
        )
        poverty = deal.poverty if state.phase.value == "poverty" else None
        asked = (  # V4.3: the seat whose answer the Armut waits for
            poverty is not None and poverty["partner"] is None and viewer == state.turn
        )
        giving = viewer is not None and poverty is not None and poverty["partner"] == viewer
        self.expect(
            set(options)
            == {"declarations", "contracts", "cards", "announcements"}
            | ({"schweinchen"} if may_show else set())
            | ({"answer_poverty"} if asked else set())
            | ({"return_cards"} if giving else set()),
            where,
            f"options {options}",
        )
        self.expect(options.get("schweinchen", False) is may_show, where, f"options {options}")
        if giving:
            assert poverty is not None
            self.expect(options.get("return_cards") == len(poverty["given"]), where, "return_cards")
        if viewer is None or state.turn != viewer:
            for kind in ("declarations", "contracts", "cards"):
                self.expect(not options.get(kind), where, f"{kind} offered out of turn")
        if viewer is None:
            self.expect(not options.get("announcements"), where, "a spectator may announce")
        self.expect(
            set(options.get("cards", ())) <= set(hand),
            where,
            f"legal cards {options.get('cards')} outside the hand",
        )


TOURNAMENT_SOURCES = ("event_created", "tournament", "tournament_sse")
"""What a client receives from a tournament's routes and stream (`service.tools.client`)."""


class RoundAuditor:
    """Checks what a player at one table of a tournament's round was delivered by the tournament
    (its routes' answers and its stream: `TOURNAMENT_SOURCES`) against the logs of the tournament
    and of the round's tables, read as plain JSON, at one moment (the tables' logs as given):

    * E5.3: no string the player may not know: no token or invitation hash of any table
      or of the tournament, no seed of a deal the player's table has not scored (the seeds are
      the round's, shared by its tables), no seating seed before the tournament is finished;
    * no card code of the deal in play at the player's table that the player neither
      holds nor saw played there, but in a comparison of a deal (`compareDeal`), which
      must be of a public deal;
    * E6.5: standings count no deal of the round that is not public;
    * every message of the tournament's stream with an event's id (a global position) shows
      that event of the tournament's log as `knowledge.event_shown` has it, with its chain
      head.

    Each table's own answers (views, its stream) are the table's `Auditor`'s."""

    def __init__(
        self,
        tournament_log: Sequence[StoredEvent],
        tables: Sequence[Truth],
        table: int,
        seat: int,
        round_no: int = 1,
    ) -> None:
        self.round_no = round_no
        facts = [t.log.facts[t.version] for t in tables]
        self.public = public_deals(facts)
        own = facts[table].deal
        self.known = known_cards(own, seat) if own is not None and not own.scored else None
        self.events = {e.position: e for e in tournament_log}
        payloads = [msgspec.json.decode(e.payload) for e in tournament_log]
        created = payloads[0]
        finished = any(p["type"] == "event_finished" for p in payloads)
        own_log = tables[table].log
        self.secrets = _hashes(payloads) | own_log.secrets(tables[table].version)
        for other in tables:
            self.secrets |= _hashes(other.log.events[1:])
        if not finished:
            self.secrets.add(created["seating_seed"])
        self.failures: list[str] = []
        self.checked = 0
        self.cards_checked = 0

    def fail(self, where: str, message: str) -> None:
        self.failures.append(f"{where}: {message}")

    def audit(self, transcript: Iterable[Received]) -> None:
        for item in transcript:
            if item.source not in TOURNAMENT_SOURCES:
                continue
            self.checked += 1
            raw = msgspec.json.decode(item.body)
            where = f"{item.source} {item.event or ''} {item.version}".strip()
            leaked = strings_in(raw) & self.secrets
            if leaked:
                self.fail(where, f"secret strings shown (E5.3): {sorted(leaked)}")
            if isinstance(raw, dict) and "tables" in raw and "deal_no" in raw:
                if raw["deal_no"] > self.public:
                    self.fail(where, f"deal {raw['deal_no']} compared before it is public")
            elif self.known is not None:
                self.cards_checked += 1
                shown = cards_in(raw) - self.known
                if shown:
                    self.fail(where, f"cards {sorted(shown)} the player may not know (E5.3)")
            standings = raw.get("standings", raw) if isinstance(raw, dict) else None
            if isinstance(standings, dict) and "public_deals" in standings:
                counted = standings["public_deals"][self.round_no - 1 : self.round_no]
                if counted and counted[0] > self.public:
                    self.fail(where, f"standings count {counted[0]} deals, {self.public} public")
            if item.source == "tournament_sse" and item.version in self.events:
                self.event_message(item.version, raw, where)

    def event_message(self, position: int, raw: Any, where: str) -> None:
        record = self.events[position]
        if record.type != raw.get("type"):
            return  # the standings after it (the same id)
        expected = {
            **event_shown(msgspec.json.decode(record.payload)),
            "chain_head": record.hash.hex(),
        }
        for difference in differences(raw, expected):
            self.fail(where, difference)


def _hashes(payloads: Iterable[Json]) -> set[str]:
    """Every token and invitation hash in these events."""
    keys = ("token_hash", "host_token_hash", "invitation_hash")
    return {p[k] for p in payloads for k in keys if p.get(k)}


def _who(viewer: Viewer) -> str:
    return "public" if viewer is None else f"seat {int(viewer)}"


def _ranges(versions: Sequence[int]) -> str:
    if len(versions) <= 12:
        return str(list(versions))
    return f"[{versions[0]}..{versions[-1]}] ({len(versions)})"
