"""Audit of a table's log: is every deal fair, every event lawful, every score right?

`verify_events` checks one table's stored events (pure; no database):

``decode``      every payload decodes as a table event;
``chain``       the SHA-256 hash chain is intact (`infra.hash_chain.verify_chain`);
``replay``      the rules, re-deciding every recorded action, produce exactly the
                stored events (`domain.replay.replay` over `domain.replay.TABLE`);
``clock``       every timeout's deadline is the one the log implies: the time recorded
                for the event before it plus the table's ``turn_seconds`` (nothing for
                an away seat, T3.2, T3.3); the replay checked that the clock's reading
                had reached it;

and for each deal:

``commitment``  (seeded) the commitment published when the table was created is
                the SHA-256 of the server seed revealed with the deal;
``hands``       (seeded) the seed, mixed with the players' entropy, reproduces the
                hands (`domain.dealing.verify_deal`); (preset) the hands are the
                preset ones of the table;
``replay``      the deal's events are inside the replay's valid prefix;
``score``       the recorded `Score` equals one recomputed from the deal's tricks
                and announcements (`domain.deal.final_score`: `domain.scoring.score`,
                and by the table's Bock rounds, V5);
``chain``       no event of the deal breaks the hash chain.

Every failed check names the version of the first bad event. A `TableReport`
(`infra.audit.report`) is ``ok`` when every check passed. `verify_table` reads the log
from the database; an export file is checked with the same code (`infra.audit.export`).

An abandoned session (T4.2) is audited like a finished one: its scored deals
fully, the deal it was abandoned in as far as it went.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from domain import table, turn_clock
from domain.deal import DealState, final_score
from domain.dealing import verify_deal
from domain.events import DealDealt, DealScored
from domain.replay import Aggregate, Replay, replay
from domain.table import (
    TableEvent,
    TableState,
    TurnTimedOut,
)
from infra.audit.deals import ENDS
from infra.audit.disclosure import (
    redecided,
    replay_start,
    resume_after_withheld,
    withheld,
)
from infra.audit.report import Check, DealReport, TableReport
from infra.event_store import StoredEvent
from infra.hash_chain import GENESIS, V1, links, stretches, verify_chain
from infra.tables import CODEC, TableNotFound, Tables


def decode_events(stored: Sequence[StoredEvent]) -> tuple[list[TableEvent], Check]:
    """Decode stored events up to the first that does not decode; the ``decode`` check."""
    events: list[TableEvent] = []
    for record in stored:
        try:
            events.append(CODEC.from_stored(record))
        except Exception as error:
            return events, Check(
                "decode",
                False,
                f"version {record.version} ({record.type}) does not decode: {error}",
                record.version,
            )
    return events, Check("decode", True, f"{len(events)} events")


def chain_breaks(stored: Sequence[StoredEvent]) -> list[int]:
    """Every version whose hash does not match its payload, or that is missing."""
    bad: list[int] = []
    previous, expected, chain = GENESIS, 1, V1
    for record in stored:
        if record.version != expected:
            bad.append(expected)
        if not links(previous, chain, record):
            bad.append(record.version)
        previous, expected, chain = record.hash, record.version + 1, max(chain, record.chain)
    return bad


def chain_versions(stored: Sequence[StoredEvent]) -> str:
    """Which chain version each stretch of the log was linked by, e.g. ``v1 for versions
    1-40, v2 for 41-120`` (`infra.hash_chain`: v1 does not cover the time)."""
    return ", ".join(
        f"v{chain} for version{'s' if first != last else ''} {first}"
        + (f"-{last}" if first != last else "")
        for chain, first, last in stretches(stored)
    )


def _replay(events: Sequence[TableEvent]) -> tuple[int | None, str]:
    """The index of the first event the rules do not produce (None: all do) and why.

    An index equal to ``len(events)`` means the log ends where the rules produce more.
    A log whose seeds are sealed is replayed from the table's creation
    (`infra.audit.disclosure.replay_start`), and on after a deal whose seed is withheld
    (`infra.audit.disclosure.resume_after_withheld`).
    """
    start, aggregate, refused = replay_start(events)
    if refused is not None:
        return 0, refused
    while True:
        rest = events[start:]
        try:
            result: Replay[TableState] = replay(rest, aggregate)
        except Exception:
            index, why = _crash(rest, aggregate)
            return start + index, why
        if result.error is None:
            return None, ""
        resumed = resume_after_withheld(rest, result, aggregate)
        if resumed is None:
            return start + _pinpoint(rest, result, aggregate), str(result.error)
        skipped, aggregate = resumed
        start += skipped


def _pinpoint(
    events: Sequence[TableEvent], result: Replay[TableState], aggregate: Aggregate[TableState]
) -> int:
    """Which event of the failing command's batch differs from what the rules produce."""
    i = result.valid
    expected = redecided(events, result, aggregate)
    for offset, want in enumerate(expected or ()):
        if i + offset >= len(events) or events[i + offset] != want:
            return i + offset
    return i


