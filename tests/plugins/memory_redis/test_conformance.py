"""The Redis repository passes the repository conformance kit, on a real server."""

from __future__ import annotations

import pytest

from ostinato.memory import ChatMemoryRepository, SessionLog
from ostinato.testing.memory_conformance import (
    ChatMemoryRepositoryConformance,
    SessionLogConformance,
    UnreachableStoreConformance,
)
from ostinato_memory import ChatMemoryStoreUnavailableError
from ostinato_memory_redis import RedisChatMemoryRepository, RedisSessionLog
from tests.plugins.memory_redis.conftest import fresh_prefix
from tests.servers import RedisServer, free_port


class TestRedisRepository(ChatMemoryRepositoryConformance, UnreachableStoreConformance):
    unreachable_error = ChatMemoryStoreUnavailableError

    @pytest.fixture(autouse=True)
    def _server(self, redis_server: RedisServer) -> None:
        redis_server.start()
        self.server = redis_server

    async def make_repository(self) -> ChatMemoryRepository:
        return RedisChatMemoryRepository(self.server.url, key_prefix=fresh_prefix())

    async def make_unreachable_repository(self) -> ChatMemoryRepository:
        url = f"redis://:s3cret@127.0.0.1:{free_port()}/0"
        return RedisChatMemoryRepository(url, timeout=0.5)


class TestRedisRepositoryWithTtl(ChatMemoryRepositoryConformance):
    """With a time to live, the contract holds just the same (nothing expires mid-test)."""

    @pytest.fixture(autouse=True)
    def _server(self, redis_server: RedisServer) -> None:
        redis_server.start()
        self.server = redis_server

    async def make_repository(self) -> ChatMemoryRepository:
        return RedisChatMemoryRepository(self.server.url, key_prefix=fresh_prefix(), ttl=3600)


class TestRedisSessionLog(SessionLogConformance):
    @pytest.fixture(autouse=True)
    def _server(self, redis_server: RedisServer) -> None:
        redis_server.start()
        self.server = redis_server

    async def make_session_log(self) -> SessionLog:
        return RedisSessionLog(self.server.url, key_prefix=fresh_prefix())
