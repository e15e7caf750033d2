"""The ``openai`` plugin: its entry point, its hooks, and how little importing it costs."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest

import ostinato_openai
from ostinato.plugins import FactoryContext, PluginInfo, PluginManager, collect_registry
from ostinato.settings import Settings
from ostinato_openai import plugin


def test_the_entry_point_is_declared():
    (entry,) = [
        ep for ep in importlib.metadata.entry_points(group="ostinato") if ep.name == "openai"
    ]
    assert entry.value == "ostinato_openai.plugin"
    assert entry.load() is plugin


def registry():
    manager = PluginManager(strict=True)
    manager.add_plugin(plugin, PluginInfo("openai", value="ostinato_openai.plugin"))
    return collect_registry(manager)


def test_hooks_register_the_provider_and_the_settings(monkeypatch: pytest.MonkeyPatch):
    from ostinato.config import check_settings_class

    found = registry()
    assert set(found.chat_models) == {"openai"}
    assert set(found.settings) == {"OSTINATO_OPENAI_"}
    settings_class = found.settings["OSTINATO_OPENAI_"].value
    assert settings_class is ostinato_openai.OpenAISettings
    check_settings_class("OSTINATO_OPENAI_", settings_class, "openai")

    monkeypatch.setenv("OSTINATO_OPENAI_API_KEY", "sk-x")
    monkeypatch.delenv("OSTINATO_OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    context = FactoryContext(registry=found, settings=Settings())
    model = found.chat_models["openai"].value(context, "gpt-4.1-mini")
    assert isinstance(model, ostinato_openai.OpenAIChatModel)
    assert model.default_options.model == "gpt-4.1-mini"


def test_auto_configuration_builds_the_openai_model(monkeypatch: pytest.MonkeyPatch):
    from ostinato.config import Settings, create_chat_model

    monkeypatch.setenv("OSTINATO_MODEL", "openai:gpt-4.1-mini")
    monkeypatch.setenv("OSTINATO_OPENAI_API_KEY", "sk-x")
    model = create_chat_model(Settings(), registry())
    assert isinstance(model, ostinato_openai.OpenAIChatModel)
    assert model.default_options.model == "gpt-4.1-mini"


_PROBE = """
import json, sys
import ostinato_openai.plugin
import ostinato_openai
from ostinato_openai import OpenAIChatOptions
heavy = sorted(n for n in ("httpx", "pydantic_settings", "ostinato_openai._model") if n in sys.modules)
print(json.dumps(heavy))
"""


def test_importing_the_plugin_and_package_stays_light():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_lazy_attributes():
    assert set(ostinato_openai.__all__) == {
        "DEFAULT_BASE_URL",
        "OpenAIChatModel",
        "OpenAIChatOptions",
        "OpenAISettings",
        "RetryPolicy",
        "SystemRole",
        "__version__",
        "create_chat_model",
        "json_schema_response_format",
    }
    for name in ostinato_openai.__all__:
        assert getattr(ostinato_openai, name) is not None
    assert dir(ostinato_openai) == sorted(ostinato_openai.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ostinato_openai.nope  # noqa: B018


def _modules() -> list[str]:
    import pkgutil

    return ["ostinato_openai"] + [
        info.name for info in pkgutil.walk_packages(ostinato_openai.__path__, "ostinato_openai.")
    ]


@pytest.mark.parametrize("name", _modules())
def test_every_module_declares_all_and_documents_its_names(name: str):
    import importlib
    import inspect

    module = importlib.import_module(name)
    assert module.__doc__, f"{name} has no module docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__"
    for export in module.__all__:
        value = getattr(module, export)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        if not value.__module__.startswith("ostinato_openai"):
            continue
        assert inspect.getdoc(value), f"{name}.{export} has no docstring"
        for attr, member in vars(value).items() if inspect.isclass(value) else ():
            if attr.startswith("_"):
                continue
            if isinstance(member, staticmethod | classmethod):
                member = member.__func__
            if isinstance(member, property) or inspect.isfunction(member):
                assert inspect.getdoc(member), f"{name}.{export}.{attr} has no docstring"
