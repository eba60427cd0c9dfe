"""RFC 9457 problem details: every error leaves the service as ``application/problem+json``.

Each problem carries a stable ``code`` and, for rule violations, the ``rule`` id
of RULES.md that the command broke. Rule violations and version conflicts are
409; nothing a client sends may produce a 500.
"""

from __future__ import annotations

import logging
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
from service.edge.validation import described, reworded

RETRY_AFTER = 1
"""Seconds a client is told to wait before retrying while the database is unavailable."""

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("doko.service")


class Problem(msgspec.Struct, omit_defaults=True):
    """An RFC 9457 problem, with doko's stable ``code`` and the broken ``rule``."""

    type: str
    title: str
    status: int
    code: ProblemCode
    detail: str | None = None
    rule: str | None = None
    instance: str | None = None
    errors: list[dict[str, Any]] | None = None


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
        errors: list[dict[str, Any]] | None = None,
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


def problem(
    request: Request[Any, Any, Any],
    status: int,
    code: str,
    detail: str | None,
    *,
    rule: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[Problem]:
    """A problem+json response."""
    body = problem_of(status, code, detail, request.url.path, rule=rule, errors=errors)
    return Response(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def problem_of(
    status: int,
    code: str,
    detail: str | None,
    instance: str,
    *,
    rule: str | None = None,
    errors: list[dict[str, Any]] | None = None,
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
        errors = [reworded(e if isinstance(e, dict) else {"message": str(e)}) for e in exc.extra]
        detail = described(errors)
    headers = dict(exc.headers or {})
    if status == 429 and "Retry-After" not in headers:
        headers["Retry-After"] = headers.get("RateLimit-Reset", "1")
    rule = getattr(exc, "rule", None)
    return problem(request, status, code, detail, rule=rule, errors=errors, headers=headers)


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
