"""``ostinato logs`` on Redis: most recently changed first, show one, ``--json``."""

from __future__ import annotations

from ostinato_memory_redis import RedisChatMemoryRepository
from tests.plugins.memory.logs_check import check_logs_lists_by_recency_and_shows_one
from tests.plugins.memory_redis.conftest import fresh_prefix


def test_logs_lists_by_recency_and_shows_one(monkeypatch, redis_server):
    redis_server.start()
    prefix = fresh_prefix()
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "redis")
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_URL", redis_server.url)
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_KEY_PREFIX", prefix)
    repository = RedisChatMemoryRepository(redis_server.url, key_prefix=prefix)
    check_logs_lists_by_recency_and_shows_one(repository)
