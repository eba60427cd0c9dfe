"""The reference web client's pages, served by the service itself (none in the OpenAPI document).

``/`` is the lobby, ``/t/{table}`` a table (a seat's page when the browser holds that seat's
token, else a spectator's), ``/t/{table}/deals/{n}`` the deal viewer, ``/tournament`` a new
tournament (and the tournaments this browser keeps something for),
``/tournament/{tournament}`` a tournament (the director's page when the browser holds its
host token, a player's when it holds their tournament credential, and the standings for
everyone allowed to see them), ``/tournament/{tournament}/rounds/{r}/deals/{n}`` one deal
compared across the round's tables, ``/rules`` the rules and ``/schema`` the API reference
(the OpenAPI document drawn by a pinned copy of Swagger UI, ``web/vendor/``: its README says
which). Each page is the one HTML shell with its own ES module, under one
Content-Security-Policy; the modules, the CSS, the vendored files, a copy of RULES.md (the
game, R1-R10), TABLE_RULES.md (the table's house rules T1-T5, as `domain.table` states
them), TOURNAMENT_RULES.md (the tournament's, E1-E6, as `domain.tournament`,
`domain.seating` and `domain.standings` state them), HOUSE_RULES.md (the house rules a
table may choose, V1-V6, as `domain.variants` states them), NAME_RULES.md (the names people
give, N1-N4, as `domain.names` states them) and the catalogues of the pages' words
with the German rule texts (``web/i18n/``) are files of the package (``service/web/``),
served under ``/web/``.
``/web/meta.json`` gives the pages what they take from the server and never re-implement:
the rule texts by id (parsed from those copies) and the names of the stream's event types.
"""

from __future__ import annotations

import functools
import re
import typing
from pathlib import Path

import msgspec
from litestar import MediaType, Response, get
from litestar.static_files import create_static_files_router
from litestar.types import ControllerRouterHandler

from domain.table import TableEvent

WEB = Path(__file__).parents[1] / "web"

_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "same-origin",
}
"""Pages load nothing from elsewhere, run no inline script and may not be framed (every
answer's other headers: `service.edge.headers`)."""

_TITLES = {
    "lobby": "doko",
    "table": "doko table",
    "deal": "doko deal",
    "tournaments": "doko tournament",
    "tournament": "doko tournament",
    "compare": "doko deal compared",
    "rules": "doko rules",
    "reference": "doko API",
}


class Meta(msgspec.Struct, frozen=True):
    """What the pages read from the server: rule texts by id, the stream's event types."""

    rules: dict[str, str]
    events: list[str]


_RULE = re.compile(r"^- ([RTEV]\d+\.\d+|N\d) (.*)$")
_SECTION = re.compile(r"^## ([RTEV]\d+) (.*)$")
RULE_FILES = (
    "RULES.md",
    "TABLE_RULES.md",
    "TOURNAMENT_RULES.md",
    "HOUSE_RULES.md",
    "NAME_RULES.md",
)
"""The rules the pages quote: the game's (R ids), the table's (T ids), the tournament's (E ids),
the house rules a table may choose (V ids), the names people give (N ids, one level: N1-N4)."""


def rule_texts(markdown: str) -> dict[str, str]:
    """Each rule of RULES.md (or TABLE_RULES.md, TOURNAMENT_RULES.md, HOUSE_RULES.md,
    NAME_RULES.md) by its id: ``R3.3`` (or ``N2``) its text, ``R6`` its section's title and
    introduction. A rule's continuation lines are joined with single spaces."""
    rules: dict[str, str] = {}
    section: str | None = None  # the section whose introduction is being read
    current: str | None = None  # the rule (or section) the next plain line continues
    for line in markdown.splitlines():
        heading = _SECTION.match(line)
        rule = _RULE.match(line)
        if line.startswith("#"):
            section = current = heading[1] if heading else None
            if heading:
                rules[heading[1]] = heading[2].strip() + "."
        elif rule:
            section, current = None, rule[1]
            rules[current] = rule[2].strip()
        elif line.startswith("- ") or not line.strip():
            current = section
        elif current is not None:
            rules[current] += " " + line.strip()
    return rules


def _event_types() -> list[str]:
    """The ``event:`` names of the table stream: the tags of `TableEvent`."""
    return [str(t.__struct_config__.tag) for t in typing.get_args(TableEvent)]


@functools.cache
def _meta() -> bytes:
    rules: dict[str, str] = {}
    for name in RULE_FILES:
        rules.update(rule_texts((WEB / name).read_text(encoding="utf-8")))
    return msgspec.json.encode(Meta(rules, _event_types()))


@functools.cache
def _page(name: str) -> str:
    shell = (WEB / "shell.html").read_text(encoding="utf-8")
    return shell.replace("{title}", _TITLES[name]).replace("{page}", name)


def _html(name: str) -> Response[str]:
    return Response(_page(name), media_type=MediaType.HTML, headers=_HEADERS)


@get("/", include_in_schema=False)
async def lobby() -> Response[str]:
    return _html("lobby")


@get("/t/{table_id:str}", include_in_schema=False)
async def table() -> Response[str]:
    return _html("table")


@get("/t/{table_id:str}/deals/{deal_no:int}", include_in_schema=False)
async def deal() -> Response[str]:
    return _html("deal")


@get("/tournament", include_in_schema=False)
async def tournaments() -> Response[str]:
    return _html("tournaments")


@get("/tournament/{tournament_id:str}", include_in_schema=False)
async def tournament() -> Response[str]:
    return _html("tournament")


@get(
    "/tournament/{tournament_id:str}/rounds/{round_no:int}/deals/{deal_no:int}",
    include_in_schema=False,
)
async def compare() -> Response[str]:
    return _html("compare")


@get("/rules", include_in_schema=False)
async def rules() -> Response[str]:
    return _html("rules")


@get("/schema", include_in_schema=False)
async def reference() -> Response[str]:
    return _html("reference")


@get("/web/meta.json", include_in_schema=False)
async def meta() -> Response[bytes]:
    return Response(_meta(), media_type=MediaType.JSON)


PAGES: list[ControllerRouterHandler] = [
    lobby,
    table,
    deal,
    tournaments,
    tournament,
    compare,
    rules,
    reference,
    meta,
    create_static_files_router("/web", directories=[WEB], include_in_schema=False),
]
