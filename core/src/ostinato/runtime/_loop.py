"""The private event loop that runs ostinato's sync faces, and :func:`run_sync`.

One loop per process, started lazily on a daemon thread named ``ostinato-loop`` and
recreated in the child after ``fork``. Sync faces (``call().content()``...) hand their
coroutine to this loop and block the calling thread for the result, which works whether
or not the calling thread runs an event loop of its own (plain scripts, ``async def``
code, Jupyter cells).

Blocking *on the loop's own thread* would deadlock, so it is refused with
:class:`~ostinato.errors.SyncFromLoopError`. This module must not import the rest of
ostinato beyond ``errors``: ``tools`` and ``client`` build on it.
"""

from __future__ import annotations

import atexit
import contextvars
import inspect
import logging
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar, cast

from ostinato.errors import SyncFromLoopError

if TYPE_CHECKING:
    # asyncio costs tens of milliseconds to import: it is imported when the loop starts.
    import asyncio

__all__ = ["get_private_loop", "is_private_loop_thread", "run_sync"]

T = TypeVar("T")

_log = logging.getLogger("ostinato.runtime")

#: The name of the private loop's thread (what debuggers and ``threading.enumerate`` show).
LOOP_THREAD_NAME = "ostinato-loop"

# Windows cannot interrupt a blocking lock wait with Ctrl-C; waiting in slices lets the
# KeyboardInterrupt through. POSIX waits are interruptible, so they block outright.
_WAIT_SLICE: float | None = 0.1 if sys.platform == "win32" else None

#: How long an interrupted sync call waits for its cancelled task to end, in seconds.
CANCEL_TIMEOUT: Final = 5.0

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_atexit_registered = False
# Loops inherited from the parent over fork: kept referenced so they are never collected
# (closing them from the child is impossible: they still look "running" there).
_inherited_loops: list[asyncio.AbstractEventLoop] = []
# Tasks started from other threads, held until done: the loop only keeps weak references.
_tasks: set[asyncio.Task[Any]] = set()


def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
    import asyncio

    asyncio.set_event_loop(loop)
    while not loop.is_closed():
        try:
            loop.run_forever()
        except BaseException:
            # A task raising KeyboardInterrupt/SystemExit ends run_forever; the loop lives on.
            _log.debug("ostinato's private event loop resumed after an exception", exc_info=True)
            continue
        break  # stopped on purpose (interpreter exit)
    _close_loop(loop)


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left, finish async generators, close the loop (bounded, at exit)."""
    import asyncio

    async def finish() -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=0.5)
        await asyncio.wait_for(loop.shutdown_asyncgens(), timeout=0.5)

    try:
        loop.run_until_complete(finish())
    except Exception:  # exiting must never fail on a stuck or broken task
        _log.debug("cleaning up ostinato's private event loop failed", exc_info=True)
    finally:
        loop.close()


def get_private_loop() -> asyncio.AbstractEventLoop:
    """The process's private event loop, started on first use (thread-safe)."""
    loop = _loop
    if loop is not None:
        return loop
    with _lock:
        if _loop is None:
            _start_locked()
        assert _loop is not None
        return _loop


def _start_locked() -> None:
    global _loop, _thread, _atexit_registered
    import asyncio

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=_run_loop, args=(loop,), name=LOOP_THREAD_NAME, daemon=True)
    thread.start()
    _loop, _thread = loop, thread
    if not _atexit_registered:
        atexit.register(_stop_at_exit)
        _atexit_registered = True


def _stop_at_exit() -> None:
    global _loop, _thread
    with _lock:
        loop, thread = _loop, _thread
        _loop = _thread = None  # a later atexit handler using run_sync gets a fresh loop
    if loop is None or thread is None or not thread.is_alive():
        return
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=1.0)  # bounded: exiting must never hang on a stuck task


def _reset_after_fork() -> None:
    global _lock, _loop, _thread
    _lock = threading.Lock()  # another thread may have held it at fork time
    if _loop is not None:
        _inherited_loops.append(_loop)
    _loop = None
    _thread = None
    _tasks.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def is_private_loop_thread() -> bool:
    """True when the calling thread is the private event loop's thread."""
    thread = _thread
    return thread is not None and thread.ident == threading.get_ident()


def _refusal(what: str, async_name: str | None) -> SyncFromLoopError:
    twin = (
        f"use `await ....{async_name}()` instead"
        if async_name
        else "use the async twin (the same method with an `a` prefix) and await it instead"
    )
    return SyncFromLoopError(
        f"{what} was called on the thread of ostinato's private event loop, where "
        f"blocking for the result would deadlock; {twin}"
    )


