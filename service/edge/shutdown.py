"""How ``doko serve`` stops: its streams at once, the rest in order, all within a bound.

The first SIGTERM or SIGINT starts a graceful stop (`Stopping`); ``--shutdown-seconds``
(default `SHUTDOWN_SECONDS`) bounds it, counted from that signal:

1. the listening socket is closed: new connections are refused; idle kept-alive
   connections are closed (uvicorn);
2. every open event stream ends at once with its farewell (`Server.shutdown` closes the
   app's stream hub, `service.app.close_streams`: a ``shutdown`` comment and a ``retry``
   time, `service.streams.hub.farewell`), so that its client reconnects elsewhere with
   Last-Event-ID;
3. requests in flight are answered (their connections then close); one still running after
   `DRAIN_SHARE` of the bound is cancelled;
4. the app's lifespan ends: the background tasks (bots, turn clock, listener, ...) are
   cancelled, the bots' process pool is stopped (`service.workers.thinking.Thinking.close`),
   the database pool closed;
5. ``doko serve`` stops the embedded PostgreSQL if it started it (unless another process
   still uses it) and exits with 0.

A second SIGTERM or SIGINT during the stop, or the bound running out, stops the process at
once (`stop_at_once`): it kills every process it started (the bots' pool; with
``--workers`` the workers and theirs), except multiprocessing's resource trackers, which end
by themselves once the processes they serve are gone, and cleans up after them; it tells
the embedded PostgreSQL it started to stop (SIGINT, PostgreSQL's *fast* shutdown: it rolls
back open transactions, ends its connections, writes a checkpoint and exits by itself within
moments; nothing committed is lost), without waiting for it; and it exits with 128 + the
signal's number (130 for SIGINT, 143 for SIGTERM), or 1 when the bound ran out.

Killed (SIGKILL, ``kill -9``: nothing runs), the process leaves none of its own behind: the
bots' pool and, with ``--workers``, the workers end with it (`service.workers.lifeline`), and
then multiprocessing's resource trackers too.

With ``--workers N`` the main process is the one to signal: on the first signal it sends
each worker SIGTERM (`Workers`); each worker stops as a single process does, steps 1-4 (its
own bound runs out after ``--shutdown-seconds`` too); the main process waits for them and
then takes step 5. Its exit code is 0 when every worker stopped cleanly, else 1. A second
signal (or its bound) stops the main process at once as above, killing the workers. A
worker does not count signals: a Ctrl-C in a terminal reaches every process of the group
besides the main process's SIGTERM, and that is one stop, not two.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import psutil
import uvicorn
from litestar import Litestar
from uvicorn.supervisors.multiprocess import Multiprocess, Process

from service.workers.lifeline import watch_parent

log = logging.getLogger("doko.shutdown")

SHUTDOWN_SECONDS = 10.0
"""The default bound on a graceful stop, from the first signal to the exit."""
DRAIN_SHARE = 0.5
"""The share of the bound that requests in flight may take (uvicorn's
``timeout_graceful_shutdown``); the rest is for the lifespan and the database."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
TRACKER = "multiprocessing.resource_tracker"
"""In the command line of multiprocessing's resource tracker, which `stop_at_once` spares."""


def drain_seconds(seconds: float) -> float:
    """How long requests in flight may take when the whole stop may take ``seconds``."""
    return seconds * DRAIN_SHARE


