"""Supervised background tasks and the health endpoints (`service.workers.supervisor`,
`service.workers.health`): a failing task is logged once per cause and restarted with backoff,
readiness reports it; liveness never touches the database."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import asyncpg
import httpx
import pytest

from service.app import create_app
from service.workers.health import DatabaseWatch
from service.workers.supervisor import Supervisor, TaskState
from tests.service.conftest import Records, serve, settings
from tests.service.edge.test_errors import assert_problem


@pytest.fixture
def supervisor_log() -> Iterator[Records]:
    with Records().attached("doko.supervisor", level=logging.DEBUG) as records:
        yield records


async def until(condition: object, timeout: float = 30.0) -> None:
    """Wait until ``condition()`` holds (a safety net of ``timeout`` seconds, not a bound)."""
    async with asyncio.timeout(timeout):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.001)


class Flaky:
    """A task that raises each of ``causes`` in turn, one per run, then runs for ever."""

    def __init__(self, causes: list[Exception]) -> None:
        self.causes = causes
        self.runs = 0

    async def __call__(self) -> None:
        self.runs += 1
        if self.runs <= len(self.causes):
            raise self.causes[self.runs - 1]
        await asyncio.Event().wait()


async def test_a_failing_task_is_logged_once_per_cause_and_restarted(
    supervisor_log: Records,
) -> None:
    """Three failures with one cause, then two with another, then it runs: the first of
    each cause is logged with its traceback, the task is started six times, the report
    says ``restarting`` meanwhile and ``running`` once it has run ``stable`` seconds."""
    task = Flaky([ConnectionRefusedError("db down")] * 3 + [TimeoutError("stalled")] * 2)
    supervisor = Supervisor(first_delay=0.001, max_delay=0.004, stable=0.05)
    supervisor.start("flaky", task)
    try:
        await until(lambda: task.runs == 6)
        await until(lambda: supervisor.report()[0] == TaskState("flaky", "running"))
    finally:
        await supervisor.stop()
    errors = [r for r in supervisor_log.records if r.levelno == logging.ERROR]
    assert [r.getMessage().split(";")[0] for r in errors] == [
        "flaky failed: ConnectionRefusedError: db down",
        "flaky failed: TimeoutError: stalled",
    ]
    assert all(r.exc_info is not None for r in errors), "logged with the traceback"
    assert (
        supervisor_log.messages("doko.supervisor", logging.INFO)[-1]
        == "flaky is running again after 5 failure(s)"
    )


async def test_expected_failures_are_handed_on_and_logged_without_a_traceback(
    supervisor_log: Records,
) -> None:
    """A failure of an ``expected`` kind (the database is unavailable) is handed to
    ``on_expected`` each time and logged once as a line of its own; others as before."""
    handed: list[BaseException] = []
    task = Flaky([ConnectionRefusedError("down")] * 2 + [KeyError("bug")])
    supervisor = Supervisor(first_delay=0.001, expected=(OSError,), on_expected=handed.append)
    supervisor.start("bots", task)
    try:
        await until(lambda: task.runs == 4)
    finally:
        await supervisor.stop()
    assert handed == task.causes[:2]
    warnings = [r for r in supervisor_log.records if r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        "bots stopped: ConnectionRefusedError: down; restarting in 0.0 s"
    ]
    assert warnings[0].exc_info is None
    errors = [r for r in supervisor_log.records if r.levelno == logging.ERROR]
    assert [r.getMessage().split(";")[0] for r in errors] == ["bots failed: KeyError: 'bug'"]


async def test_the_report_says_restarting_while_a_task_waits_to_run_again() -> None:
    gate = asyncio.Event()

    async def broken() -> None:
        raise RuntimeError("broken")

    supervisor = Supervisor(first_delay=60.0)
    supervisor.start("broken", broken)
    supervisor.start("idle", gate.wait)
    try:
        await until(lambda: not supervisor.report()[0].healthy)
        broken_state, idle = supervisor.report()
        assert broken_state == TaskState("broken", "restarting", 1, "RuntimeError: broken")
        assert idle == TaskState("idle", "running")
        with pytest.raises(ValueError, match="supervised already"):
            supervisor.start("idle", gate.wait)
    finally:
        await supervisor.stop()


async def test_a_task_that_returns_is_started_again(supervisor_log: Records) -> None:
    runs = 0

    async def returns() -> None:
        nonlocal runs
        runs += 1

    supervisor = Supervisor(first_delay=0.001)
    supervisor.start("listener", returns)
    try:
        await until(lambda: runs >= 3)
    finally:
        await supervisor.stop()
    assert "listener ended; starting it again" in supervisor_log.messages(
        "doko.supervisor", logging.INFO
    )


async def test_liveness_and_readiness(db_url: str) -> None:
    """``/health`` and ``/health/live`` answer 200; ``/health/ready`` checks the database,
    the LISTEN connection and every background task of the running service. A task
    started later on the service's supervisor (the hook for other background work) is
    reported too: 503 ``not_ready`` while it fails."""
    app = create_app(settings(db_url))
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=10) as http:
        for path in ("/health", "/health/live"):
            response = await http.get(path)
            assert (response.status_code, response.json()) == (200, {"status": "ok"})
        ready = await http.get("/health/ready")
        assert ready.status_code == 200, ready.text
        assert ready.json()["status"] == "ready"
        checks = {c["name"]: c["ok"] for c in ready.json()["checks"]}
        assert checks == dict.fromkeys(
            [
                "database",
                "listening",
                "listener",
                "bots",
                "turn clock",
                "rounds",
                "access log",
                "refusal log",
                "database watch",
                "idempotency purge",
            ],
            True,
        )

        supervisor = app.state.services.supervisor
        broken = asyncio.Event()

        async def fragile() -> None:
            await broken.wait()
            raise RuntimeError("the task broke")

        supervisor.start("fragile", fragile)
        assert (await http.get("/health/ready")).status_code == 200
        broken.set()
        await until(lambda: not supervisor.report()[-1].healthy)
        response = await http.get("/health/ready")
        problem = assert_problem(response, 503, "not_ready")
        assert response.headers["retry-after"] == "1"
        assert [e["name"] for e in problem["errors"]] == ["fragile"]
        assert "fragile: restarting after 1 failure(s)" in problem["detail"]
        await supervisor.stop("fragile")
        assert (await http.get("/health/ready")).status_code == 200


async def test_a_refused_write_holds_the_outage_until_a_commit_or_the_hold_passes(
    pool: asyncpg.Pool,
) -> None:
    """A disk full (SQLSTATE 53100) shows in no round trip: the outage it began lasts
    until a commit is heard or ``hold`` seconds pass without another refusal; an error of
    another class (57014, a statement cut off) ends with the next round trip."""
    with Records().attached("doko.health") as logged:
        held = DatabaseWatch(pool, timeout=5, hold=3600)
        held.failed(asyncpg.DiskFullError("could not extend file"))
        assert "DiskFullError: could not extend file" in str(await held.ping())
        assert held.down
        held.committed()
        assert not held.down
        assert await held.ping() is None
        passed = DatabaseWatch(pool, timeout=5, hold=0)
        passed.failed(asyncpg.DiskFullError("could not extend file"))
        assert await passed.ping() is None
        cut_off = DatabaseWatch(pool, timeout=5, hold=3600)
        cut_off.failed(asyncpg.QueryCanceledError("canceling statement due to timeout"))
        assert await cut_off.ping() is None
    messages = logged.messages("doko.health")
    assert [m.split(":")[0] for m in messages[::2]] == ["database unavailable"] * 3
    assert all(m.startswith("database available again after ") for m in messages[1::2])
    assert len(messages) == 6
