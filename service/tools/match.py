"""``doko match``: a duplicate match between two bot kinds, played over the service.

Every 12-deal session is played twice on the same deals (the same 12 seeds and first
dealer at two tables): kinds A, B, A, B at seats 0-3 at one table and B, A, B, A at the
other, so that the cards' luck cancels. A *deal pair* is one deal at both tables; its
value is the mean scoresheet entry (R10) of A's seats minus B's, averaged over the two
tables. The match prints the mean over the deal pairs with a 95 % confidence interval
(normal approximation: mean +- 1.96 standard errors), and for each kind how often one of
its seats played a solo (declared or silent) or a marriage, made an announcement, and
won the deal when Re and when Kontra (per seat and deal).

Without ``--url`` the match starts its own service in this process, on the embedded
PostgreSQL (as `doko demo`). Several session pairs are played at once; the server's bot
driver takes the tables in turn.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import random
import statistics
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import httpx
import msgspec
from rich.console import Console
from rich.table import Table

from domain.game_types import SOLOS, GameType
from domain.parties import Party
from infra.projections import DealRecord
from service.tools.client import (
    DokoClient,
    ProblemError,
    TableClient,
    raise_for_problem,
)
from service.tools.demo import QUIET_LOGGERS, local_service

DEALS_PER_SESSION = 12
AT_ONCE = 8
"""Session pairs played at the same time."""
POLL_SECONDS = 0.5
Z95 = 1.96
RETRIES = 20
"""Attempts at a request that failed in transport or was answered 503 (a match runs for
hours: a connection the server closed while idle, or a database wait cut off, must not
end it)."""

T = TypeVar("T")


async def retrying(call: Callable[[], Awaitable[T]], wait: float = POLL_SECONDS) -> T:
    """``call()``, again after ``wait`` seconds (doubling, up to 10) while it fails in
    transport or with 503, or after ``Retry-After`` once a limit refused it (429: the
    service's creations are limited per minute), up to `RETRIES` attempts."""
    for _ in range(RETRIES - 1):
        pause = wait
        try:
            return await call()
        except httpx.TransportError:
            pass
        except ProblemError as error:
            if error.status not in (429, 503):
                raise
            if error.status == 429:
                pause = float(error.headers.get("retry-after", wait))
        await asyncio.sleep(pause)
        wait = min(2 * wait, 10.0)
    return await call()


class KindStats(msgspec.Struct):
    """What one kind's seats did, counted per seat and deal."""

    seat_deals: int = 0
    solos: int = 0
    marriages: int = 0
    announced: int = 0
    re: int = 0
    re_won: int = 0
    kontra: int = 0
    kontra_won: int = 0

    def rates(self) -> dict[str, float]:
        def rate(n: int, d: int) -> float:
            return n / d if d else 0.0

        return {
            "solo": rate(self.solos, self.seat_deals),
            "marriage": rate(self.marriages, self.seat_deals),
            "announced": rate(self.announced, self.seat_deals),
            "won_as_re": rate(self.re_won, self.re),
            "won_as_kontra": rate(self.kontra_won, self.kontra),
        }


def count_deal(record: DealRecord, kinds: tuple[str, ...], stats: dict[str, KindStats]) -> None:
    """Add one scored deal to the statistics of the kinds sitting at seats 0-3."""
    score = record.score
    announcers = {int(a.seat) for a in record.announcements}
    for seat, kind in enumerate(kinds):
        mine = stats[kind]
        mine.seat_deals += 1
        if record.declarer is not None and int(record.declarer) == seat:
            if record.game_type in SOLOS or record.game_type is GameType.SILENT_SOLO:
                mine.solos += 1
            elif record.game_type is GameType.MARRIAGE:
                mine.marriages += 1
        mine.announced += seat in announcers
        if seat in score.re_seats:
            mine.re += 1
            mine.re_won += score.winner is Party.RE
        else:
            mine.kontra += 1
            mine.kontra_won += score.winner is Party.KONTRA


def pair_value(first: tuple[int, ...], second: tuple[int, ...]) -> float:
    """A deal pair's value: A's mean entry minus B's, A at seats 0 and 2 of the first
    table and at seats 1 and 3 of the second, averaged over both."""
    at_first = (first[0] + first[2] - first[1] - first[3]) / 2
    at_second = (second[1] + second[3] - second[0] - second[2]) / 2
    return (at_first + at_second) / 2


def interval(values: list[float]) -> tuple[float, float, float]:
    """The mean and its 95 % confidence interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, -math.inf, math.inf
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


async def _table(
    api: DokoClient, kinds: tuple[str, ...], seeds: list[str], dealer: int
) -> TableClient:
    table = await retrying(lambda: api.create_table("match", seeds=seeds, first_dealer=dealer))
    for seat, kind in enumerate(kinds):
        await retrying(functools.partial(table.seat_bot, kind, seat=seat, name=f"{kind} {seat}"))
    return table


async def _records(api: DokoClient, table: TableClient, deals: int) -> list[DealRecord]:
    """The table's first ``deals`` deal records, once they are scored; a session that
    still runs then is abandoned (T4.2), so that its bots stop."""
    while len((view := await retrying(table.view)).scoresheet) < deals and view.winners is None:
        await asyncio.sleep(POLL_SECONDS)
    if view.winners is None:
        try:
            await retrying(table.abandon)
        except ProblemError as error:  # a retried abandon that had been written (T4.2)
            if error.status != 409:
                raise
    records = []
    for n in range(1, deals + 1):

        async def record(n: int = n) -> DealRecord:
            response = await api.http.get(f"{table.path}/deals/{n}", headers=table.credential)
            raise_for_problem(response)
            return msgspec.json.decode(response.content, type=DealRecord)

        records.append(await retrying(record))
    return records


async def _session_pair(
    api: DokoClient, a: str, b: str, session: int, seed: int, deals: int
) -> list[tuple[DealRecord, DealRecord]]:
    chance = random.Random(f"{seed}:{session}")
    seeds = [chance.randbytes(32).hex() for _ in range(DEALS_PER_SESSION)]
    dealer = session % 4
    first = await _table(api, (a, b, a, b), seeds, dealer)
    second = await _table(api, (b, a, b, a), seeds, dealer)
    one, two = await asyncio.gather(_records(api, first, deals), _records(api, second, deals))
    return list(zip(one, two, strict=True))


async def play_match(
    base_url: str, a: str, b: str, deals: int, seed: int, progress: Console
) -> dict[str, object]:
    """Play the match against the service at ``base_url``; the result as `--json` writes it.
    After each session pair, the interval so far goes to ``progress``."""
    sessions = math.ceil(deals / DEALS_PER_SESSION)
    limit = asyncio.Semaphore(AT_ONCE)
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        api = DokoClient(http)

        async def one(session: int) -> list[tuple[DealRecord, DealRecord]]:
            counted = min(DEALS_PER_SESSION, deals - session * DEALS_PER_SESSION)
            async with limit:
                return await _session_pair(api, a, b, session, seed, counted)

        played = []
        for done in asyncio.as_completed([one(s) for s in range(sessions)]):
            played.append(await done)
            so_far = [pair_value(f.score.entries, s.score.entries) for p in played for f, s in p]
            mean, low, high = interval(so_far)
            progress.print(
                f"{len(played)}/{sessions} session pairs, {len(so_far)} deal pairs: "
                f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"
            )
    stats = {kind: KindStats() for kind in dict.fromkeys((a, b))}
    values = []
    for pairs in played:
        for first, second in pairs:
            values.append(pair_value(first.score.entries, second.score.entries))
            count_deal(first, (a, b, a, b), stats)
            count_deal(second, (b, a, b, a), stats)
    mean, low, high = interval(values)
    return {
        "a": a,
        "b": b,
        "deal_pairs": len(values),
        "mean": mean,
        "ci_low": low,
        "ci_high": high,
        "seed": seed,
        "kinds": {kind: s.rates() for kind, s in stats.items()},
        "pairs": values,
        "game_types": dict(
            Counter(r.game_type.value for pairs in played for p in pairs for r in p)
        ),
    }


def report(result: dict[str, object], console: Console) -> None:
    """Print the result: the interval, then each kind's frequencies."""
    console.print(
        f"{result['a']} - {result['b']}: {result['mean']:+.3f} points per deal per player, "
        f"95 % CI [{result['ci_low']:+.3f}, {result['ci_high']:+.3f}], "
        f"{result['deal_pairs']} deal pairs"
    )
    table = Table("kind", "solo", "marriage", "announced", "won as Re", "won as Kontra")
    kinds = result["kinds"]
    assert isinstance(kinds, dict)
    for kind, rates in kinds.items():
        table.add_row(kind, *(f"{100 * v:.1f} %" for v in rates.values()))
    console.print(table)


async def match(
    url: str | None,
    database_url: str | None,
    *,
    a: str,
    b: str,
    deals: int,
    seed: int,
    json_file: Path | None = None,
) -> int:
    """Run ``doko match``; start a local service on ``database_url`` unless ``url`` is given."""
    import logging

    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    progress = Console(stderr=True)
    if url is not None:
        result = await play_match(url, a, b, deals, seed, progress)
    else:
        assert database_url is not None
        async with local_service(database_url) as local:
            result = await play_match(local, a, b, deals, seed, progress)
    report(result, Console())
    if json_file is not None:
        json_file.write_text(json.dumps(result, indent=2) + "\n")
    return 0
