"""Signatures that prove where an audit record came from: Ed25519 keys, key sets, signed JSON.

Keys
    A deployment signs with Ed25519 (RFC 8032, the ``cryptography`` package), one current key
    at a time (`infra.keyring`). A key's id ``kid`` is its JWK thumbprint (RFC 7638): the
    base64url (no padding) SHA-256 of ``{"crv":"Ed25519","kty":"OKP","x":"<x>"}`` where
    ``<x>`` is the base64url 32-byte public key; so a kid names exactly one key. Public keys,
    current, retired and revoked, are published as a JWK set (RFC 7517; Ed25519 keys in the
    ``OKP`` form of RFC 8037), each with its ``status`` and validity: ``created``,
    ``retired`` and ``revoked_from`` (`key_set`).

Validity
    A key signs from its creation until its retirement; a key revoked from a time on (its
    private key was or may have been stolen then) signs nothing from that time. So
    `check_signature` refuses a signature dated (``signed_at``) before its key was created
    or after it was retired, later than `CLOCK_SKEW` after each (the clocks of the service
    processes and of the database may differ that much), a signature dated more than
    `CLOCK_SKEW` after the verifier's own time, and one dated at or after its key's
    ``revoked_from``. A signature of a revoked key dated before the revocation verifies,
    ``flagged``: whoever stole the key can date a signature as they please, so only a
    witness (the chain heads published live) shows whether the document is genuine.

Signed documents
    A signed document is a JSON object with a ``format`` (what it is) and a ``signature``::

        "signature": {"alg": "EdDSA", "kid": "<key id>",
                      "signed_at": "<RFC 3339, UTC, whole seconds>",
                      "value": "<base64url, no padding, of the 64-byte Ed25519 signature>"}

    ``value`` signs the document's canonical form with ``signature.value`` left out::

        message = msgspec.json.encode(document, order="sorted")
                  # document as parsed, "signature" = {"alg", "kid", "signed_at"} only

    that is UTF-8 JSON without white space, object members sorted by name at every level,
    strings escaped as msgspec writes them (``"`` ``\\`` and control characters; other
    characters as they are), integers in decimal. Every member is signed, the signature's
    own ``kid`` and ``signed_at`` too; in an export, every event field with ``recorded_at``
    and ``position``, and the top-level copies (``name``, ``players``). The spelling of the
    file is not: indented again or with its members reordered it still verifies, with any
    value changed it does not.

    `check_signature` takes the key named by ``kid`` from a key set the verifier trusts
    (given apart from the document; never a key found inside it) and requires the
    ``format`` it expects, so that a report's signature cannot pass for an export's.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

ALGORITHM = "EdDSA"
"""The JOSE name of Ed25519 signatures (RFC 8037)."""


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515 section 2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """The bytes of a base64url text with or without padding; raises `ValueError`."""
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (ValueError, TypeError) as error:
        raise ValueError(f"not base64url: {error}") from error


def key_id(public: bytes) -> str:
    """RFC 7638: the JWK thumbprint of an Ed25519 public key (32 bytes)."""
    members = {"crv": "Ed25519", "kty": "OKP", "x": b64url(public)}
    return b64url(hashlib.sha256(msgspec.json.encode(members, order="sorted")).digest())


class Signer:
    """A private signing key. Its ``repr`` names only its id: the key never leaves the
    process except to a key file (`pem`: the key folder, `infra.key_folder`, or a file the
    operator asked for)."""

    __slots__ = ("_key", "kid", "public")

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.public = key.public_key().public_bytes_raw()
        self.kid = key_id(self.public)

    @classmethod
    def generate(cls) -> Signer:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_raw(cls, private: bytes) -> Signer:
        """The key of 32 raw bytes (how migration 0006 kept it in the database)."""
        return cls(Ed25519PrivateKey.from_private_bytes(private))

    @classmethod
    def from_pem(cls, data: bytes) -> Signer:
        """A PKCS #8 PEM private key (``openssl genpkey -algorithm ed25519``, `pem`);
        raises `KeyFileError`."""
        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as error:
            raise KeyFileError("not an unencrypted PEM private key") from error
        if not isinstance(key, Ed25519PrivateKey):
            raise KeyFileError("not an Ed25519 private key")
        return cls(key)

    def pem(self) -> bytes:
        """The private key as PKCS #8 PEM, for a key file."""
        return self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)

    def __repr__(self) -> str:
        return f"Signer(kid={self.kid!r})"