def _crash(events: Sequence[TableEvent], aggregate: Aggregate[TableState]) -> tuple[int, str]:
    """The replay raised (an event the rules cannot even read): find it by bisection."""
    low, high = 0, len(events)  # replay(events[:low]) runs; replay(events[:high]) raises
    while high - low > 1:
        middle = (low + high) // 2
        try:
            replay(events[:middle], aggregate)
        except Exception:
            high = middle
        else:
            low = middle
    try:
        replay(events[:high], aggregate)
    except Exception as error:
        return high - 1, f"the rules cannot apply this event: {error!r}"
    return high - 1, "the rules cannot apply this event"


class _Deal:
    """A deal being audited: its events' indices and the state just before it was scored."""

    def __init__(self, dealt: DealDealt, start: int) -> None:
        self.dealt = dealt
        self.start = start
        self.end = start
        self.scored: DealScored | None = None
        self.before_score: DealState | None = None
        self.unfoldable: Check | None = None
        self.void = False


def _split(
    stored: Sequence[StoredEvent], events: Sequence[TableEvent]
) -> tuple[table.TableCreated | None, list[_Deal], Check | None, Check]:
    """Fold the events without validating, and cut them into deals; check the clock.

    An event that cannot even be applied is skipped (its deal cannot be scored
    again; the next `DealDealt` starts afresh); the first such one is returned.
    """
    state = TableState()
    deals: list[_Deal] = []
    first_failure: Check | None = None
    clock = Check("clock", True, "no turn timed out")
    timeouts = 0
    for index, event in enumerate(events):
        current = deals[-1] if deals else None
        if isinstance(event, TurnTimedOut):
            timeouts += 1
            if clock.ok:
                clock = _deadline_check(state, stored, index, event, timeouts)
        if isinstance(event, DealDealt):
            if current is not None and event.dealing.redeals:
                current.void = True  # V4.8: dealt again, never scored
            current = _Deal(event, index)
            deals.append(current)
        elif current is not None and not isinstance(event, ENDS):
            current.end = index
        if isinstance(event, DealScored) and current is not None:
            current.scored = event
            current.before_score = state.session.deal
        try:
            state = table.evolve(state, event)
        except Exception as error:
            version = stored[index].version
            failure = Check("fold", False, f"cannot apply the event: {error!r}", version)
            first_failure = first_failure or failure
            if current is not None and current.unfoldable is None:
                current.unfoldable = failure
    return state.created, deals, first_failure, clock


def _deadline_check(
    state: TableState, stored: Sequence[StoredEvent], index: int, event: TurnTimedOut, n: int
) -> Check:
    """T3.2, T3.3: the timeout's deadline follows from the time recorded for the event
    before it (``state`` is the table then); ``n`` timeouts so far."""
    version = stored[index].version
    turn = turn_clock.turn_of(state, stored[index - 1].recorded_at) if index else None
    if turn is None or (turn.seat, turn.deadline) != (event.seat, event.deadline):
        want = f"seat {int(turn.seat)} at {turn.deadline}" if turn else "no running turn"
        detail = f"timeout of seat {int(event.seat)} at {event.deadline}; the log implies {want}"
        return Check("clock", False, detail, version)
    return Check("clock", True, f"{n} timeouts, each at its deadline")


def _version(stored: Sequence[StoredEvent], index: int) -> int:
    if index < len(stored):
        return stored[index].version
    return (stored[-1].version + 1) if stored else 1


def _dealing_checks(deal: _Deal, created: table.TableCreated | None, version: int) -> list[Check]:
    dealt = deal.dealt
    dealing = dealt.dealing
    index = dealt.deal_no - 1
    if created is None:
        return [Check("dealing", False, "no table_created event", version)]
    if dealing.method == "preset":
        presets = created.presets
        ok = index < len(presets) and presets[index] == dealt.hands
        detail = "preset hands as set" if ok else "hands differ from the table's preset"
        return [Check("hands", ok, detail, None if ok else version)]
    if withheld(dealt):
        return _withheld_checks(deal, created, index, version)
    seed = dealing.seed or ""
    try:
        revealed = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    except ValueError:
        revealed = "(seed is not hex)"
    published = created.commitments[index] if index < len(created.commitments) else None
    if published is None:
        commitment = Check("commitment", False, "no commitment was published", version)
    elif published != revealed or dealing.commitment != published:
        commitment = Check(
            "commitment",
            False,
            f"published {published}, SHA-256 of the revealed seed {revealed}",
            version,
        )
    else:
        commitment = Check("commitment", True, f"SHA-256(seed) = {published[:16]}…")
    try:
        reproduced = verify_deal(dealing, dealt.dealer, dealt.hands, dealt.deal_no)
    except Exception:
        reproduced = False
    hands = Check(
        "hands",
        reproduced,
        "the seed reproduces the hands" if reproduced else "the seed does not reproduce the hands",
        None if reproduced else version,
    )
    return [commitment, hands]


