"""The litestar application: built by one `create_app`, resources in the lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import msgspec
from litestar import Litestar
from litestar.config.cors import CORSConfig
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme

from infra.event_store import EventStore
from infra.keyring import Keyring
from infra.migrate import upgrade
from infra.projections import project
from infra.tables import Tables
from service.bots import Bots
from service.clock import RESCAN_SECONDS, TICK_SECONDS, Now, TurnClock, system_now
from service.keys import load_signer
from service.limits import guard
from service.lobby import LOBBY_ROUTES
from service.logs import AccessLog
from service.pages import PAGES
from service.problems import EXCEPTION_HANDLERS
from service.routes import ROUTES
from service.seating import SEATING_ROUTES
from service.streams import Hub
from service.visibility import Visibilities

VERSION = "0.1.0"


class Settings(msgspec.Struct, frozen=True):
    """How the service runs. ``database_url`` must be resolved already (see `doko serve`).
    ``signing_key``: a PEM key file to sign with (`infra.keyring`); none: a database key."""

    database_url: str
    cors_origins: tuple[str, ...] = ()
    rate_per_token: int = 600
    rate_per_address: int = 1200
    max_body_bytes: int = 256 * 1024
    pool_size: int = 10
    migrate: bool = True
    signing_key: str | None = None
    turn_clock_tick: float = TICK_SECONDS
    turn_clock_rescan: float = RESCAN_SECONDS


class Services(msgspec.Struct):
    """What the route handlers use: the pool, the event store, the tables, the stream hub,
    the bot driver, the signing keys, the turn clock and which tables are public."""

    pool: asyncpg.Pool
    store: EventStore
    tables: Tables
    hub: Hub
    bots: Bots
    keys: Keyring
    clock: TurnClock
    visibilities: Visibilities


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


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="doko",
        version=VERSION,
        description=(
            "An event-sourced Doppelkopf table service. Rule ids (R3.4, R6.6, ...) refer to "
            "the rule set; every error is application/problem+json with a stable `code`."
        ),
        path="/schema",
        components=Components(
            security_schemes={
                "seat_token": SecurityScheme(
                    type="http", scheme="bearer", description="seat or host token"
                )
            }
        ),
    )


def create_app(settings: Settings, *, now: Now = system_now) -> Litestar:
    """The doko application for these settings; ``now`` is the turn clock's time source."""
    access_log = AccessLog()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        if settings.migrate:
            await upgrade(settings.database_url)
        signer = load_signer(settings.signing_key)
        async with asyncpg.create_pool(
            settings.database_url, min_size=1, max_size=settings.pool_size, reset=_keep_session
        ) as pool:
            store = EventStore(pool)
            tables = Tables(store, project)
            hub = Hub(store)
            bots = Bots(tables, pool)
            keys = Keyring(pool, signer)
            await keys.start()
            clock = TurnClock(
                tables,
                pool,
                now,
                tick=settings.turn_clock_tick,
                rescan=settings.turn_clock_rescan,
            )
            app.state.services = Services(
                pool, store, tables, hub, bots, keys, clock, Visibilities(pool)
            )

            def notify(stream_id: str, position: int, version: int) -> None:
                tables.heard(stream_id, position, version)
                hub.notify(stream_id)
                bots.notify(stream_id)
                clock.notify(stream_id)

            def listening(up: bool) -> None:
                tables.listening(up)
                if up:  # what was committed meanwhile was not heard
                    hub.wake_all()
                    bots.wake_all()
                    clock.wake_all()

            async with store.listen(notify, listening):
                tasks = [asyncio.create_task(bots.run()), asyncio.create_task(access_log.run())]
                tasks.append(asyncio.create_task(clock.run()))
                _settle_garbage_collector()
                try:
                    yield
                finally:
                    for task in tasks:
                        task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await asyncio.gather(*tasks)

    app = Litestar(
        route_handlers=[*ROUTES, *LOBBY_ROUTES, *SEATING_ROUTES, *PAGES],
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,
        openapi_config=openapi_config(),
        cors_config=CORSConfig(allow_origins=list(settings.cors_origins))
        if settings.cors_origins
        else None,
        request_max_body_size=settings.max_body_bytes,
    )
    app.asgi_handler = guard(
        app.asgi_handler,
        settings.rate_per_token,
        settings.rate_per_address,
        access_log,
        settings.cors_origins,
    )
    return app


def app_from_env() -> Litestar:
    """The app for uvicorn's factory mode (several workers): settings from ``DOKO_SETTINGS``."""
    return create_app(msgspec.json.decode(os.environ["DOKO_SETTINGS"], type=Settings))
