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
                and announcements (`domain.scoring.score`);
``chain``       no event of the deal breaks the hash chain.

Every failed check names the version of the first bad event. A `TableReport` is
``ok`` when every check passed. `export_session` writes a table's log as one
portable JSON document, signed by the deployment's key (`infra.signing`), that
`verify_file` checks offline with the same code, and with these checks of the file:

``signature``   the file is signed by one of the public keys the verifier trusts (given
                apart from the file; unsigned files pass only when allowed, with a warning);
``strict``      the file has one reading: no member twice at any depth, nothing the
                canonical form would not reproduce (`infra.strict`);
``table``       (given the table the auditor expects: its id, optionally its creation
                time) the file is that table's, not a look-alike's;
``copies``      the top-level ``name`` and ``players`` are what the events say;
``witness``     (given an archive of what was published live, `infra.witness`) the
                export's chain heads are the published ones.

An abandoned session (T4.2) is audited like a finished one: its scored deals
fully, the deal it was abandoned in as far as it went.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar

import msgspec

from domain import table
from domain.deal import DealState, facts
from domain.dealing import verify_deal
from domain.events import DealDealt, DealScored, SessionFinished
from domain.replay import Aggregate, Replay, replay
from domain.scoring import score
from domain.table import TABLE_EVENTS, SessionAbandoned, TableEvent, TableState, TurnTimedOut
from infra import strict
from infra.disclosure import (
    disclosed,
    redecided,
    replay_start,
    resume_after_withheld,
    withheld,
)
from infra.event_store import StoredEvent
from infra.hash_chain import GENESIS, V1, links, stretches, verify_chain
from infra.signing import Keys, Signature, Signer, canonical, check_signature, signature_of
from infra.tables import CODEC, TableNotFound, Tables
from infra.witness import Witnessed, compare

EXPORT_FORMAT = "doko-table-export"
EXPORT_VERSION = 1


class Check(msgspec.Struct, frozen=True):
    """One check: its name, whether it passed, what was found, the first bad version."""

    name: str
    ok: bool
    detail: str = ""
    version: int | None = None


class DealReport(msgspec.Struct, frozen=True):
    """The checks of one deal, whose events are versions ``first_version..last_version``."""

    deal_no: int
    method: str
    first_version: int
    last_version: int
    checks: tuple[Check, ...]

    @property
    def preset(self) -> bool:
        return self.method == "preset"

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.ok)


class TableReport(msgspec.Struct, frozen=True):
    """The audit of one table: table-wide checks and one report per deal, and warnings to
    show loudly (a file accepted without proof of its origin); ``flagged`` when it is
    signed by a key revoked after the signature's date (`infra.signing`, Validity)."""

    stream_id: str
    name: str | None
    events: int
    checks: tuple[Check, ...]
    deals: tuple[DealReport, ...]
    warnings: tuple[str, ...] = ()
    flagged: bool = False

    @property
    def failures(self) -> tuple[Check, ...]:
        """Every failed check, table-wide first."""
        return (
            *(c for c in self.checks if not c.ok),
            *(c for d in self.deals for c in d.failures),
        )

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def first_bad_version(self) -> int | None:
        """The lowest version any failed check names."""
        versions = [c.version for c in self.failures if c.version is not None]
        return min(versions) if versions else None


class ExportError(ValueError):
    """A file that is not a doko table export."""


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
    (`infra.disclosure.replay_start`), and on after a deal whose seed is withheld
    (`infra.disclosure.resume_after_withheld`).
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


