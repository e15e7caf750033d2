"""Small asyncio helpers shared by the chain and the tool loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeVar

__all__ = ["closing_stream", "loop_time"]

T = TypeVar("T")


@asynccontextmanager
async def closing_stream(stream: AsyncIterator[T]) -> AsyncIterator[AsyncIterator[T]]:
    """Like ``contextlib.aclosing``, for any async iterator: ``aclose()`` it if it can be.

    Every stream in the chain is consumed under this, so an early ``break`` releases the
    HTTP response at once rather than at garbage collection.
    """
    try:
        yield stream
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()


def loop_time() -> float:
    """Seconds on the running event loop's clock (``time.monotonic()`` with no loop).

    The chain measures durations with it, never with the process's clocks: a durable
    engine that replays the chain on a deterministic loop (a Temporal workflow, whose
    loop's clock is the workflow's time and whose sandbox refuses ``time.perf_counter``)
    then measures the same durations on every replay. On an ordinary asyncio loop it is
    ``time.monotonic()``.
    """
    import asyncio  # here: ``import ostinato`` does not load asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        import time

        return time.monotonic()
    return loop.time()
