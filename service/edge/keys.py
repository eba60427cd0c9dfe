"""Signing keys at the service's edge: the key file of a deployment, the published key set,
and signing what a route answers (`infra.signing`, `infra.keyring`)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx
import msgspec

from infra.keyring import Keyring, NoSigningKey
from infra.signing import KeyFileError, PublicKey, Signer, read_keys, signature_of
from service.edge.problems import ServiceError

KEYS_PATH = "/.well-known/doko-keys"
"""Where the service publishes its public keys (a JWK set)."""

KEY_FILE_VARIABLE = "DOKO_SIGNING_KEY_FILE"
"""The environment variable naming the deployment's key file (a PEM private key)."""


def key_file(given: Path | None) -> Path | None:
    """The key file given as an option, else by `KEY_FILE_VARIABLE`, else none."""
    if given is not None:
        return given
    named = os.environ.get(KEY_FILE_VARIABLE)
    return Path(named) if named else None


def load_signer(path: str | Path | None) -> Signer | None:
    """The private key of a PEM key file (None: no file); raises `KeyFileError`, naming
    the file but never its content."""
    if path is None:
        return None
    try:
        return Signer.from_pem(Path(path).read_bytes())
    except OSError as error:
        raise KeyFileError(f"{path}: cannot read the key file ({error.strerror})") from error
    except KeyFileError as error:
        raise KeyFileError(f"{path}: {error}") from error


def trusted_keys(source: str) -> dict[str, PublicKey]:
    """The public keys to verify with: a key file (a JWK set saved from the service, one
    JWK, or a PEM public key) or a service URL whose key set is fetched (`KEYS_PATH`).
    Raises `KeyFileError` (or `OSError`, `httpx.HTTPError`)."""
    if source.startswith(("http://", "https://")):
        url = source if source.rstrip("/").endswith(KEYS_PATH) else source.rstrip("/") + KEYS_PATH
        response = httpx.get(url, timeout=30.0, follow_redirects=True)
        response.raise_for_status()
        data = response.content
    else:
        data = Path(source).read_bytes()
    return read_keys(data)


async def signing(keyring: Keyring) -> tuple[Signer, datetime]:
    """The key to sign an answer with, and the time; 503 ``signing_key_unavailable``
    when this process has none (a misconfigured deployment, not the client's fault)."""
    try:
        signer = await keyring.signer()
    except NoSigningKey as error:
        raise ServiceError(503, "signing_key_unavailable", str(error)) from error
    return signer, datetime.now(UTC)


Signed = TypeVar("Signed", bound=Any)


async def signed(keyring: Keyring, document: Signed) -> Signed:
    """``document`` (a Struct with a ``format`` and a ``signature`` field) signed now."""
    signer, now = await signing(keyring)
    signature = signature_of(msgspec.json.encode(document), signer, now)
    return msgspec.structs.replace(document, signature=signature)
