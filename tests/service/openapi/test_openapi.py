"""The OpenAPI document: kept in sync with the app, complete, and true of the live service.

The property test generates requests from the document's own schemas
(schemathesis, valid and invalid data), aimed both at random ids and at real
tables with real tokens, and sends them to the live server: no input may cause
a 5xx, and every answer must be documented and match its schema. It is bounded by
its number of examples per operation (derandomized: the same requests every run),
never by time, so every operation is exercised however fast the machine is.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.metadata
import json
import logging
import re
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.app import Settings, create_app
from service.openapi.document import openapi_document, render
from service.tools.client import (
    DokoClient,
)

OPENAPI_FILE = Path(__file__).resolve().parents[3] / "openapi" / "openapi.json"
STREAMS = {"streamTable", "streamFeed"}
"""Endpoints that never end: checked in test_streams, not fuzzed."""
EXAMPLES_PER_OPERATION = 100
"""The fuzzing is bounded by a count of cases, never by wall time (machines differ)."""


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def test_the_openapi_file_is_the_apps_document() -> None:
    """``openapi/openapi.json`` is what ``doko openapi`` writes for the app as it is now."""
    assert OPENAPI_FILE.read_text() == render(openapi_document()), (
        "openapi/openapi.json is stale: run `.venv/bin/doko openapi`"
    )


def test_building_the_document_leaves_the_processs_logging_alone() -> None:
    """No handler of litestar's default logging is hung on the root logger (it wrote to a
    stream the test run had closed long after)."""
    root = logging.getLogger()
    before = list(root.handlers)
    openapi_document()
    assert root.handlers == before


def test_every_operation_is_named_summarized_and_lists_its_errors() -> None:
    document = openapi_document()
    seen: set[str] = set()
    for path, method, operation in operations(document):
        where = f"{method.upper()} {path}"
        assert operation.get("operationId"), where
        assert operation["operationId"] not in seen, where
        seen.add(operation["operationId"])
        assert operation.get("summary"), where
        responses = operation["responses"]
        errors = {int(code) for code in responses if int(code) >= 400}
        assert 429 in errors, f"{where}: every route is rate-limited"
        parameters = {p["name"] for p in operation.get("parameters", ())}
        if parameters or "requestBody" in operation:
            assert 400 in errors, where
        if "table_id" in parameters:
            assert 404 in errors, where
        if "requestBody" in operation:
            assert 413 in errors, where
        if operation.get("security") and {} not in operation["security"]:
            assert 401 in errors, f"{where}: a credential is required"
        if "seat" in parameters:
            assert {401, 403} <= errors, where
        if method == "post" and "seat" in parameters:
            assert 409 in errors, f"{where}: rule violations"
        for code in errors:
            content = responses[str(code)]["content"]
            assert list(content) == ["application/problem+json"], f"{where} {code}"
            schema = content["application/problem+json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/Problem"}, f"{where} {code}"
    problem = document["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "code"} <= set(problem["required"])


def _seat_numbers(node: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every schema in the document for a seat number as a plain integer: path parameters
    named ``seat`` and properties ``seat`` and ``first_dealer`` (not those that are the
    domain's `Seat` enum, whose values are 0-3 by definition)."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if node.get("in") == "path" and node.get("name") == "seat":
            found.append((where, node["schema"]))
        for key, value in node.get("properties", {}).items():
            if key in {"seat", "first_dealer"} and "$ref" not in json.dumps(value):
                found.append((f"{where}.{key}", value))
        for key, value in node.items():
            found += _seat_numbers(value, f"{where}/{key}")
    elif isinstance(node, list):
        for k, value in enumerate(node):
            found += _seat_numbers(value, f"{where}/{k}")
    return found


def test_every_seat_number_is_bounded_0_to_3() -> None:
    """Four seats, numbered 0-3 clockwise: the document says so wherever a seat number is
    sent or answered, both bounds (a generated client must refuse -1 as it refuses 4)."""
    found = _seat_numbers(openapi_document())
    assert len(found) >= 12, found  # 7 routes with a seat, 3 requests, 2 answers
    for where, schema in found:
        assert (schema.get("minimum"), schema.get("maximum")) == (0, 3), where


INTEGER_PARAMETERS = {
    "seat": (0, 3),  # four seats, 0-3 clockwise
    "deal_no": (1, 12),  # twelve deals a session
    "round_no": (1, 12),  # a tournament has at most twelve rounds (E1.1)
    "player": (0, 3999),  # a tournament takes at most 4000 players (E1.1), numbered from 0
    "after": (0, None),  # a stream's version or the log's position: 0 before the first
    "min_version": (0, None),  # a table's version, 0 before its first event
    "before": (1, None),  # a lobby cursor: a table's position, from 1
    "limit": (1, 100),  # tables per lobby page
}
"""The lower (and where there is one, the upper) bound of each integer parameter."""


def test_every_integer_parameter_states_its_bounds() -> None:
    """A generated client learns every bound from the document, a lower bound of 0 too
    (litestar drops it: `service.bodies.tables.ZERO_MINIMUM`)."""
    seen = set()
    for path, operations in openapi_document()["paths"].items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                schema = parameter["schema"]
                if "integer" not in json.dumps(schema):
                    continue
                low, high = INTEGER_PARAMETERS[parameter["name"]]
                where = f"{path} {parameter['name']}"
                assert schema.get("minimum") == low, where
                assert high is None or schema.get("maximum") == high, where
                assert "maximum" in schema, where  # the database's integer range at most
                seen.add(parameter["name"])
    assert seen == set(INTEGER_PARAMETERS)


class Real(msgspec.Struct, frozen=True):
    """A real (private) table: its id, its host token and its seats' tokens."""

    table_id: str
    host: str
    seats: tuple[str, ...] = ()


