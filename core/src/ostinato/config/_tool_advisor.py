"""The tool advisor: which one runs the tool loop, and building it with its manager.

Exactly one tool advisor runs the loop: the setting chooses, else a single installed
replacement, else core's ``default``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ostinato.config._core_plugin import DEFAULT_TOOL_ADVISOR
from ostinato.config._factories import check_settings_in_use, factory_context, installed
from ostinato.errors import ConfigurationError, PluginError
from ostinato.plugins import (
    PluginInfo,
    Registration,
    Registry,
    ToolAdvisorFactory,
    call_factory,
)
from ostinato.settings import Settings

if TYPE_CHECKING:
    from ostinato.advisors import ToolAdvisor
    from ostinato.tools import DefaultToolCallingManager, ToolCallingManager

__all__ = [
    "ToolAdvisorChoice",
    "create_tool_advisor",
    "create_tool_calling_manager",
    "select_tool_advisor",
]

_ADVISOR_VARIABLE = "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"


@dataclass(frozen=True, slots=True)
class ToolAdvisorChoice:
    """The tool advisor the container uses, and why (for ``ostinato plugins``)."""

    name: str
    reason: str
    plugin: PluginInfo


def select_tool_advisor(
    setting: str | None, tool_advisors: Mapping[str, Registration[ToolAdvisorFactory]]
) -> ToolAdvisorChoice:
    """Choose exactly one tool advisor for auto-configured clients.

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
                f"  installed: {installed(tool_advisors) or 'none'}\n"
                f"fix: set it to one of: {', '.join(sorted(tool_advisors))}"
            )
        return ToolAdvisorChoice(setting, f"chosen by {_ADVISOR_VARIABLE}", registration.plugin)
    replacements = sorted(n for n in tool_advisors if n != DEFAULT_TOOL_ADVISOR)
    if len(replacements) > 1:
        raise ConfigurationError(
            f"{len(replacements)} replacement tool advisors are installed: "
            f"{installed({n: tool_advisors[n] for n in replacements})}\n"
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

    The factory gets a :class:`~ostinato.plugins.FactoryContext` (core's ``settings``,
    so a replacement honours ``OSTINATO_TOOLS__MAX_ITERATIONS`` without reading them
    again, read from the environment when not given; the plugins' loaded
    ``plugin_settings``) and the tool calling manager.

    Raises:
        PluginError: the factory returned something that is not a ``ToolAdvisor``.
    """
    from ostinato.advisors import ToolAdvisor

    registration = registry.tool_advisors[choice.name]
    context = factory_context(registry, settings, plugin_settings)
    check_settings_in_use(registration, context)
    advisor = call_factory("register_tool_advisors", registration, context, tool_calling_manager)
    if not isinstance(advisor, ToolAdvisor):
        raise PluginError(
            f"the tool advisor factory {choice.name!r} of {choice.plugin.label} returned "
            f"{type(advisor).__name__}\n"
            f"  expected: an instance of ostinato.advisors.ToolAdvisor\n"
            f"fix: return a ToolAdvisor (e.g. a ToolCallingAdvisor subclass)"
        )
    return advisor


def create_tool_calling_manager(settings: Settings) -> DefaultToolCallingManager:
    """A ``DefaultToolCallingManager`` with the limits and the effect policy of
    ``OSTINATO_TOOLS__*``."""
    from ostinato.tools import DefaultToolCallingManager, ToolCallLimits

    tools = settings.tools
    limits = ToolCallLimits(
        max_calls_per_tool=tools.max_calls_per_tool,
        max_total_tool_calls=tools.max_total_tool_calls,
    )
    effects = None
    if (
        tools.approve_effects
        or tools.eager_start
        or not tools.order_effects
        or (tools.tool_retries != 2)
    ):
        from ostinato.tools import EffectPolicy

        effects = EffectPolicy(
            order_effects=tools.order_effects,
            retries=tools.tool_retries,
            approve=frozenset(tools.approve_effects),  # type: ignore[arg-type]  # names
            eager_start=tools.eager_start,
        )
    return DefaultToolCallingManager(limits=limits, effects=effects)
