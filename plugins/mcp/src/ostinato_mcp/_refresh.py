"""Tools that change during a turn: an advisor inside the tool loop that, before each
model round, offers a toolset's tools as they are now (read again where they are stale:
a change announced, a ``ttlMs`` run out).

A client awaits the toolset before each turn (``aget_tool_callbacks``), so a change is
picked up by the next turn anyway; within one turn the tool list is fixed unless this
advisor is in the chain::

    toolset = McpToolset([...])
    answer = await client.prompt(q).tools(toolset).advisors(toolset.refresh_advisor())...

The toolset's tools keep their place in the request's tool list; their order is the
servers' stable order (see ``_listing``), so a change alters the end of the list only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ostinato.advisors import BaseAdvisor, ChatClientRequest, Ordered
from ostinato.prompt import ToolCallingChatOptions

if TYPE_CHECKING:
    from ostinato.advisors import AdvisorChain
    from ostinato_mcp._toolset import McpToolset

__all__ = ["McpToolRefreshAdvisor"]


class McpToolRefreshAdvisor(BaseAdvisor):
    """Before each round, the current tools of ``toolset`` in place of the ones the
    request was built with (nothing is read when none is stale).

    Args:
        toolset: the servers whose tools it keeps current.
        order: its place in the chain (default: inside the tool loop).
    """

    __slots__ = ("_order", "toolset")

    DEFAULT_ORDER: ClassVar[int] = Ordered.LOWEST_PRECEDENCE - 3000

    def __init__(self, toolset: McpToolset, order: int = DEFAULT_ORDER) -> None:
        self.toolset = toolset
        self._order = order

    @property
    def order(self) -> int:
        """Inside the tool loop, so it runs once per round."""
        return self._order

    def _owned(self, callback: object) -> bool:
        server = getattr(callback, "server", None)
        return server is not None and any(server is s for s in self.toolset.servers)

    async def before(self, request: ChatClientRequest, chain: AdvisorChain) -> ChatClientRequest:
        """The request with the toolset's current tools, when they differ from those it
        carries (read again first where stale)."""
        options = request.prompt.options
        if not isinstance(options, ToolCallingChatOptions):
            return request
        callbacks = list(options.tool_callbacks)
        places = [i for i, c in enumerate(callbacks) if self._owned(c)]
        if not places:
            return request
        if self.toolset.needs_refresh:
            fresh = await self.toolset.aget_tool_callbacks()
        else:
            fresh = self.toolset.get_tool_callbacks()
        carried = [callbacks[i].tool_definition for i in places]
        if carried == [t.tool_definition for t in fresh]:
            return request
        kept = [c for c in callbacks if not self._owned(c)]
        at = places[0]
        updated = options.with_tool_callbacks((*kept[:at], *fresh, *kept[at:]))
        return request.copy(prompt=request.prompt.copy(options=updated))