class RealTables(msgspec.Struct, frozen=True):
    """The real tables the fuzzing aims at, each kept for what may be done to it."""

    playing: Real
    """In play, four humans: every seat route, and the host's routes but abandoning."""
    finished: Real
    """Played to the end by bots: deal records, export; every route refuses to change it."""
    leaving: Real
    """In play, four humans: only ``leaveSeat`` aims at it (seats left stay vacant)."""
    closing: Real
    """Not started: ``closeTable`` closes it."""
    abandoning: Real
    """In play: ``abandonSession`` abandons it."""

    def aimed_at(self, name: str) -> Real:
        """The table an operation aims at first (the finished one is aimed at too)."""
        own = {
            "leaveSeat": self.leaving,
            "closeTable": self.closing,
            "abandonSession": self.abandoning,
        }
        return own.get(name, self.playing)


async def _seated(api: DokoClient, name: str) -> Real:
    """A private table in play: four humans sat down with its invitation."""
    table = await api.create_table(name, first_dealer=0)
    seats = [await table.take_seat(f"p{s}", seat=s) for s in range(4)]
    assert table.host_token is not None
    return Real(table.table_id, table.host_token, tuple(s.token for s in seats))


async def _real_tables(api: DokoClient) -> RealTables:
    """Tables in play with their seat tokens, a finished one (played by bots), one not
    started; each with its host token (private tables: T1.1)."""
    finished = await api.create_table("fuzz-bots")
    for kind in ("random", "greedy", "random", "greedy"):
        await finished.seat_bot(kind)
    async with asyncio.timeout(60):
        while (await finished.view()).winners is None:
            await asyncio.sleep(0.05)
    closing = await api.create_table("fuzz-closing")
    await closing.take_seat("early")
    assert finished.host_token is not None and closing.host_token is not None
    return RealTables(
        playing=await _seated(api, "fuzz"),
        finished=Real(finished.table_id, finished.host_token),
        leaving=await _seated(api, "fuzz-leaving"),
        closing=Real(closing.table_id, closing.host_token),
        abandoning=await _seated(api, "fuzz-abandoning"),
    )


def _strategies(operation: Any, spec: dict[str, Any], real: RealTables) -> st.SearchStrategy[Any]:
    """Random data (valid and invalid), and valid data aimed at the real tables: a seat
    route with each seat's token, another with the table's host token."""
    parameters = {p["name"] for p in spec.get("parameters", ())}
    options = [
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    ]
    if "table_id" in parameters:
        aimed = real.aimed_at(spec["operationId"])
        for table in (aimed, real.finished):
            if "seat" in parameters:
                for seat, token in enumerate(aimed.seats):
                    options.append(
                        operation.as_strategy(
                            GenerationMode.POSITIVE,
                            path_parameters={"table_id": table.table_id, "seat": seat},
                            headers={"Authorization": f"Bearer {token}"},
                        )
                    )
            else:
                options.append(
                    operation.as_strategy(
                        GenerationMode.POSITIVE,
                        path_parameters={"table_id": table.table_id},
                        headers={"Authorization": f"Bearer {table.host}"},
                    )
                )
    return st.one_of(options)


