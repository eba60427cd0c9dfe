"""RFC 9457 problem details: every error leaves the service as ``application/problem+json``.

Each problem carries a stable ``code`` and, for rule violations, the ``rule`` id
of RULES.md that the command broke. Rule violations and version conflicts are
409; nothing a client sends may produce a 500.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.status_codes import (
    HTTP_400_BAD_REQUEST,
    HTTP_404_NOT_FOUND,
    HTTP_409_CONFLICT,
    HTTP_422_UNPROCESSABLE_ENTITY,
    HTTP_500_INTERNAL_SERVER_ERROR,
    HTTP_503_SERVICE_UNAVAILABLE,
)

from domain.errors import DomainError
from infra.database import UNAVAILABLE
from infra.event_store import ConcurrencyConflict, IdempotencyKeyReused
from infra.streams import VersionMismatch
from infra.tables import TableNotFound
from service.edge.codes import ProblemCode
from service.edge.validation import BodyError, ParameterError, Rulings, described, reworded, ruling
from service.workers.health import ReadinessCheck

RETRY_AFTER = 1
"""Seconds a client is told to wait before retrying while the database is unavailable."""

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("doko.service")


ProblemItem = BodyError | ParameterError | ReadinessCheck
"""An item of a problem's ``errors``: a place of the body or a parameter that is not what the
operation takes (``malformed_request``, ``duplicate_member`` and the codes of rules the body
breaks, `service.edge.validation`), or a readiness check that failed (``not_ready``)."""


class Problem(msgspec.Struct, omit_defaults=True):
    """An RFC 9457 problem, with doko's stable ``code`` and the broken ``rule``; ``errors``
    lists what is wrong, each in one place (a validation error's pointer or parameter, a
    failed readiness check)."""

    type: str
    title: str
    status: int
    code: ProblemCode
    detail: str | None = None
    rule: str | None = None
    instance: str | None = None
    errors: list[Any] | None = None  # ProblemItem: the document types it (openapi.finish)


class ServiceError(HTTPException):
    """An error raised by the service itself, with a stable code (and, optionally, the
    rule id it enforces, the problem's ``errors`` and response headers)."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        rule: str | None = None,
        errors: list[ProblemItem] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail=detail, status_code=status, headers=headers)
        self.code = code
        self.rule = rule
        self.errors = errors


class TableHidden(ServiceError):
    """T1.1: a private table, to a caller holding no credential of it. It is answered
    exactly as a table that does not exist (404 ``table_not_found``, the same body), so
    that the answer does not tell whether the table exists (a 401 would)."""

    def __init__(self) -> None:
        super().__init__(404, "table_not_found", "a private table")


REALM = "doko"
"""The realm of doko's Bearer challenges (RFC 6750 §3)."""

_NOT_IN_QUOTES = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")
"""What an ``error_description`` may not hold (RFC 6750 §3)."""


def challenge(request: Request[Any, Any, Any], status: int, code: str, detail: str | None) -> str:
    """The ``WWW-Authenticate`` of a 401 (and of a 403 ``forbidden``): a Bearer challenge
    (RFC 6750 §3). A request that sent no Bearer credential (none, or another scheme) is
    challenged without an error code (§3.1: it did not know that it needed one); one whose
    token or stream ticket does not open what it asked for gets ``error="invalid_token"``,
    a seat's token that acts for another seat ``error="insufficient_scope"`` (with its 403)."""
    sent = request.headers.get("authorization", "").lower().startswith("bearer ") or (
        "ticket" in request.query_params
    )
    if status == 403:
        error = "insufficient_scope"
    elif sent:
        error = "invalid_token"
    else:
        return f'Bearer realm="{REALM}"'
    described = _NOT_IN_QUOTES.sub("", detail or code)
    return f'Bearer realm="{REALM}", error="{error}", error_description="{described}"'


