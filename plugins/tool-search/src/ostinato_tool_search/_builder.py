"""A fluent builder of :class:`ToolSearchToolCallingAdvisor`, for people coming from Spring.

Keyword arguments to the constructor do the same in Python; this mirrors Spring AI's
``ToolSearchToolCallingAdvisor.builder()`` and keeps its own type through :meth:`copy`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self, cast

from ostinato.advisors import ToolCallingAdvisorBuilder

if TYPE_CHECKING:
    from ostinato_tool_search._advisor import ToolSearchToolCallingAdvisor
    from ostinato_tool_search._eviction import EvictionStrategy
    from ostinato_tool_search._index import ToolIndex

__all__ = ["ToolSearchToolCallingAdvisorBuilder"]


class ToolSearchToolCallingAdvisorBuilder(ToolCallingAdvisorBuilder):
    """Collects the settings of a :class:`ToolSearchToolCallingAdvisor`; ``build()`` makes it.

    Validation happens in ``build()`` (e.g. ``tool_index(None)`` fails there).
    """

    __slots__ = ()

    def __init__(self, cls: type[Any] | None = None) -> None:
        if cls is None:
            from ostinato_tool_search._advisor import ToolSearchToolCallingAdvisor

            cls = ToolSearchToolCallingAdvisor
        super().__init__(cls)

    def tool_index(self, index: ToolIndex | None) -> Self:
        """Set where tools are indexed and searched."""
        return self.setting("tool_index", index)

    def max_results(self, count: int | None) -> Self:
        """Set how many names a search returns when the model does not say."""
        return self.setting("max_results", count)

    def accumulate(self, enabled: bool) -> Self:
        """Keep every tool found in the turn attached (``True``) or only the latest ones."""
        return self.setting("accumulate", enabled)

    def reference_tool_name_accumulation(self, enabled: bool) -> Self:
        """Spring AI's name for :meth:`accumulate`."""
        return self.accumulate(enabled)

    def system_message_suffix(self, text: str) -> Self:
        """Set the paragraph added to the system message."""
        return self.setting("system_message_suffix", text)

    def eviction_strategy(self, strategy: EvictionStrategy) -> Self:
        """Set which indexed sessions to forget."""
        return self.setting("eviction_strategy", strategy)

    def session_id_key(self, key: str) -> Self:
        """Set the advisor-context key holding the conversation id."""
        return self.setting("session_id_key", key)

    def copy(self) -> ToolSearchToolCallingAdvisorBuilder:
        """An independent builder of the same class and settings."""
        return super().copy()

    def build(self) -> ToolSearchToolCallingAdvisor:
        """Construct the advisor (validation errors surface here)."""
        return cast("ToolSearchToolCallingAdvisor", super().build())