REACHED = {
    "getSeatView": 200,
    "getTable": 200,
    "verifyDeal": 200,
    "reviewDeal": 200,
    "exportSession": 200,
    "playCard": 409,
    "declare": 409,
    "createTable": 201,
    "leaveSeat": 200,
    "comeBack": 409,
    "closeTable": 200,
    "abandonSession": 200,
    "listTables": 200,
    "signingKeys": 200,
}
"""An answer each of these operations must give at least once: the real tables were
reached (views, accepted commands, deal records, rule violations, the table's life T2-T4),
and the lobby and the key set answered."""

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    negative_data_rejection,
]


class Fuzzer:
    """Sends generated cases to the live server; counts statuses, keeps the first failures."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.session = requests.Session()
        self.statuses: Counter[tuple[str, int]] = Counter()
        self.failures: dict[str, str] = {}

    def check(self, name: str, case: Any) -> None:
        response = case.call(base_url=self.base_url, session=self.session, timeout=10)
        self.statuses[name, response.status_code] += 1
        try:
            case.validate_response(response, checks=CHECKS)
        except BaseExceptionGroup as failure:  # schemathesis' FailureGroup
            kinds = ", ".join(sorted({type(e).__name__ for e in failure.exceptions}))
            self.failures.setdefault(f"{name}: {kinds}", f"{case.method} {case.path}: {failure}")

    def test_for(self, name: str, strategy: st.SearchStrategy[Any]) -> Callable[[], None]:
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=strategy)
        def run(case: Any) -> None:
            self.check(name, case)

        return run

    def run(self, real: RealTables, name: str) -> None:
        """The operation ``name`` (blocking: call from a worker thread)."""
        path, method, spec = FUZZED[name]
        operation = _schema()[path][method.upper()]
        self.test_for(name, _strategies(operation, spec, real))()


FUZZED = {
    spec["operationId"]: (path, method, spec)
    for path, method, spec in operations(json.loads(OPENAPI_FILE.read_text()))
    if spec["operationId"] not in STREAMS
}
"""Every operation but the streams, by operation id: one test each, so that the suite's
workers share them (the file is the app's document, as
`test_the_openapi_file_is_the_apps_document` holds)."""


@functools.cache
def _schema() -> Any:
    """The document as schemathesis reads it (once per process)."""
    return schemathesis.openapi.from_dict(openapi_document())


@pytest.fixture(scope="module")
async def real(module_http: httpx.AsyncClient) -> RealTables:
    """The real tables the module's fuzzed operations are aimed at."""
    return await _real_tables(DokoClient(module_http))


def test_every_operation_but_the_streams_is_fuzzed() -> None:
    """The fuzzed operations are the document's, the streams left out (they never end)."""
    names = {spec["operationId"] for _, _, spec in operations(openapi_document())}
    assert set(FUZZED) == names - STREAMS and names > STREAMS
    assert set(REACHED) <= set(FUZZED)


@pytest.mark.parametrize("name", sorted(FUZZED))
async def test_generated_requests_never_fail_the_server_or_the_schema(
    name: str, base_url: str, real: RealTables
) -> None:
    fuzzer = Fuzzer(base_url)
    await asyncio.to_thread(fuzzer.run, real, name)
    assert not fuzzer.failures, "\n\n".join(fuzzer.failures.values())
    seen = {status for _, status in fuzzer.statuses}
    assert seen, f"{name} was sent no case"
    assert all(status < 500 for status in seen), seen
    if name in REACHED:
        assert REACHED[name] in seen, f"{name} never answered {REACHED[name]}: {seen}"


async def test_the_live_service_serves_the_file_with_an_etag(http: httpx.AsyncClient) -> None:
    """``/schema/openapi.json`` answers the bytes of openapi/openapi.json with a strong ETag,
    the same at every request; an If-None-Match that names it (also weakly, or among
    others) is 304 with no body, one that does not is the document again (RFC 9110 13.1.2)."""
    response = await http.get("/schema/openapi.json")
    assert response.status_code == 200
    assert response.content == OPENAPI_FILE.read_bytes()
    assert response.headers["content-type"] == "application/vnd.oai.openapi+json"
    tag = response.headers["etag"]
    assert tag.startswith('"') and tag.endswith('"') and len(tag) > 2
    again = await http.get("/schema/openapi.json")
    assert again.headers["etag"] == tag and again.content == response.content
    for held in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        cached = await http.get("/schema/openapi.json", headers={"If-None-Match": held})
        assert (cached.status_code, cached.content) == (304, b""), held
        assert cached.headers["etag"] == tag
    changed = await http.get("/schema/openapi.json", headers={"If-None-Match": '"other"'})
    assert changed.status_code == 200 and changed.content == response.content


