"""Small asyncio helpers shared by the chain and the tool loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeVar

__all__ = ["closing_stream"]

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
