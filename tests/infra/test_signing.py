"""Ed25519 keys, key sets and signed JSON documents (no database).

Expectations come from RFC 8037 Appendix A (the example key, its thumbprint and a
signature) and from the signed bytes as the module docstring of `infra.signing` defines
them, rebuilt here with `cryptography` directly.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from infra.signing import (
    KeyFileError,
    KeyStatus,
    PublicKey,
    Signer,
    check_signature,
    key_set,
    read_keys,
    signature_of,
)

# RFC 8037, Appendix A.1 and A.3
RFC_D = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"
RFC_X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
RFC_KID = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
# RFC 8037, Appendix A.4: the JWS signing input and its signature
RFC_INPUT = b"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
RFC_SIGNATURE = (
    "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
)
AT = datetime(2026, 11, 30, 12, 0, 0, 654321, tzinfo=UTC)


def b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


RFC_SIGNER = Signer.from_raw(b64(RFC_D))


def trusted(*signers: Signer) -> dict[str, PublicKey]:
    return {s.kid: PublicKey(s.kid, s.public) for s in signers}


def signed(document: dict[str, Any], signer: Signer) -> dict[str, Any]:
    """A signed copy of ``document``, sharing nothing with it (the tests change copies)."""
    encoded = msgspec.json.encode(document)
    signature = signature_of(encoded, signer, AT)
    return {**msgspec.json.decode(encoded), "signature": msgspec.to_builtins(signature)}


DOCUMENT = {
    "format": "doko-table-export",
    "name": "Ström",
    "events": [{"version": 1, "recorded_at": "2026-11-30T11:00:00Z", "payload": {"b": 2, "a": 1}}],
    "signature": None,
}


def test_the_rfc_8037_key_has_the_rfc_thumbprint_and_signs_as_the_rfc_says() -> None:
    assert base64.urlsafe_b64encode(RFC_SIGNER.public).rstrip(b"=").decode() == RFC_X
    assert RFC_SIGNER.kid == RFC_KID
    assert RFC_SIGNER.sign(RFC_INPUT) == b64(RFC_SIGNATURE)


def test_the_signature_covers_the_documented_bytes() -> None:
    document = signed(DOCUMENT, RFC_SIGNER)
    signature = document["signature"]
    assert signature["kid"] == RFC_KID and signature["alg"] == "EdDSA"
    assert signature["signed_at"] == "2026-11-30T12:00:00Z"  # UTC, whole seconds
    # the module docstring's recipe, written out: sorted members, no white space, UTF-8,
    # the signature member without its value
    header = {k: v for k, v in signature.items() if k != "value"}
    message = msgspec.json.encode({**document, "signature": header}, order="sorted")
    assert message.startswith(b'{"events":[{"payload":{"a":1,"b":2},"recorded_at"')
    assert '"name":"Ström"'.encode() in message
    Ed25519PublicKey.from_public_bytes(b64(RFC_X)).verify(b64(signature["value"]), message)


def test_a_signed_document_verifies_however_it_is_spelled() -> None:
    document = signed(DOCUMENT, RFC_SIGNER)
    keys = trusted(RFC_SIGNER)

    verdict = check_signature(document, "doko-table-export", keys, allow_unsigned=False)
    assert verdict.ok and verdict.kid == RFC_KID and verdict.warning is None
    assert f"signed by key {RFC_KID} (current)" in verdict.detail
    reindented = msgspec.json.decode(
        msgspec.json.format(msgspec.json.encode(dict(reversed(document.items()))), indent=4)
    )
    assert check_signature(reindented, "doko-table-export", keys, allow_unsigned=False).ok


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.__setitem__("name", "Strom"),
        lambda d: d["events"][0].__setitem__("recorded_at", "2026-11-30T11:00:01Z"),
        lambda d: d["events"][0]["payload"].__setitem__("c", 3),
        lambda d: d.__setitem__("extra", True),
        lambda d: d["signature"].__setitem__("signed_at", "2026-11-30T12:00:01Z"),
    ],
    ids=["copy", "recorded_at", "payload", "added member", "signed_at"],
)
def test_any_changed_value_breaks_the_signature(change: Any) -> None:
    document = signed(DOCUMENT, RFC_SIGNER)
    change(document)

    verdict = check_signature(
        document, "doko-table-export", trusted(RFC_SIGNER), allow_unsigned=True
    )

    assert not verdict.ok
    assert "does not match the content" in verdict.detail


def test_only_a_trusted_key_and_the_expected_format_pass() -> None:
    stranger = Signer.generate()
    document = signed(DOCUMENT, stranger)

    unknown = check_signature(
        document, "doko-table-export", trusted(RFC_SIGNER), allow_unsigned=True
    )
    assert not unknown.ok
    assert f"signed by key {stranger.kid}, which is not one of the trusted keys" in unknown.detail

    # a stranger's signature under the trusted key's id
    document["signature"]["kid"] = RFC_KID
    impostor = check_signature(
        document, "doko-table-export", trusted(RFC_SIGNER), allow_unsigned=True
    )
    assert not impostor.ok and "does not match" in impostor.detail

    report = signed({**DOCUMENT, "format": "doko-deal-verification"}, RFC_SIGNER)
    other = check_signature(report, "doko-table-export", trusted(RFC_SIGNER), allow_unsigned=True)
    assert not other.ok and "'doko-deal-verification' document" in other.detail


def test_unsigned_documents_pass_only_when_allowed_and_then_loudly() -> None:
    keys = trusted(RFC_SIGNER)
    refused = check_signature(DOCUMENT, "doko-table-export", keys, allow_unsigned=False)
    assert not refused.ok and "not signed" in refused.detail

    allowed = check_signature(DOCUMENT, "doko-table-export", keys, allow_unsigned=True)
    assert allowed.ok and allowed.warning is not None and "NOT SIGNED" in allowed.warning

    document = signed(DOCUMENT, RFC_SIGNER)
    unchecked = check_signature(document, "doko-table-export", None, allow_unsigned=True)
    assert unchecked.ok and unchecked.warning is not None and "NOT checked" in unchecked.warning
    assert not check_signature(document, "doko-table-export", None, allow_unsigned=False).ok


@pytest.mark.parametrize(
    "signature",
    [
        "forged",
        {"kid": RFC_KID},
        {"kid": RFC_KID, "signed_at": "2026-11-30T12:00:00Z", "value": "*"},
    ],
)
def test_a_malformed_signature_fails_with_a_reason(signature: Any) -> None:
    document = {**DOCUMENT, "signature": signature}
    verdict = check_signature(
        document, "doko-table-export", trusted(RFC_SIGNER), allow_unsigned=True
    )
    assert not verdict.ok
    assert "malformed" in verdict.detail


def test_key_sets_round_trip_and_key_files_of_every_form_are_read() -> None:
    retired = PublicKey(RFC_KID, RFC_SIGNER.public, AT, AT)
    current = Signer.generate()
    published = msgspec.json.encode(key_set([retired, PublicKey(current.kid, current.public, AT)]))
    jwks = msgspec.json.decode(published)
    first = jwks["keys"][0]
    assert {k: first[k] for k in ("kty", "crv", "x", "kid", "alg", "use", "status")} == {
        "kty": "OKP",
        "crv": "Ed25519",
        "x": RFC_X,
        "kid": RFC_KID,
        "alg": "EdDSA",
        "use": "sig",
        "status": "retired",
    }
    assert "d" not in first
    keys = read_keys(published)
    assert set(keys) == {RFC_KID, current.kid}
    assert (
        keys[RFC_KID].status is KeyStatus.RETIRED and keys[current.kid].status is KeyStatus.CURRENT
    )

    assert set(read_keys(msgspec.json.encode(first))) == {RFC_KID}
    pem = Ed25519PublicKey.from_public_bytes(RFC_SIGNER.public).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert set(read_keys(pem)) == {RFC_KID}
    assert Signer.from_pem(RFC_SIGNER.pem()).kid == RFC_KID


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"not json", "not a JWK set"),
        (b'{"keys": [{"kty": "RSA", "n": "x", "e": "AQAB"}]}', "no Ed25519 key"),
        (b'{"kty": "OKP", "crv": "Ed25519", "x": "AAAA"}', "not a 32-byte"),
        (
            msgspec.json.encode({"kty": "OKP", "crv": "Ed25519", "x": RFC_X, "kid": "other"}),
            "is not the key it names",
        ),
        (b"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "not a PEM public key"),
        (
            msgspec.json.encode({"kty": "OKP", "crv": "Ed25519", "x": RFC_X, "retired": "soon"}),
            "its validity is unreadable",
        ),
        (
            msgspec.json.encode(
                {"kty": "OKP", "crv": "Ed25519", "x": RFC_X, "retired": "2026-11-20T00:00:00"}
            ),
            "its validity is unreadable",
        ),
    ],
)
def test_unusable_key_files_are_refused(data: bytes, reason: str) -> None:
    with pytest.raises(KeyFileError, match=reason):
        read_keys(data)


def test_a_signer_never_shows_its_private_key() -> None:
    shown = repr(RFC_SIGNER) + str(RFC_SIGNER)
    assert RFC_KID in shown
    assert RFC_D not in shown and b64(RFC_D).hex() not in shown
    with pytest.raises(KeyFileError):
        Signer.from_pem(b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")


CREATED = datetime(2026, 11, 1, tzinfo=UTC)
RETIRED = datetime(2026, 11, 20, tzinfo=UTC)
REVOKED_FROM = datetime(2026, 11, 10, tzinfo=UTC)
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
DAY, MINUTES_4 = timedelta(days=1), timedelta(minutes=4)  # the stated skew is 5 minutes


@pytest.mark.parametrize(
    ("retired", "revoked_from", "signed_at", "ok", "said"),
    [
        (None, None, NOW - DAY, True, "(current) at"),
        (None, None, NOW + MINUTES_4, True, "(current) at"),
        (None, None, NOW + DAY, False, "refused: that is in the future"),
        (None, None, CREATED - DAY, False, "refused: the key was made only at 2026-11-01"),
        (None, None, CREATED - MINUTES_4, True, "(current) at"),
        (RETIRED, None, RETIRED - DAY, True, "(retired) at"),
        (RETIRED, None, RETIRED + MINUTES_4, True, "(retired) at"),
        (RETIRED, None, RETIRED + DAY, False, "refused: the key was retired at 2026-11-20"),
        # a retired key's forgery: a day after the retirement, and in the future
        (NOW - DAY / 2, None, NOW + DAY / 2, False, "refused: the key was retired at"),
        (RETIRED, REVOKED_FROM, REVOKED_FROM, False, "refused: the key is revoked"),
        (None, REVOKED_FROM, REVOKED_FROM + DAY, False, "refused: the key is revoked"),
        (RETIRED, REVOKED_FROM, REVOKED_FROM - DAY, True, "(FLAGGED: revoked later)"),
    ],
)
def test_a_signature_is_refused_outside_its_keys_validity(
    retired: datetime | None,
    revoked_from: datetime | None,
    signed_at: datetime,
    ok: bool,
    said: str,
) -> None:
    key = PublicKey(RFC_KID, RFC_SIGNER.public, CREATED, retired, revoked_from)
    encoded = msgspec.json.encode(DOCUMENT)
    signature = msgspec.to_builtins(signature_of(encoded, RFC_SIGNER, signed_at))
    document = {**msgspec.json.decode(encoded), "signature": signature}

    verdict = check_signature(
        document, "doko-table-export", {RFC_KID: key}, allow_unsigned=False, now=NOW
    )

    assert (verdict.ok, verdict.flagged) == (ok, revoked_from is not None and ok)
    assert said in verdict.detail, verdict.detail
    assert verdict.detail.startswith(f"signed by key {RFC_KID}")
    if verdict.flagged:
        assert verdict.warning is not None and verdict.warning.startswith("FLAGGED: ")
        assert "revoked as compromised from 2026-11-10" in verdict.warning
    else:
        assert verdict.warning is None


def test_without_a_time_given_a_signature_dated_tomorrow_is_refused() -> None:
    tomorrow = datetime.now(UTC) + DAY
    encoded = msgspec.json.encode(DOCUMENT)
    signature = msgspec.to_builtins(signature_of(encoded, RFC_SIGNER, tomorrow))
    document = {**msgspec.json.decode(encoded), "signature": signature}
    verdict = check_signature(
        document, "doko-table-export", trusted(RFC_SIGNER), allow_unsigned=False
    )
    assert not verdict.ok and "in the future" in verdict.detail
    no_zone = {**signature, "signed_at": signature["signed_at"].rstrip("Z")}
    naive = check_signature(
        {**document, "signature": no_zone},
        "doko-table-export",
        trusted(RFC_SIGNER),
        allow_unsigned=False,
    )
    assert not naive.ok and "malformed: signed_at has no time zone" in naive.detail


def test_the_key_set_carries_each_keys_validity() -> None:
    keys = [
        PublicKey(RFC_KID, RFC_SIGNER.public, CREATED, RETIRED, REVOKED_FROM),
        PublicKey("x", b"\x01" * 32, RETIRED),
    ]
    published = msgspec.json.decode(msgspec.json.encode(key_set(keys)))["keys"]
    assert [(k["status"], k["created"], k["retired"], k["revoked_from"]) for k in published] == [
        ("revoked", "2026-11-01T00:00:00Z", "2026-11-20T00:00:00Z", "2026-11-10T00:00:00Z"),
        ("current", "2026-11-20T00:00:00Z", None, None),
    ]
    read = read_keys(msgspec.json.encode({"keys": published[:1]}))
    assert read[RFC_KID] == keys[0] and read[RFC_KID].status is KeyStatus.REVOKED
