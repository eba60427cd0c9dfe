"""Hostile input: whatever a client sends, the answer is below 500, a refusal is
problem+json with a stable code, and nothing is written.

Each case is a request (or raw bytes on a socket, for what an HTTP client library
will not send) with the status and problem code expected, written down by hand from
the API's documentation (RULES.md R2.2 for entropy, RFC 9110 for entity tags, the
OpenAPI document for the ranges). After each, the log must be as it was: the number
of events, the newest global position and the number of recorded commands.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from service.tools.client import (
    DokoClient,
)
from tests.service.sessions import Game, new_game, presets_with_both_qc

MAX_VERSION = 2**31 - 1  # events.version is a PostgreSQL integer
MAX_POSITION = 2**63 - 1  # events.position is a bigint
JSON = {"content-type": "application/json"}
DEEP = 100_000


class Case(msgspec.Struct, frozen=True):
    """A request and its expected answer. ``{table}``, ``{seeded}``, ``{preset}``,
    ``{token1}``, ``{token2}`` and ``{host}`` in the path, headers and body are the module's
    tables and tokens; ``code`` None: a success, no problem."""

    name: str
    method: str
    path: str
    status: int
    code: str | None
    headers: dict[str, str | bytes] = {}
    body: bytes | None = None
    rule: str | None = None


def json_body(value: Any) -> bytes:
    return msgspec.json.encode(value)


def seat_auth(seat: int = 1) -> dict[str, str | bytes]:
    return {"authorization": f"Bearer {{token{seat}}}"}


PLAY = "/tables/{table}/seats/1/play"
DECLARE = "/tables/{table}/seats/1/reservation"
PLAY_BODY = json_body({"card": "AS"})
HEALTHY = json_body({"declaration": "healthy"})

# Numbers a client may send where a table version or a position is expected, none valid.
NOT_NUMBERS = {
    "superscript two (latin-1)": b"\xb2",
    "superscript two (UTF-8)": "²".encode(),
    "arabic-indic digits": "١٢".encode(),
    "negative": b"-1",
    "plus sign": b"+1",
    "fraction": b"1.5",
    "exponent": b"1e3",
    "hex": b"0x10",
    "letters": b"abc",
    "5000 digits": b"9" * 5000,
}
BEYOND_VERSION = str(MAX_VERSION + 1).encode()
BEYOND_POSITION = str(MAX_POSITION + 1).encode()


def _number_cases() -> list[Case]:
    cases = []
    for label, value in {**NOT_NUMBERS, "beyond integer": BEYOND_VERSION}.items():
        cases += [
            Case(
                f"If-Match {label}",
                "POST",
                DECLARE,
                400,
                "malformed_request",
                {**seat_auth(), **JSON, "if-match": value},
                HEALTHY,
            ),
            Case(
                f"If-None-Match {label}",
                "GET",
                "/tables/{table}",
                400,
                "malformed_request",
                {"if-none-match": value},
            ),
            Case(
                f"Last-Event-ID {label} on a table stream",
                "GET",
                "/tables/{table}/events",
                400,
                "malformed_request",
                {"last-event-id": value},
            ),
            Case(
                f"after={label} on a table stream",
                "GET",
                "/tables/{table}/events?after=" + value.decode("latin-1"),
                400,
                "malformed_request",
            ),
            Case(
                f"min_version={label}",
                "GET",
                "/tables/{table}?min_version=" + value.decode("latin-1"),
                400,
                "malformed_request",
            ),
        ]
    for label, value in {**NOT_NUMBERS, "beyond bigint": BEYOND_POSITION}.items():
        cases += [
            Case(
                f"Last-Event-ID {label} on the feed",
                "GET",
                "/feed",
                400,
                "malformed_request",
                {"last-event-id": value},
            ),
            Case(
                f"after={label} on the feed",
                "GET",
                "/feed?after=" + value.decode("latin-1"),
                400,
                "malformed_request",
            ),
        ]
    return cases


def _id_cases() -> list[Case]:
    cases = []
    for label, table_id in {
        "NUL": "%00",
        "NUL inside": "a%00b",
        "control character": "%01",
        "DEL": "%7F",
        "line feed": "x%0Ay",
        "space": "%20x",
        "non-ASCII": "%C3%A4",
        "invalid UTF-8": "%FF",
        "65 characters": "a" * 65,
    }.items():
        cases += [
            Case(f"table id {label}", "GET", f"/tables/{table_id}", 400, "malformed_request"),
            Case(
                f"table id {label}, sitting down",
                "POST",
                f"/tables/{table_id}/seats",
                400,
                "malformed_request",
                JSON,
                json_body({"name": "x"}),
            ),
        ]
    cases += [
        Case("encoded slashes", "GET", "/tables/..%2F..%2Fetc", 404, "not_found"),
        Case(
            "a seat number with an exponent", "GET", "/tables/{table}/seats/1e0", 404, "not_found"
        ),
    ]
    for suffix in ("/events", "/scoresheet", "/deals/1", "/deals/1/verification", "/export"):
        cases.append(
            Case(
                f"table id NUL on {suffix}", "GET", f"/tables/%00{suffix}", 400, "malformed_request"
            )
        )
    return cases


def _name_cases() -> list[Case]:
    cases = []
    for label, name in {
        "NUL": "a\u0000",
        "bell": "a\u0007",
        "unit separator": "a\u001f",
        "line feed": "a\nb",
        "DEL": "a\u007f",
        "C1 next line": "a\u0085",
    }.items():
        cases += [
            Case(
                f"table name with {label}",
                "POST",
                "/tables",
                400,
                "malformed_request",
                JSON,
                json_body({"name": name}),
            ),
            Case(
                f"player name with {label}",
                "POST",
                "/tables/{seeded}/seats",
                400,
                "malformed_request",
                JSON,
                json_body({"name": name}),
            ),
        ]
    cases.append(
        Case(
            "bot name with NUL",
            "POST",
            "/tables/{seeded}/bots",
            400,
            "malformed_request",
            {"authorization": "Bearer {host}", **JSON},
            json_body({"kind": "random", "name": "b\u0000"}),
        )
    )
    return cases


def _body_cases() -> list[Case]:
    deep_arrays = b"[" * DEEP + b"]" * DEEP
    deep_objects = b'{"a":' * (DEEP // 4) + b"1" + b"}" * (DEEP // 4)
    create: list[tuple[str, bytes]] = [
        ("100,000 nested arrays", deep_arrays),
        ("25,000 nested objects", deep_objects),
        ("deep nesting in a field", b'{"name": ' + deep_arrays + b"}"),
        ("deep nesting in presets", b'{"presets": ' + deep_arrays + b"}"),
        ("null", b"null"),
        ("a number", b"1"),
        ("a string", b'"x"'),
        ("true", b"true"),
        ("an array", b"[]"),
        ("invalid UTF-8", b'{"name": "\xff"}'),
        ("a byte order mark", b'\xef\xbb\xbf{"name": "x"}'),
        ("a lone surrogate", b'{"name": "\\ud800"}'),
        ("first_dealer 1e400", b'{"first_dealer": 1e400}'),
        ("first_dealer beyond 64 bits", b'{"first_dealer": 99999999999999999999999}'),
        ("first_dealer -1", b'{"first_dealer": -1}'),
        ("first_dealer true", b'{"first_dealer": true}'),
        ("first_dealer as a word", b'{"first_dealer": "one"}'),
        ("3 seeds", json_body({"seeds": ["00" * 32] * 3})),
        ("seeds with NUL", json_body({"seeds": ["\u0000" * 64] * 12})),
        (
            "seeds and presets",
            json_body({"seeds": ["00" * 32] * 12, "presets": [[["QC"] * 12] * 4] * 12}),
        ),
        ("an unknown field", b'{"name": "x", "admin": true}'),
        ("trailing garbage", b'{"name": "x"} x'),
    ]
    cases = [
        Case(f"new table: {label}", "POST", "/tables", 400, "malformed_request", JSON, body)
        for label, body in create
    ]
    eleven = json_body({"seeds": ["00" * 32] * 11})  # a session has 12 deals (R1.1)
    cases.append(
        Case(
            "new table: 11 seeds",
            "POST",
            "/tables",
            400,
            "invalid_table_option",
            JSON,
            eleven,
            "R1.1",
        )
    )
    cases += [  # a string that is no card is refused as the rules refuse it (R2.1)
        Case(
            f"play: {label}",
            "POST",
            PLAY,
            400,
            "invalid_card",
            {**seat_auth(), **JSON},
            body,
            "R2.1",
        )
        for label, body in [
            ("card with NUL", json_body({"card": "QC\u0000"})),
            ("empty card", json_body({"card": ""})),
        ]
    ]
    play: list[tuple[str, bytes]] = [
        ("card null", b'{"card": null}'),
        ("card as a number", b'{"card": 12}'),
        ("deep nesting", deep_arrays),
    ]
    cases += [
        Case(
            f"play: {label}", "POST", PLAY, 400, "malformed_request", {**seat_auth(), **JSON}, body
        )
        for label, body in play
    ]
    cases += [
        Case(
            "declaration in capitals",
            "POST",
            DECLARE,
            400,
            "malformed_request",
            {**seat_auth(), **JSON},
            json_body({"declaration": "HEALTHY"}),
        ),
        Case(
            "announcement with NUL",
            "POST",
            "/tables/{table}/seats/1/announce",
            400,
            "malformed_request",
            {**seat_auth(), **JSON},
            json_body({"word": "re\u0000"}),
        ),
        Case(
            "seat beyond 64 bits",
            "POST",
            "/tables/{seeded}/seats",
            400,
            "malformed_request",
            JSON,
            json_body({"name": "x", "seat": 2**64}),
        ),
        Case(
            "entropy not hex",
            "POST",
            "/tables/{seeded}/seats",
            400,
            "malformed_request",
            JSON,
            json_body({"name": "x", "entropy": "zz"}),
        ),
        Case(
            "entropy over 64 bytes",
            "POST",
            "/tables/{seeded}/seats",
            400,
            "malformed_request",
            JSON,
            json_body({"name": "x", "entropy": "ab" * 65}),
        ),
        Case(
            "a body over the size limit",
            "POST",
            "/tables",
            413,
            "body_too_large",
            JSON,
            b'{"name": "' + b"x" * (300 * 1024) + b'"}',
        ),
        Case(
            "a key given twice (no single reading: refused before it is read)",
            "POST",
            PLAY,
            400,
            "duplicate_member",
            {**seat_auth(), **JSON},
            b'{"card": "QC", "card": "AS"}',
        ),
    ]
    return cases


def declaring(name: str, status: int, code: str, headers: dict[str, str | bytes]) -> Case:
    """Seat 1 declares healthy (its turn: only the headers can be wrong)."""
    return Case(name, "POST", DECLARE, status, code, {**seat_auth(), **JSON, **headers}, HEALTHY)


def seat_view(name: str, authorization: str | bytes, status: int = 401) -> Case:
    """Seat 1's view, asked for with this Authorization header."""
    code = {401: "unauthorized", 403: "forbidden"}[status]
    headers = {"authorization": authorization}
    return Case(name, "GET", "/tables/{table}/seats/1", status, code, headers)


