"""The ``llamacpp`` plugin: entry point, hooks, the ``local`` command, import cost."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ostinato_llamacpp
from ostinato.plugins import PluginInfo, PluginManager, Registry, collect_registry
from ostinato_llamacpp import DEFAULT_MODEL, LlamaCppChatModel, SmallModelHintAdvisor, plugin


def test_the_entry_point_is_declared() -> None:
    (entry,) = [
        ep for ep in importlib.metadata.entry_points(group="ostinato") if ep.name == "llamacpp"
    ]
    assert entry.value == "ostinato_llamacpp.plugin"
    assert entry.load() is plugin


def registry() -> Registry:
    manager = PluginManager(strict=True)
    manager.add_plugin(plugin, PluginInfo("llamacpp", value="ostinato_llamacpp.plugin"))
    return collect_registry(manager)


def test_hooks_register_provider_settings_command_and_advisor() -> None:
    from ostinato.config import check_settings_class

    found = registry()
    assert set(found.chat_models) == {"llamacpp"}
    assert set(found.settings) == {"OSTINATO_LLAMACPP_"}
    assert set(found.commands) == {"local"}
    assert set(found.advisors) == {"llamacpp-hints"}
    settings_class = found.settings["OSTINATO_LLAMACPP_"].value
    assert settings_class is ostinato_llamacpp.LlamaCppSettings
    check_settings_class("OSTINATO_LLAMACPP_", settings_class, "llamacpp")
    assert "local setup" in found.commands["local"].value.help


def test_auto_configuration_builds_the_llamacpp_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stub_binary: Path
) -> None:
    from ostinato.config import Settings, create_advisors, create_chat_model

    gguf = tmp_path / "m.gguf"
    gguf.write_text("{}")
    monkeypatch.setenv("OSTINATO_LLAMACPP_SERVER", str(stub_binary))
    monkeypatch.setenv("OSTINATO_MODEL", f"llamacpp:{gguf}")
    found = registry()
    model = create_chat_model(Settings(), found)
    assert isinstance(model, LlamaCppChatModel) and model.spec_of_server.model == gguf.resolve()
    (advisor,) = create_advisors(found)
    assert isinstance(advisor, SmallModelHintAdvisor) and str(gguf) in advisor.hint


def test_the_hint_advisor_is_off_for_other_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    from ostinato.config import create_advisors

    monkeypatch.setenv("OSTINATO_MODEL", "openai:gpt-4.1-mini")
    assert create_advisors(registry()) == []
    monkeypatch.delenv("OSTINATO_MODEL")
    assert create_advisors(registry()) == []
    monkeypatch.setenv("OSTINATO_MODEL", "llamacpp:default")
    (advisor,) = create_advisors(registry())
    assert DEFAULT_MODEL.name in advisor.hint and "is small" in advisor.hint


def test_ostinato_local_status_through_the_cli(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ostinato.cli import main

    monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "llamacpp")
    monkeypatch.setenv("OSTINATO_LLAMACPP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["local", "status"]) == 1
    out = capsys.readouterr().out
    assert f"cache:        {tmp_path / 'cache'}" in out
    assert "(not built)" in out and "(not assembled)" in out
    assert "fix: run `ostinato local setup`" in out
    assert main(["local"]) == 0
    assert "setup" in capsys.readouterr().out


_PROBE = """
import json, sys
import ostinato_llamacpp.plugin
import ostinato_llamacpp
from ostinato_llamacpp import DEFAULT_MODEL, LlamaServerCrashedError
heavy = ("httpx", "pydantic_settings", "subprocess", "ostinato_openai", "ostinato.config",
         "ostinato_llamacpp._model", "ostinato_llamacpp._server")
print(json.dumps(sorted(n for n in heavy if n in sys.modules)))
"""


def test_importing_the_plugin_and_package_stays_light() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
