"""Every factory gets one FactoryContext; the old calling conventions still work, deprecated."""

from __future__ import annotations

import dataclasses
import warnings

import pytest
from pydantic_settings import SettingsConfigDict

from ostinato.plugins import FactoryContext, PluginInfo, Registration, Registry, call_factory
from ostinato.settings import PluginSettings, Settings

ACME = PluginInfo("acme", "ostinato-acme", "1.0")


class AcmeSettings(PluginSettings):
    """Settings of the acme plugin."""

    model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")

    size: int = 1


def context(**loaded: object) -> tuple[FactoryContext, Registry]:
    registry = Registry(
        settings={"OSTINATO_ACME_": Registration("OSTINATO_ACME_", AcmeSettings, ACME)}
    )
    return FactoryContext(registry, Settings(model="acme:m"), loaded), registry  # type: ignore[arg-type]


def registration(factory: object) -> Registration[object]:
    return Registration("thing", factory, ACME)


def test_the_context_is_frozen_and_made_the_plugins_own_for_each_call():
    base, registry = context(OSTINATO_ACME_=AcmeSettings(size=3))
    seen: list[FactoryContext] = []

    def factory(context: FactoryContext) -> None:
        seen.append(context)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call_factory("register_advisors", registration(factory), base)
    (given,) = seen
    assert given.plugin == ACME and base.plugin is None
    assert given.registry is registry
    assert given.settings.model == "acme:m"
    with pytest.raises(dataclasses.FrozenInstanceError):
        given.settings = Settings()  # type: ignore[misc]


def test_plugin_settings_are_the_loaded_instance_or_read_from_the_environment(monkeypatch):
    loaded = AcmeSettings(size=3)
    with_loaded, _ = context(OSTINATO_ACME_=loaded)
    assert with_loaded.plugin_settings(AcmeSettings) is loaded
    monkeypatch.setenv("OSTINATO_ACME_SIZE", "7")
    without, _ = context()
    assert without.plugin_settings(AcmeSettings).size == 7
    assert with_loaded.for_plugin(ACME).own_settings() is loaded
    assert without.for_plugin(ACME).own_settings() is None


@pytest.mark.parametrize(
    "make",
    [
        lambda seen: lambda context, model_name: seen.append((context, model_name)),
        lambda seen: lambda ctx, model_name: seen.append((ctx, model_name)),
    ],
    ids=["named-context", "annotated"],
)
def test_chat_model_factories_get_the_context_then_the_model_name(make):
    seen: list[tuple[object, str]] = []
    factory = make(seen)
    if factory.__code__.co_varnames[0] == "ctx":
        factory.__annotations__["ctx"] = "FactoryContext"
    base, _ = context()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call_factory("register_chat_models", registration(factory), base, "big-1")
    ((given, model_name),) = seen
    assert isinstance(given, FactoryContext) and model_name == "big-1"


def test_a_factory_needing_nothing_takes_no_parameter():
    base, _ = context()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert call_factory("register_tools", registration(lambda: ["tool"]), base) == ["tool"]


def test_an_old_chat_model_factory_is_called_with_the_model_name_and_a_deprecation():
    base, _ = context()
    with pytest.warns(DeprecationWarning, match="factory context") as caught:
        found = call_factory("register_chat_models", registration(lambda name: name), base, "m-1")
    assert found == "m-1"
    assert str(caught[0].message).splitlines() == [
        "plugin 'acme' (distribution ostinato-acme 1.0): the chat model provider factory "
        "'thing' takes (model_name) instead of the factory context; this calling "
        "convention is deprecated and stops working in the next release",
        "fix: write it as def factory(context: FactoryContext, model_name) (FactoryContext "
        "from ostinato.plugins)",
    ]


def test_an_old_tool_advisor_factory_gets_the_manager_and_the_keywords_it_declares():
    loaded = AcmeSettings(size=2)
    base, _ = context(OSTINATO_ACME_=loaded)
    seen: dict[str, object] = {}

    def factory(tool_calling_manager, *, settings=None, plugin_settings=None):
        seen.update(manager=tool_calling_manager, core=settings, own=plugin_settings)
        return "advisor"

    with pytest.warns(DeprecationWarning, match="read context.settings, context.plugin_settings"):
        assert call_factory("register_tool_advisors", registration(factory), base, "tcm") == (
            "advisor"
        )
    assert seen == {"manager": "tcm", "core": base.settings, "own": loaded}


def test_a_class_taking_nothing_is_called_as_is():
    base, _ = context()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert call_factory("register_chat_memory_repositories", registration(dict), base) == {}