def _wait(done: threading.Lock) -> None:
    """Block until ``done`` (a lock held until the task ends) can be taken; leave it free."""
    if _WAIT_SLICE is None:
        done.acquire()
    else:
        while not done.acquire(True, _WAIT_SLICE):
            pass
    done.release()


class _LoopTask(Generic[T]):
    """A coroutine running as one task on the private loop, watched from another thread.

    It holds no reference to whoever watches it, so an abandoned watcher can still be
    garbage-collected (and cancel the task from its finaliser).
    """

    __slots__ = ("_done", "_loop", "_pid", "_task")

    def __init__(self, coro: Coroutine[Any, Any, T]) -> None:
        self._loop = get_private_loop()
        self._pid = os.getpid()
        # Held until the task ends: a bare lock, not a threading.Event (whose condition
        # and waiter list are Python code run on both threads at every hand-off).
        self._done = threading.Lock()
        self._done.acquire()
        self._task: asyncio.Task[T] | None = None
        # The handle runs in a copy of the caller's context, so the task inherits the
        # caller's context variables.
        self._loop.call_soon_threadsafe(self._start, coro, context=contextvars.copy_context())

    def _start(self, coro: Coroutine[Any, Any, T]) -> None:
        task = self._loop.create_task(coro)
        self._task = task
        _tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[T]) -> None:
        _tasks.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved here: the watcher re-raises it, or has given up
        self._done.release()

    @property
    def is_current_process(self) -> bool:
        """False in a forked child, where the loop the task ran on no longer runs."""
        return self._pid == os.getpid()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the task is done (at most ``timeout`` seconds); True if it is."""
        if timeout is not None:
            if not self._done.acquire(True, max(timeout, 0.0)):
                return False
            self._done.release()
            return True
        _wait(self._done)
        return True

    def result(self) -> T:
        """Block for the task's result; its exception is re-raised as the same object."""
        _wait(self._done)
        task = self._task
        assert task is not None  # _done is only freed by the task's done callback
        return task.result()

    def cancel(self) -> None:
        """Ask the loop to cancel the task (from any thread; returns at once)."""
        if self.is_current_process and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._cancel_on_loop)

    def _cancel_on_loop(self) -> None:
        if self._task is not None:  # always set: _start was queued before this
            self._task.cancel()


def _as_coroutine(
    awaitable: Awaitable[T] | Callable[[], Awaitable[T]],
) -> Coroutine[Any, Any, T]:
    if inspect.iscoroutine(awaitable):
        return cast(Coroutine[Any, Any, T], awaitable)
    if callable(awaitable):
        factory = awaitable

        async def from_factory() -> T:
            return await factory()

        return from_factory()

    async def await_it() -> T:
        return await awaitable

    return await_it()


def run_sync(
    awaitable: Awaitable[T] | Callable[[], Awaitable[T]],
    *,
    async_name: str | None = None,
) -> T:
    """Run a coroutine on the private loop and block the calling thread for its result.

    ``awaitable`` is a coroutine, any awaitable, or a function of no arguments returning
    one (called on the private loop). The caller's context variables are visible to it.
    Its exception propagates unchanged (the same object). If the waiting thread is
    interrupted (``KeyboardInterrupt`` or any other exception while waiting), the task is
    cancelled on the loop, its cleanup is awaited (at most :data:`CANCEL_TIMEOUT`
    seconds; a second interruption stops the wait) and the interruption propagates.

    Raises:
        SyncFromLoopError: when called on the private loop's own thread, where waiting
            would deadlock. ``async_name`` names the async twin the message recommends
            (``run_sync(coro, async_name="acontent")`` says ``await ....acontent()``).
            A coroutine passed in is closed first, so it warns of nothing.
    """
    if is_private_loop_thread():
        if inspect.iscoroutine(awaitable):
            awaitable.close()
        raise _refusal("a blocking (sync) method", async_name)
    handle = _LoopTask(_as_coroutine(awaitable))
    try:
        return handle.result()
    except BaseException:
        if not handle.wait(0):  # interrupted while waiting, not failed on the loop
            handle.cancel()
            # Bounded: the task's cleanup (a cancelled turn telling its listeners how it
            # ended) runs before the interruption reaches the caller.
            handle.wait(CANCEL_TIMEOUT)
        raise