class KeyFileError(ValueError):
    """A key file (or key set) that holds no usable Ed25519 key."""


CLOCK_SKEW = timedelta(minutes=5)
"""How far a signature's date may lie after its key's retirement, before its creation, or
after the verifier's time, for clocks that differ (see Validity in the module docstring)."""


class KeyStatus(StrEnum):
    """``current`` signs new documents; ``retired`` no longer does, and what it signed
    before its retirement keeps verifying; ``revoked``: compromised from ``revoked_from``
    on, what it signed before is flagged."""

    CURRENT = "current"
    RETIRED = "retired"
    REVOKED = "revoked"


class PublicKey(msgspec.Struct, frozen=True):
    """A deployment's public key: its id, the 32 key bytes, and its validity: when it was
    made, retired, and from when it is compromised."""

    kid: str
    public: bytes
    created: datetime | None = None
    retired: datetime | None = None
    revoked_from: datetime | None = None

    @property
    def status(self) -> KeyStatus:
        if self.revoked_from is not None:
            return KeyStatus.REVOKED
        return KeyStatus.RETIRED if self.retired is not None else KeyStatus.CURRENT

    def refuses(self, signed_at: datetime, now: datetime) -> str | None:
        """Why a signature of this key dated ``signed_at`` is refused at ``now`` (see
        Validity in the module docstring), None if it is not."""
        if self.revoked_from is not None and signed_at >= self.revoked_from:
            return f"the key is revoked (compromised) from {self.revoked_from.isoformat()}"
        if self.retired is not None and signed_at > self.retired + CLOCK_SKEW:
            return f"the key was retired at {self.retired.isoformat()}"
        if self.created is not None and signed_at < self.created - CLOCK_SKEW:
            return f"the key was made only at {self.created.isoformat()}"
        if signed_at > now + CLOCK_SKEW:
            return f"that is in the future (it is {now.replace(microsecond=0).isoformat()})"
        return None


class Jwk(msgspec.Struct, frozen=True, kw_only=True):
    """An Ed25519 public key as a JWK (RFC 7517, RFC 8037), with doko's key status."""

    kty: str = "OKP"
    crv: str = "Ed25519"
    x: Annotated[str, msgspec.Meta(description="the 32-byte public key, base64url")]
    kid: Annotated[str, msgspec.Meta(description="RFC 7638 thumbprint of the key")]
    alg: str = ALGORITHM
    use: str = "sig"
    status: Annotated[
        KeyStatus,
        msgspec.Meta(
            description="current: signs new documents; retired: signs no more; revoked: "
            "compromised from revoked_from on"
        ),
    ]
    created: Annotated[
        datetime | None, msgspec.Meta(description="signatures dated before are refused")
    ] = None
    retired: Annotated[
        datetime | None, msgspec.Meta(description="signatures dated after are refused")
    ] = None
    revoked_from: Annotated[
        datetime | None,
        msgspec.Meta(
            description="compromised from then: signatures dated then or after are refused, "
            "those dated before are flagged"
        ),
    ] = None


class KeySet(msgspec.Struct, frozen=True):
    """A JWK set: the public keys that sign a deployment's exports and reports."""

    keys: tuple[Jwk, ...]


