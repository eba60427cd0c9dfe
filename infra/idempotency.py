"""Idempotency keys in PostgreSQL: who holds a key, what it was first used for, its first
answer, and when it is forgotten (table ``idempotency_keys``, migration 0008).

A request with a key first *claims* it (`IdempotencyKeys.claim`, one statement): a key
nobody holds (or one past its expiry) is taken, with a fresh ``command_id`` and ``salt``.
Whoever finds the key taken learns what it was bound to: another request
(`Reused`), a first answer (`Answered`), or a run still holding it (`InFlight`: its lease
has not ended). A key whose run ended without an answer (its process died, or the
database failed it) is taken over with the same ``command_id`` and ``salt``: the run again
writes nothing that the first run wrote, since every append of a request carries the
claim's ``command_id`` (`holding`, read by `infra.tables.Tables.execute`) and the event
store answers a command id it knows with its first result (`infra.event_store`).

What the row holds is no secret: ``key_id`` and ``fingerprint`` are hashes, and the answer
is sealed by the caller with a key derived from the request's own secrets and ``salt``
(`service.edge.idempotency`).
"""

from __future__ import annotations

import asyncio
import secrets
from contextvars import ContextVar, Token
from datetime import timedelta
from typing import Any

import asyncpg
import msgspec

from infra import command_ids as ids


class Claim(msgspec.Struct, frozen=True):
    """A key this run holds: what its appends carry (``command_id``, ``fingerprint``)
    and the salt of its secrets."""

    key_id: bytes
    fingerprint: bytes
    command_id: str
    salt: bytes


class Answered(msgspec.Struct, frozen=True):
    """The key's first answer, sealed, and the salt it was sealed with."""

    salt: bytes
    answer: bytes


class InFlight(msgspec.Struct, frozen=True):
    """Another run holds the key for ``remaining`` more seconds."""

    remaining: float


class Reused(msgspec.Struct, frozen=True):
    """The key was first used for another request."""


Outcome = Claim | Answered | InFlight | Reused

_HOLDER: ContextVar[tuple[Claim, asyncio.Task[Any] | None] | None] = ContextVar(
    "doko_idempotency_claim", default=None
)


def hold(claim: Claim | None) -> Token[tuple[Claim, asyncio.Task[Any] | None] | None]:
    """The running task holds ``claim`` (None: no claim) until `release_hold`."""
    return _HOLDER.set(None if claim is None else (claim, asyncio.current_task()))


def release_hold(token: Token[tuple[Claim, asyncio.Task[Any] | None] | None]) -> None:
    _HOLDER.reset(token)


def holding() -> Claim | None:
    """The claim of the request this task runs, if it holds one (a task the request
    started inherits its context, not its claim: what it writes is its own)."""
    held = _HOLDER.get()
    return held[0] if held is not None and held[1] is asyncio.current_task() else None


_TAKE = """
INSERT INTO idempotency_keys AS k
    (key_id, fingerprint, command_id, salt, leased_until, expires_at)
VALUES ($1, $2, $3, $4, now() + $5::interval, now() + $6::interval)
ON CONFLICT (key_id) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, command_id = EXCLUDED.command_id,
        salt = EXCLUDED.salt, answer = NULL, leased_until = EXCLUDED.leased_until,
        expires_at = EXCLUDED.expires_at
    WHERE k.expires_at <= now()
RETURNING command_id
"""

_LOOK = """
SELECT fingerprint, command_id, salt, answer,
       extract(epoch FROM leased_until - now())::float8
FROM idempotency_keys WHERE key_id = $1 AND expires_at > now()
"""

_TAKE_OVER = """
UPDATE idempotency_keys SET leased_until = now() + $3::interval
WHERE key_id = $1 AND command_id = $2 AND answer IS NULL AND leased_until <= now()
RETURNING salt
"""


class IdempotencyKeys:
    """The keys of every unsafe request, through an asyncpg pool: kept ``retention`` long,
    a run's hold on a key ``lease`` long."""

    def __init__(self, pool: asyncpg.Pool, *, retention: timedelta, lease: timedelta) -> None:
        self._pool = pool
        self.retention = retention
        self.lease = lease

    async def claim(self, key_id: bytes, fingerprint: bytes) -> Outcome:
        """Take the key for a run of the request ``fingerprint``, or say why not (see
        the module docstring). A key that changes hands meanwhile is looked at again."""
        while True:
            command_id = ids.request()
            salt = secrets.token_bytes(32)
            taken = await self._pool.fetchval(
                _TAKE, key_id, fingerprint, command_id, salt, self.lease, self.retention
            )
            if taken is not None:
                return Claim(key_id, fingerprint, command_id, salt)
            held = await self._pool.fetchrow(_LOOK, key_id)
            if held is None:  # released or purged since: take it
                continue
            first, command_id, salt, answer, remaining = held
            if bytes(first) != fingerprint:
                return Reused()
            if answer is not None:
                return Answered(bytes(salt), bytes(answer))
            if remaining > 0:
                return InFlight(remaining)
            if await self._pool.fetchval(_TAKE_OVER, key_id, command_id, self.lease) is not None:
                return Claim(key_id, fingerprint, command_id, bytes(salt))

    async def answer(self, claim: Claim, sealed: bytes) -> None:
        """Keep ``sealed`` as the key's first answer; the run no longer holds it."""
        await self._pool.execute(
            "UPDATE idempotency_keys SET answer = $3, leased_until = now()"
            " WHERE key_id = $1 AND command_id = $2",
            claim.key_id,
            claim.command_id,
            sealed,
        )

    async def release(self, claim: Claim, *, forget: bool) -> None:
        """The run ended without an answer to keep: with ``forget`` (it was refused and
        wrote nothing) the key is free again; else (it may have written) the next run of
        the same request takes it over at once."""
        where = " WHERE key_id = $1 AND command_id = $2 AND answer IS NULL"
        statement = (
            "DELETE FROM idempotency_keys"
            if forget
            else ("UPDATE idempotency_keys SET leased_until = now()")
        )
        await self._pool.execute(statement + where, claim.key_id, claim.command_id)

    async def purge(self) -> int:
        """Forget every key past its expiry; how many were forgotten."""
        status: str = await self._pool.execute(
            "DELETE FROM idempotency_keys WHERE expires_at <= now()"
        )
        return int(status.split()[-1])