_ENDS = (SessionFinished, SessionAbandoned)
"""Events after a session's last deal."""


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
            current = _Deal(event, index)
            deals.append(current)
        elif current is not None and not isinstance(event, _ENDS):
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
    turn = table.turn_of(state, stored[index - 1].recorded_at) if index else None
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
    """R2.2: the seed of a deal not scored is withheld (`infra.disclosure`): its commitment
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
        return Check("score", True, "deal in progress")
    version = _version(stored, deal.end)
    state = deal.before_score
    try:
        assert state is not None
        recomputed = score(facts(state))
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


class ExportedEvent(msgspec.Struct, frozen=True):
    """One event of an export: the hashed fields, the hash (hex) and the metadata."""

    version: int
    type: str
    schema_version: int
    payload: msgspec.Raw
    hash: str
    recorded_at: datetime
    position: int = 0
    command_id: str | None = None
    actor: str | None = None
    causation: str | None = None
    chain: int = 1


class Export(msgspec.Struct, frozen=True):
    """A whole table, portable. ``name`` and ``players`` are copies of what the events
    say (checked); ``signature`` signs everything else (`infra.signing`)."""

    format: str
    format_version: int
    stream_id: str
    events: tuple[ExportedEvent, ...]
    name: str | None = None
    players: tuple[str | None, ...] = ()
    signature: Annotated[
        Signature | None,
        msgspec.Meta(
            description="the deployment's signature of the whole file (`/.well-known/doko-keys`)"
        ),
    ] = None


class SecretsError(ValueError):
    """The table is still in play: its log holds secrets (seeds of deals not yet scored)."""


def finished(events: Sequence[TableEvent]) -> bool:
    """Whether the table's session is over: its log holds `SessionFinished` (R1.2) or
    `SessionAbandoned` (T4.2), so no deal of it will be played any more. Events may follow
    the end (a new invitation code, T1.2); they deal nothing."""
    return any(isinstance(e, _ENDS) for e in reversed(events))


def scored_numbers(events: Sequence[TableEvent]) -> list[int]:
    """The numbers of the deals scored so far."""
    return [e.deal_no for e in events if isinstance(e, DealScored)]


def copies(events: Sequence[TableEvent]) -> tuple[str | None, tuple[str | None, ...]]:
    """The table's name and its players' names by seat, as its events say."""
    state = table.fold([e for e in events if isinstance(e, table.TableCreated | table.SeatTaken)])
    name = state.created.name if state.created is not None else None
    return name, tuple(p.name if p is not None else None for p in state.players)


def exported(stored: Sequence[StoredEvent]) -> tuple[ExportedEvent, ...]:
    """Stored events as an export holds them (`stored_events` reads them back)."""
    return tuple(
        ExportedEvent(
            version=e.version,
            type=e.type,
            schema_version=e.schema_version,
            payload=msgspec.Raw(e.payload),
            hash=e.hash.hex(),
            recorded_at=e.recorded_at,
            position=e.position,
            command_id=e.command_id,
            actor=e.actor,
            causation=e.causation,
            chain=e.chain,
        )
        for e in stored
    )


def export_session(
    stored: Sequence[StoredEvent],
    events: Sequence[TableEvent],
    *,
    unfinished: bool = False,
    signer: Signer | None = None,
    signed_at: datetime | None = None,
) -> bytes:
    """One table's whole log as one JSON document, for `verify_file`.

    The log is exported as `infra.disclosure.disclosed` shows it, so that its hashes
    verify: credential hashes and the seeds of deals not scored sealed in the events
    linked by chain version 2, events linked by version 1 as stored (their
    ``table_created`` holds the server seeds of all 12 deals). The hands of the open deal
    are in its ``deal_dealt``: a table still in play is refused (`SecretsError`) unless
    ``unfinished`` is set. With a ``signer`` the document is signed (at ``signed_at``,
    default now).
    """
    if not stored:
        raise ValueError("a table export needs the table's events")
    if not unfinished and (len(events) < len(stored) or not finished(events)):
        raise SecretsError(
            "the table is still in play: its log holds the seeds and hands of deals not yet scored"
        )
    name, players = copies(events)
    document = Export(
        format=EXPORT_FORMAT,
        format_version=EXPORT_VERSION,
        stream_id=stored[0].stream_id,
        name=name,
        players=players,
        events=exported(disclosed(stored, events)),
    )
    if signer is not None:
        at = signed_at or datetime.now(UTC)
        signature = signature_of(msgspec.json.encode(document), signer, at)
        document = msgspec.structs.replace(document, signature=signature)
    return msgspec.json.format(msgspec.json.encode(document), indent=1)


class Formatted(Protocol):
    """A document that says what it is: its ``format`` and ``format_version``."""

    @property
    def format(self) -> str: ...

    @property
    def format_version(self) -> int: ...


D = TypeVar("D", bound=Formatted)


def read_document(
    data: bytes, kind: type[D], format: str, version: int, what: str
) -> tuple[dict[str, Any], D]:
    """A file as parsed (the JSON object a signature covers) and as a ``kind`` read from
    that object's canonical bytes, so that what is audited is what is signed; raises
    `ExportError` unless it is a ``format`` document of ``version`` (``what``: its name)."""
    try:
        value = msgspec.json.decode(data)
        if not isinstance(value, dict):
            raise ExportError(f"not a {what}: not a JSON object")
        document = msgspec.json.decode(canonical(value), type=kind)
    except msgspec.DecodeError as error:
        raise ExportError(f"not a {what}: {error}") from error
    if document.format != format or document.format_version != version:
        raise ExportError(f"not a {what}: format {document.format!r} v{document.format_version}")
    return value, document


def _parsed(source: bytes | str | Path) -> tuple[dict[str, Any], Export, Check]:
    """A file as parsed, as an `Export` (`read_document`), and the ``strict`` check: the
    file has that one reading (`infra.strict`)."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    value, document = read_document(
        data, Export, EXPORT_FORMAT, EXPORT_VERSION, "doko table export"
    )
    return value, document, strict_check(data, document)