def key_set(keys: Iterable[PublicKey]) -> KeySet:
    """The JWK set of ``keys`` (what ``GET /.well-known/doko-keys`` serves)."""
    return KeySet(
        tuple(
            Jwk(
                kid=k.kid,
                x=b64url(k.public),
                status=k.status,
                created=k.created,
                retired=k.retired,
                revoked_from=k.revoked_from,
            )
            for k in keys
        )
    )


Keys = Mapping[str, PublicKey]
"""Trusted public keys by key id."""


def read_keys(data: bytes) -> dict[str, PublicKey]:
    """The Ed25519 keys of a key file: a JWK set, one JWK, or a PEM public key.

    Every key is filed under its thumbprint; a JWK whose ``kid`` is another is refused (the
    file does not say which key it means). Keys of other types in a JWK set are passed over;
    raises `KeyFileError` when none is left.
    """
    if data.lstrip().startswith(b"-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(data)
        except (ValueError, TypeError) as error:
            raise KeyFileError("not a PEM public key") from error
        if not isinstance(key, Ed25519PublicKey):
            raise KeyFileError("not an Ed25519 public key")
        public = key.public_bytes_raw()
        return {key_id(public): PublicKey(key_id(public), public)}
    try:
        document = msgspec.json.decode(data)
    except msgspec.DecodeError as error:
        raise KeyFileError(f"not a JWK set, a JWK or a PEM public key: {error}") from error
    jwks = document.get("keys") if isinstance(document, dict) else None
    entries = jwks if isinstance(jwks, list) else [document]
    keys = dict(_jwk(entry) for entry in entries if _is_ed25519(entry))
    if not keys:
        raise KeyFileError("no Ed25519 key (kty OKP, crv Ed25519) in the key file")
    return keys


def _is_ed25519(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("kty") == "OKP" and entry.get("crv") == "Ed25519"


def _jwk(entry: dict[str, Any]) -> tuple[str, PublicKey]:
    try:
        public = unb64url(entry.get("x", ""))
    except ValueError as error:
        raise KeyFileError(f"key {entry.get('kid')!r}: x is not base64url") from error
    if len(public) != 32:
        raise KeyFileError(f"key {entry.get('kid')!r}: x is not a 32-byte Ed25519 key")
    kid = key_id(public)
    named = entry.get("kid", kid)
    if named != kid:
        raise KeyFileError(f"key {named!r} is not the key it names (its thumbprint is {kid})")
    try:
        dates = msgspec.convert(entry, _Dates)
    except msgspec.ValidationError as error:
        raise KeyFileError(f"key {kid}: its validity is unreadable: {error}") from error
    return kid, PublicKey(kid, public, dates.created, dates.retired, dates.revoked_from)


_Date = Annotated[datetime, msgspec.Meta(tz=True)]


class _Dates(msgspec.Struct, frozen=True):
    created: _Date | None = None
    retired: _Date | None = None
    revoked_from: _Date | None = None


class Signature(msgspec.Struct, frozen=True):
    """A detached Ed25519 signature of the document that holds it (see the module
    docstring for the signed bytes)."""

    kid: Annotated[
        str, msgspec.Meta(description="the signing key: one of GET /.well-known/doko-keys")
    ]
    signed_at: datetime
    value: Annotated[
        str,
        msgspec.Meta(
            description="base64url Ed25519 signature of the document's canonical JSON "
            "(members sorted, no white space) with signature.value left out"
        ),
    ]
    alg: str = ALGORITHM


def canonical(value: Any) -> bytes:
    """A JSON value's canonical bytes: no white space, members sorted at every level."""
    return msgspec.json.encode(value, order="sorted")


def _header(signature: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in signature.items() if k != "value"}


def signature_of(document: bytes, signer: Signer, signed_at: datetime) -> Signature:
    """The signature of a JSON object (its ``signature`` member, if any, is replaced)."""
    value = msgspec.json.decode(document)
    if not isinstance(value, dict):
        raise TypeError("only a JSON object can be signed")
    at = signed_at.astimezone(UTC).replace(microsecond=0)
    header = msgspec.json.decode(
        msgspec.json.encode(Signature(kid=signer.kid, signed_at=at, value=""))
    )
    message = canonical({**value, "signature": _header(header)})
    return Signature(kid=signer.kid, signed_at=at, value=b64url(signer.sign(message)))


class Verdict(msgspec.Struct, frozen=True):
    """What `check_signature` found: whether to accept the document, why, and a warning
    to show loudly when it is accepted without proof of origin; ``flagged`` when it is
    signed by a key revoked later (see Validity in the module docstring)."""

    ok: bool
    detail: str
    kid: str | None = None
    warning: str | None = None
    flagged: bool = False


NOT_SIGNED = (
    "NOT SIGNED: nothing proves where this file came from; only its internal consistency "
    "was checked"
)


def check_signature(
    document: Mapping[str, Any],
    expected_format: str,
    keys: Keys | None,
    *,
    allow_unsigned: bool,
    now: datetime | None = None,
) -> Verdict:
    """Whether ``document`` (a parsed JSON object) of ``expected_format`` is signed by one of
    ``keys``, dated within the key's validity at ``now`` (default: the time now). Without a
    signature (or without ``keys``) it passes, with a warning, only when ``allow_unsigned``;
    a signature that does not verify, or that its key's validity refuses, never passes."""
    if document.get("format") != expected_format:
        return Verdict(False, f"a {document.get('format')!r} document, not {expected_format!r}")
    signature = document.get("signature")
    if signature is None:
        if allow_unsigned:
            return Verdict(True, "not signed (allowed)", warning=NOT_SIGNED)
        return Verdict(
            False,
            "the file is not signed, so nothing proves where it came from "
            "(an old unsigned file is checked only if unsigned files are allowed)",
        )
    try:
        parsed = msgspec.convert(signature, Signature)
        value = unb64url(parsed.value)
        if len(value) != 64:
            raise ValueError("an Ed25519 signature has 64 bytes")
        if parsed.signed_at.tzinfo is None:
            raise ValueError("signed_at has no time zone")
    except (msgspec.ValidationError, ValueError) as error:
        return Verdict(False, f"the signature is malformed: {error}")
    if parsed.alg != ALGORITHM:
        return Verdict(False, f"signature algorithm {parsed.alg!r} is not {ALGORITHM}", parsed.kid)
    if keys is None:
        if allow_unsigned:
            warning = f"signature by key {parsed.kid} NOT checked: no public key was given"
            return Verdict(True, "signature not checked (allowed)", parsed.kid, warning)
        return Verdict(False, "no public key was given to check the signature with", parsed.kid)
    key = keys.get(parsed.kid)
    if key is None:
        trusted = ", ".join(sorted(keys)) or "none"
        return Verdict(
            False,
            f"signed by key {parsed.kid}, which is not one of the trusted keys ({trusted})",
            parsed.kid,
        )
    message = canonical({**document, "signature": _header(signature)})
    try:
        Ed25519PublicKey.from_public_bytes(key.public).verify(value, message)
    except InvalidSignature:
        return Verdict(
            False,
            f"the signature of key {parsed.kid} does not match the content: the file was "
            "changed after it was signed, or not signed with this key",
            parsed.kid,
        )
    signed = f"signed by key {parsed.kid} ({key.status}) at {parsed.signed_at.isoformat()}"
    refused = key.refuses(parsed.signed_at, now or datetime.now(UTC))
    if refused is not None:
        return Verdict(False, f"{signed}, refused: {refused}", parsed.kid)
    if key.revoked_from is None:
        return Verdict(True, signed, parsed.kid)
    warning = (
        f"FLAGGED: {signed}, before the key was revoked as compromised from "
        f"{key.revoked_from.isoformat()}: whoever holds the key could have dated it so; "
        "only the chain heads published live (--witness) show whether it is genuine"
    )
    return Verdict(True, f"{signed} (FLAGGED: revoked later)", parsed.kid, warning, flagged=True)
