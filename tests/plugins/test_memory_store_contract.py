"""What every server-backed memory store plugin (memory-postgres, memory-redis) promises.

Parametrised over the stores: the entry point is installed; the hooks register the
repository under its name and the settings under their prefix; the settings are read
from the environment with the password kept out of their repr; a missing URL or a bad
value is a configuration error naming the variable; and the password never shows, in the
repository's repr and URL or in the error when the server cannot be reached.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

import ostinato_memory.plugin as memory_plugin
from ostinato.config import Settings, create_plugin_manager, create_registry
from ostinato.errors import ConfigurationError
from ostinato.plugins import FactoryContext, StorePlugin
from ostinato_memory import ChatMemoryStoreUnavailableError
from ostinato_memory_postgres import (
    PostgresChatMemoryRepository,
    PostgresMemorySettings,
    create_postgres_repository,
)
from ostinato_memory_redis import (
    RedisChatMemoryRepository,
    RedisMemorySettings,
    create_redis_repository,
)
from tests.fakes.distributions import clean_environment, data_home
from tests.plugins.plugin_under_test import PluginUnderTest
from tests.servers import free_port

__all__ = ["clean_environment", "data_home"]


@dataclass(frozen=True)
class Store(PluginUnderTest):
    """One store plugin as the contract drives it."""

    repository: str  # the name the repository is registered under
    settings: type[Any]
    repository_class: type[Any]
    create: Callable[[], Any]
    url: str  # a URL with the password ``pw``
    size_variable: str  # the variable (after the prefix) that sizes the pool
    size_attribute: str
    #: A URL with password ``hunter2`` for ``port``, and what stands for it once masked.
    unreachable: Callable[[int], str]
    masked: str


STORES = [
    Store(
        name="memory-postgres",
        repository="postgres",
        settings=PostgresMemorySettings,
        repository_class=PostgresChatMemoryRepository,
        create=create_postgres_repository,
        url="postgresql://u:pw@db:5432/app",
        size_variable="POOL_MAX_SIZE",
        size_attribute="pool_max_size",
        unreachable=lambda port: f"postgresql://app:hunter2@127.0.0.1:{port}/app",
        masked="app:***@",
    ),
    Store(
        name="memory-redis",
        repository="redis",
        settings=RedisMemorySettings,
        repository_class=RedisChatMemoryRepository,
        create=create_redis_repository,
        url="redis://:pw@cache:6379/0",
        size_variable="MAX_CONNECTIONS",
        size_attribute="max_connections",
        unreachable=lambda port: f"redis://app:hunter2@127.0.0.1:{port}/0",
        masked=":***@",
    ),
]


@pytest.fixture(params=STORES, ids=lambda store: store.name)
def store(request: pytest.FixtureRequest) -> Store:
    return request.param  # type: ignore[no-any-return]


def test_the_entry_point_is_installed(store: Store):
    found = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="ostinato")}
    assert found[store.name] == store.plugin.__name__


def test_the_plugin_module_is_declared_with_store_plugin_and_keeps_its_names(store: Store):
    module = store.plugin
    assert isinstance(module.PLUGIN, StorePlugin)
    assert module.PLUGIN.repository == module.REPOSITORY_NAME == store.repository
    assert store.prefix == module.SETTINGS_PREFIX
    assert set(module.__all__) >= {
        "REPOSITORY_NAME",
        "SETTINGS_PREFIX",
        f"create_{store.repository}_repository",
        f"{store.repository}_repository",
        "register_chat_memory_repositories",
        "register_settings",
    }
    assert module.register_settings == module.PLUGIN.register_settings


def test_the_hooks_register_the_repository_and_the_settings(monkeypatch, store: Store):
    monkeypatch.setenv(f"{store.prefix}URL", store.url)
    plugins = {"memory": memory_plugin, store.name: store.plugin}
    registry = create_registry(create_plugin_manager(Settings(), plugins=plugins))
    assert store.repository in registry.chat_memory_repositories
    assert registry.settings[store.prefix].value is store.settings
    context = FactoryContext(registry=registry, settings=Settings())
    made = registry.chat_memory_repositories[store.repository].value(context)
    assert isinstance(made, store.repository_class)


def test_settings_are_read_from_the_environment(monkeypatch, store: Store):
    monkeypatch.setenv(f"{store.prefix}URL", store.url)
    monkeypatch.setenv(f"{store.prefix}{store.size_variable}", "3")
    monkeypatch.setenv(f"{store.prefix}TIMEOUT", "2.5")
    settings = store.settings()
    assert getattr(settings, store.size_attribute) == 3 and settings.timeout == 2.5
    assert "pw" not in repr(settings)


def test_a_missing_url_is_a_configuration_error_naming_the_variable(store: Store):
    with pytest.raises(ConfigurationError, match=f"{store.prefix}URL"):
        store.create()


def test_a_bad_value_names_the_variable(monkeypatch, store: Store):
    monkeypatch.setenv(f"{store.prefix}{store.size_variable}", "zero")
    with pytest.raises(ConfigurationError, match=f"{store.prefix}{store.size_variable}"):
        store.create()


async def test_the_password_never_shows(store: Store):
    repository = store.repository_class(store.unreachable(free_port()), timeout=0.5)
    assert "hunter2" not in repr(repository) and "hunter2" not in repository.url
    with pytest.raises(ChatMemoryStoreUnavailableError) as caught:
        await repository.find_by_conversation_id("c")
    assert "hunter2" not in str(caught.value) and store.masked in str(caught.value)
    await repository.aclose()
