"""The async runtime under the sync faces: the private event loop, the sync stream bridge,
and the tool thread pool.

Everything here is light to import: each part is imported on first use (PEP 562), and
the loop thread and the thread pool start on first use, never at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports

if TYPE_CHECKING:
    from ostinato.runtime._cancel_scope import CancelScope
    from ostinato.runtime._loop import get_private_loop, is_private_loop_thread, run_sync
    from ostinato.runtime._sync_stream import DEFAULT_STREAM_BUFFER, SyncStream, iterate_sync
    from ostinato.runtime._tool_pool import (
        DEFAULT_TOOL_THREADS,
        run_in_tool_thread,
        set_tool_thread_pool_size,
        tool_thread_pool_size,
    )

__all__ = [
    "DEFAULT_STREAM_BUFFER",
    "DEFAULT_TOOL_THREADS",
    "CancelScope",
    "SyncStream",
    "get_private_loop",
    "is_private_loop_thread",
    "iterate_sync",
    "run_in_tool_thread",
    "run_sync",
    "set_tool_thread_pool_size",
    "tool_thread_pool_size",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CancelScope": "ostinato.runtime._cancel_scope",
        "get_private_loop": "ostinato.runtime._loop",
        "is_private_loop_thread": "ostinato.runtime._loop",
        "run_sync": "ostinato.runtime._loop",
        "DEFAULT_STREAM_BUFFER": "ostinato.runtime._sync_stream",
        "SyncStream": "ostinato.runtime._sync_stream",
        "iterate_sync": "ostinato.runtime._sync_stream",
        "DEFAULT_TOOL_THREADS": "ostinato.runtime._tool_pool",
        "run_in_tool_thread": "ostinato.runtime._tool_pool",
        "set_tool_thread_pool_size": "ostinato.runtime._tool_pool",
        "tool_thread_pool_size": "ostinato.runtime._tool_pool",
    },
)
