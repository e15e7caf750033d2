"""store_plugin: a chat memory store declared by dotted paths, imported only on use."""

from __future__ import annotations

import sys
import types

import pytest
from pydantic import SecretStr
from pydantic_settings import SettingsConfigDict

from ostinato.errors import ConfigurationError
from ostinato.plugins import (
    FactoryContext,
    PluginInfo,
    PluginManager,
    collect_registry,
    store_plugin,
)
from ostinato.settings import PluginSettings, Settings


class AcmeStoreSettings(PluginSettings):
    """Settings of the acme store."""

    model_config = SettingsConfigDict(env_prefix="OSTINATO_MEMORY_ACME_")

    url: SecretStr | None = None
    size: int = 3


class AcmeRepository:
    """Stands for a repository: keeps what it is made with."""

    def __init__(self, url: SecretStr, *, size: int) -> None:
        self.url = url.get_secret_value()
        self.size = size


@pytest.fixture
def acme(monkeypatch):
    module = types.ModuleType("acme_store_impl")
    module.AcmeStoreSettings = AcmeStoreSettings  # type: ignore[attr-defined]
    module.AcmeRepository = AcmeRepository  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "acme_store_impl", module)
    monkeypatch.delenv("OSTINATO_MEMORY_ACME_URL", raising=False)
    return store_plugin(
        "acme",
        settings="acme_store_impl:AcmeStoreSettings",
        repository_class="acme_store_impl:AcmeRepository",
        options=("size",),
        url_example="acme://host/db",
    )


def registry_of(plugin: object):
    manager = PluginManager(strict=True)
    manager.add_plugin(plugin, PluginInfo("acme"))
    return collect_registry(manager)


def test_declaring_imports_nothing():
    plugin = store_plugin(
        "ghost",
        settings="acme_not_installed._settings:GhostSettings",
        repository_class="acme_not_installed._repository:GhostRepository",
        url_example="ghost://",
    )
    assert "acme_not_installed" not in sys.modules
    assert plugin.settings_prefix == "OSTINATO_MEMORY_GHOST_"


def test_its_hooks_register_the_repository_and_the_settings_class(acme):
    registry = registry_of(acme)
    assert set(registry.chat_memory_repositories) == {"acme"}
    assert registry.settings["OSTINATO_MEMORY_ACME_"].value is AcmeStoreSettings


def test_the_factory_makes_the_repository_from_the_loaded_settings(acme):
    registry = registry_of(acme)
    loaded = AcmeStoreSettings(url=SecretStr("acme://from-the-container"), size=7)
    context = FactoryContext(registry, Settings(), {"OSTINATO_MEMORY_ACME_": loaded})
    made = registry.chat_memory_repositories["acme"].value(context)
    assert isinstance(made, AcmeRepository)
    assert (made.url, made.size) == ("acme://from-the-container", 7)


def test_without_a_context_the_settings_come_from_the_environment(acme, monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_ACME_URL", "acme://from-env")
    monkeypatch.setenv("OSTINATO_MEMORY_ACME_SIZE", "5")
    made = acme.create_repository()
    assert (made.url, made.size) == ("acme://from-env", 5)


def test_a_missing_url_names_the_variable_and_an_example(acme):
    with pytest.raises(ConfigurationError) as raised:
        acme.create()
    assert str(raised.value) == (
        "OSTINATO_MEMORY_REPOSITORY=acme needs OSTINATO_MEMORY_ACME_URL, which is not set\n"
        "fix: set OSTINATO_MEMORY_ACME_URL=acme://host/db"
    )


@pytest.mark.parametrize("path", ["acme_store_impl", ":AcmeStoreSettings", "acme_store_impl:"])
def test_a_path_that_names_no_attribute_is_refused(path):
    with pytest.raises(
        ValueError, match=r"(?s)store_plugin\(settings=.*'package\.module:attribute'"
    ):
        store_plugin("acme", settings=path, repository_class="m:C", url_example="acme://")


def test_the_plugin_module_gets_its_names_and_hooks_from_the_declaration(acme):
    values = acme.module_values()
    assert values == {
        "PLUGIN": acme,
        "REPOSITORY_NAME": "acme",
        "SETTINGS_PREFIX": "OSTINATO_MEMORY_ACME_",
        "acme_repository": acme.create_repository,
        "create_acme_repository": acme.create,
        "register_chat_memory_repositories": acme.register_chat_memory_repositories,
        "register_settings": acme.register_settings,
    }
    exported, _, _ = acme.module_exports("acme_store_plugin")
    assert exported == sorted(values)
    hooks = {name: values[name] for name in exported if name.startswith("register_")}
    registry = registry_of(types.SimpleNamespace(**hooks))
    assert set(registry.chat_memory_repositories) == {"acme"}
    assert set(registry.settings) == {"OSTINATO_MEMORY_ACME_"}
