"""``CancelScope``: cancel a running turn from anywhere, and let it end well.

A request given a scope (``client.prompt(...).cancel_scope(scope)``) can be cancelled
from any thread or event loop with :meth:`CancelScope.cancel`. The tool loop runs the
model call and each batch of tools under :func:`until_cancelled`: on cancellation the
model request is cancelled, async tools are cancelled and sync tools abandoned (their
threads finish on their own; their results are dropped), and the turn ends with reason
``cancelled`` and an answer; the calls of the interrupted batch that finished keep their
results, the others are answered ``cancelled``. This module must not know the loop; it
only races work against a scope, and imports asyncio only when it does (``import
ostinato`` stays light).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

__all__ = ["CancelScope", "TurnCancelled", "until_cancelled", "until_cancelled_each"]

T = TypeVar("T")


class TurnCancelled(Exception):  # a signal between the scope and the loop, not an error
    """Raised inside the loop by :func:`until_cancelled` when its scope was cancelled
    (the loop turns it into a ``cancelled`` ending; callers never see it)."""


class CancelScope:
    """A cancel switch for the turns it is given to; thread-safe, one-way."""

    __slots__ = ("_cancelled", "_lock", "_reason", "_waiters")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._reason: str | None = None
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._cancelled

    @property
    def reason(self) -> str | None:
        """The reason given to :meth:`cancel`, if any."""
        return self._reason

    def cancel(self, reason: str | None = None) -> None:
        """Cancel every turn running under this scope, and every later one (from any
        thread; calling it again does nothing)."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            self._reason = reason
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(_settle, future)

    def _waiter(self) -> asyncio.Future[None]:
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._cancelled:
                future.set_result(None)
            else:
                self._waiters.append((loop, future))
        return future

    def _forget(self, future: asyncio.Future[None]) -> None:
        with self._lock:
            self._waiters = [(lp, f) for lp, f in self._waiters if f is not future]

    def __repr__(self) -> str:
        return f"<CancelScope cancelled={self._cancelled}>"


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def until_cancelled(scope: CancelScope | None, work: Awaitable[T]) -> T:
    """Await ``work``, unless ``scope`` is cancelled first: then cancel it, wait until it
    has stopped, and raise :class:`TurnCancelled`. Without a scope, just await it."""
    if scope is None:
        return await work
    import asyncio
    import inspect

    if scope.cancelled:
        if inspect.iscoroutine(work):
            work.close()  # never started: nothing to cancel
        raise TurnCancelled(scope.reason or "cancelled")
    task = asyncio.ensure_future(work)
    waiter = scope._waiter()
    try:
        await asyncio.wait((task, waiter), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise
    finally:
        scope._forget(waiter)
        waiter.cancel()
    if task.done():
        return task.result()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    raise TurnCancelled(scope.reason or "cancelled")


async def until_cancelled_each(scope: CancelScope, items: AsyncIterator[T]) -> AsyncIterator[T]:
    """``items``, each awaited with :func:`until_cancelled` (the stream's current read is
    cancelled with the scope)."""
    iterator = aiter(items)
    while True:
        item = await until_cancelled(scope, _next_or_end(iterator))
        if item is _END:
            return
        yield item


_END: Any = object()


async def _next_or_end(iterator: AsyncIterator[T]) -> Any:
    # A task cannot end with StopAsyncIteration: the end of the stream is a value here.
    try:
        return await anext(iterator)
    except StopAsyncIteration:
        return _END
