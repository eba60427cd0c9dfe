"""The table aggregate: seats, dealing method and entropy (R1.1, R2.2)."""

from __future__ import annotations

import pytest

from domain import table
from domain.dealing import commitment
from domain.seats import Seat
from domain.table import (
    CreateTable,
    DealingMethod,
    EntropyNotUsed,
    SeatTaken,
    TableState,
    TakeSeat,
)
from domain.table_view import table_view
from tests.domain.test_dealing import VALID

SEEDS = tuple(bytes([n]) * 32 for n in range(12))


def created(command: CreateTable) -> TableState:
    return table.fold(table.decide(TableState(), command))


SERVER = CreateTable("t", Seat.NORTH, server_seeds=SEEDS)
HOST = CreateTable("t", Seat.NORTH, server_seeds=SEEDS, shared_seeds=True)
PRESET = CreateTable("t", Seat.NORTH, presets=(VALID,) * 12)


@pytest.mark.parametrize(
    ("command", "method"),
    [
        pytest.param(SERVER, DealingMethod.SEEDED, id="server-seeds"),
        pytest.param(HOST, DealingMethod.HOST_SEEDED, id="host-seeds"),
        pytest.param(PRESET, DealingMethod.PRESET, id="preset-hands"),
    ],
)
def test_r2_2_every_view_names_the_dealing_method_before_anyone_sits(
    command: CreateTable, method: str
) -> None:
    """R2.2: spectators and seats see how the deals come about from the table's creation."""
    state = created(command)
    assert table_view(state, None).dealing_method == method
    assert table_view(state, Seat.EAST).dealing_method == method
    assert table_view(state, None).preset is (method == "preset")


@pytest.mark.parametrize(
    ("command", "method"),
    [
        pytest.param(HOST, "host_seeded", id="host-seeds"),
        pytest.param(PRESET, "preset", id="preset"),
    ],
)
def test_r2_2_entropy_for_deals_fixed_in_advance_is_refused(
    command: CreateTable, method: str
) -> None:
    """R2.2: entropy sent to a host-seeded or preset table would be dropped: it is refused,
    naming the method; sitting down without entropy works."""
    state = created(command)
    with pytest.raises(EntropyNotUsed) as refused:
        table.decide(state, TakeSeat("Anna", "h", Seat.EAST, b"\x01\x02"))
    assert refused.value.rule == "R2.2"
    assert f"({method})" in refused.value.message
    (taken,) = table.decide(state, TakeSeat("Anna", "h", Seat.EAST))
    assert taken == SeatTaken(Seat.EAST, "Anna", "h")


def test_r2_2_server_seeds_mix_in_the_players_entropy() -> None:
    """R2.2: at a server-seeded table every player's entropy is recorded and mixed into
    deal 1, whose record names the committed seed."""
    state = created(SERVER)
    events: list[table.TableEvent] = []
    for seat in Seat:
        events = list(table.decide(state, TakeSeat(f"p{seat}", "h", seat, bytes([seat + 1]))))
        state = table.fold(events, state)
    dealt = state.session.deal
    assert dealt is not None
    assert dealt.dealing.entropy == ("01", "02", "03", "04")
    assert dealt.dealing.commitment == commitment(SEEDS[0])
