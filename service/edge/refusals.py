"""Refusals at the edge, counted: one log line per interval, not one per refusal.

A connection or request refused for a cap on what a client may hold (too many open
connections, of the process or of the client's address; too many open streams of the
address) or for breaking a limit of the protocol (headers too large, too slow) is counted
here by its problem code and the client's address. `Refusals.run` (a supervised task)
logs what was counted every ``interval`` seconds on ``doko.edge``, as one line with the
counts per code and the addresses refused most, and once more when it is stopped; an
interval without refusals logs nothing. A client holding a thousand streams open
therefore costs the log one line every ten seconds.

The counts are per process, kept in `REFUSALS`, which the HTTP protocol (`service.edge.http`)
and the application's guard (`service.edge.limits`) share.
"""

from __future__ import annotations

import logging
from collections import Counter

from service.edge.logs import flush_every

log = logging.getLogger("doko.edge")

SHOWN_ADDRESSES = 10
"""How many of the addresses refused most a line names."""


class Refusals:
    """Refusals counted since the last line (see the module docstring)."""

    def __init__(self, interval: float = 10.0) -> None:
        self.interval = interval
        self._codes: Counter[str] = Counter()
        self._addresses: Counter[str] = Counter()

    def count(self, code: str, address: str) -> None:
        """One refusal of ``code`` for the client ``address``."""
        self._codes[code] += 1
        self._addresses[address] += 1

    def flush(self) -> None:
        """Log what was counted as one line, if anything, and start counting again."""
        if self._codes:
            codes, self._codes = self._codes, Counter()
            addresses, self._addresses = self._addresses, Counter()
            log.warning(
                "refused %d connections or requests",
                codes.total(),
                extra={
                    "fields": {
                        "refused": dict(codes.most_common()),
                        "addresses": dict(addresses.most_common(SHOWN_ADDRESSES)),
                        "address_count": len(addresses),
                    }
                },
            )

    async def run(self) -> None:
        """Flush every ``interval`` seconds until cancelled (then flush once more)."""
        await flush_every(self.interval, self.flush)


REFUSALS = Refusals()
"""The refusals of this process."""
