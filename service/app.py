"""The litestar application: built by one `create_app`, resources in the lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
from litestar import Litestar, Request
from litestar.config.cors import CORSConfig
from litestar.exceptions import ClientException, SerializationException

from expert.player import DEFAULT_BUDGET
from expert.review import REVIEW_BUDGET
from expert.search import Budget
from infra.audit.strict import duplicate
from infra.database import UNAVAILABLE, create_pool
from infra.event_store import EventStore
from infra.idempotency import IdempotencyKeys
from infra.key_folder import KeyFolder
from infra.keyring import Keyring
from infra.migrate import upgrade
from infra.projections import project
from infra.tables import Tables
from infra.talk import CHANNEL as TALK_CHANNEL
from infra.talk import TalkStore
from infra.tournaments import Tournaments
from service.edge.headers import secure_headers
from service.edge.idempotency import RETENTION, idempotent, purge
from service.edge.keys import load_signer
from service.edge.limits import EXPOSED, Limits, classifier, guard
from service.edge.logs import AccessLog
from service.edge.problems import EXCEPTION_HANDLERS, ServiceError
from service.edge.refusals import REFUSALS
from service.edge.shutdown import SHUTDOWN_SECONDS
from service.edge.talk_pace import TALK_MESSAGES, TALK_SECONDS, TalkPace
from service.edge.tickets import Tickets
from service.edge.validation import BodyError, pointer
from service.edge.visibility import Visibilities
from service.openapi.document import API_ROUTES, serve_document
from service.routes.pages import PAGES
from service.routes.records import DealVerification, Kept, verifications
from service.routes.review import DealReview, reviews
from service.streams.hub import Hub
from service.workers.bots import HUMAN_PACE, Bots
from service.workers.clock import RESCAN_SECONDS, TICK_SECONDS, Now, TurnClock, system_now
from service.workers.follower import Follower
from service.workers.health import DatabaseWatch, keep_embedded
from service.workers.rounds import RoundWatch
from service.workers.supervisor import Supervisor
from service.workers.thinking import Thinking

log = logging.getLogger("doko.shutdown")


class Settings(msgspec.Struct, frozen=True):
    """How the service runs. ``database_url`` must be resolved already (see `doko serve`).

    ``signing_key``: a PEM key file to sign with (`infra.keyring`); none: a key of the key
    folder ``key_dir`` (`infra.key_folder`; none: ``$DOKO_KEY_DIR``, else the user data dir).
    ``db_timeout`` bounds every wait on the database (connecting, a free pool connection,
    each command, ``statement_timeout``): a request waits at most about twice as long
    before it is answered 503. ``rate_expensive`` is the per-second limit of each client
    address on the routes that replay a log (verification, replay, review, export);
    ``max_streams_per_address`` the event streams a client address may hold open;
    ``rate_creations`` the tables, stream tickets and tournament registrations a client
    address may make a minute. A third of the pool (`stream_share`) serves the streams:
    as many may be opened at once (one more waits up to ``db_timeout``, then is refused
    429), and as many read the log at once (`service.streams.hub.Hub`).
    ``embedded_data_dir`` is set when the service started the embedded PostgreSQL itself:
    it then starts it again if it stops. ``turn_clock_tick`` and ``turn_clock_rescan``
    pace the turn clock (`service.workers.clock`). ``bot_delay`` is how long an `expert` bot
    waits before acting at a table with people (none at an all-bot table); ``bot_workers``
    the processes its searches run in (none: one per core, `service.workers.thinking`),
    ``bot_budget`` each search's budget (`expert.search.Budget`; tests whose bots only need
    to play make it small, as the expert's own tests and benchmarks do not).
    ``shutdown_seconds`` bounds `doko serve`'s stop, from the first SIGTERM or SIGINT to the
    exit (`service.edge.shutdown`). ``review_budget`` is the search budget of a deal's review
    (`expert.review`; tests make it small).
    ``talk_messages`` is how many messages one sender may say at a table in any
    ``talk_seconds`` (`service.edge.talk_pace`).
    """

    database_url: str
    cors_origins: tuple[str, ...] = ()
    rate_per_token: int = 600
    rate_per_address: int = 1200
    rate_expensive: int = 20
    max_streams_per_address: int = 100
    rate_creations: int = 60
    max_body_bytes: int = 256 * 1024
    pool_size: int = 10
    db_timeout: float = 1.5
    migrate: bool = True
    signing_key: str | None = None
    key_dir: str | None = None
    embedded_data_dir: str | None = None
    turn_clock_tick: float = TICK_SECONDS
    turn_clock_rescan: float = RESCAN_SECONDS
    bot_delay: float = HUMAN_PACE
    bot_workers: int | None = None
    bot_budget: Budget = DEFAULT_BUDGET
    shutdown_seconds: float = SHUTDOWN_SECONDS
    review_budget: Budget = REVIEW_BUDGET
    talk_messages: int = TALK_MESSAGES
    talk_seconds: float = TALK_SECONDS


class Services(msgspec.Struct):
    """What the route handlers use: the pool, the event store, the tables, the stream hub,
    the bot driver, the signing keys, the turn clock, the database watch, the supervisor
    of the background tasks (register more with ``supervisor.start``), the cached
    verifications and reviews, the requests' idempotency keys, the stream tickets, which
    tables are public, the tournaments (`infra.tournaments`) and the watch of their rounds,
    the tables' talk (`infra.talk`) and its pace (`service.edge.talk_pace`), whether the LISTEN
    connection is up, and the service's clock (``now``: the turn clock's time source, the
    ``server_time`` of views and stream messages)."""

    pool: asyncpg.Pool
    store: EventStore
    tables: Tables
    hub: Hub
    bots: Bots
    keys: Keyring
    clock: TurnClock
    watch: DatabaseWatch
    supervisor: Supervisor
    verifications: Kept[DealVerification]
    reviews: Kept[DealReview]
    idempotency: IdempotencyKeys
    tickets: Tickets
    visibilities: Visibilities
    tournaments: Tournaments
    rounds: RoundWatch
    talk: TalkStore
    pace: TalkPace
    listening: bool = False
    now: Now = system_now


async def _keep_session(_connection: asyncpg.Connection) -> None:
    """No reset when a connection returns to the pool: doko leaves no session state behind
    (advisory locks are transaction-scoped, LISTEN keeps its own connection), and the
    reset would cost three round trips per request."""


def _settle_garbage_collector() -> None:
    """Leave what start-up built (modules, the app, its OpenAPI schema) out of the cyclic
    garbage collector's scans, and collect young objects less often: requests make many
    short-lived objects that reference counting frees anyway. About a tenth of a small
    request's CPU went to the collector before."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(7000, 10, 10)


