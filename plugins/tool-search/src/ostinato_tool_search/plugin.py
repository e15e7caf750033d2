"""The ``tool-search`` plugin's hook implementations (entry point ``ostinato: tool-search``).

Import-light on purpose: only ``ostinato.plugins`` is imported here; the advisor, the
indexes and pydantic-settings are imported by the hooks and the factory when they run,
so loading the plugin costs almost nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import FactoryContext, hookimpl

if TYPE_CHECKING:
    from ostinato.settings import Settings
    from ostinato.tools import ToolCallingManager
    from ostinato_tool_search._advisor import ToolSearchToolCallingAdvisor
    from ostinato_tool_search._settings import ToolSearchSettings

__all__ = [
    "SETTINGS_PREFIX",
    "TOOL_ADVISOR_NAME",
    "create_tool_advisor",
    "register_settings",
    "register_tool_advisors",
    "tool_advisor_factory",
]

#: The name the advisor is registered under (``OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR``).
TOOL_ADVISOR_NAME: Final = "tool-search"
#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_TOOL_SEARCH_"


def create_tool_advisor(
    tool_calling_manager: ToolCallingManager,
    *,
    settings: Settings | None = None,
    plugin_settings: ToolSearchSettings | None = None,
) -> ToolSearchToolCallingAdvisor:
    """The ``tool-search`` factory: an advisor configured by ``OSTINATO_TOOL_SEARCH_*``,
    with core's loop settings (cap, endings, usage limits). The container passes both
    settings objects; without them they are read from the environment."""
    from ostinato_tool_search._factory import create_tool_search_advisor

    loop_settings = None if settings is None else settings.tools.tool_loop_settings()
    return create_tool_search_advisor(
        tool_calling_manager, plugin_settings, loop_settings=loop_settings
    )


def tool_advisor_factory(
    context: FactoryContext, tool_calling_manager: ToolCallingManager
) -> ToolSearchToolCallingAdvisor:
    """The registered ``tool-search`` factory: the plugin's settings and core's loop cap
    from the context."""
    from ostinato_tool_search._settings import ToolSearchSettings

    return create_tool_advisor(
        tool_calling_manager,
        settings=context.settings,
        plugin_settings=context.plugin_settings(ToolSearchSettings),
    )


@hookimpl
def register_tool_advisors(register: Any) -> None:
    """Register the ``tool-search`` tool advisor."""
    register(TOOL_ADVISOR_NAME, tool_advisor_factory)


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_tool_search.ToolSearchSettings` (``OSTINATO_TOOL_SEARCH_``)."""
    from ostinato_tool_search._settings import ToolSearchSettings

    register(SETTINGS_PREFIX, ToolSearchSettings)
