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
import re
from importlib.metadata import version
from pathlib import Path
from typing import Any

from litestar import Litestar, Response, get
from litestar.datastructures import ResponseHeader
from litestar.enums import OpenAPIMediaType
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components
from litestar.types import ControllerRouterHandler

from service.edge.conditional import conditional, tag_of
from service.edge.credentials import SCHEMES
from service.edge.idempotency import declare
from service.openapi.finish import Declared, finish
from service.routes.access import ACCESS_ROUTES
from service.routes.audit import AUDIT_ROUTES
from service.routes.health import HEALTH_ROUTES
from service.routes.keys import KEYS_ROUTES
from service.routes.life import LIFE_ROUTES
from service.routes.lobby import LOBBY_ROUTES
from service.routes.play import PLAY_ROUTES
from service.routes.review import REVIEW_ROUTES
from service.routes.seats import SEATS_ROUTES
from service.routes.shared import IfNoneMatch
from service.routes.streams import STREAMS_ROUTES
from service.routes.tables import TABLES_ROUTES
from service.routes.talk import TALK_ROUTES
from service.routes.tournament_audit import TOURNAMENT_AUDIT_ROUTES
from service.routes.tournaments import TOURNAMENTS_ROUTES

VERSION = version("doko")
"""The document's ``info.version``: the package's version (pyproject.toml), which
CHANGELOG.md's versioning policy governs."""

API_ROUTES: list[ControllerRouterHandler] = [
    *TABLES_ROUTES,
    *LOBBY_ROUTES,
    *SEATS_ROUTES,
    *PLAY_ROUTES,
    *LIFE_ROUTES,
    *ACCESS_ROUTES,
    *AUDIT_ROUTES,
    *REVIEW_ROUTES,
    *KEYS_ROUTES,
    *STREAMS_ROUTES,
    *TALK_ROUTES,
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


NAMES = {"cache-control": "Cache-Control", "etag": "ETag"}
"""Header names as the document spells them (litestar's own are lower case)."""


def _header(header: ResponseHeader) -> dict[str, Any]:
    """A response header a route declares, as the document's header object: one a route sets
    itself (``documentation_only``, e.g. ``ETag``) with its example, one litestar sets with
    its one value (``Cache-Control: no-store``) with that value; both always sent."""
    fixed = not header.documentation_only and header.value is not None
    described = header.description or (
        "never stored by a cache: the answer carries a credential or a hand"
        if header.name.lower() == "cache-control"
        else None
    )
    return {
        "required": True,
        "schema": {"type": "string", **({"enum": [header.value]} if fixed else {})},
        **({"description": described} if described else {}),
        **({"example": header.value} if header.documentation_only and header.value else {}),
    }


def declared_headers(app: Litestar) -> Declared:
    """The response headers each route declares (``response_headers``, ``cache_control``),
    by (path, method) of the document: litestar writes them into the success response it
    makes, not into one the route spells out (``responses={200: ...}``), nor into its 304."""
    found: Declared = {}
    for route in app.routes:
        path = re.sub(r":\w+}", "}", route.path)
        for handler in getattr(route, "route_handlers", ()):
            headers = {
                NAMES.get(h.name.lower(), h.name): _header(h)
                for h in handler.resolve_response_headers()
            }
            for method in handler.http_methods:
                found[path, method.lower()] = headers
    return found


def openapi_document() -> dict[str, Any]:
    """The API's OpenAPI document (no database needed to build it); every POST and DELETE
    declares Idempotency-Key (`service.edge.idempotency.declare`). It leaves logging alone
    (``logging_config=None``) as the service's app does: litestar's default would hang its own
    handler on the root logger of whatever process asks for the document."""
    app = Litestar(API_ROUTES, openapi_config=openapi_config(), logging_config=None)
    declare(app)
    return finish(app.openapi_schema.to_schema(), declared_headers(app))


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