def strict_check(data: bytes, document: msgspec.Struct) -> Check:
    """The ``strict`` check: no member twice at any depth, nothing the canonical form does not
    reproduce; else the file shows one thing and its signature covers another."""
    try:
        given = strict.loads(data)
    except ValueError as error:
        return Check("strict", False, f"the file has no single reading: {error}")
    found = strict.difference(given, msgspec.json.decode(msgspec.json.encode(document)))
    if found is not None:
        return Check("strict", False, f"the file is not in its canonical form: {found}")
    return Check("strict", True, "one reading, in the canonical form")


def _stored(document: Export) -> list[StoredEvent]:
    return stored_events(document.stream_id, document.events)


def stored_events(stream_id: str, events: Sequence[ExportedEvent]) -> list[StoredEvent]:
    """The stored events of stream ``stream_id`` an export holds; raises `ExportError`."""
    stored = []
    for e in events:
        try:
            digest = bytes.fromhex(e.hash)
        except ValueError as error:
            raise ExportError(f"version {e.version}: the hash is not hex") from error
        stored.append(
            StoredEvent(
                position=e.position,
                stream_id=stream_id,
                version=e.version,
                type=e.type,
                schema_version=e.schema_version,
                payload=bytes(e.payload),
                command_id=e.command_id,
                actor=e.actor,
                causation=e.causation,
                recorded_at=e.recorded_at,
                hash=digest,
                chain=e.chain,
            )
        )
    return stored


def read_export(source: bytes | str | Path) -> list[StoredEvent]:
    """The stored events of an export (bytes, or a path), its signature unchecked;
    raises `ExportError`."""
    return _stored(_parsed(source)[1])


def _copies_check(document: Export, events: Sequence[TableEvent]) -> Check:
    try:
        name, players = copies(events)
    except Exception as error:
        return Check("copies", False, f"the events do not say who played: {error!r}")
    wrong = []
    if document.name != name:
        wrong.append(f"name {document.name!r}, but the events say {name!r}")
    if document.players != players:
        wrong.append(f"players {list(document.players)}, but the events say {list(players)}")
    return Check("copies", not wrong, "; ".join(wrong) or "name and players as the events say")


def _witness_check(
    stream_id: str, stored: Sequence[StoredEvent], heads: Sequence[Witnessed]
) -> Check:
    found = compare(stream_id, stored, heads)
    if found.first_difference is not None:
        return Check("witness", False, found.detail, found.first_difference)
    if not found.agreed:
        return Check("witness", False, f"the archive holds no chain head of table {stream_id}")
    rest = f"; versions after {found.last_agreed} were not published with a chain head"
    return Check(
        "witness",
        True,
        f"{found.agreed} published chain heads agree, up to version {found.last_agreed}"
        + (rest if found.last_agreed < len(stored) else ""),
    )


class Expected(msgspec.Struct, frozen=True):
    """The table an auditor means to check: its id and, if known, when it was created
    (to the precision given: a time without fractions of a second matches that second)."""

    table_id: str
    created_at: datetime | None = None


def _table_check(stored: Sequence[StoredEvent], stream_id: str, expected: Expected) -> Check:
    """The ``table`` check: a look-alike table's genuinely signed export is not the expected
    table's."""
    if stream_id != expected.table_id:
        return Check(
            "table", False, f"the file is of table {stream_id}, not of {expected.table_id}"
        )
    if expected.created_at is not None:
        created = stored[0].recorded_at if stored else None
        want = expected.created_at
        if created is not None and not want.microsecond:
            created = created.replace(microsecond=0)
        if created != want:
            return Check(
                "table",
                False,
                f"table {stream_id} was created at {created.isoformat() if created else '?'},"
                f" not at {want.isoformat()}",
            )
    return Check("table", True, f"the file is of table {stream_id}, as expected")


