"""Idempotency-Key on every unsafe request (POST and DELETE; IETF draft "The
Idempotency-Key HTTP Header Field").

One middleware (`idempotent`) handles the key for every route of the app, and `declare`
puts the header and its answers into every POST and DELETE operation of the OpenAPI
document: a new route has both by construction. What a request with a key gets:

* the first time, its answer, as without a key;
* the same request again (the same method, path and body, the body's JSON spelling and
  member order aside, with the same credential): the first answer, status, headers and
  body, and nothing is written. While the first run still runs, a retry waits for its
  answer (409 ``idempotency_key_in_flight`` with ``Retry-After`` if it takes longer
  than its lease);
* the same key with another request (another route, another body): 422
  ``idempotency_key_reused``, nothing written;
* a first run that answered 4xx wrote nothing and is forgotten (the key is free again);
  one that answered 5xx or never answered may have written: the next run of the same
  request takes its place and, since its writes carry the first run's command id
  (`infra.idempotency`), writes nothing the first one wrote, and draws the same tokens
  (`service.edge.draws`), so its answer is the first one's.

Keys are scoped to the credential they come with (the ``Authorization`` Bearer token:
a seat, host or invitation): one credential's key never meets another's. A request
without one (creating a table, sitting at a public table) is scoped to its client address
(the address that connected): its answer carries a credential made for its caller (a host
token, a seat token), which a caller at another address must never be given, however it
came by the key (a key copied from an example, a client library with a fixed key, a key
seen in a log). So the same key and body from another address is another request, which
runs and gets its own credential. The price: a retry after the client's address changed
(another network) is run again (a second table or seat, nothing lost but a retry's
protection); and callers behind one address (a NAT, a proxy) share a scope, so the key
must still be unguessable: keys are 16-200 visible ASCII characters, and should be random
(a UUID).

The first answer is kept sealed (AES-256-GCM) under a key derived (HKDF-SHA256) from the
request's own secrets, its Idempotency-Key, its credential and its body, and a random salt
of the row: the database holds no credential the answer contains (the table's tokens are
kept only as SHA-256 hashes, the key as a hash within its scope), so its reader can
neither open the answer nor recompute the tokens it gave. Keys are kept `RETENTION` long
and then purged.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import msgspec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from litestar import Litestar, Request
from litestar.enums import ParamType
from litestar.openapi.spec import (
    Example,
    OpenAPIMediaType,
    OpenAPIResponse,
    OpenAPIType,
    Operation,
    Parameter,
    Reference,
    Schema,
)
from litestar.types import ASGIApp, HTTPResponseStartEvent, Message, Receive, Send

from infra.database import UNAVAILABLE
from infra.idempotency import Answered, Claim, IdempotencyKeys, InFlight, Reused, hold, release_hold
from service.edge.auth import bearer, token_hash
from service.edge.draws import DERIVED, Derived, derive
from service.edge.problems import PROBLEM_JSON, RETRY_AFTER, ServiceError, example_problem

UNSAFE = frozenset({"POST", "DELETE"})
"""The methods whose requests honour an Idempotency-Key."""

RETENTION = timedelta(hours=24)
"""How long a key is kept: a retry within it gets the first answer."""

PURGE_SECONDS = 600.0
"""How often keys past their retention are purged."""

KEY = re.compile(r"[\x21-\x7e]{16,200}")
"""What a key may look like: 16-200 visible ASCII characters (a UUID is 36)."""

PAUSES = (0.05, 0.1, 0.2, 0.4, *(0.5,) * 8)
"""How long a retry waits, each time it looks again, for the answer of a run in another
process that holds its key (about 4.75 s in all; a run of this process is waited for until
its lease ends)."""

REUSED = example_problem(
    422, "idempotency_key_reused", "this Idempotency-Key was used for another request"
)
IN_FLIGHT = example_problem(
    409,
    "idempotency_key_in_flight",
    "the first request with this Idempotency-Key is still running: retry in 1 s",
)


class Answer(msgspec.Struct, array_like=True):
    """A response as the application sent it."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


