"""The OpenAPI document: built by litestar from the API's routes, exported to
``openapi/openapi.json`` (a test keeps the two equal) and served at ``/schema/openapi.json``.

The service serves the document itself rather than through litestar's OpenAPI routes,
which encode it anew for every request and whose pages (``/schema/redoc``, ``/swagger``,
...) load scripts and fonts from CDNs: the served app has no OpenAPI config, so it has none
of those routes. The served bytes are built once per process, at the first request, and
are the very bytes of ``openapi/openapi.json``, with a strong ``ETag`` (If-None-Match:
304). Like every route, it is under the rate limits (`service.edge.limits`). The page that draws
the document is ``/schema`` (`service.routes.pages`).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from litestar import Litestar, Response, get
from litestar.enums import OpenAPIMediaType
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components
from litestar.types import ControllerRouterHandler

from service.edge.conditional import conditional, tag_of
from service.edge.credentials import SCHEMES
from service.edge.idempotency import declare
from service.openapi.finish import finish
from service.routes.access import ACCESS_ROUTES
from service.routes.audit import AUDIT_ROUTES
from service.routes.health import HEALTH_ROUTES
from service.routes.keys import KEYS_ROUTES
from service.routes.life import LIFE_ROUTES
from service.routes.lobby import LOBBY_ROUTES
from service.routes.play import PLAY_ROUTES
from service.routes.seats import SEATS_ROUTES
from service.routes.shared import IfNoneMatch
from service.routes.streams import STREAMS_ROUTES
from service.routes.tables import TABLES_ROUTES
from service.routes.tournament_audit import TOURNAMENT_AUDIT_ROUTES
from service.routes.tournaments import TOURNAMENTS_ROUTES

VERSION = "0.1.0"

API_ROUTES: list[ControllerRouterHandler] = [
    *TABLES_ROUTES,
    *LOBBY_ROUTES,
    *SEATS_ROUTES,
    *PLAY_ROUTES,
    *LIFE_ROUTES,
    *ACCESS_ROUTES,
    *AUDIT_ROUTES,
    *KEYS_ROUTES,
    *STREAMS_ROUTES,
    *TOURNAMENTS_ROUTES,
    *TOURNAMENT_AUDIT_ROUTES,
    *HEALTH_ROUTES,
]
"""The routes of the API: those the document describes (the pages are not part of it)."""


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="doko",
        version=VERSION,
        description=(
            "An event-sourced Doppelkopf table service. Rule ids (R3.4, R6.6, ...) refer to "
            "the rule set; every error is application/problem+json with a stable `code`."
        ),
        components=Components(security_schemes={k.value: s for k, s in SCHEMES.items()}),
    )


def openapi_document() -> dict[str, Any]:
    """The API's OpenAPI document (no database needed to build it); every POST and DELETE
    declares Idempotency-Key (`service.edge.idempotency.declare`). It leaves logging alone
    (``logging_config=None``) as the service's app does: litestar's default would hang its own
    handler on the root logger of whatever process asks for the document."""
    app = Litestar(API_ROUTES, openapi_config=openapi_config(), logging_config=None)
    declare(app)
    return finish(app.openapi_schema.to_schema())


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def write_openapi(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(openapi_document()))


@functools.cache
def _served() -> tuple[bytes, str]:
    """The document's bytes, as ``doko openapi`` writes them, and their ETag."""
    body = render(openapi_document()).encode()
    return body, tag_of(body)


@get("/schema/openapi.json", include_in_schema=False)
async def serve_document(if_none_match: IfNoneMatch = None) -> Response[Any]:
    body, tag = _served()
    return conditional(body, tag, OpenAPIMediaType.OPENAPI_JSON.value, if_none_match)
