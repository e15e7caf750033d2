"""A streamed model round as a durable unit: its chunks pass through live while it runs,
and its aggregate is what is recorded.

On replay the interceptor returns the recorded aggregate without opening the stream;
it is then emitted as one chunk (equal to what ``call()`` returns for the round, as the
stream aggregation rules guarantee). This module must not know any engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Final

from ostinato._aio import closing_stream
from ostinato.durable._codecs import decode_response, describe_prompt, encode_response
from ostinato.durable._units import UnitInterceptor, UnitKind, run_unit
from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt

__all__ = ["recorded_stream"]

_END: Final = object()


async def recorded_stream(
    interceptor: UnitInterceptor,
    name: str,
    prompt: Prompt,
    open_stream: Callable[[], AsyncIterator[ChatResponse]],
) -> AsyncIterator[ChatResponse]:
    """The chunks of ``open_stream()`` (the round of ``prompt``) run as one
    :attr:`UnitKind.MODEL_STREAM` unit (or the recorded aggregate, as one chunk, when the
    interceptor replays it)."""
    queue: asyncio.Queue[object] = asyncio.Queue()
    ran = False

    async def run() -> ChatResponse:
        nonlocal ran
        ran = True
        aggregator = MessageAggregator()
        try:
            async with closing_stream(open_stream()) as chunks:
                async for chunk in chunks:
                    aggregator.add(chunk)
                    queue.put_nowait(chunk)
        finally:
            queue.put_nowait(_END)
        return aggregator.result()

    unit = asyncio.ensure_future(
        run_unit(
            interceptor,
            UnitKind.MODEL_STREAM,
            name,
            run,
            encode_response,
            decode_response,
            lambda: describe_prompt(prompt),
        )
    )
    getter: asyncio.Future[object] | None = None
    try:
        while True:
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait({getter, unit}, return_when=asyncio.FIRST_COMPLETED)
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
        aggregate = await unit
        if not ran:
            yield aggregate
    finally:
        if getter is not None and not getter.done():
            getter.cancel()
        if not unit.done():
            unit.cancel()
            await asyncio.gather(unit, return_exceptions=True)
