"""The ``ollama`` plugin: its entry point, its hooks, and how little importing it costs."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest

import ostinato_ollama
from ostinato.plugins import FactoryContext, PluginInfo, PluginManager, collect_registry
from ostinato.settings import Settings
from ostinato_ollama import plugin


def test_the_entry_point_is_declared():
    (entry,) = [
        ep for ep in importlib.metadata.entry_points(group="ostinato") if ep.name == "ollama"
    ]
    assert entry.value == "ostinato_ollama.plugin"
    assert entry.load() is plugin


def registry():
    manager = PluginManager(strict=True)
    manager.add_plugin(plugin, PluginInfo("ollama", value="ostinato_ollama.plugin"))
    return collect_registry(manager)


def test_hooks_register_the_provider_and_the_settings(monkeypatch: pytest.MonkeyPatch):
    from ostinato.config import check_settings_class

    found = registry()
    assert set(found.chat_models) == {"ollama"}
    assert set(found.settings) == {"OSTINATO_OLLAMA_"}
    settings_class = found.settings["OSTINATO_OLLAMA_"].value
    assert settings_class is ostinato_ollama.OllamaSettings
    check_settings_class("OSTINATO_OLLAMA_", settings_class, "ollama")

    monkeypatch.delenv("OSTINATO_OLLAMA_BASE_URL", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:11500")
    context = FactoryContext(registry=found, settings=Settings())
    model = found.chat_models["ollama"].value(context, "qwen3")
    assert model.base_url == "http://127.0.0.1:11500"
    assert isinstance(model, ostinato_ollama.OllamaChatModel)
    assert model.default_options.model == "qwen3"


def test_auto_configuration_builds_the_ollama_model(monkeypatch: pytest.MonkeyPatch):
    from ostinato.config import Settings, create_chat_model

    monkeypatch.setenv("OSTINATO_MODEL", "ollama:qwen3")
    model = create_chat_model(Settings(), registry())
    assert isinstance(model, ostinato_ollama.OllamaChatModel)
    assert model.default_options.model == "qwen3"


_PROBE = """
import json, sys
import ostinato_ollama.plugin
import ostinato_ollama
from ostinato_ollama import OllamaChatOptions
heavy = sorted(n for n in ("httpx", "pydantic_settings", "ostinato_ollama._model") if n in sys.modules)
print(json.dumps(heavy))
"""


def test_importing_the_plugin_and_package_stays_light():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_lazy_attributes():
    assert set(ostinato_ollama.__all__) == {
        "CREATED_AT",
        "DEFAULT_BASE_URL",
        "FINISH_REASON_RAW",
        "OllamaChatModel",
        "OllamaChatOptions",
        "OllamaSettings",
        "__version__",
        "create_chat_model",
        "ollama_base_url",
    }
    for name in ostinato_ollama.__all__:
        assert getattr(ostinato_ollama, name) is not None
    assert dir(ostinato_ollama) == sorted(ostinato_ollama.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ostinato_ollama.nope  # noqa: B018


def _modules() -> list[str]:
    import pkgutil

    return ["ostinato_ollama"] + [
        info.name for info in pkgutil.walk_packages(ostinato_ollama.__path__, "ostinato_ollama.")
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
        if not value.__module__.startswith("ostinato_ollama"):
            continue
        assert inspect.getdoc(value), f"{name}.{export} has no docstring"
        for attr, member in vars(value).items() if inspect.isclass(value) else ():
            if attr.startswith("_"):
                continue
            if isinstance(member, staticmethod | classmethod):
                member = member.__func__
            if isinstance(member, property) or inspect.isfunction(member):
                assert inspect.getdoc(member), f"{name}.{export}.{attr} has no docstring"
