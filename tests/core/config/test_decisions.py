"""The container's decisions as plain functions: tool advisor, model, tools, advisors."""

from __future__ import annotations

import pytest

from ostinato.advisors import SimpleLoggerAdvisor, ToolCallingAdvisor
from ostinato.config import (
    DEFAULT_TOOL_ADVISOR,
    Settings,
    create_advisors,
    create_chat_client,
    create_chat_model,
    create_default_tools,
    create_tool_advisor,
    create_tool_calling_manager,
    parse_model,
    select_tool_advisor,
    tool_sets_not_enabled,
)
from ostinato.errors import ConfigurationError, PluginError
from ostinato.plugins import (
    FactoryContext,
    PluginInfo,
    PluginOrigin,
    Registration,
    Registry,
    ToolSetNotEnabledWarning,
)
from ostinato.testing import ScriptedChatModel
from ostinato.tools import DefaultToolCallingManager, tool, tool_callbacks

CORE = PluginInfo("core", "ostinato", "0.1.0", PluginOrigin.BUILTIN)
SEARCH = PluginInfo("tool-search", "ostinato-tool-search", "0.2.0")
OTHER = PluginInfo("other-loop", "acme-loop", "1.0")

VARIABLE = "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"


def loop(context: object, manager: object) -> ToolCallingAdvisor:
    return ToolCallingAdvisor(tool_calling_manager=manager)  # type: ignore[arg-type]


def advisors(**plugins: PluginInfo) -> dict[str, Registration[object]]:
    return {name: Registration(name, loop, info) for name, info in plugins.items()}


def settings(**values: object) -> Settings:
    return Settings.model_validate(values)


class TestSelectToolAdvisor:
    def test_default_when_nothing_else_is_installed(self):
        choice = select_tool_advisor(None, advisors(default=CORE))
        assert (choice.name, choice.reason, choice.plugin) == (
            DEFAULT_TOOL_ADVISOR,
            "no replacement installed",
            CORE,
        )

    def test_a_single_replacement_takes_over(self):
        choice = select_tool_advisor(None, advisors(default=CORE, **{"tool-search": SEARCH}))
        assert choice.name == "tool-search"
        assert choice.reason == "the only installed replacement of 'default'"
        assert choice.plugin == SEARCH

    def test_two_replacements_without_the_setting_are_an_error(self):
        installed = advisors(default=CORE, **{"tool-search": SEARCH, "other-loop": OTHER})
        with pytest.raises(ConfigurationError) as caught:
            select_tool_advisor(None, installed)
        lines = str(caught.value).splitlines()
        assert lines[0] == (
            "2 replacement tool advisors are installed: other-loop (distribution acme-loop "
            "1.0), tool-search (distribution ostinato-tool-search 0.2.0)"
        )
        assert lines[-1] == f"fix: set {VARIABLE} to one of: other-loop, tool-search, default"

    @pytest.mark.parametrize("name", ["default", "tool-search", "other-loop"])
    def test_the_setting_wins(self, name):
        installed = advisors(default=CORE, **{"tool-search": SEARCH, "other-loop": OTHER})
        choice = select_tool_advisor(name, installed)
        assert choice.name == name
        assert choice.reason == f"chosen by {VARIABLE}"

    def test_an_unknown_setting_lists_the_installed_ones(self):
        with pytest.raises(ConfigurationError) as caught:
            select_tool_advisor("tool-serch", advisors(default=CORE, **{"tool-search": SEARCH}))
        assert str(caught.value).splitlines() == [
            f"{VARIABLE}='tool-serch' names no installed tool advisor",
            "  installed: default (built into ostinato), tool-search (distribution "
            "ostinato-tool-search 0.2.0)",
            "fix: set it to one of: default, tool-search",
        ]


def test_the_tool_advisor_factory_receives_the_manager():
    manager = DefaultToolCallingManager()
    registry = Registry(tool_advisors=advisors(default=CORE))
    choice = select_tool_advisor(None, registry.tool_advisors)
    advisor = create_tool_advisor(choice, registry, manager)
    assert isinstance(advisor, ToolCallingAdvisor)
    assert advisor.tool_calling_manager is manager


def test_a_factory_returning_no_tool_advisor_is_a_plugin_error():
    registry = Registry(
        tool_advisors={"bad": Registration("bad", lambda context, manager: object(), SEARCH)}
    )
    choice = select_tool_advisor("bad", registry.tool_advisors)
    with pytest.raises(
        PluginError, match=r"expected: an instance of ostinato\.advisors\.ToolAdvisor"
    ):
        create_tool_advisor(choice, registry, DefaultToolCallingManager())


