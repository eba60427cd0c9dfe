"""The deployment's public signing keys (RFC 7517)."""

from typing import Any

from litestar import Request, get

from infra.signing import KeySet, key_set
from service.edge.keys import KEYS_PATH
from service.routes.shared import problem_responses, services


@get(
    KEYS_PATH,
    operation_id="signingKeys",
    summary="The public keys that sign exports and reports (a JWK set)",
    description="Every Ed25519 key of the deployment as a JWK (RFC 7517, RFC 8037; `kid` is "
    "the RFC 7638 thumbprint) with its `status` and validity: `current` signs new exports "
    "and reports, `retired` no longer does and what it signed before `retired` still "
    "verifies, `revoked` is compromised from `revoked_from` on (what it signed before is "
    "flagged). A signature dated outside its key's validity, or more than 5 minutes in the "
    "future, is refused. Save it to check files offline: `doko verify --file F "
    "--public-key KEYS`.",
    media_type="application/jwk-set+json",
    responses=problem_responses(validated=False),
)
async def signing_keys(request: Request[Any, Any, Any]) -> KeySet:
    return key_set(await services(request).keys.keys())


KEYS_ROUTES = [signing_keys]
