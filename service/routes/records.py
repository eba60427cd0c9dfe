"""The public records of scored deals that the audit routes serve (`service.routes.audit`):
verification, replay, export, and the deal record.

Each replays or encodes a table's whole log: milliseconds of CPU that would hold every
other request up. The work runs in a worker thread (`asyncio.to_thread`), and the routes
that ask for it have their own, lower rate limit (`service.edge.limits`). Measured with eight
clients asking for replays, the thread kept ``/health`` at about 12 ms p50 instead of
18 ms on the event loop; a process pool took three times as long per call (the log is
pickled both ways) for no better latency.

A scored deal never changes (the log only grows), so its verification is computed once
and kept (`Kept`): it checks the log up to the end of the command that scored
the deal, which later events cannot change. Each service process keeps its own;
``doko verify`` reads the log afresh.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Annotated, Generic, TypeVar

import msgspec

from domain.events import DealDealt, DealScored, SessionFinished
from domain.table import TableEvent, TableState
from infra.audit.export import export_session
from infra.audit.report import Check, DealReport
from infra.audit.table import decode_events, verify_events
from infra.event_store import StoredEvent
from infra.projections import DealRecord, apply
from infra.signing import Signature, Signer
from infra.tables import CODEC

REPORT_FORMAT = "doko-deal-verification"
T = TypeVar("T")


class DealVerification(msgspec.Struct):
    """The audit of a scored deal, and the checks of the table's log up to ``version``, the
    end of the deal (hash chain, decoding, the rules re-deciding every event), whose hash
    chain value is ``chain_head``; signed by the service (`infra.signing`) when served."""

    format: Annotated[str, msgspec.Meta(description=f"always {REPORT_FORMAT!r}")]
    table_id: str
    version: Annotated[int, msgspec.Meta(description="the table version verified up to")]
    chain_head: Annotated[
        str, msgspec.Meta(description="the hash chain value at that version (hex)")
    ]
    ok: bool
    deal: DealReport
    table_checks: tuple[Check, ...]
    signature: Annotated[
        Signature | None,
        msgspec.Meta(
            description="the service's signature of this report (`/.well-known/doko-keys`)"
        ),
    ] = None


def scoring_end(events: Sequence[TableEvent], deal_no: int) -> int:
    """How many of the events reach to the end of the command that scored deal
    ``deal_no``: its `DealScored`, and what the table adds to it in the same command
    (the next deal's `DealDealt`, or `SessionFinished`). All of them if it is not scored."""
    for index, event in enumerate(events):
        if isinstance(event, DealScored) and event.deal_no == deal_no:
            follows = events[index + 1 : index + 2]
            return index + 1 + sum(isinstance(e, DealDealt | SessionFinished) for e in follows)
    return len(events)


def verify_deal(table_id: str, stored: Sequence[StoredEvent], deal_no: int) -> DealVerification:
    """Verify scored deal ``deal_no`` of a table from its stored events (or a prefix
    reaching past the deal), on the log up to the end of the command that scored it."""
    events, _ = decode_events(stored)
    end = scoring_end(events, deal_no)
    report = verify_events(stored[:end], events[:end])
    deal = [d for d in report.deals if d.deal_no == deal_no][-1]  # V4.8: the dealing scored
    ok = deal.ok and all(c.ok for c in report.checks)
    head = stored[end - 1]
    return DealVerification(
        REPORT_FORMAT, table_id, head.version, head.hash.hex(), ok, deal, report.checks
    )


class Kept(Generic[T]):
    """What ``compute`` makes of each scored deal asked for (from the table's log: it never
    changes), computed once and kept, the ``size`` most recently asked for; requests for a
    deal whose result is under way wait for it. An error is not kept."""

    def __init__(
        self, compute: Callable[[Sequence[StoredEvent], str, int], Awaitable[T]], size: int = 1024
    ) -> None:
        self._compute = compute
        self._size = size
        self._kept: OrderedDict[tuple[str, int], asyncio.Future[T]] = OrderedDict()

    async def of(
        self, table_id: str, deal_no: int, read: Callable[[], Awaitable[Sequence[StoredEvent]]]
    ) -> T:
        """The result for deal ``deal_no`` of a table; ``read()`` (called only when it is
        not kept) returns the table's log once the deal is scored, or raises."""
        key = (table_id, deal_no)
        kept = self._kept.get(key)
        if kept is None:
            kept = asyncio.ensure_future(self._run(read, table_id, deal_no))
            kept.add_done_callback(lambda done: self._forget_failure(key, done))
            self._kept[key] = kept
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
        self._kept.move_to_end(key)
        return await asyncio.shield(kept)

    def _forget_failure(self, key: tuple[str, int], done: asyncio.Future[T]) -> None:
        """An error is not kept: the next request for the deal tries again."""
        if (done.cancelled() or done.exception() is not None) and self._kept.get(key) is done:
            del self._kept[key]

    async def _run(
        self, read: Callable[[], Awaitable[Sequence[StoredEvent]]], table_id: str, deal_no: int
    ) -> T:
        return await self._compute(await read(), table_id, deal_no)


async def _verified(stored: Sequence[StoredEvent], table_id: str, deal_no: int) -> DealVerification:
    return await asyncio.to_thread(verify_deal, table_id, stored, deal_no)


def verifications(size: int = 1024) -> Kept[DealVerification]:
    """The verification of each scored deal asked for (in a worker thread), kept."""
    return Kept(_verified, size)


def decoded(stored: Sequence[StoredEvent]) -> list[TableEvent]:
    """The table events of a stored log."""
    return [CODEC.from_stored(e) for e in stored]


def deal_record_of(stored: Sequence[StoredEvent], deal_no: int) -> DealRecord | None:
    """A scored deal's record computed from the log (what the ``deal_archive`` projection
    holds), None if the deal is not scored."""
    _, records = apply(TableState(), decoded(stored))
    return next((r for r in records if r.deal_no == deal_no), None)


def export_of(stored: Sequence[StoredEvent], signer: Signer, signed_at: datetime) -> bytes:
    """`infra.audit.export.export_session` of a finished table's log, signed."""
    return export_session(stored, decoded(stored), signer=signer, signed_at=signed_at)