def test_the_document_describes_every_route_the_service_serves() -> None:
    """The served app's routes that belong to the API are the document's paths: the
    document is built from the API's routes apart from the served app (service.openapi.document)."""
    app = create_app(Settings(database_url="postgresql://unused/unused", migrate=False))
    served = {
        re.sub(r":\w+}", "}", route.path)
        for route in app.routes
        for handler in getattr(route, "route_handlers", ())
        if handler.resolve_include_in_schema()
    }
    assert served == set(openapi_document()["paths"])


RESOURCES = {
    "tables",
    "seats",
    "play",
    "life",
    "streams",
    "talk",
    "audit",
    "review",
    "tournaments",
    "keys",
    "health",
}
"""The resource tags of the operations (`service.openapi.finish`), by hand."""


def test_every_operation_is_under_one_resource_tag() -> None:
    document = json.loads(OPENAPI_FILE.read_text())
    assert {t["name"] for t in document["tags"]} == RESOURCES
    for path, method, operation in operations(document):
        assert len(operation.get("tags", [])) == 1, (method, path)
        assert operation["tags"][0] in RESOURCES, (method, path)
    assert all(t["description"] for t in document["tags"])


def test_the_document_is_as_generators_read_it() -> None:
    """No parameter is ``null`` (a header is a string), integer bounds are integers,
    descriptions are Markdown (no ``double backticks``), every body may be refused 415."""
    document = json.loads(OPENAPI_FILE.read_text())
    for path, method, operation in operations(document):
        for parameter in operation.get("parameters", []):
            assert {"type": "null"} not in parameter["schema"].get("oneOf", []), parameter
            if parameter["in"] == "header":
                assert parameter["schema"]["type"] == "string", (path, parameter["name"])
        if "requestBody" in operation:
            assert "415" in operation["responses"], (method, path)
    text = OPENAPI_FILE.read_text()
    assert "``" not in text
    bounds = [
        value
        for schema in _schemas(document)
        if schema.get("type") == "integer"
        for key, value in schema.items()
        if key in ("minimum", "maximum")
    ]
    assert bounds and all(isinstance(b, int) for b in bounds)


