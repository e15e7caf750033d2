"""The container's decisions, as plain functions testable without the container.

Each function takes what it decides from (settings, the registry...) and returns one
part of the composition: the plugin manager, the registry, the chat model, the tool
advisor, the advisors, the default tools, the client. The container only wires them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ostinato.config._core_plugin import DEFAULT_TOOL_ADVISOR, CorePlugin
from ostinato.config._fields import environment
from ostinato.config._loading import load_settings, problems_message
from ostinato.config._plugin_settings import load_plugin_settings, warn_about_unknown_variables
from ostinato.config._settings import Settings, split_commas
from ostinato.errors import ConfigurationError, PluginError
from ostinato.plugins import (
    PluginInfo,
    PluginManager,
    PluginOrigin,
    Registration,
    Registry,
    ToolAdvisorFactory,
    collect_registry,
)

if TYPE_CHECKING:
    from ostinato.advisors import Advisor, ToolAdvisor
    from ostinato.client import ChatClient
    from ostinato.model import ChatModel
    from ostinato.tools import DefaultToolCallingManager, ToolCallback, ToolCallingManager

__all__ = [
    "ToolAdvisorChoice",
    "create_advisors",
    "create_chat_client",
    "create_chat_model",
    "create_default_tools",
    "create_plugin_manager",
    "create_registry",
    "create_tool_advisor",
    "create_tool_calling_manager",
    "load_core_settings",
    "parse_model",
    "select_tool_advisor",
]

_ADVISOR_VARIABLE = "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"


def _plugin_name(plugin: object) -> str:
    name = getattr(plugin, "__name__", None) or type(plugin).__name__
    return str(name).rsplit(".", 1)[-1].lower().replace("_", "-")


def load_core_settings(
    plugins: Iterable[object] | Mapping[str, object] | None = None,
    entry_points: bool | None = None,
) -> Settings:
    """Core :class:`~ostinato.config.Settings` from the environment (and ``.env``).

    When they have bad values, the plugins' settings are checked too (plugins selected
    by ``OSTINATO_LOAD_PLUGINS`` / ``OSTINATO_DISABLE_PLUGINS`` as far as those read), so
    that one error lists every bad value, core's and the plugins', not one after another.

    Raises:
        ConfigurationError: every bad value found, each with its variable.
    """
    try:
        return load_settings(Settings)
    except ConfigurationError as error:
        found = _plugin_setting_problems(plugins, entry_points)
        if not found:
            raise
        problems = [*_problem_lines(error), *found]
        raise ConfigurationError(problems_message(problems, "ostinato and plugin")) from None


def _problem_lines(error: ConfigurationError) -> list[str]:
    return [line for line in str(error).splitlines() if line.startswith("  ")]


def _plugin_setting_problems(
    plugins: Iterable[object] | Mapping[str, object] | None, entry_points: bool | None
) -> list[str]:
    """The plugins' bad setting values, with core's settings unreadable (best effort)."""
    environ = environment()
    load = environ.get("OSTINATO_LOAD_PLUGINS")
    selection = Settings.model_construct(
        load_plugins=None if load is None else split_commas(load),
        disable_plugins=split_commas(environ.get("OSTINATO_DISABLE_PLUGINS", "")),
        strict_plugins=False,
    )
    try:
        manager = create_plugin_manager(selection, plugins, entry_points)
        load_plugin_settings(collect_registry(manager))
    except ConfigurationError as error:
        return _problem_lines(error)
    except Exception:
        return []
    return []


def create_plugin_manager(
    settings: Settings,
    plugins: Iterable[object] | Mapping[str, object] | None = None,
    entry_points: bool | None = None,
) -> PluginManager:
    """A plugin manager holding core's plugin, then ``plugins``, then the installed ones.

    Args:
        settings: core settings (``load_plugins``, ``disable_plugins``, ``strict_plugins``).
        plugins: plugin objects (modules or instances of hook implementations) to register
            explicitly, or ``{name: plugin}``; ``None``: none.
        entry_points: load the installed plugins (the entry-point group ``ostinato``);
            ``None``: only when ``plugins`` is ``None``, so tests passing an explicit
            list see exactly that list.
    """
    manager = PluginManager(strict=settings.strict_plugins)
    manager.add_plugin(CorePlugin(settings), CorePlugin.info())
    named = (
        plugins.items()
        if isinstance(plugins, Mapping)
        else [(_plugin_name(p), p) for p in plugins or ()]
    )
    for name, plugin in named:
        manager.add_plugin(
            plugin, PluginInfo(name=name, origin=PluginOrigin.EXPLICIT, value=repr(plugin))
        )
    if entry_points or (entry_points is None and plugins is None):
        manager.load_entry_points(load=settings.load_plugins, disable=settings.disable_plugins)
    manager.check_pending_hooks()
    return manager


def create_registry(plugin_manager: PluginManager) -> Registry:
    """Run the plugins' hooks, then check and load their settings.

    Warns (:class:`~ostinato.config.UnknownSettingWarning`) about ``OSTINATO_*`` variables
    that no settings class reads.

    Raises:
        PluginError: a name is registered twice, or a settings class is invalid.
        ConfigurationError: plugin settings have bad values (all listed at once).
    """
    registry = collect_registry(plugin_manager)
    load_plugin_settings(registry)
    warn_about_unknown_variables(registry)
    return registry


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
            f"fix: write it like OSTINATO_MODEL=openai:gpt-4.1-mini"
        )
    return provider.strip().lower(), model_name.strip()


def _installed(entries: Mapping[str, Registration[Any]]) -> str:
    return ", ".join(f"{name} ({reg.plugin.source})" for name, reg in sorted(entries.items()))


def create_chat_model(settings: Settings, registry: Registry) -> ChatModel:
    """The chat model ``OSTINATO_MODEL`` names, built by its provider's factory.

    Raises:
        ConfigurationError: no model is configured, or its provider is not installed
            (the message lists the installed providers).
    """
    providers = registry.chat_models
    if settings.model is None:
        example = next(iter(sorted(providers)), "openai")
        installed = (
            f"installed providers: {_installed(providers)}"
            if providers
            else "installed providers: none (install one, e.g. pip install ostinato-openai)"
        )
        raise ConfigurationError(
            f"no chat model is configured\n"
            f"  {installed}\n"
            f"fix: set OSTINATO_MODEL=provider:model, e.g. OSTINATO_MODEL={example}:<model>"
        )
    provider, model_name = parse_model(settings.model)
    registration = providers.get(provider)
    if registration is None:
        raise ConfigurationError(
            f"OSTINATO_MODEL={settings.model!r} names the provider {provider!r}, "
            f"which no plugin registered\n"
            f"  installed providers: {_installed(providers) or 'none'}\n"
            f"fix: install its plugin (pip install ostinato-{provider}) "
            f"or choose an installed provider"
        )
    return registration.value(model_name)


@dataclass(frozen=True, slots=True)
class ToolAdvisorChoice:
    """The tool advisor the container uses, and why (for ``ostinato plugins``)."""

    name: str
    reason: str
    plugin: PluginInfo


def select_tool_advisor(
    setting: str | None, tool_advisors: Mapping[str, Registration[ToolAdvisorFactory]]
) -> ToolAdvisorChoice:
    """Choose exactly one tool advisor (DESIGN.md §6).

    The setting ``OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR`` wins; otherwise a single
    installed replacement wins over ``default``; otherwise ``default``.

    Raises:
        ConfigurationError: the setting names an unknown advisor (the installed ones are
            listed), or two or more replacements are installed and the setting is unset.
    """
    if setting is not None:
        registration = tool_advisors.get(setting)
        if registration is None:
            raise ConfigurationError(
                f"{_ADVISOR_VARIABLE}={setting!r} names no installed tool advisor\n"
                f"  installed: {_installed(tool_advisors) or 'none'}\n"
                f"fix: set it to one of: {', '.join(sorted(tool_advisors))}"
            )
        return ToolAdvisorChoice(setting, f"chosen by {_ADVISOR_VARIABLE}", registration.plugin)
    replacements = sorted(n for n in tool_advisors if n != DEFAULT_TOOL_ADVISOR)
    if len(replacements) > 1:
        raise ConfigurationError(
            f"{len(replacements)} replacement tool advisors are installed: "
            f"{_installed({n: tool_advisors[n] for n in replacements})}\n"
            f"  exactly one tool advisor runs the tool loop\n"
            f"fix: set {_ADVISOR_VARIABLE} to one of: "
            f"{', '.join([*replacements, DEFAULT_TOOL_ADVISOR])}"
        )
    if replacements:
        name = replacements[0]
        reason = f"the only installed replacement of {DEFAULT_TOOL_ADVISOR!r}"
        return ToolAdvisorChoice(name, reason, tool_advisors[name].plugin)
    if DEFAULT_TOOL_ADVISOR not in tool_advisors:
        raise ConfigurationError(
            "no tool advisor is registered\n"
            "fix: keep core's plugin registered (it provides 'default')"
        )
    return ToolAdvisorChoice(
        DEFAULT_TOOL_ADVISOR,
        "no replacement installed",
        tool_advisors[DEFAULT_TOOL_ADVISOR].plugin,
    )


def create_tool_advisor(
    choice: ToolAdvisorChoice,
    registry: Registry,
    tool_calling_manager: ToolCallingManager,
    settings: Settings | None = None,
    plugin_settings: Mapping[str, Any] | None = None,
) -> ToolAdvisor:
    """Build the chosen tool advisor with its factory.

    A factory that declares a ``settings`` parameter also receives the core settings (so a
    replacement honours ``OSTINATO_TOOLS__MAX_ITERATIONS`` without reading them again);
    one that declares ``plugin_settings`` receives its own plugin's loaded settings (as
    :func:`create_advisors` does).

    Raises:
        PluginError: the factory returned something that is not a ``ToolAdvisor``.
    """
    from ostinato.advisors import ToolAdvisor

    registration = registry.tool_advisors[choice.name]
    factory: Any = registration.value
    keywords: dict[str, Any] = {}
    if settings is not None and _accepts(factory, "settings"):
        keywords["settings"] = settings
    own = _own_settings(registry, registration.plugin, plugin_settings)
    if own is not None and _accepts(factory, "plugin_settings"):
        keywords["plugin_settings"] = own
    advisor = factory(tool_calling_manager, **keywords)
    if not isinstance(advisor, ToolAdvisor):
        raise PluginError(
            f"the tool advisor factory {choice.name!r} of {choice.plugin.label} returned "
            f"{type(advisor).__name__}\n"
            f"  expected: an instance of ostinato.advisors.ToolAdvisor\n"
            f"fix: return a ToolAdvisor (e.g. a ToolCallingAdvisor subclass)"
        )
    return advisor


def create_tool_calling_manager(settings: Settings) -> DefaultToolCallingManager:
    """A ``DefaultToolCallingManager`` with the limits of ``OSTINATO_TOOLS__*``."""
    from ostinato.tools import DefaultToolCallingManager, ToolCallLimits

    limits = ToolCallLimits(
        max_calls_per_tool=settings.tools.max_calls_per_tool,
        max_total_tool_calls=settings.tools.max_total_tool_calls,
    )
    return DefaultToolCallingManager(limits=limits)


def create_advisors(
    registry: Registry,
    plugin_settings: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
) -> list[Advisor]:
    """The advisors the plugins registered, leaving out those their settings disable.

    A factory that declares a ``registry`` parameter receives the registry, so that it
    can use what other plugins registered (e.g. a memory advisor picking a repository).
    One that declares ``plugin_settings`` receives its own plugin's settings, as loaded
    in ``plugin_settings`` (by prefix; see :func:`~ostinato.config.load_plugin_settings`),
    when its plugin registered exactly one settings class, and one that declares
    ``settings`` receives core's :class:`~ostinato.config.Settings` — so a caller can
    configure them without touching the environment.

    Raises:
        PluginError: a factory returned something that is not an ``Advisor``.
    """
    from ostinato.advisors import Advisor

    advisors: list[Advisor] = []
    for name, registration in registry.advisors.items():
        factory: Any = registration.value
        keywords: dict[str, Any] = {}
        if _accepts(factory, "registry"):
            keywords["registry"] = registry
        own = _own_settings(registry, registration.plugin, plugin_settings)
        if own is not None and _accepts(factory, "plugin_settings"):
            keywords["plugin_settings"] = own
        if settings is not None and _accepts(factory, "settings"):
            keywords["settings"] = settings
        advisor = factory(**keywords)
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


def create_default_tools(settings: Settings, registry: Registry) -> list[ToolCallback]:
    """The tools of the named tool sets listed in ``OSTINATO_TOOLS__ENABLED``.

    Raises:
        ConfigurationError: a listed name is not a registered tool set.
    """
    tools: list[ToolCallback] = []
    for name in settings.tools.enabled:
        registration = registry.tools.get(name)
        if registration is None:
            raise ConfigurationError(
                f"OSTINATO_TOOLS__ENABLED lists {name!r}, which no plugin registered\n"
                f"  installed tool sets: {_installed(registry.tools) or 'none'}\n"
                f"fix: remove it or install the plugin providing it"
            )
        tools.extend(registration.value())
    return tools


def create_chat_client(
    settings: Settings,
    chat_model: ChatModel,
    tool_advisor: ToolAdvisor,
    advisors: Sequence[Advisor],
    default_tools: Sequence[ToolCallback],
) -> ChatClient:
    """The client: the model, the tool advisor prototype, default advisors and tools.

    With ``OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED=false`` the client's default
    advisor params turn auto-registration off (a call can turn it back on with
    ``AdvisorParams.tool_calling_advisor_auto_register(True)``), as the reference does.
    """
    from ostinato.client import AdvisorParams, ChatClient

    builder = ChatClient.builder(chat_model, tool_advisor=tool_advisor)
    if advisors:
        builder.default_advisors(*advisors)
    if default_tools:
        builder.default_tools(*default_tools)
    if not settings.chat_client.tool_calling.enabled:
        builder.default_advisor_params(AdvisorParams.tool_calling_advisor_auto_register(False))
    return builder.build()


def _own_settings(
    registry: Registry, plugin: object, plugin_settings: Mapping[str, Any] | None
) -> Any:
    """The loaded settings ``plugin`` registered, when it registered exactly one class."""
    if not plugin_settings:
        return None
    prefixes = [p for p, r in registry.settings.items() if r.plugin == plugin]
    return plugin_settings.get(prefixes[0]) if len(prefixes) == 1 else None


def _accepts(function: Any, parameter: str) -> bool:
    """Whether ``function`` can be called with the keyword ``parameter``."""
    import inspect

    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return parameter in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )
