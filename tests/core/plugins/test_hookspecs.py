"""The hook specifications: every declared hook, each taking ``register``."""

from __future__ import annotations

import dataclasses
import inspect

import pluggy
import pytest

import ostinato.plugins
from ostinato.plugins import (
    HOOK_NAMES,
    HOOKS,
    KINDS,
    PROJECT_NAME,
    HookSpecs,
    Registry,
    _hookspecs,
    hookimpl,
    hookspec,
)

EXPECTED_HOOKS = (
    "register_chat_models",
    "register_tool_advisors",
    "register_advisors",
    "register_chat_memory_repositories",
    "register_tools",
    "register_durable_engines",
    "register_unit_wrappers",
    "register_settings",
    "register_commands",
)


def test_the_hooks_are_exactly_those_of_the_design():
    specified = [name for name in vars(HookSpecs) if name.startswith("register_")]
    assert tuple(specified) == EXPECTED_HOOKS == HOOK_NAMES
    assert tuple(hook for hook, _, _ in KINDS) == HOOK_NAMES


def test_one_table_declares_the_hooks_and_the_rest_follows_it():
    assert tuple(hook.name for hook in HOOKS) == HOOK_NAMES
    assert [(h.name, h.attribute, h.kind) for h in HOOKS] == list(KINDS)
    # The registry has one field per hook, named by the table, in its order.
    assert [f.name for f in dataclasses.fields(Registry)] == [h.attribute for h in HOOKS]
    for hook in HOOKS:
        doc = " ".join((getattr(HookSpecs, hook.name).__doc__ or "").split())
        assert f"``{hook.registers}``" in doc
        assert hook.registers.startswith("register(")
        assert hook.registration in ("factory", "settings", "command")
        if hook.registration != "factory":
            assert hook.factory_arguments == ()


def test_each_hook_is_a_plain_function_of_one_module():
    # A reader grepping a hook's name finds ``def register_...(register)`` with its
    # docstring in ostinato.plugins._hookspecs; the table and pluggy's namespace follow it.
    functions = [
        value
        for name, value in vars(_hookspecs).items()
        if name.startswith("register_") and inspect.isfunction(value)
    ]
    assert tuple(f.__name__ for f in functions) == HOOK_NAMES
    source = inspect.getsource(_hookspecs)
    for function, hook in zip(functions, HOOKS, strict=True):
        assert function.__qualname__ == function.__name__ == hook.name
        assert function.__module__ == "ostinato.plugins._hookspecs"
        assert f"\ndef {hook.name}(register: " in source
        assert getattr(HookSpecs, hook.name) is function
        assert hook.doc.split()[0] in (function.__doc__ or "")
        assert getattr(function, f"{PROJECT_NAME}_spec", None) is not None, hook.name


def test_pluggy_still_validates_implementations_against_the_functions():
    class Misspelled:
        @hookimpl
        def register_chat_model(self, register):  # not a hook
            register("x", lambda context, model_name: None)

    class WrongArgument:
        @hookimpl
        def register_chat_models(self, registrar):  # not the spec's argument
            pass

    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(HookSpecs)
    manager.register(Misspelled())
    with pytest.raises(pluggy.PluginValidationError, match="register_chat_model"):
        manager.check_pending()
    with pytest.raises(pluggy.PluginValidationError, match="registrar"):
        manager.register(WrongArgument())


def test_a_hook_added_to_the_table_is_specified_for_pluggy():
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(HookSpecs)
    assert sorted(manager.hook.__dict__) == sorted(HOOK_NAMES)


def test_each_hook_takes_only_a_register_callback():
    for name in HOOK_NAMES:
        parameters = list(inspect.signature(getattr(HookSpecs, name)).parameters)
        assert parameters == ["register"], name


def test_each_hook_is_documented():
    for name in HOOK_NAMES:
        assert (getattr(HookSpecs, name).__doc__ or "").strip(), name


def test_markers_belong_to_the_project_ostinato():
    assert PROJECT_NAME == "ostinato"
    assert isinstance(hookimpl, pluggy.HookimplMarker)
    assert isinstance(hookspec, pluggy.HookspecMarker)
    assert hookimpl.project_name == hookspec.project_name == "ostinato"


def test_public_names():
    assert set(ostinato.plugins.__all__) == {
        "ENTRY_POINT_GROUP",
        "HOOKS",
        "HOOK_NAMES",
        "KINDS",
        "PROJECT_NAME",
        "AdvisorFactory",
        "ChatMemoryRepositoryFactory",
        "ChatModelFactory",
        "Command",
        "CommandRunner",
        "DurableEngineFactory",
        "FactoryContext",
        "Hook",
        "HookSpecs",
        "PluginFailure",
        "PluginInfo",
        "PluginLoadWarning",
        "PluginManager",
        "PluginOrigin",
        "ProviderPlugin",
        "RegisterAdvisor",
        "RegisterChatMemoryRepository",
        "RegisterChatModel",
        "RegisterCommand",
        "RegisterDurableEngine",
        "RegisterFactory",
        "RegisterSettings",
        "RegisterToolAdvisor",
        "RegisterToolSet",
        "RegisterUnitWrapper",
        "Registration",
        "Registry",
        "SkippedPlugin",
        "StorePlugin",
        "ToolAdvisorFactory",
        "ToolSetFactory",
        "ToolSetNotEnabledWarning",
        "UnitWrapperFactory",
        "call_factory",
        "collect_registry",
        "hookimpl",
        "hookspec",
        "lazy_exports",
        "lazy_package",
        "provider_plugin",
        "store_plugin",
    }
    for name in ostinato.plugins.__all__:
        assert hasattr(ostinato.plugins, name), name
