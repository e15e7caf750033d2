"""The typed aliases of ``plugins/_types.py`` agree with how factories are really called.

Each factory hook's specification annotates ``register`` with its callback alias; the
alias's factory takes the :class:`~ostinato.plugins.FactoryContext` first, then one
argument per name of the hook's ``factory_arguments``, which is what every
``call_factory(hook, registration, context, ...)`` call in the sources passes. And the
``register`` callback the registry hands each hook takes what the hook's alias declares.
"""

from __future__ import annotations

import ast
import collections.abc
import inspect
import typing
from pathlib import Path

import pytest

from ostinato.advisors import Advisor, ToolAdvisor
from ostinato.durable import DurableEngine
from ostinato.memory import ChatMemoryRepository
from ostinato.model import ChatModel
from ostinato.plugins import HOOKS, FactoryContext, Hook, PluginInfo, _hookspecs, _types
from ostinato.plugins._registry import _Staging
from ostinato.tools import ToolCallback, ToolCallingManager
from ostinato.units import UnitWrapper

ROOT = Path(__file__).resolve().parents[3]
SOURCES = [ROOT / "core" / "src", *sorted((ROOT / "plugins").glob("*/src"))]
FACTORY_HOOKS = [hook for hook in HOOKS if hook.registration == "factory"]

#: What each factory's arguments after the context are, by name.
ARGUMENT_TYPES = {"model_name": str, "tool_calling_manager": ToolCallingManager}
#: What each factory returns.
RESULTS = {
    "register_chat_models": ChatModel,
    "register_tool_advisors": ToolAdvisor,
    "register_advisors": Advisor | None,
    "register_chat_memory_repositories": ChatMemoryRepository,
    "register_tools": collections.abc.Iterable[ToolCallback],
    "register_durable_engines": DurableEngine,
    "register_unit_wrappers": UnitWrapper | collections.abc.Iterable[UnitWrapper] | None,
}


def _namespace() -> dict[str, typing.Any]:
    """What the aliases of ``_types`` name, for resolving them at run time."""
    return {
        **vars(_types),
        "FactoryContext": FactoryContext,
        "Advisor": Advisor,
        "ToolAdvisor": ToolAdvisor,
        "DurableEngine": DurableEngine,
        "ChatMemoryRepository": ChatMemoryRepository,
        "ChatModel": ChatModel,
        "ToolCallback": ToolCallback,
        "ToolCallingManager": ToolCallingManager,
        "UnitWrapper": UnitWrapper,
    }


def _register_hint(hook: Hook) -> typing.Any:
    namespace = _namespace()
    function = getattr(_hookspecs, hook.name)
    hint = typing.get_type_hints(function, globalns=namespace)["register"]
    if isinstance(hint, type):  # a callback protocol (register_tools' keyword)
        hint = typing.get_type_hints(hint.__call__, globalns=namespace)["factory"]
        return hint
    parameters, _ = typing.get_args(hint)
    assert parameters[0] is str, hook.name
    return parameters[1]


def _call_sites() -> dict[str, list[tuple[str, list[str]]]]:
    found: dict[str, list[tuple[str, list[str]]]] = {}
    for source in SOURCES:
        for path in source.rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "call_factory"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    extra = [ast.unparse(argument) for argument in node.args[3:]]
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    found.setdefault(node.args[0].value, []).append((where, extra))
    return found


@pytest.mark.parametrize("hook", FACTORY_HOOKS, ids=lambda hook: hook.name)
def test_the_factory_alias_takes_the_context_then_the_hooks_arguments(hook: Hook) -> None:
    factory = _register_hint(hook)
    parameters, result = typing.get_args(factory)
    assert parameters == [
        FactoryContext,
        *(ARGUMENT_TYPES[name] for name in hook.factory_arguments),
    ], hook.name
    assert result == RESULTS[hook.name], hook.name


@pytest.mark.parametrize("hook", FACTORY_HOOKS, ids=lambda hook: hook.name)
def test_every_call_site_passes_what_the_alias_declares(hook: Hook) -> None:
    sites = _call_sites().get(hook.name, [])
    assert sites, f"no call_factory({hook.name!r}, ...) in the sources"
    for where, extra in sites:
        assert extra == list(hook.factory_arguments), where


def test_every_call_site_names_a_factory_hook() -> None:
    assert set(_call_sites()) <= {hook.name for hook in FACTORY_HOOKS}


def _alias_shape(hook: Hook) -> tuple[int, set[str]]:
    """How many positional arguments the hook's ``register`` alias passes, and its keywords."""
    function = getattr(_hookspecs, hook.name)
    register = typing.get_type_hints(function, globalns=_namespace())["register"]
    if isinstance(register, type):  # a callback protocol: read its __call__
        parameters = list(inspect.signature(register.__call__).parameters.values())[1:]
        positional = [p for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
        keywords = {p.name for p in parameters if p.kind is p.KEYWORD_ONLY}
        return len(positional), keywords
    arguments, result = typing.get_args(register)
    assert result is None, hook.name
    return len(arguments), set()


@pytest.mark.parametrize("hook", HOOKS, ids=lambda hook: hook.name)
def test_the_registry_callback_takes_what_the_register_alias_declares(hook: Hook) -> None:
    positional, keywords = _alias_shape(hook)
    callback = _Staging(PluginInfo("acme")).callbacks()[hook.name]
    parameters = list(inspect.signature(callback).parameters.values())
    assert [p.kind for p in parameters[:positional]] == [
        inspect.Parameter.POSITIONAL_OR_KEYWORD
    ] * positional, hook.name
    rest = parameters[positional:]
    assert {p.name for p in rest} == keywords, hook.name
    assert all(p.kind is p.KEYWORD_ONLY and p.default is None for p in rest), hook.name
    assert set(hook.keywords) == keywords, hook.name
