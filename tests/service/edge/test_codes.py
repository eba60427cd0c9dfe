"""The closed list of problem codes (service.edge.codes) is exactly what doko can answer: every
code the source raises, the domain's errors and litestar's statuses, each with its status;
the OpenAPI document and the README carry the list."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

from domain.errors import (
    DomainError,
    InvalidCard,
    InvalidDeal,
    InvalidPlayerName,
    InvalidTableOption,
    InvalidTournamentOption,
    MixedScripts,
    TalkText,
    UnknownStandingsMethod,
    UnseenCharacters,
)
from service.edge.codes import MEANINGS, ProblemCode, markdown_table
from service.edge.problems import _CODES

ROOT = Path(__file__).resolve().parents[3]
CODE_ARGUMENT = {
    "ServiceError": 1,
    "problem": 2,
    "problem_of": 1,
    "refusal": 0,
    "Refusal": 1,
    "_refuse": 0,
    "_refuse_at_once": 0,
    "_example_problem": 1,
}
"""The calls that name a problem's code, and which of their arguments is the code."""


def _name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def raised_in_source() -> Iterator[tuple[str, int | None, str]]:
    """(code, status or None, where) of every literal code named in service/ and infra/,
    read from the source text (not from the registry)."""
    for folder in ("service", "infra"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.Call | ast.Tuple):
                    continue
                args = node.args if isinstance(node, ast.Call) else node.elts
                if isinstance(node, ast.Call) and _name(node) not in CODE_ARGUMENT:
                    continue
                texts = [
                    a for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
                numbers = [
                    a.value for a in args if isinstance(a, ast.Constant) and type(a.value) is int
                ]
                if isinstance(node, ast.Tuple) and not (
                    len(args) in (2, 3) and numbers and 400 <= numbers[0] < 600 and texts
                ):
                    continue  # `(status, code)` and `(status, code, detail)` tuples only
                if texts and texts[0].value.isidentifier():
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    yield texts[0].value, numbers[0] if numbers else None, where


def domain_errors() -> Iterator[type[DomainError]]:
    stack = [DomainError]
    while stack:
        for sub in stack.pop().__subclasses__():
            stack.append(sub)
            yield sub


MALFORMED = (
    InvalidDeal,
    InvalidCard,
    InvalidTableOption,
    InvalidTournamentOption,
    UnknownStandingsMethod,
    InvalidPlayerName,
    UnseenCharacters,
    MixedScripts,
    TalkText,
)
"""The domain errors answered 400 (service.edge.problems.domain_error); the others are 409."""


def test_every_code_the_source_names_is_listed_with_its_status() -> None:
    found = list(raised_in_source())
    assert len(found) > 30
    for code, status, where in found:
        assert code in ProblemCode.__members__.values(), (
            f"{where}: {code} is not in service.edge.codes"
        )
        if status is not None:
            assert MEANINGS[ProblemCode(code)][0] == status, f"{where}: {code} with {status}"


def test_every_domain_error_and_http_status_is_listed() -> None:
    for error in domain_errors():
        status = 400 if issubclass(error, MALFORMED) else 409
        assert MEANINGS[ProblemCode(error.code)][0] == status, error
    for status, code in _CODES.items():
        assert MEANINGS[ProblemCode(code)][0] == status, (status, code)


def test_no_code_is_listed_that_nothing_answers() -> None:
    answered = {code for code, _, _ in raised_in_source()}
    answered |= {e.code for e in domain_errors()} | set(_CODES.values()) | {"http_error"}
    assert {c.value for c in ProblemCode} == answered
    assert set(MEANINGS) == set(ProblemCode)


def test_the_document_and_the_readme_carry_the_list() -> None:
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    schema = document["components"]["schemas"]["ProblemCode"]
    assert schema["enum"] == [c.value for c in ProblemCode]
    assert set(schema["x-enum-descriptions"]) == set(schema["enum"])
    assert markdown_table() in (ROOT / "README.md").read_text(), (
        "README.md: paste service.edge.codes.markdown_table() into its table of problem codes"
    )