class Stopping:
    """The stop of one process: the first SIGTERM or SIGINT begins it (the callbacks given
    to `on_stop` run), a later one stops the process at once if ``counting`` (else it is
    the same stop again), and so does the bound, ``seconds`` after the first. ``embedded``:
    the data folder of the embedded PostgreSQL this process started, if it did.

    The signal handler only notes the signal (it may have interrupted the main thread
    anywhere, holding any lock): a thread of its own (`install`) runs the callbacks, logs,
    and keeps the bound."""

    def __init__(
        self, seconds: float, *, embedded: Path | None = None, counting: bool = True
    ) -> None:
        self.seconds = seconds
        self.embedded = embedded
        self.counting = counting
        self.cause = ""
        self._begun = threading.Event()
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def stopping(self) -> bool:
        """Whether the stop has begun."""
        return self._begun.is_set()

    def install(self) -> None:
        """Take SIGINT and SIGTERM (from the main thread; once is enough)."""
        for signum in STOP_SIGNALS:
            signal.signal(signum, self.signalled)
        if self._thread is None:
            self._thread = threading.Thread(target=self._keep, name="doko stop", daemon=True)
            self._thread.start()

    def on_stop(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (from any thread) when the stop begins, or now if it has."""
        with self._lock:
            if not self.stopping:
                self._callbacks.append(callback)
                return
        callback()

    def signalled(self, signum: int, _frame: FrameType | None = None) -> None:
        """The signal handler: the first stop signal begins the stop, another one ends the
        process if ``counting``."""
        if not self.stopping:
            self.begin(signal.Signals(signum).name)
        elif self.counting:
            log.warning("%s again: stopping at once", signal.Signals(signum).name)
            stop_at_once(128 + signum, self.embedded)

    def begin(self, cause: str) -> None:
        """Begin the stop (the first call only)."""
        if not self.stopping:
            self.cause = cause
            self._begun.set()

    def _keep(self) -> None:
        self._begun.wait()
        log.info(
            "%s: stopping (streams end now, requests in flight may take %.1f s, all %.1f s)",
            self.cause,
            drain_seconds(self.seconds),
            self.seconds,
        )
        with self._lock:
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()
        time.sleep(self.seconds)
        log.error("not stopped within %.1f s: stopping at once", self.seconds)
        stop_at_once(1, self.embedded)


def stop_at_once(code: int, embedded: Path | None = None) -> None:
    """End this process now with exit code ``code`` (module docstring): kill the processes
    it started, tell the embedded PostgreSQL of ``embedded`` to stop, exit."""
    killed = _kill_descendants()
    if embedded is not None:
        from infra.database import stop_embedded_soon

        with contextlib.suppress(Exception):
            stop_embedded_soon(embedded, gone=killed | {os.getpid()})
    for handler in logging.getLogger("doko").handlers:
        with contextlib.suppress(Exception):
            handler.flush()
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(code)


def _kill_descendants() -> set[int]:
    """SIGKILL every process this one started, and theirs, but PostgreSQL's (a server
    being started is pg_ctl's child for a moment) and the resource trackers; their pids."""
    killed: set[int] = set()
    with contextlib.suppress(psutil.Error):
        for process in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if process.name().startswith("postgres") or TRACKER in " ".join(process.cmdline()):
                    continue
                process.kill()
                killed.add(process.pid)
    return killed


def _litestar(app: object) -> Litestar | None:
    """The litestar app inside uvicorn's middleware (each holds the next as ``app``)."""
    while app is not None and not isinstance(app, Litestar):
        app = getattr(app, "app", None)
    return app


class Server(uvicorn.Server):
    """uvicorn's server, stopped by a `Stopping` (which takes the signals), that closes the
    app's streams as its shutdown begins and re-raises no signal when it is over (a stop by
    signal that went well exits with 0)."""

    def __init__(self, config: uvicorn.Config, stopping: Stopping) -> None:
        super().__init__(config)
        self.stopping = stopping
        stopping.on_stop(self._exit)

    def _exit(self) -> None:
        self.should_exit = True

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is threading.main_thread():
            self.stopping.install()
        yield

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        from service.app import close_streams

        app = _litestar(self.config.loaded_app)
        if app is not None:
            close_streams(app)  # the streams wake once uvicorn has marked their connections
        await super().shutdown(sockets)


class WorkerProcess(Process):
    """A worker of `Workers`: its server is a `Server` whose `Stopping` does not count
    signals (the main process does), bounded by the config's ``shutdown_seconds``; it ends
    with the main process, however that dies (`service.workers.lifeline`)."""

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket]) -> None:
        super().__init__(config, sockets)
        self.parent = os.getpid()

    def target(self, sockets: list[socket.socket] | None = None) -> None:
        watch_parent(self.parent)
        super().target(sockets)

    @property
    def server(self) -> uvicorn.Server:
        if self._server is None:
            seconds = getattr(self.config, "shutdown_seconds", None) or SHUTDOWN_SECONDS
            self._server = Server(self.config, Stopping(seconds, counting=False))
        return self._server


class Workers(Multiprocess):
    """uvicorn's supervisor of worker processes, stopped by a `Stopping`: on the first
    signal it sends each worker SIGTERM and waits for them all (module docstring)."""

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket], stopping: Stopping):
        super().__init__(config, sockets)
        self.stopping = stopping
        stopping.install()  # instead of uvicorn's, which queue them for its loop
        stopping.on_stop(self.should_exit.set)

    def _process(self) -> Process:
        process = WorkerProcess(self.config, self.sockets)
        process.start()
        return process

    def init_processes(self) -> None:
        self.processes = [self._process() for _ in range(self.processes_num)]

    def keep_subprocess_alive(self) -> None:
        """uvicorn's: a worker that died is replaced (by a `WorkerProcess`); one that failed
        to start stops the service."""
        from uvicorn.config import STARTUP_FAILURE

        for index, process in enumerate(self.processes):
            if self.should_exit.is_set():
                return
            if process.is_alive(timeout=self.config.timeout_worker_healthcheck):
                continue
            process.kill()
            process.join()
            if process.exitcode == STARTUP_FAILURE:
                log.error("worker [%s] failed to start: stopping", process.pid)
                self.should_exit.set()
                return
            log.info("worker [%s] died: starting another", process.pid)
            self.processes[index] = self._process()

    def restart_all(self) -> None:
        """uvicorn's SIGHUP: each worker replaced by a new one (a `WorkerProcess`) once that
        one is ready."""
        for index, old in enumerate(self.processes):
            if self.should_exit.is_set():
                return
            new = self._process()
            if not new.wait_until_ready(self.config.timeout_worker_healthcheck, self.should_exit):
                new.kill()
                new.join()
                log.error("worker [%s] was not ready in time: restart aborted", new.pid)
                return
            old.terminate()
            old.join()
            self.processes[index] = new

    def handle_ttin(self) -> None:
        """uvicorn's SIGTTIN: one more worker."""
        self.processes_num += 1
        self.processes.append(self._process())

    def run(self) -> bool:  # type: ignore[override]
        """Serve until the stop begins, then stop the workers; whether each stopped cleanly."""
        log.info("started %d workers from process [%d]", self.processes_num, os.getpid())
        self.init_processes()
        while not self.should_exit.wait(0.5):
            self.handle_signals()
            self.keep_subprocess_alive()
        self.stopping.begin("a worker failed to start")  # unless a signal began it
        for sock in self.sockets:
            sock.close()  # this process's copy of the listening socket: the workers close theirs
        self.terminate_all()
        for process in self.processes:
            process.join()
        failed = [(p.pid, p.exitcode) for p in self.processes if p.exitcode != 0]
        if failed:
            log.warning("workers that did not stop cleanly (pid, exit code): %s", failed)
        return not failed
