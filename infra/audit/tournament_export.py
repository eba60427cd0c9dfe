"""The signed export of a whole tournament, and its audit offline (E1-E6).

A tournament export is one JSON document (``format`` ``doko-tournament-export``): the tournament's
own stream, every table of every round as its own table export (`infra.audit.export.export_session`,
each signed), the standings the service computed from them, and the service's Ed25519
signature of it all (`infra.signing`, as a table export's).

What it discloses
    No more than the table exports do: every credential hash sealed (the director's host
    token, which is also every tournament table's invitation, the invitation code, every
    player's credential; none is needed to verify, the seals suffice for the hash chain
    and to compare a table's seats with the tournament's players), the seeds of deals no table
    of the round scored sealed, and the seating seed sealed unless the tournament is finished
    (`infra.audit.tournament_disclosure`). A tournament is exported once it is finished (every round
    over, E4.3); ``unfinished`` exports one in play, whose tables in play then hold the
    hands of their open deals, as a table export with ``unfinished`` does.

`verify_tournament_file` checks such a file without a database, in this order, and names the
first thing that differs:

``signature``  the file is signed by one of the keys the verifier trusts;
``strict``     the file has one reading, in the canonical form (`infra.audit.strict`);
``tournament`` (given the tournament the auditor expects) the file is that tournament's;
``copies``     the top-level ``name`` is the one the tournament's stream says;
``places``     every table of the file is in a place the tournament has, once;
then the checks of `infra.audit.tournament.verify_tournament_streams` (the tournament's stream:
chain, replay with the seating draw and the commitments; ``tables``: every table there, each
table file verified by `infra.audit.export.verify_file`, signature included, as the table of its
round and number, opened as the tournament says; the ends; the standings the file states
recomputed from the tables' logs); and given an archive of the tournament's stream as
received, ``witness``: the chain heads it published, the tournament's own and its tables',
are the file's (`infra.audit.witness`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import msgspec

from domain import tournament
from domain.standings import Standings
from domain.table import TableEvent
from domain.tournament import TournamentEvent
from infra.audit import deals, tournament_disclosure
from infra.audit import export as table_export
from infra.audit.export import Export, ExportedEvent, SecretsError
from infra.audit.report import Check, TableReport
from infra.audit.tournament import TournamentReport, decode_events, verify_tournament_streams
from infra.audit.witness import Witnessed, compare, compare_tournament
from infra.command_ids import table_id
from infra.event_store import StoredEvent
from infra.signing import Keys, Signature, Signer, canonical, check_signature, signature_of
from infra.tables import CODEC as TABLE_CODEC
from infra.tournaments import CODEC, Tournaments

TOURNAMENT_EXPORT_FORMAT = "doko-tournament-export"
TOURNAMENT_EXPORT_VERSION = 1


class ExportedTable(msgspec.Struct, frozen=True):
    """Table ``table_no`` of round ``round_no``: its own signed export."""

    round_no: int
    table_no: int
    export: Export


class TournamentExport(msgspec.Struct, frozen=True):
    """A whole tournament, portable: its stream, its tables' exports and its standings;
    ``name`` is a copy of what the stream says (checked); ``signature`` signs the rest."""

    format: str
    format_version: int
    tournament_id: str
    events: tuple[ExportedEvent, ...]
    tables: tuple[ExportedTable, ...]
    standings: Standings
    name: str | None = None
    signature: Annotated[
        Signature | None,
        msgspec.Meta(
            description="the deployment's signature of the whole file (`/.well-known/doko-keys`)"
        ),
    ] = None


Place = tuple[int, int]
"""A table's round and number."""


