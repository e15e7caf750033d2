"""Clients auto-configured by environment alone remember in Redis through ``memory-redis``.

Its entry point, settings and registration: ``tests/plugins/test_memory_store_contract.py``.
"""

from __future__ import annotations

import pytest
import redis.asyncio

import ostinato_memory.plugin as memory_plugin
import ostinato_memory_redis.plugin as redis_plugin
from ostinato.config import build_container
from ostinato.messages import AssistantMessage, UserMessage
from ostinato.testing import ScriptedChatModel
from ostinato_memory_redis import RedisChatMemoryRepository
from tests.plugins.memory.harness import MODES, ask
from tests.plugins.memory_redis.conftest import fresh_prefix

PLUGINS = {"memory": memory_plugin, "memory-redis": redis_plugin}


@pytest.mark.parametrize("mode", MODES)
async def test_an_auto_configured_client_remembers_in_redis(monkeypatch, redis_server, mode):
    redis_server.start()
    prefix = fresh_prefix()
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLED", "true")
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "redis")
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_URL", redis_server.url)
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_KEY_PREFIX", prefix)
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_TTL", "600")
    monkeypatch.setenv("OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID", "me")
    model = ScriptedChatModel(["Hello Ada", "You are Ada"])
    client = build_container(plugins=PLUGINS, chat_model=model).chat_client()
    await ask(client.prompt("I am Ada"), mode)
    await ask(client.prompt("Who am I?"), mode)
    assert list(model.prompts[1].messages) == [
        UserMessage("I am Ada"),
        AssistantMessage("Hello Ada"),
        UserMessage("Who am I?"),
    ]
    repository = RedisChatMemoryRepository(redis_server.url, key_prefix=prefix)
    assert len(await repository.find_by_conversation_id("me")) == 4
    probe = redis.asyncio.Redis.from_url(redis_server.url)
    ttl = await probe.ttl(repository.key("me"))
    await probe.aclose()
    assert 0 < ttl <= 600
    await repository.aclose()
