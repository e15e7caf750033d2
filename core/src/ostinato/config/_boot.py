"""Boot: core's settings, the plugin manager, and the registry of what plugins contribute.

The first decisions of auto-configuration, as plain functions testable without the
container: read core's settings (reporting plugins' bad values in the same error), load
the plugins, run their hooks and check their settings.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ostinato.config._core_plugin import CorePlugin
from ostinato.errors import ConfigurationError
from ostinato.plugins import PluginInfo, PluginManager, PluginOrigin, Registry, collect_registry
from ostinato.settings import Settings, load_plugin_settings, load_settings
from ostinato.settings._fields import environment
from ostinato.settings._plugin_settings import (
    warn_about_bad_settings,
    warn_about_unknown_variables,
)
from ostinato.settings._problems import problems_message
from ostinato.settings._settings import split_commas

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

__all__ = [
    "checked_plugin_settings",
    "create_plugin_manager",
    "create_registry",
    "load_core_settings",
    "plugin_selection",
]

# The plugin settings each registry's check loaded (by the registry's id, forgotten with
# it): the container's ``plugin_settings`` takes them instead of reading them again.
_checked: dict[int, dict[str, BaseSettings]] = {}


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
    try:
        manager = create_plugin_manager(plugin_selection(), plugins, entry_points)
        load_plugin_settings(collect_registry(manager))
    except ConfigurationError as error:
        return _problem_lines(error)
    except Exception:
        return []
    return []


def plugin_selection() -> Settings:
    """Core settings holding only which plugins to load (``OSTINATO_LOAD_PLUGINS``,
    ``OSTINATO_DISABLE_PLUGINS``), read as text: what loads the plugins when core's
    settings have bad values, to report the plugins' too."""
    environ = environment()
    load = environ.get("OSTINATO_LOAD_PLUGINS")
    return Settings.model_construct(
        load_plugins=None if load is None else split_commas(load),
        disable_plugins=split_commas(environ.get("OSTINATO_DISABLE_PLUGINS", "")),
        strict_plugins=False,
    )


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
    """Run the plugins' hooks, then check their settings.

    A setting is checked where it is used: bad values of a plugin's settings get a
    :class:`~ostinato.config.BadSettingWarning` here, and are an error only where a
    factory or command reads them. Warns too
    (:class:`~ostinato.config.UnknownSettingWarning`) about ``OSTINATO_*`` variables that
    no settings class reads.

    Raises:
        PluginError: a name is registered twice, or a settings class is invalid.
    """
    registry = collect_registry(plugin_manager)
    loaded: dict[str, BaseSettings] = {}
    warn_about_bad_settings(registry, loaded=loaded)
    warn_about_unknown_variables(registry)
    _checked[id(registry)] = loaded
    weakref.finalize(registry, _checked.pop, id(registry), None)
    return registry


def checked_plugin_settings(registry: Registry) -> dict[str, BaseSettings]:
    """Each plugin's settings, loaded, by prefix; a class with bad values left out (what
    :func:`~ostinato.settings.load_plugin_settings` gives with ``strict=False``).

    For a registry made by :func:`create_registry` these are the settings its check
    loaded (each plugin's settings are read once per container); for another, they are
    read now.

    Raises:
        PluginError: a registered class is not a valid settings class.
    """
    loaded = _checked.get(id(registry))
    if loaded is None:
        return load_plugin_settings(registry, strict=False)
    return dict(loaded)
