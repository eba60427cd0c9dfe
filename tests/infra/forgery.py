"""What a forger does to an export file: rewrite events, recompute the hash chain from its
documented definition (the module docstring of `infra.hash_chain`, written out here
again), re-sign or strip the signature."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec

from infra.signing import Signer, signature_of

Document = dict[str, Any]


def rechain(document: Document) -> Document:
    """Every event's hash recomputed: SHA-256(previous ‖ canonical), canonical = the sorted
    JSON of the covered fields, previous = 32 zero bytes for version 1."""
    previous = bytes(32)
    for event in document["events"]:
        covered = {
            "actor": event["actor"],
            "causation": event["causation"],
            "command_id": event["command_id"],
            "payload": event["payload"],
            "schema_version": event["schema_version"],
            "stream_id": document["stream_id"],
            "type": event["type"],
            "version": event["version"],
        }
        previous = hashlib.sha256(previous + msgspec.json.encode(covered, order="sorted")).digest()
        event["hash"] = previous.hex()
    return document


def forge_move(document: Document, pick: Callable[[Document], bool]) -> int:
    """The issue's forgery: the first event ``pick`` chooses is said to be seat 1's, under
    command id ``forged``; the chain is recomputed. Returns the forged version."""
    event = next(e for e in document["events"] if pick(e))
    event["actor"], event["command_id"] = "seat:1", "forged"
    rechain(document)
    version: int = event["version"]
    return version


def resign(document: Document, signer: Signer, at: datetime | None = None) -> Document:
    """The document signed again, by ``signer``, dated ``at`` (default: now)."""
    unsigned = {**document, "signature": None}
    signature = signature_of(msgspec.json.encode(unsigned), signer, at or datetime.now(UTC))
    return {**document, "signature": msgspec.to_builtins(signature)}


def unsigned(document: Document) -> Document:
    return {k: v for k, v in document.items() if k != "signature"}


def encoded(document: Document) -> bytes:
    return msgspec.json.encode(document)
