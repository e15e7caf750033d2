"""The thread pool that runs sync tools, so they never block the event loop.

Each call runs inside a copy of the caller's context, so context variables set by the
application (request ids, tracing spans) reach the tool; ``loop.run_in_executor`` alone
does not copy them.

The pool is ostinato's own, not a ``concurrent.futures.ThreadPoolExecutor``, for two
reasons. A tool abandoned at its timeout keeps its thread until it returns, and the
executor's threads are joined at interpreter exit: one tool sleeping for a minute would
hold the whole process for that minute. Here the threads are daemon threads that nothing
joins, so the process exits as soon as the application is done. And an outcome travels
back to the event loop as a plain value, never through a future's exception: asyncio
cannot carry ``StopIteration`` that way (the awaiting task would wait for ever) and turns
``concurrent.futures.CancelledError`` into a cancellation of the awaiting task.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    # Slow to import: imported when the pool is first used.
    import asyncio

__all__ = [
    "DEFAULT_TOOL_THREADS",
    "run_in_tool_thread",
    "set_tool_thread_pool_size",
    "tool_thread_pool_size",
]

T = TypeVar("T")

#: At least 32 threads: tools are usually I/O-bound (HTTP, databases), not CPU-bound.
DEFAULT_TOOL_THREADS = max(32, (os.cpu_count() or 1) + 4)

#: The prefix of the pool's thread names (what debuggers and ``threading.enumerate`` show).
THREAD_NAME_PREFIX = "ostinato-tool"


class _Job:
    """One call waiting for, or running on, a pool thread; it reports to its event loop."""

    __slots__ = ("abandoned", "call", "future", "loop")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        future: asyncio.Future[tuple[bool, Any]],
        call: Callable[[], Any],
    ) -> None:
        self.loop = loop
        self.future = future
        self.call = call
        # Set on the loop when nobody waits any more (cancelled, timed out); a job not
        # started yet is then skipped. Reading a bool set by another thread is atomic.
        self.abandoned = False

    def run(self) -> None:
        if self.abandoned:
            return
        try:
            outcome: tuple[bool, Any] = (True, self.call())
        except BaseException as error:  # every kind: it is the caller's to raise, not ours
            outcome = (False, error)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            self.loop.call_soon_threadsafe(self._deliver, outcome)

    def _deliver(self, outcome: tuple[bool, Any]) -> None:
        if not self.future.done():
            self.future.set_result(outcome)


class _ToolThreadPool:
    """Daemon threads started on demand, up to ``max_workers``, reused while alive."""

    __slots__ = ("_closed", "_idle", "_jobs", "_lock", "_max_workers", "_pending", "_threads")

    def __init__(self, max_workers: int) -> None:
        self._max_workers = max_workers
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0  # threads waiting for a job, or started and about to
        self._pending = 0  # jobs queued and not yet taken
        self._closed = False

    def submit(self, job: _Job) -> None:
        """Queue ``job``; start a thread if every thread is busy and the cap allows."""
        with self._lock:
            if self._closed:
                name = None
            else:
                self._pending += 1
                self._jobs.put(job)
                if self._pending <= self._idle or self._threads >= self._max_workers:
                    return
                self._threads += 1
                self._idle += 1
                name = f"{THREAD_NAME_PREFIX}_{self._threads - 1}"
        if name is None:  # resized meanwhile: this pool's threads are ending
            _get_pool().submit(job)
            return
        # Daemon, and never joined: an abandoned tool must not keep the process alive.
        threading.Thread(target=self._work, name=name, daemon=True).start()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            with self._lock:
                self._idle -= 1
                if job is None:
                    self._threads -= 1
                    return
                self._pending -= 1
            job.run()
            del job  # the outcome is delivered: hold nothing while idle
            with self._lock:
                self._idle += 1

    def shutdown(self) -> None:
        """Let each thread end once the jobs queued before this call are done."""
        with self._lock:
            self._closed = True
            for _ in range(self._threads):
                self._jobs.put(None)


_lock = threading.Lock()
_pool: _ToolThreadPool | None = None
_size = DEFAULT_TOOL_THREADS


def _get_pool() -> _ToolThreadPool:
    global _pool
    pool = _pool
    if pool is None:
        with _lock:
            if _pool is None:
                _pool = _ToolThreadPool(_size)
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
        old.shutdown()


def _reset_after_fork() -> None:
    global _lock, _pool
    _lock = threading.Lock()  # another thread may have held it at fork time
    _pool = None  # its threads do not exist in the child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def _abandon(job: _Job) -> Callable[[asyncio.Future[tuple[bool, Any]]], None]:
    def done(future: asyncio.Future[tuple[bool, Any]]) -> None:
        if future.cancelled():
            job.abandoned = True

    return done


async def run_in_tool_thread(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run ``func(*args, **kwargs)`` on the tool pool with the caller's context variables.

    Whatever ``func`` raises is raised here, the same object — every kind, ``KeyboardInterrupt``
    and ``asyncio.CancelledError`` included. ``StopIteration``, which no coroutine can
    raise, arrives as the ``RuntimeError`` Python puts in its place (its ``__cause__`` is
    the ``StopIteration``), exactly as from an ``async def`` function.

    Cancelling the caller abandons the call: one not started yet never starts; one
    running finishes in its thread and its outcome is dropped. That thread is a daemon
    thread: it does not keep the process alive at exit.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    future: asyncio.Future[tuple[bool, Any]] = loop.create_future()
    ctx = contextvars.copy_context()
    job = _Job(loop, future, lambda: ctx.run(func, *args, **kwargs))
    future.add_done_callback(_abandon(job))
    _get_pool().submit(job)
    ok, value = await future
    if ok:
        result: T = value
        return result
    raise value