def problem(
    request: Request[Any, Any, Any],
    status: int,
    code: str,
    detail: str | None,
    *,
    rule: str | None = None,
    errors: list[ProblemItem] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[Problem]:
    """A problem+json response; a 401 (and a 403 ``forbidden``) with its `challenge`."""
    body = problem_of(status, code, detail, request.url.path, rule=rule, errors=errors)
    if status == 401 or code == "forbidden":
        headers = {**(headers or {}), "WWW-Authenticate": challenge(request, status, code, detail)}
    return Response(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def problem_of(
    status: int,
    code: str,
    detail: str | None,
    instance: str,
    *,
    rule: str | None = None,
    errors: list[ProblemItem] | None = None,
) -> Problem:
    """The problem with this stable ``code``, for the request path ``instance``."""
    return Problem(
        type=f"urn:doko:problem:{code}",
        title=code.replace("_", " "),
        status=status,
        code=ProblemCode(code),
        detail=detail,
        rule=rule,
        instance=instance,
        errors=errors,
    )


def domain_error(request: Request[Any, Any, Any], exc: DomainError) -> Response[Problem]:
    """A rule violation: 409 with the error's code and rule id.

    Malformed input that only the domain can judge (the error says so: `DomainError.malformed`;
    preset hands that are not a deck, R2.1/R2.2; a table option out of bounds, T1.1/T3.1; a
    tournament option out of bounds or a standings method that does not exist, E1.1/E1.2; a
    player's name that is empty, E2.1) is a 400, as documented for the operations that take it.
    """
    status = HTTP_400_BAD_REQUEST if exc.malformed else HTTP_409_CONFLICT
    return problem(request, status, exc.code, exc.message, rule=exc.rule)


def table_not_found(request: Request[Any, Any, Any], exc: TableNotFound) -> Response[Problem]:
    return problem(request, HTTP_404_NOT_FOUND, "table_not_found", str(exc))


def table_hidden(request: Request[Any, Any, Any], exc: TableHidden) -> Response[Problem]:
    return table_not_found(request, TableNotFound(request.path_params.get("table_id", "")))


def version_mismatch(request: Request[Any, Any, Any], exc: VersionMismatch) -> Response[Problem]:
    """If-Match named another version than the table's: 409, nothing written."""
    return problem(
        request,
        HTTP_409_CONFLICT,
        "version_mismatch",
        str(exc),
        headers={"ETag": etag(exc.actual)},
    )


def concurrency_conflict(
    request: Request[Any, Any, Any], exc: ConcurrencyConflict
) -> Response[Problem]:
    return problem(request, HTTP_409_CONFLICT, "version_conflict", "the table kept changing; retry")


def http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Problem]:
    """Litestar's own errors (400 validation, 401, 403, 404, 405, 413, 429 ...)."""
    status = exc.status_code
    code = getattr(exc, "code", None) or _CODES.get(status, "http_error")
    errors = getattr(exc, "errors", None)
    detail = exc.detail if not isinstance(exc, NotFoundException) else "no such resource"
    if isinstance(exc, ValidationException) and isinstance(exc.extra, list):
        raw = [e if isinstance(e, dict) else {"message": str(e)} for e in exc.extra]
        reported = [reworded(e) for e in raw]
        detail = described(reported)
        errors = list(reported)
        ruled = ruling(_rulings(request), raw, reported)
        if ruled is not None:
            return problem(request, status, ruled[0], detail, rule=ruled[1], errors=errors)
    headers = dict(exc.headers or {})
    if status == 429 and "Retry-After" not in headers:
        headers["Retry-After"] = headers.get("RateLimit-Reset", "1")
    rule = getattr(exc, "rule", None)
    return problem(request, status, code, detail, rule=rule, errors=errors, headers=headers)


def _rulings(request: Request[Any, Any, Any]) -> Rulings:
    """The rulings of the request body's type (`service.edge.validation.Rulings`), if any."""
    try:
        data = request.route_handler.parsed_fn_signature.parameters.get("data")
    except (AttributeError, KeyError):
        return {}
    found: Rulings = getattr(data.annotation, "RULINGS", {}) if data is not None else {}
    return found


def idempotency_key_reused(
    request: Request[Any, Any, Any], exc: IdempotencyKeyReused
) -> Response[Problem]:
    """An Idempotency-Key first used for another request (another operation, seat or
    body): 422, nothing written (draft-ietf-httpapi-idempotency-key-header)."""
    return problem(
        request,
        HTTP_422_UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
        "this Idempotency-Key was used for another request: use a new key for a new request",
    )


def database_unavailable(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    """The database cannot be reached or did not answer in time: 503 with Retry-After. The
    outage is logged once by the database watch, not once per request."""
    services = getattr(request.app.state, "services", None)
    if services is not None:
        services.watch.failed(exc)
    return problem(
        request,
        HTTP_503_SERVICE_UNAVAILABLE,
        "database_unavailable",
        f"the database is unavailable: retry in {RETRY_AFTER} s",
        headers={"Retry-After": str(RETRY_AFTER)},
    )


def unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    """A bug: logged with its traceback, answered without internals."""
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return problem(request, HTTP_500_INTERNAL_SERVER_ERROR, "internal_error", "internal error")


_CODES = {
    HTTP_400_BAD_REQUEST: "malformed_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    422: "unprocessable",
    429: "rate_limited",
    503: "unavailable",
}


def etag(version: int) -> str:
    """The ETag of a table version."""
    return f'"{version}"'


EXCEPTION_HANDLERS: dict[Any, Any] = {
    DomainError: domain_error,
    TableNotFound: table_not_found,
    TableHidden: table_hidden,
    VersionMismatch: version_mismatch,
    ConcurrencyConflict: concurrency_conflict,
    IdempotencyKeyReused: idempotency_key_reused,
    HTTPException: http_error,
    **dict.fromkeys(UNAVAILABLE, database_unavailable),
    Exception: unexpected,
}


def example_problem(status: int, code: str, detail: str, rule: str | None = None) -> dict[str, Any]:
    """A problem as the OpenAPI document shows it in an example."""
    problem = {
        "type": f"urn:doko:problem:{code}",
        "title": code.replace("_", " "),
        "status": status,
    }
    return {**problem, "code": code, "detail": detail, **({"rule": rule} if rule else {})}
