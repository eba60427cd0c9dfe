"""Validation errors in doko's own words, in the shape of RFC 9457's ``errors`` extension.

litestar reports what msgspec found wrong with a request as
``{"message": "Expected `str` of length <= 100", "key": "name", "source": "body"}``. A
client gets instead one entry per problem that says where it is and what is wrong:

* in the body: ``{"pointer": "#/name", "detail": "must be at most 100 characters long"}``,
  ``pointer`` a JSON Pointer (RFC 6901) into the body as a URI fragment (``#`` is the
  whole body), as in RFC 9457's example;
* in a parameter: ``{"parameter": "seat", "in": "path", "detail": "must be at most 3"}``.

The problem's ``detail`` lists them in one sentence.

Its ``code`` is ``malformed_request``, unless every error is a value of the right JSON type
that a rule of the game does not allow, at a member whose body names that rule (its
``RULINGS``, `ruling`): a card that is none (``{"card": "QX"}``: ``invalid_card``, R2.1), a
turn clock out of its bounds (``{"turn_seconds": 3}``: ``invalid_table_option``, T3.1), and
so on, as the domain itself would refuse them. A value of the wrong type, a member missing
or unknown, stays ``malformed_request``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any

import msgspec
from msgspec import Meta


class ParameterIn(StrEnum):
    """Where a parameter is sent."""

    PATH = "path"
    QUERY = "query"
    HEADER = "header"
    COOKIE = "cookie"


class BodyError(msgspec.Struct, frozen=True):
    """What is wrong at one place of the request body (an item of a problem's ``errors``,
    RFC 9457 §3)."""

    pointer: Annotated[
        str,
        Meta(
            description="a JSON Pointer (RFC 6901) into the body, as a URI fragment: "
            "`#/name`, `#/presets/0/1`; `#` is the whole body",
            examples=["#/turn_seconds"],
        ),
    ]
    detail: Annotated[str, Meta(examples=["must be at least 5"])]


class ParameterError(msgspec.Struct, frozen=True):
    """What is wrong with one parameter of the request (an item of a problem's
    ``errors``)."""

    parameter: Annotated[str, Meta(examples=["seat"])]
    in_: ParameterIn = msgspec.field(name="in")
    detail: Annotated[str, Meta(examples=["must be at most 3"])]


RequestError = BodyError | ParameterError
"""What is wrong with a request, in one place."""

Ruling = tuple[str, str]
"""A problem code and the id of the rule it cites, e.g. ``("invalid_card", "R2.1")``."""
Rulings = Mapping[str, Ruling]
"""A body's rulings: by the place of a member (its JSON Pointer's steps below ``#``, ``*``
for any index: ``presets/*/*/*``), the code and rule of a value the rule does not allow
there. The longest place that begins a value's pointer rules it."""

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
        re.compile(r"Expected `[^`]+` that's a multiple of (?P<n>\d+)"),
        lambda m: f"must be a multiple of {m['n']}",
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


def pointer(steps: Sequence[str | int]) -> str:
    """A JSON Pointer (RFC 6901) into the body, as a URI fragment: ``#/presets/0/1``."""
    return "#" + "".join("/" + str(s).replace("~", "~0").replace("/", "~1") for s in steps)


def reworded(error: Mapping[str, Any]) -> RequestError:
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
        return BodyError(pointer(steps), detail)
    where = ParameterIn(source) if source in ParameterIn.__members__.values() else None
    return ParameterError(key, where or ParameterIn.QUERY, detail)


_OUT_OF_BOUNDS = re.compile(
    r"Invalid enum value|Expected `[^`]+` (?:of length )?[<>]=?|Expected `[^`]+` that's a multiple"
)
"""msgspec's words for a value of the right type that the schema does not allow: not one of
an enum's values, beyond a bound (of a number, or of a string's or an array's length), or
not a multiple of a number's step."""


def _ruling_at(rulings: Rulings, at: str) -> Ruling | None:
    """The ruling of the longest place of ``rulings`` that begins the pointer ``at``."""
    steps = at.removeprefix("#").split("/")[1:]
    best: tuple[int, Ruling] | None = None
    for place, found in rulings.items():
        pattern = place.split("/")
        fits = len(pattern) <= len(steps) and all(
            p == s or (p == "*" and s.isdigit()) for p, s in zip(pattern, steps, strict=False)
        )
        if fits and (best is None or len(pattern) > best[0]):
            best = (len(pattern), found)
    return best[1] if best else None


def ruling(
    rulings: Rulings, raw: Sequence[Mapping[str, Any]], errors: Sequence[RequestError]
) -> Ruling | None:
    """The code and rule of a request's validation errors (litestar's ``raw`` ones and
    their `reworded` ``errors``) when each is a value out of the bounds of a rule the body's
    ``rulings`` name at its place, and they all name the same; else None
    (``malformed_request``)."""
    found: set[Ruling] = set()
    for error, entry in zip(raw, errors, strict=True):
        if not isinstance(entry, BodyError) or not _OUT_OF_BOUNDS.match(
            str(error.get("message", ""))
        ):
            return None
        ruled = _ruling_at(rulings, entry.pointer)
        if ruled is None:
            return None
        found.add(ruled)
    return found.pop() if len(found) == 1 else None


def described(errors: Sequence[RequestError]) -> str:
    """The problem's ``detail``: every error in one sentence."""
    return "the request is not valid: " + "; ".join(
        f"{e.pointer if isinstance(e, BodyError) else e.parameter} {e.detail}" for e in errors
    )
