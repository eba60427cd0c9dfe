"""Validation errors in doko's own words, in the shape of RFC 9457's ``errors`` extension.

litestar reports what msgspec found wrong with a request as
``{"message": "Expected `str` of length <= 100", "key": "name", "source": "body"}``. A
client gets instead one entry per problem that says where it is and what is wrong:

* in the body: ``{"pointer": "#/name", "detail": "must be at most 100 characters long"}``,
  ``pointer`` a JSON Pointer (RFC 6901) into the body as a URI fragment (``#`` is the
  whole body), as in RFC 9457's example;
* in a parameter: ``{"parameter": "seat", "in": "path", "detail": "must be at most 3"}``.

The problem's ``detail`` lists them in one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

_KINDS = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "null": "null",
    "object": "an object",
    "array": "an array",
}
_UNITS = {"str": "characters long", "array": "items", "object": "members"}
_COMPARED = {"<=": "at most", ">=": "at least", "<": "less than", ">": "greater than"}


def _kind(expected: str) -> str:
    """``int | null`` -> ``an integer or null``."""
    return " or ".join(_KINDS.get(part.strip(), part.strip()) for part in expected.split("|"))


def _length(m: re.Match[str]) -> str:
    unit = _UNITS.get(m["kind"], "long")
    return f"must be {_COMPARED[m['op']]} {m['n']} {unit}"


_WORDING: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"Expected `(?P<kind>\w+)` of length (?P<op>[<>]=?) (?P<n>\d+)"), _length),
    (
        re.compile(r"Expected `[^`]+` (?P<op>[<>]=?) (?P<n>-?[\d.]+)"),
        lambda m: f"must be {_COMPARED[m['op']]} {m['n']}",
    ),
    (
        re.compile(r"Expected `(?P<kind>[^`]+)`, got `(?P<got>[^`]+)`"),
        lambda m: f"must be {_kind(m['kind'])}, not {_kind(m['got'])}",
    ),
    (
        re.compile(r"Expected `str` matching regex"),
        lambda m: "must not contain control characters",
    ),
    (re.compile(r"Invalid enum value (?P<value>.*)"), lambda m: "is not one of the allowed values"),
    (re.compile(r"Object missing required field `(?P<field>[^`]+)`"), lambda m: "is required"),
    (
        re.compile(r"Object contains unknown field `(?P<field>[^`]+)`"),
        lambda m: "is not a member of this request",
    ),
)
_AT = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_STEP = re.compile(r"\.(?P<name>[^.\[]+)|\[(?P<index>\d+)\]")


def _pointer(steps: list[str]) -> str:
    return "#" + "".join("/" + s.replace("~", "~0").replace("/", "~1") for s in steps)


def reworded(error: Mapping[str, Any]) -> dict[str, str]:
    """One of litestar's validation errors in doko's words (see the module's docstring)."""
    message = str(error.get("message", ""))
    source = error.get("source", "body")
    key, source = str(error.get("key", "")), str(getattr(source, "value", source))
    path = "" if key == "data" else f".{key}"
    at = _AT.search(message)
    if at:
        message, path = message[: at.start()], path + at["path"]
    steps = [m["name"] or m["index"] for m in _STEP.finditer(path)]
    detail = "is not valid"
    for pattern, word in _WORDING:
        found = pattern.match(message)
        if found:
            detail = word(found)
            if "field" in pattern.groupindex:
                steps.append(found["field"])
            break
    if source == "body":
        return {"pointer": _pointer(steps), "detail": detail}
    return {"parameter": key, "in": source, "detail": detail}


def described(errors: list[dict[str, str]]) -> str:
    """The problem's ``detail``: every error in one sentence."""
    return "the request is not valid: " + "; ".join(
        f"{e.get('pointer') or e['parameter']} {e['detail']}" for e in errors
    )
