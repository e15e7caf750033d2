"""``toolSearchTool``: the one tool the model always sees, to find the others.

Its name and arguments (``query``, optional ``maxResults``) are Spring AI's, so
prompts written for Spring AI keep working. It returns the names of the matching tools
as a JSON array (``["weatherTool", "calculatorTool"]``); the advisor reads that answer in
the next round and attaches those tools. The session to search comes from the tool
context (:data:`SESSION_ID_TOOL_CONTEXT_KEY`), which the advisor sets each round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Final

from ostinato.tools import ToolContext, ToolDefinition, ToolMetadata
from ostinato_tool_search._index import ToolIndex, check_max_results

if TYPE_CHECKING:
    from ostinato.tools import FunctionToolCallback

__all__ = ["SEARCH_TOOL_NAME", "SESSION_ID_TOOL_CONTEXT_KEY", "ToolSearchTool"]

#: The search tool's name (Spring AI's).
SEARCH_TOOL_NAME: Final = "toolSearchTool"
#: Tool-context key holding the session the search tool searches (Spring AI's).
SESSION_ID_TOOL_CONTEXT_KEY: Final = "toolSearchToolSessionId"

_DESCRIPTION: Final = (
    "Search the registry of available tools to discover capabilities you do not have yet. "
    "Describe what you need in a few keywords; the answer lists the names of matching "
    "tools, best first, and those tools become callable in your next step."
)
_QUERY: Final = "What the tool should do, in a few keywords, e.g. 'weather forecast for a city'."
_MAX_RESULTS: Final = "How many tool names to return at most (optional; 1 or more)."


class ToolSearchTool:
    """The ``toolSearchTool`` callback (a :class:`~ostinato.tools.ToolCallback`).

    Args:
        tool_index: the index searched.
        max_results: how many names to return when the model does not say (``None``: the
            index's default). A ``maxResults`` from the model wins.
    """

    __slots__ = ("_callback", "_index", "_max_results")

    def __init__(self, tool_index: ToolIndex, max_results: int | None = None) -> None:
        from ostinato.tools import FunctionToolCallback  # builds a pydantic model: on use only

        self._index = tool_index
        self._max_results = check_max_results(max_results)
        self._callback: FunctionToolCallback = FunctionToolCallback(
            self.search, name=SEARCH_TOOL_NAME, description=_DESCRIPTION
        )

    @property
    def tool_index(self) -> ToolIndex:
        """The index searched."""
        return self._index

    @property
    def max_results(self) -> int | None:
        """The number of names returned when the model does not say."""
        return self._max_results

    @property
    def tool_definition(self) -> ToolDefinition:
        """``toolSearchTool``: arguments ``query`` (required) and ``maxResults``."""
        return self._callback.tool_definition

    @property
    def tool_metadata(self) -> ToolMetadata:
        """Default metadata: not return-direct, concurrent, no timeout."""
        return self._callback.tool_metadata

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """Run a search with the model's JSON ``arguments``; returns a JSON array of names."""
        return await self._callback.call(arguments, context)

    async def search(
        self,
        query: Annotated[str, _QUERY],
        maxResults: Annotated[int | None, _MAX_RESULTS] = None,  # Spring AI's spelling
        context: ToolContext | None = None,
    ) -> list[str]:
        """Search the session named in ``context`` for ``query``.

        Raises:
            LookupError: the tool context names no session (the tool was called outside
                the tool-search advisor).
        """
        session_id = context.get(SESSION_ID_TOOL_CONTEXT_KEY) if context is not None else None
        if session_id is None:
            raise LookupError(
                f"{SEARCH_TOOL_NAME} needs the tool context entry "
                f"{SESSION_ID_TOOL_CONTEXT_KEY!r}; it is set by ToolSearchToolCallingAdvisor"
            )
        limit = self._max_results if maxResults is None else max(1, maxResults)
        return await self._index.search(str(session_id), query, limit)

    def __repr__(self) -> str:
        return f"ToolSearchTool(tool_index={self._index!r}, max_results={self._max_results})"
