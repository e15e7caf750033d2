"""What every ``ostinato`` subcommand starts from: the settings and the loaded plugins.

Loading is done once per run, through the same decision functions as the container, but
without building a client: ``ostinato plugins`` and ``ostinato config`` must work before a
model is configured.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ostinato.config import Settings, create_plugin_manager, load_core_settings
from ostinato.errors import OstinatoError
from ostinato.plugins import PluginManager, Registry, collect_registry

__all__ = ["CliContext", "load_context"]


@dataclass
class CliContext:
    """The state a subcommand works with.

    Attributes:
        settings: core settings (``None`` when they could not be loaded).
        plugin_manager: the loaded plugins (``None`` when loading failed).
        registry: what they registered (``None`` when loading failed).
        error: why loading failed, to report when a command needs what is missing.
    """

    settings: Settings | None = None
    plugin_manager: PluginManager | None = None
    registry: Registry | None = None
    error: OstinatoError | None = field(default=None)

    def loaded(self) -> tuple[Settings, PluginManager, Registry]:
        """The settings, plugin manager and registry.

        Raises:
            OstinatoError: the error that stopped loading them.
        """
        if self.error is not None:
            raise self.error
        if self.settings is None or self.plugin_manager is None or self.registry is None:
            raise OstinatoError("the settings and plugins were not loaded")
        return self.settings, self.plugin_manager, self.registry


def load_context() -> CliContext:
    """Load the settings and the plugins, keeping the error instead of raising it."""
    context = CliContext()
    try:
        context.settings = load_core_settings()
        context.plugin_manager = create_plugin_manager(context.settings)
        context.registry = collect_registry(context.plugin_manager)
    except OstinatoError as exc:
        context.error = exc
    return context
