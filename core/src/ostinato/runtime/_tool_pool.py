"""The thread pool that runs sync tools, so they never block the event loop.

Each call runs inside a copy of the caller's context, so context variables set by the
application (request ids, tracing spans) reach the tool; ``loop.run_in_executor`` alone
does not copy them.
"""

from __future__ import annotations

import contextvars
import functools
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    # Slow to import: imported when the pool is first used.
    from concurrent.futures import ThreadPoolExecutor

__all__ = [
    "DEFAULT_TOOL_THREADS",
    "run_in_tool_thread",
    "set_tool_thread_pool_size",
    "tool_thread_pool_size",
]

T = TypeVar("T")

#: At least 32 threads: tools are usually I/O-bound (HTTP, databases), not CPU-bound.
DEFAULT_TOOL_THREADS = max(32, (os.cpu_count() or 1) + 4)

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_size = DEFAULT_TOOL_THREADS


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    pool = _pool
    if pool is None:
        from concurrent.futures import ThreadPoolExecutor

        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max_workers=_size, thread_name_prefix="ostinato-tool")
            pool = _pool
    return pool


def tool_thread_pool_size() -> int:
    """How many threads the sync-tool pool may use (``DEFAULT_TOOL_THREADS`` unless set)."""
    return _size


def set_tool_thread_pool_size(max_workers: int) -> None:
    """Resize the sync-tool thread pool (the current pool finishes its work first).

    Raises:
        TypeError: ``max_workers`` is not an ``int``.
        ValueError: ``max_workers`` is below 1.
    """
    global _pool, _size
    if isinstance(max_workers, bool) or not isinstance(max_workers, int):
        raise TypeError(
            f"max_workers must be an int, got {type(max_workers).__name__}: {max_workers!r}"
        )
    if max_workers < 1:
        raise ValueError(f"max_workers must be at least 1, got {max_workers}")
    with _lock:
        old, _pool, _size = _pool, None, max_workers
    if old is not None:
        old.shutdown(wait=False)


def _reset_after_fork() -> None:
    global _lock, _pool
    _lock = threading.Lock()  # another thread may have held it at fork time
    _pool = None  # its threads do not exist in the child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


async def run_in_tool_thread(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run ``func(*args, **kwargs)`` on the tool pool with the caller's context variables."""
    import asyncio

    loop = asyncio.get_running_loop()
    ctx = contextvars.copy_context()
    call = functools.partial(ctx.run, func, *args, **kwargs)
    return await loop.run_in_executor(_get_pool(), call)