def export_tournament(
    stored: Sequence[StoredEvent],
    logs: Mapping[Place, Sequence[StoredEvent]],
    standings: Standings,
    *,
    unfinished: bool = False,
    signer: Signer | None = None,
    signed_at: datetime | None = None,
) -> bytes:
    """A tournament's stream, its tables' logs (by place) and its standings as one JSON
    document, for `verify_tournament_file` (see the module docstring for what it discloses).
    A tournament not finished is refused (`infra.audit.export.SecretsError`) unless
    ``unfinished``."""
    if not stored:
        raise ValueError("a tournament export needs the tournament's events")
    events: list[TournamentEvent] = [CODEC.from_stored(e) for e in stored]
    if not unfinished and not tournament.fold(events).finished:
        raise SecretsError(
            "the tournament is still in play: its tables hold the hands and seeds of deals not "
            "yet scored"
        )
    at = signed_at or datetime.now(UTC)
    tables: list[ExportedTable] = []
    revealed: dict[int, set[int]] = {}
    for (round_no, table_no), log in sorted(logs.items()):
        decoded: list[TableEvent] = [TABLE_CODEC.from_stored(e) for e in log]
        data = table_export.export_session(
            log, decoded, unfinished=unfinished, signer=signer, signed_at=at
        )
        tables.append(ExportedTable(round_no, table_no, msgspec.json.decode(data, type=Export)))
        revealed.setdefault(round_no, set()).update(deals.scored_numbers(decoded))
    created = events[0]
    document = TournamentExport(
        format=TOURNAMENT_EXPORT_FORMAT,
        format_version=TOURNAMENT_EXPORT_VERSION,
        tournament_id=stored[0].stream_id,
        events=table_export.exported(tournament_disclosure.disclosed(stored, events, revealed)),
        tables=tuple(tables),
        standings=standings,
        name=created.name if isinstance(created, tournament.TournamentCreated) else None,
    )
    if signer is not None:
        signature = signature_of(msgspec.json.encode(document), signer, at)
        document = msgspec.structs.replace(document, signature=signature)
    return msgspec.json.format(msgspec.json.encode(document), indent=1)


class TournamentLogs(msgspec.Struct, frozen=True):
    """What a tournament export is made of: the tournament's stream, its tables' logs by place and
    its standings."""

    stored: list[StoredEvent]
    logs: dict[Place, list[StoredEvent]]
    standings: Standings


async def read_tournament(tournaments: Tournaments, tournament_id: str) -> TournamentLogs:
    """A tournament's stream, every table of every round started and the standings computed
    from them (`infra.tournaments.Tournaments.standings`); raises
    `infra.tournaments.TournamentNotFound`."""
    loaded, standings = await tournaments.standings(tournament_id)
    stored = await tournaments.store.read_stream(tournament_id)
    logs: dict[Place, list[StoredEvent]] = {}
    for round_no, seating in enumerate(loaded.state.seatings, 1):
        for table_no in range(1, len(seating) + 1):
            log = await tournaments.store.read_stream(table_id(tournament_id, round_no, table_no))
            if log:
                logs[round_no, table_no] = log
    return TournamentLogs(stored, logs, standings)


def is_tournament_export(source: bytes | str | Path) -> bool:
    """Whether a file says it is a tournament export (not a table export): its ``format``."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    try:
        value = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return False
    return isinstance(value, dict) and value.get("format") == TOURNAMENT_EXPORT_FORMAT


class TournamentFileReport(msgspec.Struct, frozen=True):
    """The audit of a tournament export: the tournament's report (the file's checks first), the
    warnings to show loudly (a file accepted without proof of its origin) and ``flagged``
    when a signature is by a key revoked after its date (`infra.signing`)."""

    report: TournamentReport
    warnings: tuple[str, ...] = ()
    flagged: bool = False

    @property
    def ok(self) -> bool:
        return self.report.ok


def _places_check(document: TournamentExport, state: tournament.TournamentState) -> Check:
    """Every table of the file is in a place the tournament has, and in one file only."""
    places = [(t.round_no, t.table_no) for t in document.tables]
    has = {(r, t) for r, s in enumerate(state.seatings, 1) for t in range(1, len(s) + 1)}
    for index, place in enumerate(places):
        where = f"round {place[0]} table {place[1]}"
        if place in places[:index]:
            return Check("places", False, f"the file holds {where} twice")
        if place not in has:
            return Check("places", False, f"the file holds {where}, which the tournament has not")
    return Check("places", True, f"{len(places)} tables, each in its place")


def _witness_check(
    document: TournamentExport,
    stored: Sequence[StoredEvent],
    logs: Mapping[str, Sequence[StoredEvent]],
    heads: Sequence[Witnessed],
) -> Check:
    """The chain heads the tournament's stream published, of its own events and of its tables'
    scored deals and ends, are the export's (`infra.audit.witness`)."""
    own = compare_tournament(stored, heads)
    if own.first_difference is not None:
        return Check("witness", False, own.detail)
    if not own.agreed:
        return Check(
            "witness",
            False,
            f"the archive holds no chain head of tournament {document.tournament_id}",
        )
    agreed = 0
    for entry in document.tables:
        stream = table_id(document.tournament_id, entry.round_no, entry.table_no)
        found = compare(stream, logs.get(stream, ()), heads)
        if found.first_difference is not None:
            where = f"round {entry.round_no} table {entry.table_no}"
            return Check("witness", False, f"{where}: {found.detail}")
        agreed += found.agreed
    return Check(
        "witness",
        True,
        f"{own.agreed} published chain heads of the tournament and {agreed} of its tables agree",
    )


