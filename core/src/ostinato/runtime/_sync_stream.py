"""The bridge that turns an async stream into a sync iterator: :func:`iterate_sync`.

The whole async iteration runs as ONE task on the private loop, consuming the async
iterator under ``contextlib.aclosing`` and feeding a bounded buffer that the sync
iterator reads. We deliberately do not drive ``__anext__`` one item at a time from the
consuming thread (one ``run_sync(anext(it))`` per item): each step would run in a new
task, so an ``asyncio.timeout()`` (or a task group, or a context variable) entered inside
the pipeline in one step would be exited or fire in another task — the timeout cancels
the wrong task or raises "Timeout should be used inside a task".

Closing the iterator (``close()``, leaving a ``with`` block, or dropping it: ``break``
out of ``for x in stream`` on a temporary) cancels the task and waits, bounded, until
the async generators' ``finally`` blocks have run, so HTTP responses are released at
once. This module must not import the rest of ostinato beyond ``errors``.
"""

from __future__ import annotations

import contextlib
import enum
import queue
from collections.abc import AsyncIterator, Callable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar, cast

from ostinato.runtime._loop import (
    _WAIT_SLICE,
    _LoopTask,
    _refusal,
    get_private_loop,
    is_private_loop_thread,
)

if TYPE_CHECKING:
    import asyncio  # imported when a stream starts: it is slow to import

__all__ = ["DEFAULT_STREAM_BUFFER", "SyncStream", "iterate_sync"]

T = TypeVar("T")

#: How many items the async side may run ahead of a slow sync reader.
DEFAULT_STREAM_BUFFER: Final = 32
#: How long ``close()`` waits for the async side's ``finally`` blocks, in seconds.
CLOSE_TIMEOUT: Final = 5.0


class _Kind(enum.Enum):
    ITEM = enum.auto()
    END = enum.auto()
    ERROR = enum.auto()


class _Channel(Generic[T]):
    """What the producer task and the sync reader share (never the reader itself)."""

    __slots__ = ("items", "loop", "slots")

    def __init__(self, loop: asyncio.AbstractEventLoop, maxsize: int) -> None:
        import asyncio

        self.loop = loop
        # Free buffer places: the producer takes one before asking for the next item, the
        # reader gives one back (on the loop) for each item it takes.
        self.slots = asyncio.Semaphore(maxsize)
        self.items: queue.SimpleQueue[tuple[_Kind, Any]] = queue.SimpleQueue()

    def release_slot(self) -> None:
        """Called from the reader's thread: one more place is free."""
        self.loop.call_soon_threadsafe(self.slots.release)

    def get(self) -> tuple[_Kind, Any]:
        """Block until the next entry (waiting in slices where Ctrl-C needs it)."""
        if _WAIT_SLICE is None:
            return self.items.get()
        while True:
            try:
                return self.items.get(timeout=_WAIT_SLICE)
            except queue.Empty:
                continue


def _closing(iterator: AsyncIterator[T]) -> contextlib.AbstractAsyncContextManager[Any]:
    """``contextlib.aclosing`` for an async iterator that can be closed, else a no-op."""
    if hasattr(iterator, "aclose"):
        return contextlib.aclosing(cast(Any, iterator))
    return contextlib.nullcontext(iterator)


async def _produce(factory: Callable[[], AsyncIterator[T]], channel: _Channel[T]) -> None:
    import asyncio

    put = channel.items.put
    try:
        iterator = factory()
        async with _closing(iterator):
            while True:
                await channel.slots.acquire()
                try:
                    item = await anext(iterator)
                except StopAsyncIteration:
                    break
                put((_Kind.ITEM, item))
    except asyncio.CancelledError as exc:
        put((_Kind.ERROR, exc))
        raise
    except BaseException as exc:
        # KeyboardInterrupt/SystemExit too: they belong to the reader's thread, not the loop.
        put((_Kind.ERROR, exc))
    else:
        put((_Kind.END, None))


class SyncStream(Iterator[T]):
    """A sync iterator over an async stream running on the private loop.

    Use it in a ``for`` loop, and preferably in a ``with`` block (or call :meth:`close`)
    when you may stop early; an abandoned stream is closed when it is garbage-collected.
    The async side starts on the first ``next()``. Exceptions raised by the async side
    are re-raised here (the same object) after the items that preceded them; a
    ``StopIteration`` (from an async iterator's ``__anext__`` or the factory) comes as a
    ``RuntimeError`` whose ``__cause__`` it is, never as a silent end of the stream.
    """

    __slots__ = ("_async_name", "_channel", "_closed", "_factory", "_handle", "_maxsize")

    def __init__(
        self,
        agen_factory: Callable[[], AsyncIterator[T]],
        *,
        maxsize: int = DEFAULT_STREAM_BUFFER,
        async_name: str | None = None,
    ) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be an int of at least 1, got {maxsize!r}")
        self._factory = agen_factory
        self._maxsize = maxsize
        self._async_name = async_name
        self._channel: _Channel[T] | None = None
        self._handle: _LoopTask[None] | None = None
        self._closed = False

    def _start(self) -> _Channel[T]:
        if is_private_loop_thread():
            raise _refusal("iterating a sync stream", self._async_name)
        channel: _Channel[T] = _Channel(get_private_loop(), self._maxsize)
        self._channel = channel
        self._handle = _LoopTask(_produce(self._factory, channel))
        return channel

    def __iter__(self) -> SyncStream[T]:
        return self

    def __next__(self) -> T:
        if self._closed:
            raise StopIteration
        channel = self._channel or self._start()
        try:
            kind, value = channel.get()
        except BaseException:
            self.close()  # interrupted while waiting (Ctrl-C): stop the async side
            raise
        if self._closed:  # closed from another thread while we waited
            raise StopIteration
        if kind is _Kind.ITEM:
            channel.release_slot()
            item: T = value
            return item
        self._closed = True
        self._handle = None  # the producer put its last entry after its cleanup ran
        if kind is _Kind.END:
            raise StopIteration
        if isinstance(value, StopIteration):
            # Raised as is, it would end the reader's loop as if the stream were complete.
            raise RuntimeError("the async stream raised StopIteration") from value
        raise value

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Stop the async side and wait (at most ``timeout`` s) for its cleanup to run.

        Idempotent. From the private loop's own thread (a finaliser run there) it only
        requests the cancellation, since waiting would deadlock.
        """
        self._closed = True
        handle = self._handle
        if handle is None:
            return
        self._handle = None
        handle.cancel()
        if handle.is_current_process and not is_private_loop_thread():
            handle.wait(timeout)

    def __enter__(self) -> SyncStream[T]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        # Best effort: at interpreter shutdown the runtime may already be torn down.
        with contextlib.suppress(Exception):
            if getattr(self, "_handle", None) is not None:
                self.close(timeout=1.0)


def iterate_sync(
    agen_factory: Callable[[], AsyncIterator[T]],
    *,
    maxsize: int = DEFAULT_STREAM_BUFFER,
    async_name: str | None = None,
) -> SyncStream[T]:
    """Iterate the async iterator ``agen_factory()`` from sync code.

    ``agen_factory`` is called on the private loop when iteration starts (pass the async
    generator function itself, or a lambda around it). At most ``maxsize`` items wait in
    the buffer: the async side pauses when the reader lags. ``async_name`` names the async
    twin recommended by the error raised on the private loop's own thread.

    Raises:
        SyncFromLoopError: when called (or iterated) on the private loop's own thread.
    """
    if is_private_loop_thread():
        raise _refusal("iterating a sync stream", async_name)
    return SyncStream(agen_factory, maxsize=maxsize, async_name=async_name)