def public_view(name: str, if_none_match: str, status: int, code: str | None) -> Case:
    """The public view, asked for with this If-None-Match header."""
    return Case(name, "GET", "/tables/{table}", status, code, {"if-none-match": if_none_match})


def _misc_cases() -> list[Case]:
    entropy = json_body({"name": "x", "entropy": "5f3a9c01"})
    unauthorized = (401, "unauthorized")
    malformed = (400, "malformed_request")
    return [
        # R2.2: entropy at a table whose deals are fixed in advance is refused, not dropped
        *(
            Case(
                f"entropy at a {kind} table",
                "POST",
                f"/tables/{{{kind}}}/seats",
                409,
                "entropy_not_used",
                JSON,
                entropy,
                rule="R2.2",
            )
            for kind in ("seeded", "preset")
        ),
        # tokens
        seat_view("a token longer than any issued", "Bearer " + "A" * 44),
        seat_view("a token with a space inside", "Bearer ab cd"),
        seat_view("a token with non-ASCII", "Bearer é".encode()),
        seat_view("a token with a dot", "Bearer a.b"),
        seat_view("Bearer without a token", "Bearer"),
        seat_view("another scheme", "Basic {token1}"),
        seat_view("a token of another seat", "Bearer {token2}", 403),
        Case(
            "?token= on a seat view", "GET", "/tables/{table}/seats/1?token={token1}", *unauthorized
        ),
        Case(
            "?token= on a command", "POST", PLAY + "?token={token1}", *unauthorized, JSON, PLAY_BODY
        ),
        Case(
            "?token= on seating a bot",
            "POST",
            "/tables/{seeded}/bots?token={host}",
            *unauthorized,
            JSON,
            json_body({}),
        ),
        Case(
            "?token= on the public view (ignored)",
            "GET",
            "/tables/{table}?token={token1}",
            200,
            None,
        ),
        Case(
            "?token= on a stream (a credential in a URL)",
            "GET",
            "/tables/{table}/events?token={token1}",
            400,
            "token_in_url",
        ),
        Case(
            "a 44-character ?ticket= on a stream",
            "GET",
            "/tables/{table}/events?ticket=" + "A" * 44,
            401,
            "ticket_invalid",
        ),
        # entity tags
        public_view("If-None-Match: * (any version)", "*", 304, None),
        public_view("If-None-Match with another server's tag", '"abc"', 200, None),
        public_view("If-None-Match with 33 tags", ", ".join(['"1"'] * 33), *malformed),
        public_view("If-None-Match with a broken tag", '"1"x', *malformed),
        declaring("If-Match with two tags", *malformed, {"if-match": '"1", "2"'}),
        declaring("If-Match quoted beyond integer", *malformed, {"if-match": '"2147483648"'}),
        declaring("If-Match an empty tag", *malformed, {"if-match": '""'}),
        declaring("If-Match a stale version", 409, "version_mismatch", {"if-match": '"1"'}),
        # idempotency keys
        declaring(
            "Idempotency-Key over 200 characters", *malformed, {"idempotency-key": "k" * 201}
        ),
        declaring("Idempotency-Key with a space", *malformed, {"idempotency-key": "a b"}),
        declaring("Idempotency-Key non-ASCII", *malformed, {"idempotency-key": "ä".encode()}),
        # paths and methods
        Case("seat 4", "GET", "/tables/{table}/seats/4", *malformed, seat_auth()),
        Case("seat -1", "GET", "/tables/{table}/seats/-1", *malformed, seat_auth()),
        Case(
            "seat number in the path beyond 64 bits",
            "GET",
            "/tables/{table}/seats/99999999999999999999",
            *malformed,
            seat_auth(),
        ),
        Case("deal 0", "GET", "/tables/{table}/deals/0", *malformed),
        Case("deal 13", "GET", "/tables/{table}/deals/13/verification", *malformed),
        Case(
            "deal beyond 64 bits",
            "GET",
            "/tables/{table}/deals/99999999999999999999/replay",
            *malformed,
        ),
        Case("a deal in play", "GET", "/tables/{table}/deals/1", 409, "deal_not_scored"),
        Case(
            "a deal in play, verified",
            "GET",
            "/tables/{table}/deals/1/verification",
            409,
            "deal_not_scored",
        ),
        Case(
            "the export of a session in play",
            "GET",
            "/tables/{table}/export",
            409,
            "session_not_finished",
        ),
        Case("DELETE a table", "DELETE", "/tables/{table}", 405, "method_not_allowed"),
        Case(
            "PUT a card", "PUT", PLAY, 405, "method_not_allowed", {**seat_auth(), **JSON}, PLAY_BODY
        ),
        Case("a path no route serves", "GET", "/tables/{table}/seats/1/hand", 404, "not_found"),
        Case(
            "a duplicate min_version",
            "GET",
            "/tables/{table}?min_version=1&min_version=x",
            *malformed,
        ),
    ]