async def _close_pool(pool: asyncpg.Pool, seconds: float) -> None:
    """Close the pool once its connections are back, or close them all after ``seconds``: a
    write still waiting in the database then (a cancelled request's, which the event store's
    writer carries on) is cut off, rolled back, as if the process had stopped."""
    try:
        await asyncio.wait_for(pool.close(), seconds)
    except TimeoutError:  # asyncpg has terminated every connection
        log.warning("database connections still busy after %.1f s: closed", seconds)


JSON = "application/json"


class BoundedRequest(Request[Any, Any, Any]):
    """litestar's request, whose body must be JSON: sent as another media type it is 415
    ``unsupported_media_type`` (no ``Content-Type`` is taken as JSON), not JSON at all a 400;
    and it may be nested only as deep as the decoder follows it (Python's recursion limit,
    about a thousand levels; doko's bodies need four): deeper is a 400, not an error of
    the service. It has one reading: an object that names a member twice (which a reader
    that keeps the first member would read otherwise than one that keeps the last, as
    msgspec does; RFC 8259 §4, I-JSON RFC 7493 §2.3) is 400 ``duplicate_member`` with the
    member's pointer, as the exports are read strictly (`infra.audit.strict`)."""

    async def json(self) -> Any:
        media_type = self.headers.get("content-type", JSON).partition(";")[0].strip().lower()
        if media_type != JSON and not media_type.endswith("+json") and await self.body():
            raise ServiceError(
                415, "unsupported_media_type", f"send the body as {JSON}, not {media_type}"
            )
        try:
            value = await super().json()
            twice = duplicate(await self.body()) if value is not None else None
        except RecursionError as error:
            raise ClientException("the JSON body is nested too deeply") from error
        except (SerializationException, ValueError) as error:
            raise ServiceError(400, "malformed_request", "the body is not valid JSON") from error
        if twice is not None:
            where = pointer(twice)
            raise ServiceError(
                400,
                "duplicate_member",
                f"the body has no single reading: {where} appears twice in one object",
                errors=[BodyError(where, "appears twice in one object")],
            )
        return value