def _tournament_check(tournament_id: str, expected: str) -> Check:
    if tournament_id != expected:
        return Check(
            "tournament", False, f"the file is of tournament {tournament_id}, not of {expected}"
        )
    return Check("tournament", True, f"the file is of tournament {tournament_id}, as expected")


def verify_tournament_file(
    source: bytes | str | Path,
    keys: Keys | None,
    *,
    allow_unsigned: bool = False,
    expected: str | None = None,
    witnessed: Sequence[Witnessed] | None = None,
) -> TournamentFileReport:
    """Audit a tournament export offline (see the module docstring for the checks) with the
    public ``keys`` the verifier trusts, given apart from the file; an unsigned file
    passes the signature checks only with ``allow_unsigned``, with a warning; given the
    ``expected`` tournament's id, the ``tournament`` check: the file is that tournament's, not a
    look-alike's; given an archive's chain heads (`infra.audit.witness.read_archive` of the
    tournament's stream as received), the ``witness`` check. Raises `infra.audit.export.ExportError`
    for a file that is not a tournament export."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    value, document = table_export.read_document(
        data,
        TournamentExport,
        TOURNAMENT_EXPORT_FORMAT,
        TOURNAMENT_EXPORT_VERSION,
        "doko tournament export",
    )
    verdict = check_signature(value, TOURNAMENT_EXPORT_FORMAT, keys, allow_unsigned=allow_unsigned)
    stored = table_export.stored_events(document.tournament_id, document.events)
    state = tournament.fold(decode_events(stored)[0])
    name = state.created.name if state.created is not None else None
    logs: dict[str, list[StoredEvent]] = {}
    audited: dict[str, TableReport] = {}
    warnings = [verdict.warning] if verdict.warning else []
    for entry, shown in zip(document.tables, value["tables"], strict=True):
        stream = table_id(document.tournament_id, entry.round_no, entry.table_no)
        table_file = canonical(shown["export"])
        checked = table_export.verify_file(
            table_file, keys, allow_unsigned=allow_unsigned, expected=table_export.Expected(stream)
        )
        logs.setdefault(stream, table_export.read_export(table_file))
        audited.setdefault(stream, checked)
        warnings += [w for w in checked.warnings if w not in warnings]
    report = verify_tournament_streams(stored, logs, document.standings, audited)
    file_checks = (
        Check("signature", verdict.ok, verdict.detail),
        table_export.strict_check(data, document),
        *([_tournament_check(document.tournament_id, expected)] if expected is not None else []),
        Check(
            "copies",
            document.name == name,
            f"name {document.name!r}" + ("" if document.name == name else f", not {name!r}"),
        ),
        _places_check(document, state),
    )
    witness = () if witnessed is None else (_witness_check(document, stored, logs, witnessed),)
    return TournamentFileReport(
        msgspec.structs.replace(report, checks=(*file_checks, *report.checks, *witness)),
        tuple(warnings),
        verdict.flagged or any(r.flagged for r in audited.values()),
    )
