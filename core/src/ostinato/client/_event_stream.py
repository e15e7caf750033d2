"""``stream().aevents()``: one run of a request, seen as its loop events.

The chain's stream runs as a task of its own that emits into a bounded queue; the
caller's iterator reads the queue. So the events come out as the loop emits them, the
loop pauses when the reader lags (at most :data:`EVENT_BUFFER` events wait), and a long
turn never sits in memory whole. Closing the iterator early cancels the task (and with
it the model request and running tools) before the iterator's ``aclose`` returns, and
the listeners hear the cancelled turn's last events (``ToolFinished`` and ``LoopEnded``,
reason ``cancelled``) before it does; an error of the turn is raised from the iterator.
This module must not decide anything about the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Final

from ostinato._aio import closing_stream
from ostinato.advisors import AdvisorChain, ChatClientRequest
from ostinato.context_keys import EVENT_SINK
from ostinato.events import EventListener, EventSink
from ostinato.events._types import LoopEvent

__all__ = ["EVENT_BUFFER", "run_events"]

EVENT_BUFFER: Final = 64
"""The most events waiting for the reader before the loop pauses."""


class _Ended:
    __slots__ = ("error",)

    def __init__(self, error: Exception | None) -> None:
        self.error = error


async def run_events(
    chain: AdvisorChain,
    request: ChatClientRequest,
    listeners: Sequence[EventListener],
) -> AsyncIterator[LoopEvent]:
    """The events of one streamed run of ``request`` through ``chain`` (``listeners``
    hear them too, first)."""
    queue: asyncio.Queue[LoopEvent | _Ended] = asyncio.Queue(EVENT_BUFFER)
    reading = True

    async def hand_over(event: LoopEvent) -> None:
        # Once the reader has left, the turn's last events (a cancelled turn's ending)
        # still reach the listeners, and must not wait for a reader that never comes.
        if reading:
            await queue.put(event)

    sink = EventSink([*listeners, hand_over])
    request = request.copy(context={**request.context, EVENT_SINK: sink})

    async def produce() -> None:
        try:
            async with closing_stream(chain.next_stream(request)) as chunks:
                async for _ in chunks:
                    pass
        except Exception as error:  # handed to the reader, raised there
            await queue.put(_Ended(error))
            return
        await queue.put(_Ended(None))

    task = asyncio.create_task(produce())
    try:
        while True:
            item = await queue.get()
            if isinstance(item, _Ended):
                if item.error is not None:
                    raise item.error
                break
            yield item
        await task
    finally:
        reading = False
        if not task.done():
            task.cancel()
            await asyncio.wait({task})
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: an error after the reader left is not reported