def verify_file(
    source: bytes | str | Path,
    keys: Keys | None,
    *,
    allow_unsigned: bool = False,
    witnessed: Sequence[Witnessed] | None = None,
    expected: Expected | None = None,
) -> TableReport:
    """Audit an export offline: its signature by one of ``keys`` (trusted, given apart from
    the file), that it has one reading, that it is the ``expected`` table's, the chain
    recomputed, the rules replayed, seeds, scores, the top-level copies and, given an
    archive's chain heads (`infra.witness.read_archive`), what was published.

    An unsigned file (or any file, without ``keys``) passes the signature check only with
    ``allow_unsigned``, and then with a warning. Raises `ExportError` for a file that is not
    an export.
    """
    value, document, strictly = _parsed(source)
    verdict = check_signature(value, EXPORT_FORMAT, keys, allow_unsigned=allow_unsigned)
    stored = _stored(document)
    events, _ = decode_events(stored)
    report = verify_events(stored, events)
    checks = [
        Check("signature", verdict.ok, verdict.detail),
        strictly,
        *([_table_check(stored, document.stream_id, expected)] if expected else []),
        *report.checks,
        _copies_check(document, events),
    ]
    if witnessed is not None:
        checks.append(_witness_check(document.stream_id, stored, witnessed))
    warnings = (verdict.warning,) if verdict.warning else ()
    return msgspec.structs.replace(
        report, checks=tuple(checks), warnings=warnings, flagged=verdict.flagged
    )


def deal_events(events: Sequence[TableEvent], deal_no: int) -> list[TableEvent]:
    """The events of deal ``deal_no``: from its `DealDealt` to its `DealScored` (or the end)."""
    selected: list[TableEvent] = []
    inside = False
    for event in events:
        if isinstance(event, DealDealt):
            inside = event.deal_no == deal_no
        if isinstance(event, _ENDS):
            inside = False
        if inside:
            selected.append(event)
    return selected


def dealt_numbers(events: Sequence[TableEvent]) -> list[int]:
    """The numbers of the deals dealt so far."""
    return [e.deal_no for e in events if isinstance(e, DealDealt)]


def render_deal(events: Sequence[TableEvent], deal_no: int) -> str:
    """Deal ``deal_no`` of a table step by step (`domain.render.render_deal`), with names."""
    from domain.render import render_deal as render

    selected = deal_events(events, deal_no)
    if not selected:
        raise LookupError(f"deal {deal_no} has not been dealt")
    state = table.fold([e for e in events if isinstance(e, table.TableCreated | table.SeatTaken)])
    names = ", ".join(
        f"seat {int(s)} {p.name if p is not None else '-'}" for s, p in enumerate(state.players)
    )
    title = state.created.name if state.created is not None else "?"
    body = render([e for e in selected if not isinstance(e, TABLE_EVENTS)])
    return f"Table {title}: {names}\n{body}"


def _failure(check: Check) -> str:
    at = f" (event version {check.version})" if check.version is not None else ""
    return f"{check.name}: {check.detail}{at}"


SHOWN_CHECKS = ("signature", "strict", "table", "chain", "copies", "witness")
"""The checks shown when they pass too: those of an export file, and the chain (which
chain version each stretch of the log was linked by)."""


def summary(report: TableReport) -> list[str]:
    """The warnings, one line per deal, the checks of a file, then one line for the table."""
    label = report.stream_id
    lines = [f"WARNING: {warning}" for warning in report.warnings]
    for deal in report.deals:
        kind = "preset" if deal.preset else deal.method
        if deal.ok:
            passed = ", ".join(c.name for c in deal.checks)
            lines.append(
                f"{label} deal {deal.deal_no:2} ({kind}, v{deal.first_version}-"
                f"v{deal.last_version}): ok [{passed}]"
            )
        else:
            failed = "; ".join(
                f"{c.name}: {c.detail}"
                + (f" (event version {c.version})" if c.version is not None else "")
                for c in deal.failures
            )
            lines.append(f"{label} deal {deal.deal_no:2} ({kind}): FAILED {failed}")
    lines.extend(
        f"{label} {c.name}: {c.detail}" for c in report.checks if c.ok and c.name in SHOWN_CHECKS
    )
    table_failures = [c for c in report.checks if not c.ok]
    if report.ok:
        verdict = "FLAGGED (verified, signed by a key revoked later)" if report.flagged else "ok"
        lines.append(
            f"{label}: {verdict}, {len(report.deals)} deals, {report.events} events "
            f"({report.name or '?'})"
        )
    else:
        detail = "; ".join(_failure(c) for c in table_failures) or "deal checks failed"
        first = report.first_bad_version
        at = f" at event version {first}" if first is not None else ""
        lines.append(f"{label}: FAILED{at}: {detail}")
    return lines
