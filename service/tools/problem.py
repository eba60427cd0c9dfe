"""The service's error answers as a Python client sees them: `ProblemError`, raised for
every answer of 400 or more with its RFC 9457 problem+json body (``code``, ``rule``)."""

from __future__ import annotations

from typing import Any

import httpx

PROBLEM_JSON = "application/problem+json"


class ProblemError(Exception):
    """The service answered with an error: ``status`` and the problem+json body."""

    def __init__(self, status: int, problem: dict[str, Any], headers: httpx.Headers) -> None:
        super().__init__(f"{status} {problem.get('code')}: {problem.get('detail')}")
        self.status = status
        self.problem = problem
        self.headers = headers

    @property
    def code(self) -> str | None:
        code = self.problem.get("code")
        return code if isinstance(code, str) else None

    @property
    def rule(self) -> str | None:
        rule = self.problem.get("rule")
        return rule if isinstance(rule, str) else None


def raise_for_problem(response: httpx.Response) -> None:
    """Raise `ProblemError` for a 4xx/5xx answer (its body must be read already)."""
    if response.status_code < 400:
        return
    try:
        problem = response.json()
    except ValueError:
        problem = {"code": None, "detail": response.text}
    raise ProblemError(
        response.status_code, problem if isinstance(problem, dict) else {}, response.headers
    )
