"""The live service the examples play against (`tests.examples.harness.Service`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.examples.harness import Service


@pytest.fixture
async def service(db_url: str) -> AsyncIterator[Service]:
    """A live service of its own on the module's database, restartable."""
    live = Service(db_url)
    await live.start()
    try:
        yield live
    finally:
        await live.stop()
