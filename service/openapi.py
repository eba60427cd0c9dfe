"""The OpenAPI document, exported to ``openapi/openapi.json`` and kept in sync by a test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from service.app import Settings, create_app


def openapi_document() -> dict[str, Any]:
    """The app's OpenAPI document (no database needed to build it)."""
    app = create_app(Settings(database_url="postgresql://unused/unused", migrate=False))
    return app.openapi_schema.to_schema()


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def write_openapi(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(openapi_document()))
