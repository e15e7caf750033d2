"""A streamed model round wrapped as one call whose result is its aggregate.

A recorder is call-like: it runs a unit and stores its result, or returns the stored
result without running it. :func:`recorded_stream` gives it a streamed round that way:
the chunks pass through live while the round runs (inside the recorder's ``around``),
and the aggregate is what ``around`` receives and returns. When ``around`` returns
without running the round (a replay), the aggregate it returns is emitted as one chunk
(equal to what ``call()`` returns for the round, as the stream aggregation rules
guarantee). This module must not know any engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from ostinato._aio import closing_stream
from ostinato.model import ChatResponse, MessageAggregator

if TYPE_CHECKING:
    from ostinato.units._values import ModelStream

__all__ = ["aggregate", "recorded_stream"]

_END: Final = object()


async def aggregate(chunks: AsyncIterator[ChatResponse]) -> ChatResponse:
    """The aggregate of ``chunks``, read to their end."""
    aggregator = MessageAggregator()
    async with closing_stream(chunks) as opened:
        async for chunk in opened:
            aggregator.add(chunk)
    return aggregator.result()


async def recorded_stream(
    unit: ModelStream,
    next: Callable[[ModelStream], AsyncIterator[ChatResponse]],
    around: Callable[[Any, Callable[[Any], Awaitable[Any]]], Awaitable[Any]],
) -> AsyncIterator[ChatResponse]:
    """The chunks of ``next(unit)`` with the round run as one call of ``around``
    (``await around(unit, run)``, where ``run(unit)`` streams the round to its end and
    returns the aggregate), or the aggregate ``around`` returned, as one chunk, when it
    did not run the round."""
    queue: asyncio.Queue[object] = asyncio.Queue()
    ran = False

    async def run(_: Any) -> ChatResponse:
        nonlocal ran
        ran = True
        aggregator = MessageAggregator()
        try:
            async with closing_stream(next(unit)) as chunks:
                async for chunk in chunks:
                    aggregator.add(chunk)
                    queue.put_nowait(chunk)
        finally:
            queue.put_nowait(_END)
        return aggregator.result()

    async def wrapped() -> ChatResponse:
        result: ChatResponse = await around(unit, run)
        return result

    task = asyncio.ensure_future(wrapped())
    getter: asyncio.Future[object] | None = None
    try:
        while True:
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if not getter.done():  # the unit ended: take what it left, if anything
                getter.cancel()
                await asyncio.gather(getter, return_exceptions=True)
            if getter.cancelled():
                if queue.empty():
                    break  # replayed (nothing was streamed), or failed before its end
                item = queue.get_nowait()
            else:
                item = getter.result()
            if item is _END:
                break
            assert isinstance(item, ChatResponse)
            yield item
        result = await task
        if not ran:
            yield result
    finally:
        if getter is not None and not getter.done():
            getter.cancel()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
