"""The ``tool-search`` plugin: its hooks, settings and factory, and the plugin installed as a
distribution (entry point) beside core and the openai plugin: ``ostinato plugins`` and
``ostinato.chat_client()`` make it the tool advisor, and a second replacement is an error
naming both and the setting to choose.

The development environment does not hold the plugin (installed, it would replace the
tool advisor of every client there): the tests import its source, and declare it as
installed where they need it, as a fake distribution with its real entry point."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import ostinato
import ostinato_tool_search
import ostinato_tool_search.plugin as tool_search_plugin
from ostinato.cli import main
from ostinato.config import BadSettingWarning, Settings, create_plugin_manager, create_registry
from ostinato.errors import ConfigurationError
from ostinato.plugins import FactoryContext
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.tools import DefaultToolCallingManager
from ostinato_tool_search import (
    CompositeEvictionStrategy,
    KeywordToolIndex,
    LruEvictionStrategy,
    RegexToolIndex,
    ToolSearchSettings,
    ToolSearchToolCallingAdvisor,
    TtlEvictionStrategy,
    create_tool_search_advisor,
)
from tests.core.cli.cli_process import run_cli
from tests.fakes.distributions import FakeDistributions
from tests.fakes.environments import ROOT

#: The plugin's source, which the tests import (the environment does not install it).
SOURCE = ROOT / "plugins" / "tool-search" / "src"

ADVISOR_VARIABLE = "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"

OTHER_REPLACEMENT = """
from ostinato.plugins import hookimpl


@hookimpl
def register_tool_advisors(register):
    def factory(tool_calling_manager):
        from ostinato.advisors import ToolCallingAdvisor

        return ToolCallingAdvisor(tool_calling_manager=tool_calling_manager)

    register("other-search", factory)
