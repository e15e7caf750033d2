"""The plugins' settings classes: checked, loaded together, and used to spot misspellings.

A plugin registers ``(prefix, settings_class)`` with ``register_settings``. A setting is
checked where it is used: when the plugins are loaded, a class with bad values gets a
:class:`BadSettingWarning` (a bad ``OSTINATO_SERVE_PORT`` must not stop ``ostinato
chat``), and is left out of the loaded settings, so that the factory or command that
reads it loads it again and fails with the usual error naming the variable. Every
``OSTINATO_*`` variable that neither core nor a plugin reads gets a warning too.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, Protocol

from pydantic_settings import BaseSettings

from ostinato.errors import ConfigurationError, PluginError
from ostinato.settings._fields import SettingField, env_file_values, environment, setting_fields
from ostinato.settings._loading import load_settings, warn_unknown_variables
from ostinato.settings._problems import problems_message
from ostinato.settings._settings import Settings


class _Plugin(Protocol):
    @property
    def label(self) -> str: ...


class _SettingsRegistration(Protocol):
    @property
    def value(self) -> type[Any]: ...

    @property
    def plugin(self) -> _Plugin: ...


class Registry(Protocol):
    """What these functions read of the plugins' registry (:class:`ostinato.plugins.Registry`,
    which sits above the settings): each registered settings class, by prefix, and the
    plugin that registered it."""

    @property
    def settings(self) -> Mapping[str, _SettingsRegistration]: ...


__all__ = [
    "BadSettingWarning",
    "check_settings_class",
    "known_setting_fields",
    "load_plugin_settings",
    "warn_about_bad_settings",
    "warn_about_unknown_variables",
]


class BadSettingWarning(UserWarning):
    """A plugin's setting has a bad value: it stops only what uses the plugin's settings."""


def check_settings_class(prefix: str, settings_class: Any, plugin_label: str) -> None:
    """Check that ``settings_class`` is a pydantic-settings class reading ``prefix``.

    Raises:
        PluginError: it is not a ``BaseSettings`` subclass, or its ``env_prefix`` differs
            from the prefix it was registered with.
    """
    if not (isinstance(settings_class, type) and issubclass(settings_class, BaseSettings)):
        raise PluginError(
            f"{plugin_label} registered {settings_class!r} as its settings for {prefix!r}\n"
            f"  expected: a pydantic_settings.BaseSettings subclass\n"
            f"fix: derive the class from ostinato.settings.PluginSettings"
        )
    own = str(settings_class.model_config.get("env_prefix") or "")
    if own.upper() != prefix:
        raise PluginError(
            f"{plugin_label} registered {settings_class.__name__} under {prefix!r}, but the "
            f"class reads the prefix {own!r}\n"
            f"fix: set model_config = SettingsConfigDict(env_prefix={prefix!r})"
        )


def load_plugin_settings(registry: Registry, *, strict: bool = True) -> dict[str, BaseSettings]:
    """Load every registered plugin settings class, keyed by prefix.

    Args:
        registry: the plugins' registry.
        strict: raise on bad values; ``False``: leave a class with bad values out (a
            factory reading it through :meth:`~ostinato.plugins.FactoryContext.plugin_settings`
            then loads it again and gets the error naming the variable).

    Raises:
        PluginError: a registered class is not a valid settings class.
        ConfigurationError: with ``strict``, one or more variables have bad values (all
            of them listed).
    """
    loaded: dict[str, BaseSettings] = {}
    problems: list[str] = []
    for prefix, registration in registry.settings.items():
        check_settings_class(prefix, registration.value, registration.plugin.label)
        try:
            loaded[prefix] = load_settings(registration.value)
        except ConfigurationError as exc:
            problems.extend(_problems(exc))
    if problems and strict:
        raise ConfigurationError(problems_message(problems, "plugin"))
    return loaded


def _problems(error: ConfigurationError) -> list[str]:
    return [line for line in str(error).splitlines() if line.startswith("  ")]


def warn_about_bad_settings(
    registry: Registry, *, loaded: dict[str, BaseSettings] | None = None
) -> list[str]:
    """Check every registered plugin settings class; a :class:`BadSettingWarning` for each
    plugin whose settings have bad values. Returns the problems (``VARIABLE=value: ...``).

    Args:
        registry: the plugins' registry.
        loaded: when given, receives the settings that loaded, keyed by prefix (what
            ``load_plugin_settings(registry, strict=False)`` returns), so that they are
            not read a second time.

    Raises:
        PluginError: a registered class is not a valid settings class.
    """
    found: list[str] = []
    for prefix, registration in registry.settings.items():
        check_settings_class(prefix, registration.value, registration.plugin.label)
        try:
            instance = load_settings(registration.value)
            if loaded is not None:
                loaded[prefix] = instance
        except ConfigurationError as exc:
            problems = _problems(exc)
            found.extend(problems)
            count = f"{len(problems)} setting{'s' if len(problems) != 1 else ''}"
            warnings.warn(
                BadSettingWarning(
                    f"{registration.plugin.label}: {count} with a bad value, which stops "
                    f"only what uses the plugin's settings:\n"
                    + "\n".join(problems)
                    + f"\nfix: correct or unset {'it' if len(problems) == 1 else 'them'} "
                    "(in the environment or .env)"
                ),
                stacklevel=3,
            )
    return [line.strip() for line in found]


def known_setting_fields(registry: Registry) -> list[SettingField]:
    """Core's fields and those of every registered plugin settings class."""
    fields = setting_fields(Settings)
    for registration in registry.settings.values():
        if isinstance(registration.value, type) and issubclass(registration.value, BaseSettings):
            fields.extend(setting_fields(registration.value))
    return fields


def warn_about_unknown_variables(registry: Registry) -> list[str]:
    """Warn about each ``OSTINATO_*`` variable (environment or ``.env``) nobody reads."""
    names = set(environment()) | set(env_file_values(Settings))
    return warn_unknown_variables(known_setting_fields(registry), names, stacklevel=3)
