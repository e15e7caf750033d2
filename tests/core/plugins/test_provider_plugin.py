"""provider_plugin: a chat model provider declared by dotted paths, imported only on use."""

from __future__ import annotations

import sys
import types

import pytest
from pydantic_settings import SettingsConfigDict

from ostinato.plugins import (
    FactoryContext,
    PluginInfo,
    PluginManager,
    collect_registry,
    provider_plugin,
)
from ostinato.settings import PluginSettings, Settings


class AcmeSettings(PluginSettings):
    """Settings of the acme provider."""

    model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")

    model: str = "acme-default"


def create_chat_model(model_name: str | None = None, settings: AcmeSettings | None = None):
    settings = settings if settings is not None else AcmeSettings()
    return (model_name or settings.model, settings)


@pytest.fixture
def acme(monkeypatch):
    module = types.ModuleType("acme_provider_impl")
    module.AcmeSettings = AcmeSettings  # type: ignore[attr-defined]
    module.create_chat_model = create_chat_model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "acme_provider_impl", module)
    return provider_plugin(
        provider="acme",
        settings_prefix="OSTINATO_ACME_",
        settings="acme_provider_impl:AcmeSettings",
        factory="acme_provider_impl:create_chat_model",
    )


def registry_of(plugin: object):
    manager = PluginManager(strict=True)
    manager.add_plugin(plugin, PluginInfo("acme"))
    return collect_registry(manager)


def test_declaring_imports_nothing():
    provider_plugin(
        provider="ghost",
        settings_prefix="OSTINATO_GHOST_",
        settings="acme_not_installed._settings:GhostSettings",
        factory="acme_not_installed._factory:create_chat_model",
    )
    assert "acme_not_installed" not in sys.modules


def test_its_hooks_register_the_provider_and_the_settings_class(acme):
    registry = registry_of(acme)
    assert set(registry.chat_models) == {"acme"}
    assert registry.settings["OSTINATO_ACME_"].value is AcmeSettings


def test_a_module_assigning_its_hooks_is_a_plugin_too(acme):
    module = types.SimpleNamespace(
        register_chat_models=acme.register_chat_models, register_settings=acme.register_settings
    )
    assert set(registry_of(module).chat_models) == {"acme"}


def test_the_factory_gets_the_model_name_and_the_loaded_settings(acme):
    registry = registry_of(acme)
    loaded = AcmeSettings(model="from-the-container")
    context = FactoryContext(registry, Settings(), {"OSTINATO_ACME_": loaded})
    factory = registry.chat_models["acme"].value
    assert factory(context, "big") == ("big", loaded)
    assert factory(context, "") == ("from-the-container", loaded)


def test_outside_auto_configuration_the_settings_come_from_the_environment(acme, monkeypatch):
    monkeypatch.setenv("OSTINATO_ACME_MODEL", "from-env")
    name, settings = acme.create_from_environment("")
    assert name == "from-env" and isinstance(settings, AcmeSettings)


@pytest.mark.parametrize("path", ["acme_provider_impl", ":AcmeSettings", "acme_provider_impl:"])
def test_a_path_that_names_no_attribute_is_refused(path):
    with pytest.raises(ValueError, match=r"'package\.module:attribute'"):
        provider_plugin(
            provider="acme", settings_prefix="OSTINATO_ACME_", settings=path, factory="m:f"
        )


def test_the_prefix_and_the_factory_default_to_the_provider_name():
    plugin = provider_plugin("acme", settings="acme_provider_impl:AcmeSettings")
    assert plugin.settings_prefix == "OSTINATO_ACME_"
    assert plugin.factory == "ostinato_acme._factory:create_chat_model"


def test_module_exports_serve_the_plugin_modules_names(acme, monkeypatch):
    module = types.ModuleType("acme_provider_plugin")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    module.__all__, module.__getattr__, module.__dir__ = acme.module_exports(module.__name__)
    module.register_chat_models = acme.register_chat_models
    module.register_settings = acme.register_settings
    assert module.__all__ == [
        "PLUGIN",
        "PROVIDER",
        "SETTINGS_PREFIX",
        "chat_model_factory",
        "create_acme_chat_model",
        "register_chat_models",
        "register_settings",
    ]
    assert module.PLUGIN is acme
    assert (module.PROVIDER, module.SETTINGS_PREFIX) == ("acme", "OSTINATO_ACME_")
    assert module.chat_model_factory == acme.create_chat_model
    assert module.create_acme_chat_model == acme.create_from_environment
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="'acme_provider_plugin' has no attribute 'nope'"):
        module.nope  # noqa: B018
    assert set(registry_of(module).chat_models) == {"acme"}
