"""V6 The session length and the duty solo (Pflichtsolo), by the DDV tournament rules.

- V6.1 Option session_deals: a session is N counted deals (R1.1's 12 by default), N a
  multiple of 4 from 4 to 48, so that every player deals equally often (one to twelve
  rounds). Any other N is refused (`invalid_table_option`). (FreeDoko counts rounds,
  "number of rounds", 20 by default; DDV tournaments play 20 counted deals plus the 4
  duty solos: N = 20 with duty_solo.)
- V6.2 Option duty_solo true: each player must play one duty solo (Pflichtsolo) within the
  session. Who still owes it is public: every seat's view and the scoresheet show it.
- V6.3 The duty solo: a declared solo (R5: named after `reservation`) that wins the game
  type for a player who still owes the duty solo. A silent solo (R4.5) and a marriage
  played alone (R4.6) are no duty solo. A player who has played the duty solo plays every
  further solo as a voluntary solo (Lustsolo), as R4 and R5 say.
- V6.4 Priority: a duty solo beats a voluntary solo and a marriage; between two duty solos
  the earlier player in the order of R4.1 wins (R4.3 otherwise). The losing contracts
  stay hidden (R4.3).
- V6.5 The soloist leads the first trick of a duty solo (DDV: the Pflichtsolo player leads
  out). A voluntary solo is led by the player on the dealer's left (R3.5), as the DDV
  plays a Lustsolo. (FreeDoko's "lustsolo player leads" is not followed.)
- V6.6 A duty solo does not count toward the N deals: the same dealer deals again (R1.2's
  move to the left waits for a counted deal). A voluntary solo counts like every other
  deal. A session with duty solos is thus exactly N + 4 deals.
- V6.7 Vorführung: a player who still owes the duty solo once the N counted deals are
  scored has had his last chance; the session goes on with one more deal for each such
  player, dealt by the dealer of the next counted deal (none is counted). In each, the
  first player in the order of R4.1 who still owes is vorgeführt: he must say
  `reservation` (`healthy` is refused) and name a solo of his choice (a marriage, and
  with V4 an Armut, is refused); it is his duty solo (V6.3-V6.6).
- V6.8 The session ends (R1.3) when the N counted deals are scored and nobody owes a duty
  solo. A duty solo is scored as every solo (R7-R10); its score and the scoresheet mark
  it.
"""

from __future__ import annotations

import msgspec

from domain.errors import InvalidTableOption
from domain.game_types import SOLOS, GameType
from domain.seats import SEATS, Seat

DEALS = 12
"""R1.1: the deals of a session by RULES.md."""
ROUND = 4
"""V6.1: the deals of a round, one per dealer."""
LONGEST = 48
"""V6.1: the most counted deals a session may have (twelve rounds)."""
DUTY_SOLOS = len(SEATS)
"""V6.6: the deals a session with duty solos has beyond its counted ones: one per player."""
MOST_DEALS = LONGEST + DUTY_SOLOS
"""V6.1, V6.6: the most deals a session may have, so the most seeds a table takes."""


class Duty(msgspec.Struct, frozen=True):
    """V6.2, V6.7: at the start of a deal, the seats that still owe their duty solo (in
    seat order; none without the option) and the seat that is vorgeführt (V6.7), if any."""

    owed: tuple[Seat, ...] = ()
    forced: Seat | None = None


NO_DUTY = Duty()
"""Nobody owes a duty solo (RULES.md, or all played)."""


def check_session_deals(deals: int) -> None:
    """V6.1: N counted deals, a multiple of 4 from 4 to 48."""
    if deals % ROUND or not ROUND <= deals <= LONGEST:
        raise InvalidTableOption(
            f"a session is a multiple of {ROUND} deals from {ROUND} to {LONGEST}, not {deals}",
            rule="V6.1",
        )


def all_deals(deals: int, duty_solo: bool) -> int:
    """V6.6: how many deals a session of ``deals`` counted deals has: N + 4 with duty solos."""
    return deals + (DUTY_SOLOS if duty_solo else 0)


def owing_at_start(duty_solo: bool) -> tuple[Seat, ...]:
    """V6.2: every player owes the duty solo when the session starts (with the option)."""
    return SEATS if duty_solo else ()


def duty_solo_winner(
    named: list[tuple[Seat, GameType]], owed: tuple[Seat, ...]
) -> tuple[Seat, GameType] | None:
    """V6.3, V6.4: of the contracts ``named`` (in the order of R4.1), the first solo named
    by a player who still owes the duty solo: it beats every other contract."""
    return next(((s, c) for s, c in named if c in SOLOS and s in owed), None)


def forced_seat(counted: int, deals: int, owed: tuple[Seat, ...], first: Seat) -> Seat | None:
    """V6.7: the seat vorgeführt in the next deal: once the ``deals`` counted deals are
    scored, the first seat from ``first`` (the dealer's left) that still owes; else none."""
    if counted < deals:
        return None
    return next((s for s in first.round() if s in owed), None)


def counted_left(deal_no: int, deals: int, owed: tuple[Seat, ...]) -> int:
    """V6.6, V6.7: the counted deals still to come in a session of ``deals`` counted deals,
    deal ``deal_no`` (1-based) included, while ``owed`` still owe their duty solo: every
    deal before it counted but the duty solos played, one for each seat that owes no more.
    0: the deal is a Vorführung (V6.7). Public: the deal number and who owes (V6.2)."""
    duty_solos = DUTY_SOLOS - len(owed)
    return max(0, deals - (deal_no - 1 - duty_solos))


def paid(owed: tuple[Seat, ...], soloist: Seat) -> tuple[Seat, ...]:
    """V6.3: the seats that still owe once ``soloist`` has played the duty solo."""
    return tuple(s for s in owed if s is not soloist)


def over(counted: int, deals: int, owed: tuple[Seat, ...]) -> bool:
    """V6.8: the session is over: its counted deals are scored and nobody owes."""
    return counted >= deals and not owed
