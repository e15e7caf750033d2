"""Core's own contributions, registered through the same hooks as any plugin.

Core registers the tool advisor ``default``: a
:class:`~ostinato.advisors.ToolCallingAdvisor` whose loop cap comes from
``OSTINATO_TOOLS__MAX_ITERATIONS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ostinato.plugins import (
    FactoryContext,
    PluginInfo,
    PluginOrigin,
    RegisterToolAdvisor,
    hookimpl,
)

if TYPE_CHECKING:
    from ostinato.advisors import ToolAdvisor
    from ostinato.settings import Settings
    from ostinato.tools import ToolCallingManager

__all__ = ["CORE_PLUGIN_NAME", "DEFAULT_TOOL_ADVISOR", "CorePlugin"]

#: The name core's built-in plugin is registered under.
CORE_PLUGIN_NAME: Final = "core"

#: The name of core's tool advisor.
DEFAULT_TOOL_ADVISOR: Final = "default"


class CorePlugin:
    """The plugin object holding core's hook implementations, configured by ``settings``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @staticmethod
    def info() -> PluginInfo:
        """How core appears among the plugins."""
        from ostinato import __version__

        return PluginInfo(
            name=CORE_PLUGIN_NAME,
            distribution="ostinato",
            version=__version__,
            origin=PluginOrigin.BUILTIN,
            value=f"{__name__}:CorePlugin",
        )

    @hookimpl
    def register_tool_advisors(self, register: RegisterToolAdvisor) -> None:
        """Register ``default``: a ``ToolCallingAdvisor`` with the loop settings of
        ``OSTINATO_TOOLS__*`` (cap, endings, usage limits)."""
        loop_settings = self.settings.tools.tool_loop_settings()

        def default(
            context: FactoryContext, tool_calling_manager: ToolCallingManager
        ) -> ToolAdvisor:
            from ostinato.advisors import ToolCallingAdvisor

            return ToolCallingAdvisor(tool_calling_manager=tool_calling_manager, **loop_settings)

        register(DEFAULT_TOOL_ADVISOR, default)

    def __repr__(self) -> str:
        return "CorePlugin()"
