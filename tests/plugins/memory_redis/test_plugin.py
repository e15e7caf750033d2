"""The ``memory-redis`` plugin: its entry point, settings and registration, and
auto-configured clients that remember in Redis chosen by environment alone."""

from __future__ import annotations

import importlib.metadata

import pytest
import redis.asyncio

import ostinato_memory.plugin as memory_plugin
import ostinato_memory_redis.plugin as redis_plugin
from ostinato.config import Settings, build_container, create_plugin_manager, create_registry
from ostinato.errors import ConfigurationError
from ostinato.messages import AssistantMessage, UserMessage
from ostinato.plugins import FactoryContext
from ostinato.testing import ScriptedChatModel
from ostinato_memory import ChatMemoryStoreUnavailableError
from ostinato_memory_redis import (
    RedisChatMemoryRepository,
    RedisMemorySettings,
    create_redis_repository,
)
from tests.plugins.memory.harness import MODES, ask
from tests.plugins.memory_redis.conftest import fresh_prefix
from tests.servers import free_port

PLUGINS = {"memory": memory_plugin, "memory-redis": redis_plugin}


def test_the_entry_point_is_installed():
    found = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="ostinato")}
    assert found["memory-redis"] == "ostinato_memory_redis.plugin"


def test_the_hooks_register_the_repository_and_the_settings(monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_URL", "redis://:pw@cache:6379/0")
    registry = create_registry(create_plugin_manager(Settings(), plugins=PLUGINS))
    assert "redis" in registry.chat_memory_repositories
    assert registry.settings["OSTINATO_MEMORY_REDIS_"].value is RedisMemorySettings
    context = FactoryContext(registry=registry, settings=Settings())
    made = registry.chat_memory_repositories["redis"].value(context)
    assert isinstance(made, RedisChatMemoryRepository)


def test_settings_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_URL", "redis://:pw@cache:6379/0")
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_MAX_CONNECTIONS", "3")
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_TIMEOUT", "2.5")
    settings = RedisMemorySettings()
    assert settings.max_connections == 3 and settings.timeout == 2.5
    assert "pw" not in repr(settings)


def test_a_missing_url_is_a_configuration_error_naming_the_variable():
    with pytest.raises(ConfigurationError, match="OSTINATO_MEMORY_REDIS_URL"):
        create_redis_repository()


def test_a_bad_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_REDIS_MAX_CONNECTIONS", "zero")
    with pytest.raises(ConfigurationError, match="OSTINATO_MEMORY_REDIS_MAX_CONNECTIONS"):
        create_redis_repository()


async def test_the_password_never_shows():
    url = f"redis://app:hunter2@127.0.0.1:{free_port()}/0"
    repository = RedisChatMemoryRepository(url, timeout=0.5)
    assert "hunter2" not in repr(repository) and "hunter2" not in repository.url
    with pytest.raises(ChatMemoryStoreUnavailableError) as caught:
        await repository.find_by_conversation_id("c")
    assert "hunter2" not in str(caught.value) and ":***@" in str(caught.value)
    await repository.aclose()


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