class TestChatModel:
    def registry(self) -> Registry:
        factory = lambda context, name: ScriptedChatModel([name])  # noqa: E731
        return Registry(chat_models={"acme": Registration("acme", factory, SEARCH)})

    def test_the_provider_factory_gets_the_model_name(self):
        model = create_chat_model(settings(model="acme:big-1"), self.registry())
        assert isinstance(model, ScriptedChatModel)
        assert model.script == ["big-1"]

    def test_no_model_says_which_variable_to_set_and_what_is_installed(self):
        with pytest.raises(ConfigurationError) as caught:
            create_chat_model(settings(), self.registry())
        assert str(caught.value).splitlines() == [
            "no chat model is configured",
            "  installed providers: acme (distribution ostinato-tool-search 0.2.0)",
            "fix: set OSTINATO_MODEL=provider:model (e.g. OSTINATO_MODEL=openai:gpt-4.1-mini), "
            "or pip install ostinato-llamacpp for a local model that needs no key",
        ]

    def test_no_model_and_no_provider_says_what_to_install(self):
        with pytest.raises(ConfigurationError, match="pip install ostinato-openai"):
            create_chat_model(settings(), Registry())

    def test_an_unknown_provider_lists_the_installed_ones(self):
        with pytest.raises(ConfigurationError) as caught:
            create_chat_model(settings(model="openai:gpt-4.1"), self.registry())
        message = str(caught.value)
        assert "names the provider 'openai', which no plugin registered" in message
        assert "installed providers: acme" in message
        assert "pip install ostinato-openai" in message

    @pytest.mark.parametrize(
        ("value", "parsed"),
        [("openai:gpt-4.1-mini", ("openai", "gpt-4.1-mini")), ("OpenAI:", ("openai", ""))],
    )
    def test_parse_model(self, value, parsed):
        assert parse_model(value) == parsed

    def test_parse_model_rejects_no_provider(self):
        with pytest.raises(ConfigurationError, match="is not provider:model"):
            parse_model("gpt-4")


def test_the_tool_calling_manager_has_the_configured_limits():
    manager = create_tool_calling_manager(
        settings(tools={"max_calls_per_tool": 2, "max_total_tool_calls": None})
    )
    assert manager.limits.max_calls_per_tool == 2
    assert manager.limits.max_total_tool_calls is None


@tool(description="What time it is")
def clock() -> str:
    return "noon"


def test_only_the_enabled_tool_sets_become_default_tools():
    registry = Registry(
        tools={
            "clock": Registration("clock", lambda: tool_callbacks(clock), SEARCH),
            "other": Registration("other", lambda: pytest.fail("not enabled"), SEARCH),
        }
    )
    tools = create_default_tools(settings(tools={"enabled": ["clock"]}), registry)
    assert [t.tool_definition.name for t in tools] == ["clock"]
    assert create_default_tools(settings(), registry) == []


def test_a_configured_tool_set_that_is_not_enabled_is_warned_about_once(monkeypatch):
    registry = Registry(
        tools={
            "clock": Registration("clock", lambda: tool_callbacks(clock), SEARCH),
            "mcp": Registration(
                "mcp", lambda: pytest.fail("not enabled"), SEARCH, "OSTINATO_ACME_CONFIG"
            ),
        }
    )
    monkeypatch.delenv("OSTINATO_ACME_CONFIG", raising=False)
    assert tool_sets_not_enabled(settings(), registry) == []
    monkeypatch.setenv("OSTINATO_ACME_CONFIG", "servers.json")
    with pytest.warns(ToolSetNotEnabledWarning) as warned:
        tools = create_default_tools(settings(tools={"enabled": ["clock"]}), registry)
    assert [t.tool_definition.name for t in tools] == ["clock"]
    [warning] = warned
    assert str(warning.message) == (
        "OSTINATO_ACME_CONFIG is set, but the tool set 'mcp' of plugin 'tool-search' "
        "(distribution ostinato-tool-search 0.2.0) is not enabled: auto-configured clients "
        "do not get its tools\n"
        "fix: set OSTINATO_TOOLS__ENABLED=clock,mcp to use it, or unset OSTINATO_ACME_CONFIG"
    )
    assert warning.filename == __file__
    enabled = settings(tools={"enabled": ["mcp"]})
    assert tool_sets_not_enabled(enabled, registry) == []


def test_an_unknown_tool_set_is_an_error():
    with pytest.raises(ConfigurationError, match="OSTINATO_TOOLS__ENABLED lists 'clok'"):
        create_default_tools(settings(tools={"enabled": ["clok"]}), Registry())


