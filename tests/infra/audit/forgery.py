"""What a forger does to an export file: rewrite events, recompute the hash chain from its
documented definition (the module docstring of `infra.hash_chain`, written out here
again), re-sign or strip the signature."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from infra.signing import Signer, signature_of

Document = dict[str, Any]


SEALED = {
    "table_created": ("host_token_hash", "invitation_hash", "server_seeds"),
    "seat_taken": ("token_hash",),
    "deal_dealt": ("dealing.seed",),
    "event_created": ("host_token_hash", "invitation_hash", "seating_seed", "round_seeds"),
    "player_registered": ("token_hash",),
}


def seal(value: str) -> str:
    if not value or value.startswith("sealed:"):
        return value
    return "sealed:" + hashlib.sha256(b"doko seal\0" + value.encode()).hexdigest()


def covered(document: Document, event: dict[str, Any]) -> dict[str, Any]:
    """The members an event's link covers: chain version 1, or 2 with the time (whole
    microseconds since the epoch) and every secret of the payload sealed."""
    members = {
        "actor": event["actor"],
        "causation": event["causation"],
        "command_id": event["command_id"],
        "payload": event["payload"],
        "schema_version": event["schema_version"],
        "stream_id": document["stream_id"],
        "type": event["type"],
        "version": event["version"],
    }
    if event.get("chain", 1) == 2:
        payload = copy.deepcopy(event["payload"])
        for path in SEALED.get(event["type"], ()):
            *outer, name = path.split(".")
            holder = payload
            for step in outer:
                holder = holder[step]
            value = holder.get(name)
            if isinstance(value, list):
                holder[name] = [
                    [seal(w) for w in v] if isinstance(v, list) else seal(v) for v in value
                ]
            elif isinstance(value, str):
                holder[name] = seal(value)
        at = datetime.fromisoformat(event["recorded_at"]) - datetime(1970, 1, 1, tzinfo=UTC)
        members |= {"payload": payload, "chain": 2, "recorded_at": at // timedelta(microseconds=1)}
    return members


def rechain(document: Document) -> Document:
    """Every event's hash recomputed: SHA-256(previous ‖ canonical), canonical = the sorted
    JSON of the covered fields, previous = 32 zero bytes for version 1."""
    previous = bytes(32)
    for event in document["events"]:
        canonical = msgspec.json.encode(covered(document, event), order="sorted")
        previous = hashlib.sha256(previous + canonical).digest()
        event["hash"] = previous.hex()
    return document


def forge_move(document: Document, pick: Callable[[Document], bool]) -> int:
    """A forged move: the first event ``pick`` chooses is said to be seat 1's, under
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
