"""The async runtime under the sync faces: the private event loop, the sync stream bridge,
and the tool thread pool (DESIGN.md §10)."""

from ostinato.runtime._tool_pool import (
    DEFAULT_TOOL_THREADS,
    run_in_tool_thread,
    set_tool_thread_pool_size,
)

__all__ = ["DEFAULT_TOOL_THREADS", "run_in_tool_thread", "set_tool_thread_pool_size"]
