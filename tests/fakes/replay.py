"""Driving a chat model built over a recorded exchange: the skeleton the wire tests share.

:func:`stream_all` collects every chunk ``stream()`` yields; :func:`answer` asks through
``stream()`` (aggregated) or ``call()``. Both close the model afterwards, whatever
happened, so each adapter's replay driver keeps only what its protocol checks in the
request it sent.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import Any

from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt

__all__ = ["answer", "stream_all"]


async def stream_all(model: Any, prompt: Prompt) -> list[ChatResponse]:
    """Every chunk ``model.stream(prompt)`` yields; the model is closed afterwards."""
    chunks: list[ChatResponse] = []
    try:
        async with aclosing(model.stream(prompt)) as stream:
            async for chunk in stream:
                chunks.append(chunk)
    finally:
        await model.aclose()
    return chunks


async def answer(model: Any, prompt: Prompt, *, stream: bool) -> ChatResponse:
    """The response through ``stream()`` (aggregated) or ``call()``; the model is closed."""
    try:
        if stream:
            async with aclosing(model.stream(prompt)) as chunks:
                return await MessageAggregator.aaggregate(chunks)
        return await model.call(prompt)
    finally:
        await model.aclose()