CASES = [*_number_cases(), *_id_cases(), *_name_cases(), *_body_cases(), *_misc_cases()]


class Raw(msgspec.Struct, frozen=True):
    """Bytes sent on a fresh connection (``{head}`` is replaced by a Host header line)."""

    name: str
    request: bytes
    status: int
    code: str


RAW = [
    Raw(
        "200 header fields",
        b"GET /health HTTP/1.1\r\n{head}" + b"x-a: 1\r\n" * 200 + b"\r\n",
        431,
        "headers_too_large",
    ),
    Raw(
        "a 20 KB header",
        b"GET /health HTTP/1.1\r\n{head}x-big: " + b"a" * 20_000 + b"\r\n\r\n",
        431,
        "headers_too_large",
    ),
    Raw(
        "a 1 MB bearer token",
        b"GET /feed HTTP/1.1\r\n{head}authorization: Bearer " + b"a" * 1_000_000 + b"\r\n\r\n",
        431,
        "headers_too_large",
    ),
    Raw(
        "a 20 KB URL",
        b"GET /tables/" + b"a" * 20_000 + b" HTTP/1.1\r\n{head}\r\n",
        431,
        "headers_too_large",
    ),
    Raw(
        "NUL in a header value",
        b'GET /tables/x HTTP/1.1\r\n{head}if-none-match: "1\x00"\r\n\r\n',
        400,
        "malformed_request",
    ),
    Raw(
        "a space in a header name",
        b"GET /health HTTP/1.1\r\n{head}bad name: 1\r\n\r\n",
        400,
        "malformed_request",
    ),
    Raw("not HTTP", b"HELLO\r\n\r\n", 400, "malformed_request"),
    Raw(
        "a bad chunk size",
        b"POST /tables HTTP/1.1\r\n{head}content-type: application/json\r\n"
        b"transfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        400,
        "malformed_request",
    ),
    Raw(
        "Content-Length not a number",
        b"POST /tables HTTP/1.1\r\n{head}content-length: abc\r\n\r\n{}",
        400,
        "malformed_request",
    ),
    Raw(
        "Content-Length and chunked",
        b"POST /tables HTTP/1.1\r\n{head}content-length: 2\r\n"
        b"transfer-encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
        "malformed_request",
    ),
]