def canonical(body: bytes) -> bytes:
    """The body as the request's fingerprint sees it: JSON with its members sorted and no
    white space (the same JSON value is the same body), else the bytes as sent."""
    try:
        return msgspec.json.encode(msgspec.json.decode(body), order="sorted")
    except msgspec.DecodeError:
        return body


def key_id(token: str | None, key: str, address: str) -> bytes:
    """What is stored of a key: SHA-256 of the key within its scope (the credential's
    hash; without a credential, the client ``address``)."""
    scope = f"credential:{token_hash(token)}" if token is not None else f"anonymous:{address}"
    return hashlib.sha256(msgspec.msgpack.encode(["doko idempotency key", scope, key])).digest()


def fingerprint(method: str, path: str, body: bytes) -> bytes:
    """What a key is bound to: the method, the path and the canonical body."""
    return hashlib.sha256(msgspec.msgpack.encode([method, path, canonical(body)])).digest()


def _sealer(secrets: bytes, salt: bytes) -> AESGCM:
    return AESGCM(derive(secrets, salt, b"answer"))


def seal(secrets: bytes, salt: bytes, key: bytes, answer: Answer) -> bytes:
    """The answer encrypted and authenticated (bound to the key's id ``key``)."""
    nonce = os.urandom(12)
    return nonce + _sealer(secrets, salt).encrypt(nonce, msgspec.msgpack.encode(answer), key)


def unseal(secrets: bytes, salt: bytes, key: bytes, sealed: bytes) -> Answer:
    """The answer `seal` sealed; raises if these are not the secrets it was sealed with."""
    plain = _sealer(secrets, salt).decrypt(sealed[:12], sealed[12:], key)
    return msgspec.msgpack.decode(plain, type=Answer)


class _Captured:
    """The application's answer, held back until the key's record is written."""

    def __init__(self) -> None:
        self.status = 500  # unless the application answers
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = bytearray()
        self.complete = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = [(bytes(k), bytes(v)) for k, v in message.get("headers", ())]
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")
            self.complete = not message.get("more_body", False)

    def answer(self) -> Answer:
        return Answer(self.status if self.complete else 500, self.headers, bytes(self.body))


async def _answer(send: Send, answer: Answer) -> None:
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": answer.status,
        "headers": answer.headers,
    }
    await send(start)
    await send({"type": "http.response.body", "body": answer.body, "more_body": False})


