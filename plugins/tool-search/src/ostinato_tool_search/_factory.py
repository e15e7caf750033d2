"""Build the ``tool-search`` tool advisor from settings (what the plugin's factory calls)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ostinato_tool_search._advisor import ToolSearchToolCallingAdvisor
from ostinato_tool_search._eviction import (
    CompositeEvictionStrategy,
    EvictionStrategy,
    LruEvictionStrategy,
    TtlEvictionStrategy,
)
from ostinato_tool_search._index import ToolIndex
from ostinato_tool_search._keyword import KeywordToolIndex
from ostinato_tool_search._regex import RegexToolIndex
from ostinato_tool_search._settings import ToolSearchSettings

if TYPE_CHECKING:
    from ostinato.tools import ToolCallingManager

__all__ = ["create_tool_search_advisor", "load_tool_search_settings"]


def load_tool_search_settings() -> ToolSearchSettings:
    """The plugin's settings from the environment and ``.env``.

    Raises:
        ConfigurationError: a variable has a bad value (the message names it).
    """
    from ostinato.settings import load_settings

    return load_settings(ToolSearchSettings)


def _index_for(settings: ToolSearchSettings) -> ToolIndex:
    if settings.index == "regex":
        return RegexToolIndex()
    return KeywordToolIndex()


def _eviction_for(settings: ToolSearchSettings) -> EvictionStrategy:
    lru = LruEvictionStrategy(settings.max_sessions)
    if settings.session_ttl is None:
        return lru
    return CompositeEvictionStrategy(lru, TtlEvictionStrategy(settings.session_ttl))


def create_tool_search_advisor(
    tool_calling_manager: ToolCallingManager,
    settings: ToolSearchSettings | None = None,
    *,
    max_iterations: int | None = None,
    loop_settings: Mapping[str, Any] | None = None,
) -> ToolSearchToolCallingAdvisor:
    """A :class:`ToolSearchToolCallingAdvisor` configured by ``OSTINATO_TOOL_SEARCH_*``.

    Args:
        tool_calling_manager: runs the tool calls (the container's, with its limits).
        settings: the plugin settings (default: read from the environment).
        max_iterations: the loop cap (default: core's ``OSTINATO_TOOLS__MAX_ITERATIONS``,
            so switching tool advisors keeps the configured cap).
        loop_settings: the loop settings of core's ``OSTINATO_TOOLS__*`` (cap, endings,
            usage limits; ``ToolsSettings.tool_loop_settings()``; default: read from the
            environment); ``max_iterations``, when given, wins over theirs.

    Raises:
        ConfigurationError: a setting has a bad value.
    """
    if settings is None:
        settings = load_tool_search_settings()
    if loop_settings is None:
        from ostinato.settings import Settings, load_settings

        loop_settings = load_settings(Settings).tools.tool_loop_settings()
    loop = dict(loop_settings)
    if max_iterations is not None:
        loop["max_iterations"] = max_iterations
    return ToolSearchToolCallingAdvisor(
        tool_calling_manager=tool_calling_manager,
        **loop,
        tool_index=_index_for(settings),
        max_results=settings.max_results,
        accumulate=settings.accumulate,
        system_message_suffix=settings.system_message_suffix,
        eviction_strategy=_eviction_for(settings),
    )