"""


@pytest.fixture(autouse=True)
def _isolated(clean_environment: Path) -> Path:
    return clean_environment


def install(fakes: FakeDistributions) -> None:
    """Core's companions as installed distributions: openai and tool-search, by their real
    entry-point values."""
    for distribution, name, value, version in [
        ("ostinato-openai", "openai", "ostinato_openai.plugin", None),
        (
            "ostinato-tool-search",
            "tool-search",
            "ostinato_tool_search.plugin",
            ostinato_tool_search.__version__,
        ),
    ]:
        version = version or importlib.metadata.version(distribution)
        fakes.add(distribution, version=version, entry_points={name: value})


# -- hooks, settings, factory ------------------------------------------------------------------


def test_the_plugin_registers_its_tool_advisor_and_settings():
    registry = create_registry(create_plugin_manager(Settings(), plugins=[tool_search_plugin]))
    assert set(registry.tool_advisors) == {"default", "tool-search"}
    assert registry.tool_advisors["tool-search"].value is tool_search_plugin.tool_advisor_factory
    assert registry.settings["OSTINATO_TOOL_SEARCH_"].value is ToolSearchSettings
    context = FactoryContext(registry=registry, settings=Settings())
    advisor = registry.tool_advisors["tool-search"].value(context, DefaultToolCallingManager())
    assert isinstance(advisor, ToolSearchToolCallingAdvisor)


def test_the_factory_reads_the_settings(monkeypatch):
    for name, value in {
        "OSTINATO_TOOL_SEARCH_MAX_RESULTS": "3",
        "OSTINATO_TOOL_SEARCH_ACCUMULATE": "false",
        "OSTINATO_TOOL_SEARCH_SYSTEM_MESSAGE_SUFFIX": "Search before you answer.",
        "OSTINATO_TOOL_SEARCH_INDEX": "regex",
        "OSTINATO_TOOL_SEARCH_MAX_SESSIONS": "5",
        "OSTINATO_TOOL_SEARCH_SESSION_TTL": "60",
        "OSTINATO_TOOLS__MAX_ITERATIONS": "7",
    }.items():
        monkeypatch.setenv(name, value)
    manager = DefaultToolCallingManager()
    advisor = tool_search_plugin.create_tool_advisor(manager)
    assert advisor.tool_calling_manager is manager
    assert isinstance(advisor.tool_index, RegexToolIndex)
    assert (advisor.max_results, advisor.accumulate, advisor.max_iterations) == (3, False, 7)
    assert advisor.system_message_suffix == "Search before you answer."
    strategy = advisor.eviction_strategy
    assert isinstance(strategy, CompositeEvictionStrategy)
    lru, ttl = strategy.strategies
    assert isinstance(lru, LruEvictionStrategy) and lru.max_sessions == 5
    assert isinstance(ttl, TtlEvictionStrategy) and ttl.ttl == 60


def test_the_factory_takes_settings_given_in_code_over_the_environment(monkeypatch):
    # The container hands the factory core's settings and this plugin's loaded ones; the
    # environment is not read again.
    monkeypatch.setenv("OSTINATO_TOOLS__MAX_ITERATIONS", "7")
    monkeypatch.setenv("OSTINATO_TOOL_SEARCH_MAX_RESULTS", "3")
    core = Settings.model_validate({"tools": {"max_iterations": 11}})
    own = ToolSearchSettings(max_results=9, index="regex")
    advisor = tool_search_plugin.create_tool_advisor(
        DefaultToolCallingManager(), settings=core, plugin_settings=own
    )
    assert (advisor.max_iterations, advisor.max_results) == (11, 9)
    assert isinstance(advisor.tool_index, RegexToolIndex)


def test_core_loop_endings_reach_the_tool_search_advisor():
    core = Settings.model_validate(
        {"tools": {"no_progress_action": "end", "max_total_tokens": 100, "no_progress_repeats": 5}}
    )
    advisor = tool_search_plugin.create_tool_advisor(DefaultToolCallingManager(), settings=core)
    settings = advisor.tool_calling_settings
    assert (settings.no_progress_action, settings.no_progress_repeats) == ("end", 5)
    assert settings.usage_limits is not None
    assert settings.usage_limits.total_tokens == 100


def test_the_defaults():
    advisor = create_tool_search_advisor(DefaultToolCallingManager(), ToolSearchSettings())
    assert isinstance(advisor.tool_index, KeywordToolIndex)
    assert isinstance(advisor.eviction_strategy, LruEvictionStrategy)
    assert advisor.eviction_strategy.max_sessions == 1000
    assert (advisor.max_results, advisor.accumulate, advisor.max_iterations) == (None, True, 25)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("OSTINATO_TOOL_SEARCH_INDEX", "vector"),
        ("OSTINATO_TOOL_SEARCH_MAX_RESULTS", "0"),
        ("OSTINATO_TOOL_SEARCH_MAX_SESSIONS", "many"),
        ("OSTINATO_TOOL_SEARCH_SESSION_TTL", "-1"),
        ("OSTINATO_TOOL_SEARCH_SYSTEM_MESSAGE_SUFFIX", "   "),
        ("OSTINATO_TOOL_SEARCH_ACCUMULATE", "sometimes"),
    ],
)
def test_a_bad_value_names_its_variable(monkeypatch, variable, value):
    # Loading the plugins warns; the value is an error where the plugin is used: here, as
    # the one replacement tool advisor of an auto-configured client.
    monkeypatch.setenv(variable, value)
    with pytest.warns(BadSettingWarning, match=f"{variable}='{value}'"):
        create_registry(create_plugin_manager(Settings(), plugins=[tool_search_plugin]))
    with (
        pytest.warns(BadSettingWarning),
        pytest.raises(ConfigurationError, match=f"{variable}='{value}'"),
    ):
        ostinato.chat_client(plugins=[tool_search_plugin], chat_model=ScriptedChatModel(["hi"]))


def test_a_misspelled_variable_gets_a_hint(monkeypatch):
    monkeypatch.setenv("OSTINATO_TOOL_SEARCH_MAX_RESULT", "3")
    with pytest.warns(UserWarning, match="did you mean OSTINATO_TOOL_SEARCH_MAX_RESULTS"):
        create_registry(create_plugin_manager(Settings(), plugins=[tool_search_plugin]))


def test_loading_the_plugin_module_imports_nothing_heavy():
    probe = (
        "import sys, ostinato_tool_search.plugin\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'pydantic', 'pydantic_settings', 'dependency_injector', 'httpx'} "
        "or m.startswith('ostinato_tool_search.')))"
    )
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    assert result.stdout.strip() == "['ostinato_tool_search.plugin']"


# -- installed as a distribution ------------------------------------------------------------------


def test_the_real_distribution_declares_the_entry_point():
    # What `install` declares is what the distribution declares (test_installed.py installs
    # the built distribution for real).
    pyproject = tomllib.loads((SOURCE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["name"] == "ostinato-tool-search"
    assert pyproject["project"]["entry-points"] == {
        "ostinato": {"tool-search": "ostinato_tool_search.plugin"}
    }


def test_installed_it_is_the_active_tool_advisor(fake_distributions, capsys):
    install(fake_distributions)

    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "ostinato-tool-search" in out and "ostinato-openai" in out
    assert "tool advisor: tool-search (from tool-search; the only installed replacement" in out

    assert main(["plugins", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tool_advisor"]["name"] == "tool-search"
    assert {p["name"] for p in report["plugins"]} == {"core", "openai", "tool-search"}
    assert report["failed"] == []

    client = ostinato.chat_client(chat_model=ScriptedChatModel(["hi"]))
    assert isinstance(client.tool_advisor, ToolSearchToolCallingAdvisor)


def test_an_auto_configured_client_searches_for_tools(fake_distributions, monkeypatch):
    install(fake_distributions)
    monkeypatch.setenv("OSTINATO_MODEL", "openai:gpt-4.1-mini")
    monkeypatch.setenv("OSTINATO_OPENAI_API_KEY", "sk-test")
    configured = ostinato.chat_client()
    assert type(configured.model).__name__ == "OpenAIChatModel"
    assert isinstance(configured.tool_advisor, ToolSearchToolCallingAdvisor)

    def weather(city: str) -> str:
        """Current weather for a city."""
        return f"sunny in {city}"

    def stock_price(symbol: str) -> str:
        """Latest stock price of a company."""
        return "42"

    model = ScriptedChatModel(
        [
            tool_call_response(("toolSearchTool", {"query": "weather"})),
            tool_call_response(("weather", {"city": "Oslo"})),
            "Sunny in Oslo.",
        ]
    )
    client = ostinato.chat_client(chat_model=model)
    assert client.prompt("Weather in Oslo?").tools(weather, stock_price).call().content() == (
        "Sunny in Oslo."
    )
    assert [p.options.tool_names for p in model.prompts] == [  # type: ignore[union-attr]
        ("toolSearchTool",),
        ("toolSearchTool", "weather"),
        ("toolSearchTool", "weather"),
    ]


def test_with_a_second_replacement_the_setting_must_choose(fake_distributions, capsys, monkeypatch):
    install(fake_distributions)
    fake_distributions.plugin("other-search", OTHER_REPLACEMENT)

    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "tool advisor: none chosen: 2 replacement tool advisors are installed" in out
    assert "other-search (distribution ostinato-other-search 1.0)" in out
    assert "tool-search (distribution ostinato-tool-search 0.1.0)" in out
    assert ADVISOR_VARIABLE in out

    with pytest.raises(ConfigurationError) as caught:
        ostinato.chat_client(chat_model=ScriptedChatModel(["hi"]))
    message = str(caught.value)
    assert "other-search" in message and "tool-search" in message and ADVISOR_VARIABLE in message

    monkeypatch.setenv(ADVISOR_VARIABLE, "tool-search")
    client = ostinato.chat_client(chat_model=ScriptedChatModel(["hi"]))
    assert isinstance(client.tool_advisor, ToolSearchToolCallingAdvisor)
    monkeypatch.setenv(ADVISOR_VARIABLE, "default")
    client = ostinato.chat_client(chat_model=ScriptedChatModel(["hi"]))
    assert type(client.tool_advisor).__name__ == "ToolCallingAdvisor"


def test_a_fresh_interpreter_reports_it(fake_distributions, tmp_path):
    # Declared installed, in a fresh interpreter: its entry point loads the plugin.
    install(fake_distributions)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(fake_distributions.root), str(SOURCE)]),
        "OSTINATO_LOAD_PLUGINS": "openai,tool-search",
    }
    result = run_cli("plugins", "--json", env=env, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["tool_advisor"]["name"] == "tool-search"
    (plugin,) = [p for p in report["plugins"] if p["name"] == "tool-search"]
    assert plugin["distribution"] == "ostinato-tool-search"
    assert plugin["registered"] == {
        "tool_advisors": ["tool-search"],
        "settings": ["OSTINATO_TOOL_SEARCH_"],
    }