def idempotent(app: ASGIApp) -> ASGIApp:
    """``app`` honouring Idempotency-Key on its unsafe requests (the module docstring)."""
    running: dict[bytes, asyncio.Event] = {}  # the keys this process's runs hold

    async def claimed(keys: IdempotencyKeys, key: bytes, bound: bytes) -> Claim | Answered:
        """The key for this run, or its first answer; waits while another run holds it."""
        for pause in PAUSES:
            outcome = await keys.claim(key, bound)
            if isinstance(outcome, Reused):
                raise ServiceError(
                    422,
                    "idempotency_key_reused",
                    "this Idempotency-Key was used for another request: use a new key for "
                    "a new request",
                )
            if not isinstance(outcome, InFlight):
                return outcome
            here = running.get(key)
            with contextlib.suppress(TimeoutError):
                wait = outcome.remaining if here else min(outcome.remaining, pause)
                async with asyncio.timeout(wait):
                    await (here or asyncio.Event()).wait()
        raise ServiceError(
            409,
            "idempotency_key_in_flight",
            IN_FLIGHT["detail"],
            headers={"Retry-After": str(RETRY_AFTER)},
        )

    async def finish(keys: IdempotencyKeys, claim: Claim, secrets: bytes, answer: Answer) -> None:
        """Keep a first answer; forget a refusal; let a failure's retry take over."""
        with contextlib.suppress(*UNAVAILABLE):  # the key's lease ends by itself
            if answer.status < 400:
                await keys.answer(claim, seal(secrets, claim.salt, claim.key_id, answer))
            else:
                await keys.release(claim, forget=answer.status < 500)

    async def handle(scope: Any, receive: Receive, send: Send) -> None:
        sent = dict(scope["headers"]).get(b"idempotency-key") if scope["type"] == "http" else None
        if sent is None or scope["method"] not in UNSAFE:
            await app(scope, receive, send)
            return
        key = sent.decode("latin-1")
        if not KEY.fullmatch(key):
            raise ServiceError(
                400,
                "malformed_request",
                "an Idempotency-Key is 16-200 visible ASCII characters (a random UUID)",
            )
        request: Request[Any, Any, Any] = Request(scope, receive)
        token = bearer(request, required=False)
        body = canonical(await request.body())
        keys: IdempotencyKeys = request.app.state.services.idempotency
        client = scope.get("client")
        held = key_id(token, key, client[0] if client else "")
        secrets = msgspec.msgpack.encode([key, token or "", body])
        outcome = await claimed(keys, held, fingerprint(request.method, scope["path"], body))
        if isinstance(outcome, Answered):
            await _answer(send, unseal(secrets, outcome.salt, held, outcome.answer))
            return
        done = running[held] = asyncio.Event()
        captured = _Captured()
        claim = hold(outcome)
        draws = DERIVED.set(Derived(derive(secrets, outcome.salt, b"draws")))
        try:
            try:
                await app(scope, receive, captured.send)
            finally:
                release_hold(claim)
                DERIVED.reset(draws)
                await finish(keys, outcome, secrets, captured.answer())
        finally:
            done.set()
            if running.get(held) is done:
                del running[held]
        await _answer(send, captured.answer())

    return handle


HEADER = Parameter(
    name="Idempotency-Key",
    param_in=ParamType.HEADER,
    required=False,
    description="a retry with the same key and the same request (same route, same body, same "
    "credential) within 24 hours returns the first answer and writes nothing; the same key "
    "with another request is 422 `idempotency_key_reused`; while the first is still "
    "running, 409 `idempotency_key_in_flight`. A key belongs to the credential sent with "
    "it; without one, to the client's address (a caller elsewhere with the same key and "
    "body makes a request of its own, and never gets the first caller's credential). "
    "16-200 visible ASCII characters: use a random UUID",
    schema=Schema(
        type=OpenAPIType.STRING, min_length=16, max_length=200, pattern=f"^{KEY.pattern}$"
    ),
)


@dataclass
class KeyedOperation(Operation):
    """An unsafe operation: it takes `HEADER` and may answer its 422 and 409."""

    def __post_init__(self) -> None:
        self.parameters = [*(self.parameters or []), HEADER]
        responses = self.responses = dict(self.responses or {})
        for problem in (REUSED, IN_FLIGHT):
            status = str(problem["status"])
            response = responses.setdefault(
                status,
                OpenAPIResponse(
                    description="problem",
                    content={
                        PROBLEM_JSON: OpenAPIMediaType(
                            schema=Reference("#/components/schemas/Problem"), examples={}
                        )
                    },
                ),
            )
            assert isinstance(response, OpenAPIResponse) and response.content
            shown = response.content[PROBLEM_JSON].examples
            assert shown is not None
            shown[f"problem-example-{len(shown) + 1}"] = Example(
                summary=problem["code"], value=problem
            )


def declare(app: Litestar) -> None:
    """Every POST and DELETE operation of ``app`` declares the key (`KeyedOperation`)."""
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if UNSAFE & set(handler.http_methods):
                handler.operation_class = KeyedOperation


async def purge(keys: IdempotencyKeys) -> None:
    """Purge the keys past their retention every `PURGE_SECONDS` (a background task)."""
    while True:
        await keys.purge()
        await asyncio.sleep(PURGE_SECONDS)
