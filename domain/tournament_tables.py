"""A tournament's tables (E5.1-E5.3): the commands that open a round's table and seat its
players and bots, its name, and when a deal of the round is public."""

from __future__ import annotations

from collections.abc import Sequence

from domain.rule_set import in_force
from domain.seats import SEATS
from domain.table import CreateTable, TakeSeat, Visibility
from domain.tournament import FIRST_DEALER, TournamentCreated, TournamentState


def table_name(created: TournamentCreated, round_no: int, table_no: int) -> str:
    """The name of table ``table_no`` of round ``round_no``."""
    return f"{created.name} · round {round_no} · table {table_no}"


def table_commands(
    state: TournamentState, round_no: int, table_no: int, bot: str
) -> tuple[CreateTable, tuple[TakeSeat, ...]]:
    """E5.1, E5.2: the command that opens table ``table_no`` of round ``round_no`` (started)
    and those that seat its players (with their tournament credentials) and its bots of kind
    ``bot``. A bot seat's token hash is no SHA-256 (``bot:`` and its place), so that no
    credential acts for it."""
    created = state.created
    assert created is not None
    index = round_no - 1
    create = CreateTable(
        name=table_name(created, round_no, table_no),
        first_dealer=FIRST_DEALER,
        server_seeds=tuple(bytes.fromhex(s) for s in created.round_seeds[index])
        if created.round_seeds
        else (),
        presets=created.presets[index] if created.presets else (),
        first_dealer_fixed=True,
        host_token_hash=created.host_token_hash,
        shared_seeds=bool(created.round_seeds),
        visibility=Visibility.PRIVATE,
        invitation_hash=created.host_token_hash,
        turn_seconds=created.turn_seconds,
        rules=in_force(created.rules),
    )
    seats = state.seatings[index][table_no - 1]
    takes: list[TakeSeat] = []
    for seat, player in zip(SEATS, seats, strict=True):
        if player is None:
            place = f"bot:{round_no}:{table_no}:{int(seat)}"
            takes.append(TakeSeat(f"{bot} bot {int(seat)}", place, seat, bot=bot))
        else:
            registrant = state.players[player]
            takes.append(TakeSeat(registrant.name, registrant.token_hash, seat))
    return create, tuple(takes)


def deal_public(progress: Sequence[tuple[int, bool]], deal_no: int) -> bool:
    """E5.3: whether deal ``deal_no`` of a round is public, given every table of the round
    as (its scored deals, whether it is over): every table has scored it or is over."""
    return all(scored >= deal_no or over for scored, over in progress)