def test_advisors_whose_factory_returns_none_are_left_out():
    logger = SimpleLoggerAdvisor()
    registry = Registry(
        advisors={
            "off": Registration("off", lambda: None, SEARCH),
            "logger": Registration("logger", lambda: logger, SEARCH),
        }
    )
    assert create_advisors(registry) == [logger]


def test_an_advisor_factory_returning_junk_is_a_plugin_error():
    registry = Registry(advisors={"junk": Registration("junk", lambda: "junk", SEARCH)})
    with pytest.raises(PluginError, match="advisor factory 'junk'"):
        create_advisors(registry)


def test_advisor_factories_get_the_context_with_their_plugins_settings():
    seen: dict[str, FactoryContext] = {}

    def remember(context: FactoryContext) -> None:
        seen[str(context.plugin and context.plugin.name)] = context

    registry = Registry(
        advisors={
            "search": Registration("search", remember, SEARCH),
            "other": Registration("other", remember, OTHER),
        },
        settings={"OSTINATO_TOOL_SEARCH_": Registration("OSTINATO_TOOL_SEARCH_", object, SEARCH)},
    )
    core = settings(model="openai:m")
    loaded = {"OSTINATO_TOOL_SEARCH_": "search settings"}
    assert create_advisors(registry, loaded, core) == []
    assert seen["tool-search"].registry is registry
    assert seen["tool-search"].settings is core
    assert seen["tool-search"].plugin == SEARCH
    assert seen["tool-search"].own_settings() == "search settings"
    assert seen["other-loop"].plugin == OTHER
    assert seen["other-loop"].own_settings() is None


def test_old_advisor_factories_get_what_they_declare_with_a_deprecation():
    # registry, their own plugin's loaded settings, and core's settings: each only when
    # the factory declares the keyword (or **kwargs).
    seen: dict[str, dict[str, object]] = {}
    logger = SimpleLoggerAdvisor()

    def everything(registry=None, plugin_settings=None, settings=None):
        seen["everything"] = {"registry": registry, "plugin": plugin_settings, "core": settings}
        return logger

    def keywords(**given: object):
        seen["keywords"] = dict(given)
        return None

    def nothing():
        seen["nothing"] = {}
        return None

    registry = Registry(
        advisors={
            "everything": Registration("everything", everything, SEARCH),
            "keywords": Registration("keywords", keywords, OTHER),
            "nothing": Registration("nothing", nothing, SEARCH),
        },
        settings={
            "OSTINATO_TOOL_SEARCH_": Registration("OSTINATO_TOOL_SEARCH_", object, SEARCH),
            "OSTINATO_ACME_A_": Registration("OSTINATO_ACME_A_", object, OTHER),
            "OSTINATO_ACME_B_": Registration("OSTINATO_ACME_B_", object, OTHER),
        },
    )
    core = settings(model="openai:m")
    loaded = {"OSTINATO_TOOL_SEARCH_": "search settings", "OSTINATO_ACME_A_": "a"}
    with pytest.warns(DeprecationWarning, match="factory context") as caught:
        assert create_advisors(registry, loaded, core) == [logger]
    assert seen["everything"] == {"registry": registry, "plugin": "search settings", "core": core}
    # A plugin with two settings classes gets none of them (which would it be?).
    assert seen["keywords"] == {"registry": registry, "settings": core}
    assert seen["nothing"] == {}
    # One warning per old-style factory, naming its plugin and what to write instead;
    # a factory taking nothing is not old-style.
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert messages[0].splitlines() == [
        "plugin 'tool-search' (distribution ostinato-tool-search 0.2.0): the advisor factory "
        "'everything' takes (registry, settings, plugin_settings) instead of the factory "
        "context; this calling convention is deprecated and stops working in the next release",
        "fix: write it as def factory(context: FactoryContext) and read context.registry, "
        "context.settings, context.plugin_settings(YourSettings) (FactoryContext from "
        "ostinato.plugins)",
    ]
    assert "plugin 'other-loop'" in messages[1]
    # Without loaded settings nothing is passed but the registry and core's settings,
    # read from the environment.
    with pytest.warns(DeprecationWarning, match="factory context"):
        create_advisors(registry)
    assert seen["everything"] == {"registry": registry, "plugin": None, "core": Settings()}


def test_the_client_gets_the_tool_advisor_as_its_prototype():
    advisor = ToolCallingAdvisor()
    client = create_chat_client(settings(), ScriptedChatModel(), advisor, [], [])
    assert client.tool_advisor is advisor