def _withheld_checks(
    deal: _Deal, created: table.TableCreated, index: int, version: int
) -> list[Check]:
    """R2.2: the seed of a deal not scored is withheld (`infra.audit.disclosure`): its commitment
    is the published one, its hands cannot be checked; a scored deal's seed is never."""
    if deal.scored is not None:
        return [Check("commitment", False, "the seed of a scored deal is withheld", version)]
    published = created.commitments[index] if index < len(created.commitments) else None
    if published is None or deal.dealt.dealing.commitment != published:
        return [Check("commitment", False, "not the commitment published", version)]
    return [
        Check("commitment", True, f"as published, {published[:16]}…; the seed is withheld"),
        Check("hands", True, "not checked: the deal was not scored, its seed is withheld"),
    ]


def _score_check(deal: _Deal, stored: Sequence[StoredEvent]) -> Check:
    if deal.unfoldable is not None:
        return Check("score", False, "not recomputed: " + deal.unfoldable.detail, None)
    if deal.scored is None:
        detail = "void: all refused the Armut, dealt again (V4.8)" if deal.void else None
        return Check("score", True, detail or "deal in progress")
    version = _version(stored, deal.end)
    state = deal.before_score
    try:
        assert state is not None
        recomputed = final_score(state)
    except Exception as error:
        return Check("score", False, f"cannot recompute the score: {error!r}", version)
    if recomputed != deal.scored.score:
        return Check(
            "score",
            False,
            f"recorded value {deal.scored.score.value} entries {list(deal.scored.score.entries)}, "
            f"recomputed {recomputed.value} entries {list(recomputed.entries)}",
            version,
        )
    return Check("score", True, f"value {recomputed.value}, {len(recomputed.lines)} lines")


def verify_events(stored: Sequence[StoredEvent], events: Sequence[TableEvent]) -> TableReport:
    """Audit one table from its stored events and their decoded forms (a prefix, if some
    did not decode); see the module docstring for the checks."""
    stream_id = stored[0].stream_id if stored else ""
    if len(events) < len(stored):
        bad = stored[len(events)]
        decoded = Check(
            "decode", False, f"version {bad.version} ({bad.type}) does not decode", bad.version
        )
    else:
        decoded = Check("decode", True, f"{len(events)} events")
    first_break = verify_chain(stored)
    breaks = chain_breaks(stored)
    chain = (
        Check("chain", True, f"{len(stored)} hashes chained ({chain_versions(stored)})")
        if first_break is None
        else Check(
            "chain",
            False,
            f"hash chain broken at version {first_break}"
            + (f" (also {', '.join(map(str, breaks[1:6]))})" if len(breaks) > 1 else ""),
            first_break,
        )
    )
    bad_index, why = _replay(events)
    if bad_index is None:
        replayed = Check("replay", True, f"{len(events)} events re-decided")
    else:
        version = _version(stored, bad_index)
        replayed = Check("replay", False, why, version)
    created, deals, unfoldable, clock = _split(stored, events)
    checks = [decoded, chain, replayed, clock]
    if unfoldable is not None:
        checks.append(unfoldable)
    reports = []
    for deal in deals:
        first, last = _version(stored, deal.start), _version(stored, deal.end)
        deal_checks = _dealing_checks(deal, created, first)
        if bad_index is None or bad_index > deal.end:
            deal_checks.append(Check("replay", True))
        elif bad_index >= deal.start:
            deal_checks.append(Check("replay", False, replayed.detail, replayed.version))
        else:
            deal_checks.append(
                Check(
                    "replay",
                    False,
                    f"not reached: the replay stops at version {replayed.version}",
                )
            )
        deal_checks.append(_score_check(deal, stored))
        broken = [v for v in breaks if first <= v <= last]
        deal_checks.append(
            Check("chain", True)
            if not broken
            else Check("chain", False, f"hash chain broken at version {broken[0]}", broken[0])
        )
        reports.append(
            DealReport(
                deal.dealt.deal_no, deal.dealt.dealing.method, first, last, tuple(deal_checks)
            )
        )
    return TableReport(
        stream_id=stream_id,
        name=created.name if created is not None else None,
        events=len(stored),
        checks=tuple(checks),
        deals=tuple(reports),
    )


def verify_stored(stored: Sequence[StoredEvent]) -> TableReport:
    """Decode, then `verify_events`."""
    events, _ = decode_events(stored)
    return verify_events(stored, events)


async def verify_table(tables: Tables, stream_id: str) -> TableReport:
    """Audit a table of the database; raises `infra.tables.TableNotFound`."""
    stored = await tables.store.read_stream(stream_id)
    if not stored:
        raise TableNotFound(stream_id)
    return verify_stored(stored)


async def table_ids(conn: Any) -> list[str]:
    """Every table's stream id (streams starting with ``table_created``), sorted."""
    rows = await conn.fetch(
        "SELECT stream_id FROM events WHERE version = 1 AND type = 'table_created'"
        " ORDER BY stream_id"
    )
    return [row[0] for row in rows]
