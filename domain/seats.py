"""Seats 0-3, clockwise; a seat's *left* is the next seat clockwise."""

from __future__ import annotations

from enum import IntEnum


class Seat(IntEnum):
    """A seat at the table, numbered clockwise."""

    NORTH = 0
    EAST = 1
    SOUTH = 2
    WEST = 3

    def left(self) -> Seat:
        """The player on this seat's left: the next seat clockwise."""
        return _SEATS[(self + 1) % 4]

    def right(self) -> Seat:
        """The player on this seat's right: the previous seat clockwise."""
        return _SEATS[(self + 3) % 4]

    def after(self, steps: int) -> Seat:
        """The seat ``steps`` places clockwise from this one."""
        return _SEATS[(self + steps) % 4]

    def round(self) -> tuple[Seat, Seat, Seat, Seat]:
        """All four seats clockwise, starting with this one."""
        return (self, self.after(1), self.after(2), self.after(3))


_SEATS: tuple[Seat, ...] = tuple(Seat)
SEATS: tuple[Seat, ...] = _SEATS