def _schemas(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [s for n in node for s in _schemas(n)]
    if not isinstance(node, dict):
        return []
    return [node, *(s for v in node.values() for s in _schemas(v))]


def test_the_documents_version_is_the_packages() -> None:
    """``info.version`` is the package's version (pyproject.toml, read through the installed
    package's metadata), which CHANGELOG.md's versioning policy governs: not a copy."""
    pyproject = tomllib.loads((OPENAPI_FILE.parents[1] / "pyproject.toml").read_text())
    document = json.loads(OPENAPI_FILE.read_text())
    assert document["info"]["version"] == pyproject["project"]["version"]
    assert document["info"]["version"] == importlib.metadata.version("doko")


NO_STORE = {
    "createTable",
    "takeSeat",
    "getSeatView",
    "declare",
    "nameContract",
    "playCard",
    "announce",
    "showSchweinchen",
    "answerPoverty",
    "returnPoverty",
    "comeBack",
    "replaceInvitation",
    "getStreamTicket",
    "createTournament",
    "registerPlayer",
    "getTournamentStreamTicket",
}
"""The operations whose answers carry a credential or a hand (README: Cache-Control)."""
ETAG = {
    "getTable",
    "getSeatView",
    "getScoresheet",
    "listTables",
    "declare",
    "nameContract",
    "playCard",
    "announce",
    "showSchweinchen",
    "answerPoverty",
    "returnPoverty",
    "comeBack",
    "leaveSeat",
    "closeTable",
    "abandonSession",
    "replaceInvitation",
}
"""The operations whose success answers carry an ETag."""


def test_every_response_declares_the_headers_it_is_sent_with() -> None:
    """``Location`` on every 201, ``WWW-Authenticate`` on every 401, ``Retry-After`` on every
    429, ``ETag`` and ``Cache-Control: no-store`` where they are sent (on the 304 too), the
    RateLimit fields everywhere; the live service is held to them by the property test
    (schemathesis' response_headers_conformance)."""
    document = json.loads(OPENAPI_FILE.read_text())
    assert set(document["components"]["headers"]) == {"RateLimit", "RateLimit-Policy"}
    for _path, _method, operation in operations(document):
        name = operation["operationId"]
        for status, response in operation["responses"].items():
            headers = response.get("headers", {})
            where = f"{name} {status}"
            assert {"RateLimit", "RateLimit-Policy"} <= set(headers), where
            required = {h for h, spec in headers.items() if spec.get("required")}
            if status == "201":
                assert "Location" in required, where
            if status == "401":
                assert "WWW-Authenticate" in required, where
            if status == "429":
                assert "Retry-After" in required, where
            if status.startswith("2") or status == "304":
                assert ("ETag" in required) == (name in ETAG), where
                no_store = headers.get("Cache-Control", {}).get("schema", {}).get("enum")
                assert (no_store == ["no-store"]) == (name in NO_STORE), where
        if "min_version" in {p["name"] for p in operation.get("parameters", [])}:
            assert operation["responses"]["409"]["headers"]["ETag"]["required"], name


def _unknown(node: Any, where: str = "") -> list[str]:
    """The places in ``node`` whose schema says nothing (``{}``: any value)."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("schema", "items", "additionalProperties") and value == {}:
                found.append(f"{where}/{key}")
            if key == "properties":
                found += [f"{where}/{k}" for k, v in value.items() if v == {}]
            found += _unknown(value, f"{where}/{key}")
    elif isinstance(node, list):
        for k, value in enumerate(node):
            found += _unknown(value, f"{where}/{k}")
    return found


def test_the_document_types_what_it_knows() -> None:
    """Generated types are exact: no schema says "any value"; a life action's refusal code
    is a problem code, a seat's bot a bot kind, a problem's errors one of their shapes; an
    exported event's payload is an object, and says why it is free-form."""
    document = json.loads(OPENAPI_FILE.read_text())
    assert _unknown(document) == []
    schemas = document["components"]["schemas"]
    ref = "#/components/schemas/{}".format
    assert {"$ref": ref("ProblemCode")} in schemas["Permission"]["properties"]["code"]["oneOf"]
    assert {"$ref": ref("BotKind")} in schemas["SeatInfo"]["properties"]["bot"]["oneOf"]
    errors = schemas["Problem"]["properties"]["errors"]
    assert errors["items"]["oneOf"] == [
        {"$ref": ref(n)} for n in ("BodyError", "ParameterError", "ReadinessCheck")
    ]
    assert set(schemas["ParameterError"]["properties"]) == {"parameter", "in", "detail"}
    assert set(schemas["BodyError"]["properties"]) == {"pointer", "detail"}
    payload = schemas["ExportedEvent"]["properties"]["payload"]
    assert payload["type"] == "object" and "free-form" in payload["description"]


def test_what_the_service_always_sends_is_required() -> None:
    """A member of an answer is required unless the answer leaves it out (a problem's
    ``detail``, ``rule``, ...: those are optional, and never null); a view says its
    ``version``, ``status`` and ``actions``; a seat's options their ``cards``."""
    schemas = json.loads(OPENAPI_FILE.read_text())["components"]["schemas"]
    required = {name: set(s.get("required", ())) for name, s in schemas.items()}
    assert {"version", "status", "actions", "server_time"} <= required["TableView"]
    assert {"cards", "announcements", "contracts", "declarations"} <= required["Options"]
    assert required["Problem"] == {"type", "title", "status", "code"}
    assert schemas["Problem"]["properties"]["rule"] == {"type": "string"}
    for name in ("CreateTableRequest", "TakeSeatRequest", "CreateTournamentRequest"):
        assert required[name] < set(schemas[name]["properties"]), name
    leaving_out = {"Problem", "SheetRow", "FeedItem", "RuleSet", "PovertyView"}  # omit_defaults
    with_rules = {  # the house rules, left out for RULES.md exactly
        "TableView",
        "LobbyOptions",
        "Observation",
        "SessionStarted",
        "TableCreated",
        "TournamentCreated",
    }
    house_rules = {  # V3.1, V4, V5, V6: left out where they do not apply (V4.8: a redeal's number)
        "Observation": {"schweinchen", "bock", "poverty", "duty_owed", "forced", "duty_solo"},
        "Options": {"schweinchen", "answer_poverty", "return_cards"},
        "DealRecord": {"schweinchen", "poverty", "forced"},
        "Score": {"bock", "bock_triggers", "duty_solo"},
        "DealDealt": {"forced"},
        "Dealing": {"redeal"},
        "GameTypeFixed": {"duty_solo"},
        "Scoresheet": {"duty_owed"},
    }
    for name, schema in schemas.items():
        if "properties" in schema and name not in leaving_out and not name.endswith("Request"):
            base = name.removeprefix("Streamed").removeprefix("Witnessed")
            optional = {"rules"} if base in with_rules else set()
            optional |= house_rules.get(base, set())
            assert required[name] == set(schema["properties"]) - optional, name
            assert optional <= set(schema["properties"]), name
