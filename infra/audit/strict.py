"""Strict JSON for documents that are checked: one reading, and only what the format says.

A JSON object that names a member twice has no single meaning (RFC 8259 §4: "the names
within an object SHOULD be unique"; I-JSON, RFC 7493 §2.3, makes it MUST): msgspec, like
most readers, keeps the last, a first-wins reader or a person sees the first. A signature
over the last reading then vouches for a file that shows a forgery first. So a
file that is checked is read twice: as the signature covers it, and by `loads`, which
refuses any member twice at any depth (and the non-JSON constants ``NaN``, ``Infinity``);
`difference` then finds what the canonical form (the file decoded into its format and
encoded again) would not reproduce: a member the format does not know, or a value spelled
so that it reads differently.
"""

from __future__ import annotations

import json
from typing import Any


class NotStrict(ValueError):
    """The text has no single JSON reading: a member twice, or a non-JSON constant."""


def _members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members: dict[str, Any] = {}
    for name, value in pairs:
        if name in members:
            raise NotStrict(f"the member {name!r} appears twice in one object")
        members[name] = value
    return members


def _constant(name: str) -> Any:
    raise NotStrict(f"{name} is not JSON")


def loads(data: bytes | str) -> Any:
    """The one JSON reading of ``data``; raises `NotStrict` (or `ValueError` for text that is
    not JSON at all)."""
    return json.loads(data, object_pairs_hook=_members, parse_constant=_constant)


class _Object(dict[str, Any]):
    """A JSON object as read by `duplicate`: ``twice`` is the first name it has twice."""

    twice: str | None = None


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    found = _Object()
    for name, value in pairs:
        if name in found and found.twice is None:
            found.twice = name
        found[name] = value
    return found


def duplicate(data: bytes | str) -> tuple[str | int, ...] | None:
    """Where the JSON text ``data`` names a member twice in one object: the path (names and
    indexes) to that member, outermost first; None if no object does. ``data`` is valid JSON
    (else `ValueError`)."""
    seen: list[bool] = []

    def hook(pairs: list[tuple[str, Any]]) -> _Object:
        found = _object(pairs)
        if found.twice is not None:
            seen.append(True)
        return found

    value = json.loads(data, object_pairs_hook=hook)
    if not seen:
        return None

    def walk(node: Any, path: tuple[str | int, ...]) -> tuple[str | int, ...] | None:
        if isinstance(node, _Object):
            if node.twice is not None:
                return (*path, node.twice)
            items: Any = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            return None
        for key, item in items:
            found = walk(item, (*path, key))
            if found is not None:
                return found
        return None

    return walk(value, ())


def difference(given: Any, canonical: Any, path: str = "$") -> str | None:
    """Where ``given`` (a strict reading) is not reproduced by ``canonical`` (the document
    decoded and encoded again), as a JSON path and what differs; None if it is. Members the
    canonical form adds (defaults the file left out) are no difference."""
    if isinstance(given, dict) and isinstance(canonical, dict):
        for name, value in given.items():
            if name not in canonical:
                return f"{path}.{name} is not part of the format"
            found = difference(value, canonical[name], f"{path}.{name}")
            if found is not None:
                return found
        return None
    if isinstance(given, list) and isinstance(canonical, list):
        if len(given) != len(canonical):
            return f"{path} has {len(given)} items, the canonical form {len(canonical)}"
        for index, (item, again) in enumerate(zip(given, canonical, strict=True)):
            found = difference(item, again, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if type(given) is not type(canonical) or given != canonical:
        return f"{path} reads {given!r}, the canonical form {canonical!r}"
    return None
