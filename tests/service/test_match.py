"""`doko match`: a duplicate match over the service, its value per deal pair."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from service.tools.cli import main
from service.tools.client import (
    ProblemError,
)
from service.tools.match import interval, match, pair_value, retrying


def test_a_deal_pair_is_a_minus_b_averaged_over_both_tables() -> None:
    """A at seats 0, 2 of the first table and 1, 3 of the second; a table's value is A's
    mean entry (R10) minus B's. Entries 3 -3 3 -3: A 3, B -3, so 6; then 1 -1 1 -1 at the
    second table: A -1, B 1, so -2; the pair: 2."""
    assert pair_value((3, -3, 3, -3), (1, -1, 1, -1)) == pytest.approx(2.0)
    assert pair_value((3, -3, 3, -3), (-1, 1, -1, 1)) == pytest.approx(4.0)
    assert pair_value((6, -2, -2, -2), (-2, -2, 6, -2)) == pytest.approx(0.0)  # 4 and -4
    mean, low, high = interval([1.0, 3.0])
    assert (mean, low, high) == pytest.approx((2.0, 2 - 1.96, 2 + 1.96))  # stdev sqrt(2), n 2


async def test_a_match_plays_both_tables_of_a_session(
    base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = tmp_path / "match.json"
    status = await match(base_url, None, a="greedy", b="random", deals=3, seed=3, json_file=written)
    assert status == 0
    result = json.loads(written.read_text())
    assert (
        f"greedy - random: {result['mean']:+.3f} points per deal per player"
        in capsys.readouterr().out
    )
    assert result["deal_pairs"] == 3  # both tables of one session, abandoned after deal 3
    pairs = result["pairs"]
    assert isinstance(pairs, list) and len(pairs) == 3
    assert result["ci_low"] < result["mean"] < result["ci_high"]
    kinds = result["kinds"]
    assert isinstance(kinds, dict) and list(kinds) == ["greedy", "random"]
    assert kinds["greedy"]["marriage"] == 0.0  # greedy never reserves
    for rates in kinds.values():
        assert all(0.0 <= v <= 1.0 for v in rates.values())


async def test_a_request_is_retried_after_a_transport_error_or_a_503() -> None:
    """A long match outlives a closed connection or a cut-off database wait; any other
    problem (a 409) ends it at once."""
    failures: list[Exception] = [
        httpx.ReadError("closed"),
        ProblemError(503, {"code": "database_unavailable"}, httpx.Headers()),
    ]
    calls = 0

    async def flaky() -> str:
        nonlocal calls
        calls += 1
        if failures:
            raise failures.pop(0)
        return "answer"

    assert await retrying(flaky, wait=0) == "answer"
    assert calls == 3

    async def refused() -> str:
        raise ProblemError(409, {"code": "session_over"}, httpx.Headers())

    with pytest.raises(ProblemError):
        await retrying(refused, wait=0)


def test_the_command_checks_its_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["match", "--a", "expert", "--b", "nobody", "--deals", "12"])
    with pytest.raises(SystemExit):
        main(["match", "--a", "expert", "--b", "greedy", "--deals", "0"])
    assert "is not at least 1" in capsys.readouterr().err