class World(msgspec.Struct):
    """The module's tables: ``table`` in deal 1's reservations (four players), ``seeded``
    (host seeds) and ``preset`` (preset deals) each with free seats, and their tokens."""

    game: Game
    values: dict[str, str]

    def fill(self, text: str) -> str:
        for key, value in self.values.items():
            text = text.replace("{" + key + "}", value)
        return text

    def fill_bytes(self, data: bytes) -> bytes:
        return self.fill(data.decode("latin-1")).encode("latin-1")


@pytest.fixture(scope="module")
async def world(module_http: httpx.AsyncClient) -> World:
    api = DokoClient(module_http)
    game = await new_game(api)
    seeded = await api.create_table("host seeded", seeds=["ab" * 32] * 12, visibility="public")
    preset = await api.create_table(
        "preset", presets=presets_with_both_qc("hostile"), visibility="public"
    )
    return World(
        game,
        {
            "table": game.table.table_id,
            "seeded": seeded.table_id,
            "preset": preset.table_id,
            "token1": game.seats[1].token,
            "token2": game.seats[2].token,
            "host": seeded.host_token,
        },
    )


async def written(pool: asyncpg.Pool) -> tuple[int, int, int]:
    """What the log holds: events, the newest position, recorded commands."""
    row = await pool.fetchrow(
        "SELECT (SELECT count(*) FROM events), (SELECT coalesce(max(position), 0) FROM events),"
        " (SELECT count(*) FROM commands)"
    )
    return (row[0], row[1], row[2])


