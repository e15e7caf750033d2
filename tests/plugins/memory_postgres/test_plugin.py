"""The ``memory-postgres`` plugin: its entry point, settings and registration, and
auto-configured clients that remember in PostgreSQL chosen by environment alone."""

from __future__ import annotations

import importlib.metadata

import pytest

import ostinato_memory.plugin as memory_plugin
import ostinato_memory_postgres.plugin as postgres_plugin
from ostinato.config import Settings, build_container, create_plugin_manager, create_registry
from ostinato.errors import ConfigurationError
from ostinato.messages import AssistantMessage, UserMessage
from ostinato.plugins import FactoryContext
from ostinato.testing import ScriptedChatModel
from ostinato_memory import ChatMemoryStoreUnavailableError
from ostinato_memory_postgres import (
    PostgresChatMemoryRepository,
    PostgresMemorySettings,
    create_postgres_repository,
)
from tests.plugins.memory.harness import MODES, ask
from tests.servers import free_port

PLUGINS = {"memory": memory_plugin, "memory-postgres": postgres_plugin}


def test_the_entry_point_is_installed():
    found = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="ostinato")}
    assert found["memory-postgres"] == "ostinato_memory_postgres.plugin"


def test_the_hooks_register_the_repository_and_the_settings(monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_POSTGRES_URL", "postgresql://u:pw@db:5432/app")
    registry = create_registry(create_plugin_manager(Settings(), plugins=PLUGINS))
    assert "postgres" in registry.chat_memory_repositories
    assert registry.settings["OSTINATO_MEMORY_POSTGRES_"].value is PostgresMemorySettings
    context = FactoryContext(registry=registry, settings=Settings())
    made = registry.chat_memory_repositories["postgres"].value(context)
    assert isinstance(made, PostgresChatMemoryRepository)


def test_settings_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_POSTGRES_URL", "postgresql://u:pw@db:5432/app")
    monkeypatch.setenv("OSTINATO_MEMORY_POSTGRES_POOL_MAX_SIZE", "3")
    monkeypatch.setenv("OSTINATO_MEMORY_POSTGRES_TIMEOUT", "2.5")
    settings = PostgresMemorySettings()
    assert settings.pool_max_size == 3 and settings.timeout == 2.5
    assert "pw" not in repr(settings)


def test_a_missing_url_is_a_configuration_error_naming_the_variable():
    with pytest.raises(ConfigurationError, match="OSTINATO_MEMORY_POSTGRES_URL"):
        create_postgres_repository()


def test_a_bad_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_POSTGRES_POOL_MAX_SIZE", "zero")
    with pytest.raises(ConfigurationError, match="OSTINATO_MEMORY_POSTGRES_POOL_MAX_SIZE"):
        create_postgres_repository()


async def test_the_password_never_shows():
    url = f"postgresql://app:hunter2@127.0.0.1:{free_port()}/app"
    repository = PostgresChatMemoryRepository(url, timeout=0.5)
    assert "hunter2" not in repr(repository) and "hunter2" not in repository.url
    with pytest.raises(ChatMemoryStoreUnavailableError) as caught:
        await repository.find_by_conversation_id("c")
    assert "hunter2" not in str(caught.value) and "app:***@" in str(caught.value)
    await repository.aclose()


@pytest.mark.parametrize("mode", MODES)
async def test_an_auto_configured_client_remembers_in_postgres(monkeypatch, postgres_url, mode):
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLED", "true")
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "postgres")
    monkeypatch.setenv("OSTINATO_MEMORY_POSTGRES_URL", postgres_url)
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
    repository = PostgresChatMemoryRepository(postgres_url)
    assert len(await repository.find_by_conversation_id("me")) == 4
    await repository.aclose()
