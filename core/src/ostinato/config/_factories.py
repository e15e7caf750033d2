"""Calling plugin factories: the context they get, and which plugin gave what."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.errors import ConfigurationError
from ostinato.plugins import FactoryContext, Registration, Registry
from ostinato.settings import Settings, load_settings
from ostinato.settings._problems import problems_message

__all__ = ["check_settings_in_use", "factory_context", "installed"]


def installed(entries: Mapping[str, Registration[Any]]) -> str:
    """``name (source), ...`` of ``entries``, for messages."""
    return ", ".join(f"{name} ({reg.plugin.source})" for name, reg in sorted(entries.items()))


def factory_context(
    registry: Registry, settings: Settings | None, plugin_settings: Mapping[str, Any] | None
) -> FactoryContext:
    """The context factories are called with; core's settings read when not given."""
    return FactoryContext(
        registry=registry,
        settings=settings if settings is not None else load_settings(Settings),
        loaded_settings=dict(plugin_settings or {}),
    )


def check_settings_in_use(registration: Registration[Any], context: FactoryContext) -> None:
    """Check the settings of a plugin about to be used: the provider of the model, the
    chosen tool advisor, an enabled tool set. Settings with bad values were only warned
    about when the plugins loaded (and left out of ``context.loaded_settings``); here
    they are the usual error, before the plugin's factory runs.

    Raises:
        ConfigurationError: the plugin's settings have bad values (each with its variable).
    """
    problems: list[str] = []
    for prefix, settings in context.registry.settings.items():
        if settings.plugin != registration.plugin or prefix in context.loaded_settings:
            continue
        try:
            load_settings(settings.value)
        except ConfigurationError as error:
            problems.extend(line for line in str(error).splitlines() if line.startswith("  "))
    if problems:
        raise ConfigurationError(problems_message(problems, "plugin"))