def assert_answer(status: int, headers: httpx.Headers, body: bytes, case: Any) -> None:
    """The expected status; a refusal as problem+json with the expected code (and rule)."""
    assert status == case.status, (case.name, status, body[:300])
    assert status < 500
    if case.code is None:
        return
    assert headers["content-type"].startswith("application/problem+json"), case.name
    problem = msgspec.json.decode(body)
    assert {"type", "title", "status", "code"} <= problem.keys(), (case.name, problem)
    assert (problem["status"], problem["code"]) == (case.status, case.code), (case.name, problem)
    if getattr(case, "rule", None) is not None:
        assert problem.get("rule") == case.rule, (case.name, problem)


def test_there_are_over_a_hundred_cases() -> None:
    assert len(CASES) + len(RAW) >= 100
    assert len({c.name for c in CASES}) == len(CASES), "each case has its own name"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_a_hostile_request_is_refused_and_writes_nothing(
    case: Case, world: World, module_http: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    headers = {
        k: (world.fill(v) if isinstance(v, str) else world.fill_bytes(v))
        for k, v in case.headers.items()
    }
    body = world.fill_bytes(case.body) if case.body is not None else None
    target = httpx.URL(str(module_http.base_url).rstrip("/") + world.fill(case.path))
    before = await written(pool)
    async with asyncio.timeout(30):
        request = module_http.build_request(case.method, target, headers=headers, content=body)
        response = await module_http.send(request, stream=True)
        try:
            if response.headers.get("content-type", "").startswith("text/event-stream"):
                content = b""  # a stream opened: the status says it all
            else:
                content = await response.aread()
        finally:
            await response.aclose()
    assert_answer(response.status_code, response.headers, content, case)
    assert await written(pool) == before, f"{case.name}: the log changed"


async def _raw_exchange(base_url: str, request: bytes) -> tuple[int, httpx.Headers, bytes]:
    url = httpx.URL(base_url)
    reader, writer = await asyncio.open_connection(url.host, url.port)
    try:
        writer.write(request)
        with contextlib.suppress(ConnectionError):  # answered and closed before reading all
            await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = httpx.Headers([tuple(line.split(": ", 1)) for line in lines[1:] if line])
        body = await reader.readexactly(int(headers["content-length"]))
        return status, headers, body
    finally:
        writer.close()


@pytest.mark.parametrize("case", RAW, ids=[c.name for c in RAW])
async def test_a_malformed_or_oversized_request_is_refused_and_writes_nothing(
    case: Raw, base_url: str, pool: asyncpg.Pool
) -> None:
    host = f"host: {httpx.URL(base_url).host}\r\n".encode()
    before = await written(pool)
    async with asyncio.timeout(30):
        status, headers, body = await _raw_exchange(base_url, case.request.replace(b"{head}", host))
    assert_answer(status, headers, body, case)
    assert headers["connection"] == "close"
    assert await written(pool) == before


async def test_the_largest_cursors_open_streams_that_stay_open(
    world: World, module_http: httpx.AsyncClient
) -> None:
    """A table stream resumed after the largest version (2^31 - 1) and the feed after the
    largest position (2^63 - 1) are valid cursors: both streams open, and stay open when
    the next commit wakes them (nothing is newer than their cursors: they send nothing),
    while a stream from 0 gets that commit."""
    table = await DokoClient(module_http).create_table("cursors", visibility="public")
    paths = [
        (f"/tables/{table.table_id}/events", {"last-event-id": str(MAX_VERSION)}),
        (f"/feed?after={MAX_POSITION}", {}),
    ]
    stream = httpx.Timeout(10.0, read=None)
    async with contextlib.AsyncExitStack() as stack:
        extremes = []
        for path, headers in paths:
            response = await stack.enter_async_context(
                module_http.stream("GET", path, headers=headers, timeout=stream)
            )
            assert response.status_code == 200, path
            extremes.append(response.aiter_bytes())
        async with table.events() as messages:
            await table.take_seat("north")
            async with asyncio.timeout(30):
                async for message in messages:
                    if message.event == "seat_taken":
                        break
        for chunks in extremes:  # open, with nothing to send: still waiting
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(anext(chunks), 0.2)
