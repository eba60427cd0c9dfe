"""``doko openapi``: the API's OpenAPI document written to a file."""

from __future__ import annotations

import argparse
from pathlib import Path

from service.tools.cli.shared import Subparsers


def export_openapi(args: argparse.Namespace) -> int:
    """Write the OpenAPI document of the app."""
    from service.openapi.document import write_openapi

    write_openapi(args.output)
    print(f"wrote {args.output}")
    return 0


def register_openapi(subparsers: Subparsers) -> None:
    """``doko openapi [-o openapi/openapi.json]``."""
    parser = subparsers.add_parser("openapi", help="export the OpenAPI document")
    parser.add_argument("-o", "--output", type=Path, default=Path("openapi/openapi.json"))
    parser.set_defaults(handler=export_openapi)
