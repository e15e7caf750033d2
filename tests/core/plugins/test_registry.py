"""The registry: who registered what, malformed registrations, duplicates across plugins."""

from __future__ import annotations

import pytest

from ostinato.errors import PluginError
from ostinato.plugins import (
    Command,
    PluginInfo,
    PluginLoadWarning,
    PluginManager,
    Registration,
    collect_registry,
    hookimpl,
)


def model_factory(model_name: str) -> str:
    return model_name


class EveryKind:
    """A plugin registering one of each kind."""

    @hookimpl
    def register_chat_models(self, register):
        register("acme", model_factory)

    @hookimpl
    def register_tool_advisors(self, register):
        register("acme-loop", lambda manager: manager)

    @hookimpl
    def register_advisors(self, register):
        register("acme-logger", lambda: None)

    @hookimpl
    def register_chat_memory_repositories(self, register):
        register("acme-store", dict)

    @hookimpl
    def register_tools(self, register):
        register("acme-tools", list)

    @hookimpl
    def register_settings(self, register):
        register("OSTINATO_ACME_", dict)

    @hookimpl
    def register_commands(self, register):
        register("acme", " Do acme things. ", lambda argv: 0)


def manager_with(*plugins: tuple[str, object], strict: bool = False) -> PluginManager:
    manager = PluginManager(strict=strict)
    for name, plugin in plugins:
        manager.add_plugin(plugin, PluginInfo(name, f"dist-{name}", "1.0"))
    return manager


def test_every_kind_is_recorded_with_the_plugin_that_registered_it():
    registry = collect_registry(manager_with(("acme", EveryKind())))
    info = PluginInfo("acme", "dist-acme", "1.0")
    assert registry.chat_models == {"acme": Registration("acme", model_factory, info)}
    assert set(registry.tool_advisors) == {"acme-loop"}
    assert set(registry.advisors) == {"acme-logger"}
    assert set(registry.chat_memory_repositories) == {"acme-store"}
    assert set(registry.tools) == {"acme-tools"}
    assert registry.settings["OSTINATO_ACME_"].value is dict
    command = registry.commands["acme"].value
    assert isinstance(command, Command)
    assert command.help == "Do acme things."
    assert registry.contributions_of("acme") == {
        "chat_models": ["acme"],
        "tool_advisors": ["acme-loop"],
        "advisors": ["acme-logger"],
        "chat_memory_repositories": ["acme-store"],
        "tools": ["acme-tools"],
        "settings": ["OSTINATO_ACME_"],
        "commands": ["acme"],
    }


def test_register_accepts_keywords_named_as_in_the_design():
    class Keywords:
        @hookimpl
        def register_chat_models(self, register):
            register(provider="kw", factory=model_factory)

        @hookimpl
        def register_settings(self, register):
            register(prefix="OSTINATO_KW_", settings_class=dict)

        @hookimpl
        def register_commands(self, register):
            register(name="kw", help="help", run=lambda argv: 0)

    registry = collect_registry(manager_with(("kw", Keywords())))
    assert set(registry.chat_models) == {"kw"}
    assert set(registry.settings) == {"OSTINATO_KW_"}
    assert set(registry.commands) == {"kw"}


def test_one_name_registered_by_two_plugins_is_an_error_naming_both():
    class Other:
        @hookimpl
        def register_chat_models(self, register):
            register("acme", model_factory)

    manager = manager_with(("acme", EveryKind()), ("other", Other()))
    with pytest.raises(PluginError) as caught:
        collect_registry(manager)
    assert str(caught.value).splitlines() == [
        "the chat model provider 'acme' is registered by two plugins:",
        "  plugin 'acme' (distribution dist-acme 1.0)",
        "  plugin 'other' (distribution dist-other 1.0)",
        "fix: uninstall one of them, or disable one with OSTINATO_DISABLE_PLUGINS=other",
    ]


def test_one_plugin_registering_a_name_twice_is_left_out():
    class Twice:
        @hookimpl
        def register_tool_advisors(self, register):
            register("loop", model_factory)
            register("loop", model_factory)

    manager = manager_with(("twice", Twice()))
    with pytest.warns(PluginLoadWarning, match="registered the tool advisor 'loop' twice"):
        registry = collect_registry(manager)
    assert registry.tool_advisors == {}
    assert manager.failures[0].phase == "register"


def test_a_hook_that_raises_leaves_the_whole_plugin_out_and_the_others_in():
    class HalfBroken:
        @hookimpl
        def register_chat_models(self, register):
            register("half", model_factory)

        @hookimpl
        def register_tools(self, register):
            raise RuntimeError("tool index missing")

    manager = manager_with(("half", HalfBroken()), ("acme", EveryKind()))
    with pytest.warns(PluginLoadWarning, match="failed to register its contributions"):
        registry = collect_registry(manager)
    assert set(registry.chat_models) == {"acme"}
    assert [p.name for p in manager.plugins] == ["acme"]
    assert manager.failures[0].error == "RuntimeError: tool index missing"
    assert not manager.is_registered(HalfBroken)


def test_a_hook_that_raises_is_fatal_in_strict_mode():
    class Broken:
        @hookimpl
        def register_tools(self, register):
            raise RuntimeError("boom")

    with pytest.raises(PluginError, match=r"plugin 'broken' .* failed to register"):
        collect_registry(manager_with(("broken", Broken()), strict=True))


@pytest.mark.parametrize(
    ("hook", "args", "message"),
    [
        ("register_chat_models", ("Acme Corp", model_factory), "chat model provider named"),
        ("register_tools", ("tools", "not callable"), "expected: a callable"),
        ("register_settings", ("ACME_", dict), "expected: OSTINATO_<PLUGIN>_"),
        ("register_settings", ("OSTINATO_ACME", dict), "expected: OSTINATO_<PLUGIN>_"),
        ("register_settings", ("OSTINATO_ACME_", object()), "pass the class itself"),
        ("register_commands", ("go", None, print), "expected: a one-line str"),
    ],
)
def test_malformed_registrations_are_reported(hook, args, message):
    def implementation(register):
        register(*args)

    plugin = type("Malformed", (), {hook: staticmethod(hookimpl(implementation))})
    manager = manager_with(("malformed", plugin))
    with pytest.warns(PluginLoadWarning):
        collect_registry(manager)
    assert message in manager.failures[0].message


def test_a_tool_set_may_name_the_variable_that_configures_it():
    class Configured:
        @hookimpl
        def register_tools(self, register):
            register("files", lambda context: [], configured_by="OSTINATO_FILES_CONFIG")
            register(name="plain", factory=lambda context: [])

    registry = collect_registry(manager_with(("files", Configured())))
    assert registry.tools["files"].configured_by == "OSTINATO_FILES_CONFIG"
    assert registry.tools["plain"].configured_by is None


@pytest.mark.parametrize("variable", ["ostinato_files_config", 42])
def test_a_tool_set_configured_by_something_else_than_a_variable_is_reported(variable):
    class Configured:
        @hookimpl
        def register_tools(self, register):
            register("files", lambda context: [], configured_by=variable)

    manager = manager_with(("files", Configured()))
    with pytest.warns(PluginLoadWarning):
        collect_registry(manager)
    message = manager.failures[0].message
    assert f"configured_by={variable!r}" in message
    assert "expected: the name of one of the plugin's environment variables" in message
