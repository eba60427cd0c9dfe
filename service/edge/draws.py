"""The secrets a request draws (tokens, invitation codes, table ids): random, or, for a
request that holds an Idempotency-Key, derived, so that the request run again draws the
same ones (`service.edge.idempotency`).

A derived draw is HMAC-SHA256 of the request's secret (`Derived`) and the draw's number:
the request's n-th draw is the same whenever it runs. That secret is made from what the
client sent (its key, its credential, its body) and a random salt the service keeps: a
client cannot foresee what it draws, and a reader of the database, who has the salt but
neither the key nor the credential, cannot recompute it.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import itertools
import secrets
import uuid
from contextvars import ContextVar

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def derive(ikm: bytes, salt: bytes, purpose: bytes) -> bytes:
    """A 32-byte key for ``purpose`` from the request's secrets ``ikm`` and ``salt``
    (HKDF-SHA256, RFC 5869)."""
    return HKDF(hashes.SHA256(), 32, salt, b"doko idempotency: " + purpose).derive(ikm)


class Derived:
    """The draws of one run of a request (of the task that runs it: a task it starts
    draws at random): its n-th draw is HMAC(secret, n)."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret
        self._count = itertools.count()
        self.task = asyncio.current_task()

    def draw(self, size: int) -> bytes:
        number = next(self._count).to_bytes(4, "big")
        drawn = hmac.new(self._secret, number, hashlib.sha256).digest()
        assert size <= len(drawn)
        return drawn[:size]


DERIVED: ContextVar[Derived | None] = ContextVar("doko_derived_draws", default=None)
"""The derived draws of the request being handled, if it holds an idempotency key."""


def fresh_bytes(size: int) -> bytes:
    """``size`` (at most 32) secret bytes: random, or the request's next derived draw."""
    derived = DERIVED.get()
    if derived is None or derived.task is not asyncio.current_task():
        return secrets.token_bytes(size)
    return derived.draw(size)


def fresh_secret(size: int) -> str:
    """A secret of ``size`` bytes, URL-safe base64 without padding (as
    `secrets.token_urlsafe`)."""
    return base64.urlsafe_b64encode(fresh_bytes(size)).rstrip(b"=").decode()


def fresh_id() -> str:
    """A new id (a version 4 UUID's 32 hex digits)."""
    return uuid.UUID(bytes=fresh_bytes(16), version=4).hex
