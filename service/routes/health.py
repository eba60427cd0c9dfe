"""Liveness and readiness probes."""

from typing import Any

import msgspec
from litestar import Request, get

from service.edge.problems import RETRY_AFTER, ServiceError
from service.routes.shared import problem_responses, services
from service.workers.health import ReadinessCheck, readiness


class Health(msgspec.Struct):
    """The process answers."""

    status: str


@get(
    ["/health", "/health/live"],
    operation_id=lambda _handler, _method, path: "live" if "live" in path else "health",
    summary="Liveness: the process answers",
    description="Always 200 while the process serves requests; touches no database. "
    "`/health` is the same as `/health/live`.",
    responses=problem_responses(validated=False, database=False),
)
async def health() -> Health:
    return Health("ok")


class Readiness(msgspec.Struct):
    """Every readiness check passed."""

    status: str
    checks: list[ReadinessCheck]


@get(
    "/health/ready",
    operation_id="ready",
    summary="Readiness: the database answers, commits are heard, background tasks run",
    description="A database round trip (within the database timeout), the LISTEN connection "
    "that hears commits, and every background task (bots, listener, ...) running. 503 "
    "`not_ready` with the failed checks in `errors` otherwise.",
    responses=problem_responses(validated=False),
)
async def ready(request: Request[Any, Any, Any]) -> Readiness:
    svc = services(request)
    checks = await readiness(svc.watch, svc.supervisor, svc.listening)
    failed = [c for c in checks if not c.ok]
    if failed:
        raise ServiceError(
            503,
            "not_ready",
            "; ".join(f"{c.name}: {c.detail}" for c in failed),
            errors=list(failed),
            headers={"Retry-After": str(RETRY_AFTER)},
        )
    return Readiness("ready", checks)


HEALTH_ROUTES = [health, ready]
