"""The client's parts: the chat model, the plugins' advisors and tool sets, the client.

Plain functions testable without the container; each takes what it decides from
(settings, the registry...) and returns one part of the composition.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any

from ostinato.config._default_model import default_model, missing_model_fix
from ostinato.config._factories import check_settings_in_use, factory_context, installed
from ostinato.config._provider_hint import unknown_provider_fix
from ostinato.errors import ConfigurationError, PluginError
from ostinato.plugins import Registry, ToolSetNotEnabledWarning, call_factory
from ostinato.settings import Settings
from ostinato.settings._model_form import model_example

if TYPE_CHECKING:
    from ostinato.advisors import Advisor, ToolAdvisor
    from ostinato.client import ChatClient
    from ostinato.model import ChatModel
    from ostinato.tools import ToolCallback
    from ostinato.units import UnitWrapper

__all__ = [
    "create_advisors",
    "create_chat_client",
    "create_chat_model",
    "create_default_tools",
    "create_unit_wrappers",
    "parse_model",
    "tool_sets_not_enabled",
]


def parse_model(value: str) -> tuple[str, str]:
    """``"openai:gpt-4.1-mini"`` -> ``("openai", "gpt-4.1-mini")``; ``"openai:"`` ->
    ``("openai", "")`` (the provider's default model).

    Raises:
        ConfigurationError: the value is not ``provider:model``.
    """
    provider, sep, model_name = value.partition(":")
    if not sep or not provider.strip():
        raise ConfigurationError(
            f"OSTINATO_MODEL={value!r} is not provider:model\n"
            f"fix: write it like OSTINATO_MODEL={model_example(value)}"
        )
    return provider.strip().lower(), model_name.strip()


def create_chat_model(
    settings: Settings, registry: Registry, plugin_settings: Mapping[str, Any] | None = None
) -> ChatModel:
    """The chat model ``OSTINATO_MODEL`` names, built by its provider's factory; without
    it, the default of :func:`~ostinato.config.default_model` (``llamacpp:default`` when
    that provider is installed), as ``ostinato chat`` chooses.

    The factory gets the :class:`~ostinato.plugins.FactoryContext` (with
    ``plugin_settings``, the plugins' loaded settings by prefix) and the model name.

    Raises:
        ConfigurationError: no model is configured and there is no default, or its
            provider is not installed (the message lists the installed providers).
    """
    providers = registry.chat_models
    model = settings.model or default_model(providers)
    if model is None:
        listed = (
            f"installed providers: {installed(providers)}"
            if providers
            else "installed providers: none (install one, e.g. pip install ostinato-openai)"
        )
        raise ConfigurationError(
            f"no chat model is configured\n  {listed}\nfix: {missing_model_fix()}"
        )
    provider, model_name = parse_model(model)
    registration = providers.get(provider)
    if registration is None:
        raise ConfigurationError(
            f"OSTINATO_MODEL={model!r} names the provider {provider!r}, "
            f"which no plugin registered\n"
            f"  installed providers: {installed(providers) or 'none'}\n"
            f"fix: {unknown_provider_fix(provider, model_name, providers, 'OSTINATO_MODEL=')}"
        )
    context = factory_context(registry, settings, plugin_settings)
    check_settings_in_use(registration, context)
    chat_model: ChatModel = call_factory("register_chat_models", registration, context, model_name)
    return chat_model


def create_advisors(
    registry: Registry,
    plugin_settings: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
) -> list[Advisor]:
    """The advisors the plugins registered, leaving out those their settings disable.

    Each factory gets a :class:`~ostinato.plugins.FactoryContext`: the registry (a
    memory advisor finds the repository its settings name, whichever plugin registered
    it), core's ``settings`` (read from the environment when not given) and the plugins'
    settings as loaded in ``plugin_settings`` (by prefix; see
    :func:`~ostinato.settings.load_plugin_settings`), so a caller configures them without
    touching the environment.

    Raises:
        PluginError: a factory returned something that is not an ``Advisor``.
    """
    from ostinato.advisors import Advisor

    context = factory_context(registry, settings, plugin_settings)
    advisors: list[Advisor] = []
    for name, registration in registry.advisors.items():
        advisor = call_factory("register_advisors", registration, context)
        if advisor is None:
            continue
        if not isinstance(advisor, Advisor):
            raise PluginError(
                f"the advisor factory {name!r} of {registration.plugin.label} returned "
                f"{type(advisor).__name__}\n"
                f"  expected: an ostinato.advisors.Advisor, or None when disabled\n"
                f"fix: return an Advisor instance or None"
            )
        advisors.append(advisor)
    return advisors


def create_unit_wrappers(
    registry: Registry,
    plugin_settings: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
) -> list[UnitWrapper]:
    """The unit wrappers the plugins registered (``register_unit_wrappers``), leaving out
    those their settings disable; each factory gets a
    :class:`~ostinato.plugins.FactoryContext` as for :func:`create_advisors`.

    Raises:
        PluginError: a factory returned something that is not a ``UnitWrapper`` (or an
            iterable of them).
    """
    from ostinato.units import UnitWrapper

    context = factory_context(registry, settings, plugin_settings)
    wrappers: list[UnitWrapper] = []
    for name, registration in registry.unit_wrappers.items():
        made = call_factory("register_unit_wrappers", registration, context)
        if made is None:
            continue
        try:
            found = [made] if isinstance(made, UnitWrapper) else list(made)
        except TypeError:
            found = [made]
        wrong = [w for w in found if not isinstance(w, UnitWrapper)]
        if wrong:
            raise PluginError(
                f"the unit wrapper factory {name!r} of {registration.plugin.label} returned "
                f"{type(wrong[0]).__name__}\n"
                f"  expected: an ostinato.units.UnitWrapper, several, or None when disabled\n"
                f"fix: return UnitWrapper(name, order, kinds, around) values or None"
            )
        wrappers.extend(found)
    return wrappers


def tool_sets_not_enabled(settings: Settings, registry: Registry) -> list[str]:
    """One message per tool set that is configured but not enabled: the variable its
    plugin names as ``configured_by`` is set (environment or ``.env``), and
    ``OSTINATO_TOOLS__ENABLED`` does not list it. Each says which variable enables it."""
    from ostinato.settings._fields import env_file_values, environment

    enabled = list(settings.tools.enabled)
    dormant = [r for name, r in registry.tools.items() if r.configured_by and name not in enabled]
    if not dormant:
        return []
    variables = {**env_file_values(Settings), **environment()}
    return [
        f"{r.configured_by} is set, but the tool set {r.name!r} of {r.plugin.label} is not "
        f"enabled: auto-configured clients do not get its tools\n"
        f"fix: set OSTINATO_TOOLS__ENABLED={','.join([*enabled, r.name])} to use it, or "
        f"unset {r.configured_by}"
        for r in dormant
        if r.configured_by in variables
    ]


def create_default_tools(
    settings: Settings, registry: Registry, plugin_settings: Mapping[str, Any] | None = None
) -> list[ToolCallback]:
    """The tools of the named tool sets listed in ``OSTINATO_TOOLS__ENABLED``, each set
    built by its factory with a :class:`~ostinato.plugins.FactoryContext`.

    A set that is configured but not enabled (see :func:`tool_sets_not_enabled`) gets a
    :class:`~ostinato.plugins.ToolSetNotEnabledWarning` saying which variable enables it.

    Raises:
        ConfigurationError: a listed name is not a registered tool set.
    """
    for message in tool_sets_not_enabled(settings, registry):
        warnings.warn(message, ToolSetNotEnabledWarning, stacklevel=_caller_level())
    context = factory_context(registry, settings, plugin_settings)
    tools: list[ToolCallback] = []
    for name in settings.tools.enabled:
        registration = registry.tools.get(name)
        if registration is None:
            raise ConfigurationError(
                f"OSTINATO_TOOLS__ENABLED lists {name!r}, which no plugin registered\n"
                f"  installed tool sets: {installed(registry.tools) or 'none'}\n"
                f"fix: remove it or install the plugin providing it"
            )
        check_settings_in_use(registration, context)
        tools.extend(call_factory("register_tools", registration, context))
    return tools


def _caller_level() -> int:
    """The stack level of the first frame outside ostinato and dependency-injector (the
    code that asked for the client), for warnings."""
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if module != "ostinato" and not module.startswith(("ostinato.", "dependency_injector")):
            return level
        frame, level = frame.f_back, level + 1
    return 2


def create_chat_client(
    settings: Settings,
    chat_model: ChatModel,
    tool_advisor: ToolAdvisor,
    advisors: Sequence[Advisor],
    default_tools: Sequence[ToolCallback],
    tool_advisor_hint: Advisor | None = None,
    unit_wrappers: Sequence[UnitWrapper] = (),
) -> ChatClient:
    """The client: the model, the tool advisor prototype, default advisors and tools
    (and ``tool_advisor_hint``, naming a replacement tool advisor in model errors), and
    the plugins' unit wrappers.

    With ``OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED=false`` the client's default
    advisor params turn auto-registration off (a call can turn it back on with
    ``AdvisorParams.tool_calling_advisor_auto_register(True)``), as Spring AI does.
    """
    from ostinato.client import AdvisorParams, ChatClient

    builder = ChatClient.builder(chat_model, tool_advisor=tool_advisor)
    if unit_wrappers:
        builder.unit_wrappers(*unit_wrappers)
    every = [*advisors, *([tool_advisor_hint] if tool_advisor_hint is not None else [])]
    if every:
        builder.default_advisors(*every)
    if default_tools:
        builder.default_tools(*default_tools)
    if not settings.chat_client.tool_calling.enabled:
        builder.default_advisor_params(AdvisorParams.tool_calling_advisor_auto_register(False))
    return builder.build()
