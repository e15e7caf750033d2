"""The factory context: the one argument every factory a plugin registered is called with.

A factory takes the context first, then what its hook adds (see
:data:`~ostinato.plugins.HOOKS`)::

    def create_model(context: FactoryContext, model_name: str) -> ChatModel:
        settings = context.plugin_settings(AcmeSettings)
        ...

The context carries the registry, core's settings and the plugins' loaded settings, so a
factory never reads the environment a second time and a caller configuring the container
(``build_container(settings=..., plugin_settings=...)``) configures the factories too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

    from ostinato.plugins._info import PluginInfo
    from ostinato.plugins._registry import Registry
    from ostinato.settings import Settings

__all__ = ["FactoryContext"]

S = TypeVar("S", bound="BaseSettings")


@dataclass(frozen=True, slots=True)
class FactoryContext:
    """What a plugin's factory is given: the registry, core's settings, plugin settings.

    Attributes:
        registry: every plugin's contributions (a memory advisor finds the repository
            its settings name, whichever plugin registered it).
        settings: core's :class:`~ostinato.settings.Settings` (``OSTINATO_MODEL``,
            ``OSTINATO_TOOLS__MAX_ITERATIONS``...).
        loaded_settings: every plugin's settings as the container loaded them, by prefix
            (read them with :meth:`plugin_settings`).
        plugin: the plugin whose factory is being called (``None`` outside a call).
    """

    registry: Registry
    settings: Settings
    loaded_settings: Mapping[str, BaseSettings] = field(default_factory=dict)
    plugin: PluginInfo | None = None

    def plugin_settings(self, settings_class: type[S]) -> S:
        """The loaded instance of ``settings_class`` (a plugin's settings class).

        The instance the container loaded (or was given) when the class is registered;
        otherwise it is read from the environment now.

        Raises:
            ConfigurationError: the class had to be read and a variable has a bad value.
        """
        for loaded in self.loaded_settings.values():
            if type(loaded) is settings_class:
                return loaded
        from ostinato.settings import load_settings

        return load_settings(settings_class)

    def own_settings(self) -> BaseSettings | None:
        """The loaded settings of :attr:`plugin`, when it registered exactly one class."""
        if self.plugin is None:
            return None
        prefixes = [p for p, r in self.registry.settings.items() if r.plugin == self.plugin]
        return self.loaded_settings.get(prefixes[0]) if len(prefixes) == 1 else None

    def for_plugin(self, plugin: PluginInfo) -> FactoryContext:
        """This context, for a factory of ``plugin``."""
        return dataclasses.replace(self, plugin=plugin)

    def __repr__(self) -> str:
        who = "" if self.plugin is None else f"plugin={self.plugin.name!r}, "
        return f"FactoryContext({who}settings={sorted(self.loaded_settings)})"