def create_app(
    settings: Settings,
    *,
    now: Now = system_now,
    rate_clock: Callable[[], float] = time.monotonic,
) -> Litestar:
    """The doko application for these settings; ``now`` is the turn clock's time source,
    ``rate_clock`` the rate limits' clock."""
    access_log = AccessLog()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        folder = KeyFolder(settings.key_dir)
        if settings.migrate:
            await upgrade(settings.database_url, folder)
        signer = load_signer(settings.signing_key)
        pool = create_pool(
            settings.database_url,
            max_size=settings.pool_size,
            timeout=settings.db_timeout,
            reset=_keep_session,
        )
        async with pool:
            store = EventStore(pool)
            tables = Tables(store, project)
            visibilities = Visibilities(pool)
            hub = Hub(store, public=visibilities.public, readers=stream_share(settings))
            bots = Bots(
                tables,
                pool,
                delay=settings.bot_delay,
                thinking=Thinking(settings.bot_workers, settings.bot_budget),
            )
            keys = Keyring(pool, signer, folder)
            await keys.start()
            clock = TurnClock(
                tables,
                pool,
                now,
                tick=settings.turn_clock_tick,
                rescan=settings.turn_clock_rescan,
            )
            tournaments = Tournaments(pool, tables)
            rounds = RoundWatch(tournaments, hub)
            watch = DatabaseWatch(pool, timeout=settings.db_timeout)
            supervisor = Supervisor(expected=UNAVAILABLE, on_expected=watch.failed)
            services = Services(
                pool,
                store,
                tables,
                hub,
                bots,
                keys,
                clock,
                watch,
                supervisor,
                verifications(),
                reviews(bots.thinking, settings.review_budget),
                IdempotencyKeys(
                    pool, retention=RETENTION, lease=timedelta(seconds=2 * settings.db_timeout)
                ),
                Tickets(pool, now),
                visibilities,
                tournaments,
                rounds,
                TalkStore(pool),
                TalkPace(settings.talk_messages, settings.talk_seconds, rate_clock),
                now=now,
            )
            app.state.services = services
            heard = asyncio.Event()
            # the command services' caches first: whoever acts on a commit loads what it says
            followers: tuple[Follower, ...] = (watch, tables, tournaments, hub, bots, clock, rounds)

            def notify(stream_id: str, position: int, version: int) -> None:
                for follower in followers:
                    follower.heard(stream_id, position, version)

            def listening(up: bool) -> None:
                services.listening = up
                for follower in followers:
                    follower.listening(up)
                if up:  # what was committed meanwhile was not heard
                    heard.set()

            talked = {TALK_CHANNEL: hub.talked}
            supervisor.start("listener", lambda: store.listen_once(notify, listening, talked))
            supervisor.start("bots", bots.run)
            supervisor.start("turn clock", clock.run)
            supervisor.start("rounds", rounds.run)
            supervisor.start("access log", access_log.run)
            supervisor.start("refusal log", REFUSALS.run)
            supervisor.start("database watch", watch.run)
            supervisor.start("idempotency purge", lambda: purge(services.idempotency))
            if settings.embedded_data_dir is not None:
                pgdata = Path(settings.embedded_data_dir)
                supervisor.start("embedded postgres", lambda: keep_embedded(pgdata))
            with contextlib.suppress(TimeoutError):  # else readiness says it is not up
                async with asyncio.timeout(10 * settings.db_timeout):
                    await heard.wait()
            _settle_garbage_collector()
            try:
                yield
            finally:
                await supervisor.stop()
                await asyncio.to_thread(bots.thinking.close)
                await _close_pool(pool, min(settings.db_timeout, settings.shutdown_seconds / 4))

    app = Litestar(
        route_handlers=[*API_ROUTES, *PAGES, serve_document],
        middleware=[idempotent],
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,
        openapi_config=None,  # the document and its page are doko's own (service.openapi.document)
        cors_config=CORSConfig(
            allow_origins=list(settings.cors_origins), expose_headers=list(EXPOSED)
        )
        if settings.cors_origins
        else None,
        request_max_body_size=settings.max_body_bytes,
        request_class=BoundedRequest,
        logging_config=None,  # `doko serve` configures logging (service.edge.logs.log_config)
    )
    limits = Limits(
        settings.rate_per_token,
        settings.rate_per_address,
        settings.rate_expensive,
        settings.max_streams_per_address,
        settings.rate_creations,
        stream_share(settings),
        settings.db_timeout,
    )
    app.asgi_handler = secure_headers(
        guard(
            app.asgi_handler,
            limits,
            access_log,
            settings.cors_origins,
            rate_clock,
            stopping=lambda: _stopping(app),
            classify=classifier(app),
        )
    )
    return app


def stream_share(settings: Settings) -> int:
    """The pool's connections the streams may use at once to open and to read (a third)."""
    return max(1, settings.pool_size // 3)


def close_streams(app: Litestar) -> None:
    """The server stops (`service.edge.shutdown`): every open event stream of ``app`` ends
    now with its farewell, and one opened from now on at once (`Hub.close`), so that only
    the requests in flight are left for the server to wait for. Before the lifespan's
    start, or after its end, there is none."""
    services: Services | None = app.state.get("services")
    if services is not None:
        services.hub.close()


def _stopping(app: Litestar) -> bool:
    """Whether the server stops (`close_streams` was called)."""
    services: Services | None = app.state.get("services")
    return services is not None and services.hub.closed


def app_from_env() -> Litestar:
    """The app for uvicorn's factory mode (several workers): settings from ``DOKO_SETTINGS``."""
    return create_app(msgspec.json.decode(os.environ["DOKO_SETTINGS"], type=Settings))
