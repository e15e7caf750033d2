"""The async runtime under the sync faces: the private event loop, the sync stream bridge,
and the tool thread pool.

Everything here is light to import: each part is imported on first use (PEP 562), and
the loop thread and the thread pool start on first use, never at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_package

if TYPE_CHECKING:
    from ostinato.runtime._cancel_scope import CancelScope as CancelScope
    from ostinato.runtime._loop import get_private_loop as get_private_loop
    from ostinato.runtime._loop import is_private_loop_thread as is_private_loop_thread
    from ostinato.runtime._loop import run_sync as run_sync
    from ostinato.runtime._steering import Steering as Steering
    from ostinato.runtime._sync_stream import DEFAULT_STREAM_BUFFER as DEFAULT_STREAM_BUFFER
    from ostinato.runtime._sync_stream import SyncStream as SyncStream
    from ostinato.runtime._sync_stream import iterate_sync as iterate_sync
    from ostinato.runtime._tool_pool import DEFAULT_TOOL_THREADS as DEFAULT_TOOL_THREADS
    from ostinato.runtime._tool_pool import run_in_tool_thread as run_in_tool_thread
    from ostinato.runtime._tool_pool import set_tool_thread_pool_size as set_tool_thread_pool_size
    from ostinato.runtime._tool_pool import tool_thread_pool_size as tool_thread_pool_size
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "CancelScope": "ostinato.runtime._cancel_scope",
            "get_private_loop": "ostinato.runtime._loop",
            "is_private_loop_thread": "ostinato.runtime._loop",
            "run_sync": "ostinato.runtime._loop",
            "Steering": "ostinato.runtime._steering",
            "DEFAULT_STREAM_BUFFER": "ostinato.runtime._sync_stream",
            "SyncStream": "ostinato.runtime._sync_stream",
            "iterate_sync": "ostinato.runtime._sync_stream",
            "DEFAULT_TOOL_THREADS": "ostinato.runtime._tool_pool",
            "run_in_tool_thread": "ostinato.runtime._tool_pool",
            "set_tool_thread_pool_size": "ostinato.runtime._tool_pool",
            "tool_thread_pool_size": "ostinato.runtime._tool_pool",
        },
    )
