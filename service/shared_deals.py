"""E5.3: the shared deals of an event's round stay hidden until every table of the round
has scored them.

Every table of a round holds the same cards (E5.1), so what one table shows of deal *n*
(its record, its replay, its verification, its seed, an export holding it) tells the
players of another table their own deal *n*. A table that belongs to an event (listed in
``event_tables``, `infra.events`) therefore answers these only once the deal is *public*
for the round (`domain.event.deal_public`: every table of the round has scored it or is
over), whoever asks: its own players and the director too. Until then: 409
``deal_not_public`` (rule E5.3). A table of no event is not concerned.

While a round runs its tables are private (E5.2): the feed, the lobby and the spectator
pages leave them out for everyone holding no credential of the table (T1.1), the event's
own players at the other tables included.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.event import deal_public
from domain.table import TableState
from infra.events import Events
from service.edge.problems import ServiceError
from service.workers.rounds import event_of

_ROUND_OF = "SELECT event_id, round_no FROM event_tables WHERE table_id = $1"


def progress(tables: Sequence[TableState | None]) -> list[tuple[int, bool]]:
    """Every table of a round as (its scored deals, whether it is over): not opened yet,
    none scored (`domain.event.deal_public`)."""
    return [(0, False) if t is None else (len(t.session.sheet), t.over) for t in tables]


async def round_progress(events: Events, table_id: str) -> list[tuple[int, bool]] | None:
    """The progress of every table of the round the table belongs to; None for a table of
    no event."""
    if event_of(table_id) is None:
        return None
    row = await events.pool.fetchrow(_ROUND_OF, table_id)
    if row is None:
        return None
    loaded = await events.load(row["event_id"])
    return progress(await events.round_tables(row["event_id"], loaded.state, row["round_no"]))


def not_public(deal_no: int) -> ServiceError:
    return ServiceError(
        409,
        "deal_not_public",
        f"deal {deal_no} is shared by the round's tables: it stays hidden until every "
        "table of the round has scored it",
        rule="E5.3",
    )


async def require_public(events: Events, table_id: str, deal_no: int) -> None:
    """E5.3: deal ``deal_no`` of an event's table is public for its round (else 409)."""
    found = await round_progress(events, table_id)
    if found is not None and not deal_public(found, deal_no):
        raise not_public(deal_no)
