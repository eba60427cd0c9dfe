"""The table export: one table's whole log as one portable, signed JSON document.

`export_session` writes a table's log as one portable JSON document, signed by the
deployment's key (`infra.signing`), that `verify_file` checks offline with the same code
as a table of the database (`infra.audit.table.verify_events`), and with these checks of
the file:

``signature``   the file is signed by one of the public keys the verifier trusts (given
                apart from the file; unsigned files pass only when allowed, with a warning);
``strict``      the file has one reading: no member twice at any depth, nothing the
                canonical form would not reproduce (`infra.audit.strict`);
``table``       (given the table the auditor expects: its id, optionally its creation
                time) the file is that table's, not a look-alike's;
``copies``      the top-level ``name`` and ``players`` are what the events say;
``witness``     (given an archive of what was published live, `infra.audit.witness`) the
                export's chain heads are the published ones.

`read_document`, `stored_events` and `strict_check` read a tournament export too
(`infra.audit.tournament_export`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar

import msgspec

from domain import table
from domain.table import TableEvent
from infra.audit import strict
from infra.audit.deals import finished
from infra.audit.disclosure import disclosed
from infra.audit.report import Check, TableReport
from infra.audit.table import decode_events, verify_events
from infra.audit.witness import Witnessed, compare
from infra.event_store import StoredEvent
from infra.signing import Keys, Signature, Signer, canonical, check_signature, signature_of

EXPORT_FORMAT = "doko-table-export"
EXPORT_VERSION = 1


class ExportError(ValueError):
    """A file that is not a doko table export."""


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

    The log is exported as `infra.audit.disclosure.disclosed` shows it, so that its hashes
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
    file has that one reading (`infra.audit.strict`)."""
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
    archive's chain heads (`infra.audit.witness.read_archive`), what was published.

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
