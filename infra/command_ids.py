"""The ids the service makes up for streams and commands: built, and read back, here only.

Streams
    A table or a tournament has a fresh random id (`service.edge.draws.fresh_id`). Table ``t``
    of round ``r`` of a tournament is ``<tournament>-r<r>t<t>`` (`table_id`), so that whoever
    hears of a commit to it knows its tournament without a read (`tournament_of`).

Commands
    A command given with a ``command_id`` is written once, however often it is given again
    (`infra.streams`). The service gives these:

    - ``tournament:round:<r>``: the start of round ``r`` (`round_start`, E4.1);
    - ``tournament:end:<r>:<t>``: the end of table ``t`` of round ``r`` (`table_end`, E4.2);
    - ``tournament:deal:<r>:<d>``: the record of deal ``d`` of round ``r`` once it is public
      (`deal_published`, E6.6);
    - ``tournament:<tournament>:open`` and ``tournament:<tournament>:seat:<s>``: the opening
      of a tournament's table and the seating of its seat ``s`` (`table_open`, `seat_taken`,
      E5.2);
    - ``bot<s>:v<version>``: the action of the bot at seat ``s`` at the table's version
      (`bot_action`);
    - ``timeout:v<version>``: the turn clock's timeout at the table's version (`timeout`, T3.2);
    - ``request:<hex>``: the writes of a request with an Idempotency-Key (`request`).
"""

from __future__ import annotations

import re
import uuid

_TOURNAMENT_TABLE = re.compile(r"(?P<tournament>[0-9A-Za-z_]{1,64})-r(?P<round>\d+)t(?P<table>\d+)")


def table_id(tournament_id: str, round_no: int, table_no: int) -> str:
    """The stream of table ``table_no`` of round ``round_no`` of the tournament."""
    return f"{tournament_id}-r{round_no}t{table_no}"


def tournament_of(stream_id: str) -> str | None:
    """The tournament whose table ``stream_id`` would be (`table_id`), if it has the form of
    one; None for any other stream."""
    found = _TOURNAMENT_TABLE.fullmatch(stream_id)
    return found["tournament"] if found else None


def round_start(round_no: int) -> str:
    """The start of round ``round_no`` of a tournament (E4.1)."""
    return f"tournament:round:{round_no}"


def table_end(round_no: int, table_no: int) -> str:
    """The end of table ``table_no`` of round ``round_no`` of a tournament (E4.2)."""
    return f"tournament:end:{round_no}:{table_no}"


def deal_published(round_no: int, deal_no: int) -> str:
    """E6.6: the command id that records deal ``deal_no`` of round ``round_no`` once public."""
    return f"tournament:deal:{round_no}:{deal_no}"


def table_open(tournament_id: str) -> str:
    """The opening of a table of the tournament (E5.2)."""
    return f"tournament:{tournament_id}:open"


def seat_taken(tournament_id: str, seat: int) -> str:
    """The seating of seat ``seat`` of a table of the tournament (E5.2)."""
    return f"tournament:{tournament_id}:seat:{seat}"


def bot_action(seat: int, version: int) -> str:
    """The action of the bot at ``seat`` of a table at ``version``."""
    return f"bot{seat}:v{version}"


def timeout(version: int) -> str:
    """The turn clock's timeout of a table at ``version`` (T3.2)."""
    return f"timeout:v{version}"


def request() -> str:
    """A fresh id for the writes of a request with an Idempotency-Key."""
    return f"request:{uuid.uuid4().hex}"
