"""What the web tests share: a fake SearXNG on loopback, with no results until a test sets some."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.web import fake_searxng as fake


@pytest.fixture
async def searx() -> AsyncIterator[fake.FakeSearxng]:
    server = await fake.FakeSearxng().start()
    yield server
    await server.stop()
