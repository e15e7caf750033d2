"""Clients auto-configured by environment alone remember in Redis through ``memory-redis``.

Its entry point, settings and registration: ``tests/plugins/test_memory_store_contract.py``.
"""

from __future__ import annotations

import pytest
import redis.asyncio

import ostinato_memory.plugin as memory_plugin
import ostinato_memory_redis.plugin as redis_plugin
from ostinato_memory_redis import RedisChatMemoryRepository
from tests.plugins.memory.harness import MODES, check_an_auto_configured_client_remembers
from tests.plugins.memory_redis.conftest import fresh_prefix

PLUGINS = {"memory": memory_plugin, "memory-redis": redis_plugin}


@pytest.mark.parametrize("mode", MODES)
async def test_an_auto_configured_client_remembers_in_redis(monkeypatch, redis_server, mode):
    redis_server.start()
    prefix = fresh_prefix()
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "redis")
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_URL", redis_server.url)
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_KEY_PREFIX", prefix)
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_TTL", "600")
    await check_an_auto_configured_client_remembers(monkeypatch, PLUGINS, mode)
    repository = RedisChatMemoryRepository(redis_server.url, key_prefix=prefix)
    assert len(await repository.find_by_conversation_id("me")) == 4
    probe = redis.asyncio.Redis.from_url(redis_server.url)
    ttl = await probe.ttl(repository.key("me"))
    await probe.aclose()
    assert 0 < ttl <= 600
    await repository.aclose()
