"""A table's log deal by deal: where its session ends, which deals were dealt and scored,
the events of one deal, and one deal step by step as text (`doko replay`, the deal's
replay route).
"""

from __future__ import annotations

from collections.abc import Sequence

from domain import table
from domain.events import DealDealt, DealScored, SessionFinished
from domain.table import TABLE_EVENTS, SessionAbandoned, TableEvent

ENDS = (SessionFinished, SessionAbandoned)
"""Events after a session's last deal."""


def finished(events: Sequence[TableEvent]) -> bool:
    """Whether the table's session is over: its log holds `SessionFinished` (R1.2) or
    `SessionAbandoned` (T4.2), so no deal of it will be played any more. Events may follow
    the end (a new invitation code, T1.2); they deal nothing."""
    return any(isinstance(e, ENDS) for e in reversed(events))


def scored_numbers(events: Sequence[TableEvent]) -> list[int]:
    """The numbers of the deals scored so far."""
    return [e.deal_no for e in events if isinstance(e, DealScored)]


def deal_events(events: Sequence[TableEvent], deal_no: int) -> list[TableEvent]:
    """The events of deal ``deal_no``: from its `DealDealt` to its `DealScored` (or the end);
    of a deal dealt again (V4.8) from its last `DealDealt`, the dealing played (the void
    ones before it are in the log, their hands recomputed from the same seed)."""
    selected: list[TableEvent] = []
    inside = False
    for event in events:
        if isinstance(event, DealDealt):
            inside = event.deal_no == deal_no
            if inside:
                selected = []
        if isinstance(event, ENDS):
            inside = False
        if inside:
            selected.append(event)
    return selected


def dealt_numbers(events: Sequence[TableEvent]) -> list[int]:
    """The numbers of the deals dealt so far (each once, also if dealt again: V4.8)."""
    return list(dict.fromkeys(e.deal_no for e in events if isinstance(e, DealDealt)))


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
