"""Strict JSON: one reading, and what the canonical form would not reproduce."""

from __future__ import annotations

from typing import Any

import pytest

from infra.audit.strict import NotStrict, difference, duplicate, loads


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b'{"a": 1, "b": {"c": 1, "c": 2}}', "the member 'c' appears twice in one object"),
        (b'{"a": NaN}', "NaN is not JSON"),
        (b'[{"x": 1}, {"x": 1, "x": 1}]', "the member 'x' appears twice in one object"),
    ],
)
def test_a_text_without_one_reading_is_refused(text: bytes, why: str) -> None:
    with pytest.raises(NotStrict, match=why):
        loads(text)


@pytest.mark.parametrize(
    ("given", "canonical", "found"),
    [
        ({"a": [1, 2]}, {"a": [1, 2], "default": 0}, None),
        ({"a": [1, 2]}, {"a": [1]}, "$.a has 2 items, the canonical form 1"),
        ({"a": [{"t": "1"}]}, {"a": [{"t": 1}]}, "$.a[0].t reads '1', the canonical form 1"),
        ({"a": True}, {"a": 1}, "$.a reads True, the canonical form 1"),
        ({"a": {"b": 1}}, {"a": {}}, "$.a.b is not part of the format"),
    ],
)
def test_what_the_canonical_form_does_not_reproduce_is_named(
    given: Any, canonical: Any, found: str | None
) -> None:
    assert difference(given, canonical) == found


@pytest.mark.parametrize(
    ("text", "path"),
    [
        (b'{"a": 1, "b": 2}', None),
        (b'{"a": 1, "a": 2}', ("a",)),
        (b'{"a": [{"x": 1}, {"y": 1, "y": 2}]}', ("a", 1, "y")),
        (b'{"a": {"b": 1, "b": 2}, "a": 3}', ("a",)),
        (b'[1, {"k": {"k": 1}}]', None),
        (b"3", None),
    ],
)
def test_duplicate_finds_the_outermost_member_named_twice(
    text: bytes, path: tuple[str | int, ...] | None
) -> None:
    """The place of a member named twice (the request bodies are read as strictly as the
    files: service.app.BoundedRequest), outermost first; None where every name is once."""
    assert duplicate(text) == path
