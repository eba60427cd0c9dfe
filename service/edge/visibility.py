"""Which tables are public (T1.1): the integration feed shows only theirs.

A table's visibility is fixed when it is created, so each process remembers it once read:
from the table's first event (`domain.table.TableCreated.visibility`; a table created
before visibility existed was public). A stream that is no table's (a tournament's,
`domain.tournament`, whose first event has a ``visibility`` too) is never public here.
"""

from __future__ import annotations

from collections.abc import Iterable

import asyncpg

from domain.table import Visibility

_VISIBILITY = """
    SELECT stream_id, coalesce(payload->>'visibility', $2) = $2
    FROM events WHERE version = 1 AND type = 'table_created' AND stream_id = ANY($1::text[])
"""


class Visibilities:
    """Remembers which tables are public, reading the first events it does not know yet."""

    def __init__(self, pool: asyncpg.Pool, keep: int = 65536) -> None:
        self._pool = pool
        self._keep = keep
        self._public: dict[str, bool] = {}

    async def public(self, stream_ids: Iterable[str]) -> set[str]:
        """Those of the tables that are public."""
        wanted = set(stream_ids)
        unknown = [s for s in wanted if s not in self._public]
        if unknown:
            if len(self._public) + len(unknown) > self._keep:
                self._public.clear()
            rows = await self._pool.fetch(_VISIBILITY, unknown, Visibility.PUBLIC.value)
            self._public.update((row[0], row[1]) for row in rows)
        return {s for s in wanted if self._public.get(s, False)}
