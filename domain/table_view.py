"""What a seat, or a spectator, may see of a table and of each event in its stream.

Builds on `domain.observations`: nothing here shows another seat's hand, a
hidden party, a losing contract or a silent solo before the deal is scored, nor
any server seed before its deal is scored.
"""

from __future__ import annotations

import functools

import msgspec

from domain.events import ContractNamed, DealDealt, GameTypeFixed
from domain.game_types import GameType
from domain.observations import Observation, observe
from domain.seats import SEATS, Seat
from domain.table import DealingMethod, Player, SeatTaken, TableCreated, TableEvent, TableState


class SeatInfo(msgspec.Struct, frozen=True):
    """A seat as everyone sees it (``bot``: the kind of server-side bot playing it)."""

    seat: Seat
    name: str | None
    bot: str | None = None


class TableView(msgspec.Struct, frozen=True):
    """A table as ``viewer`` (None: a spectator) sees it. ``dealing_method`` says how its
    deals come about (R2.2, `domain.table.DealingMethod`); ``preset`` is true when that is
    ``preset``."""

    name: str
    viewer: Seat | None
    seats: tuple[SeatInfo, ...]
    commitments: tuple[str, ...]
    preset: bool
    dealing_method: DealingMethod
    first_dealer: Seat | None
    deals: int
    deal: Observation | None
    scoresheet: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    winners: tuple[Seat, ...] | None


@functools.lru_cache(maxsize=4096)
def _seat_infos(players: tuple[Player | None, ...]) -> tuple[SeatInfo, ...]:
    """Each seat as everyone sees it (remembered: it changes only while players sit down)."""
    return tuple(
        SeatInfo(s, p.name, p.bot or None) if p else SeatInfo(s, None)
        for s, p in zip(SEATS, players, strict=True)
    )


def table_view(state: TableState, viewer: Seat | None) -> TableView:
    """The table as ``viewer`` sees it; the current deal through `observe`."""
    created = state.created
    assert created is not None
    current = state.session
    return TableView(  # positional, in field order: the fastest way to build it
        created.name,
        viewer,
        _seat_infos(state.players),
        created.commitments,
        bool(created.presets),
        created.dealing_method,
        current.first_dealer,
        current.deals,
        observe(current.deal, viewer) if current.deal is not None else None,
        current.sheet,
        current.totals,
        current.winners,
    )


def redact(event: TableEvent, viewer: Seat | None) -> TableEvent | None:
    """An event as ``viewer`` may see it; None to withhold it.

    Server seeds, preset hands and token hashes are never shown; a dealt deal
    shows only the viewer's hand and no seed; a named contract only to its
    namer (R4.3); a silent solo looks like a normal game to all but its soloist (R4.5).
    """
    if isinstance(event, TableCreated):
        return msgspec.structs.replace(event, server_seeds=(), presets=(), host_token_hash="")
    if isinstance(event, SeatTaken):
        return msgspec.structs.replace(event, token_hash="")
    if isinstance(event, DealDealt):
        hands = tuple(h if s is viewer else () for s, h in zip(SEATS, event.hands, strict=True))
        return msgspec.structs.replace(
            event, hands=hands, dealing=msgspec.structs.replace(event.dealing, seed=None)
        )
    if isinstance(event, ContractNamed):
        return event if event.seat is viewer else None
    if (
        isinstance(event, GameTypeFixed)
        and event.game_type is GameType.SILENT_SOLO
        and event.declarer is not viewer
    ):
        return GameTypeFixed(GameType.NORMAL, None)
    return event
