"""Tests of the house rules (V1-V6), one module per variant."""

from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, Phase, settings

Test = TypeVar("Test", bound=Callable[..., None])


def random_sessions(examples: int) -> Callable[[Test], Test]:
    """How every variant's random sessions are drawn: ``examples`` of them, the same on
    every run (derandomized, no example database), bounded by their count and never by
    time (no deadline), in the one xdist group of random sessions (they share a worker), and
    not traced for coverage (the rule tables reach their lines; tracing tripled their time)."""

    def decorate(test: Test) -> Test:
        drawn = settings(
            max_examples=examples,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=[HealthCheck.too_slow],
        )(test)
        grouped: Test = pytest.mark.xdist_group("random_sessions")(pytest.mark.no_cover(drawn))
        return grouped

    return decorate
