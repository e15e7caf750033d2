"""The read loop of a streamed reply: bytes in, partial responses out, whatever the format.

:func:`read_stream` feeds each piece of the body to the :class:`~ostinato.transport.Framing`
(counted against the reply's byte budget), hands each complete item to the adapter's
:class:`~ostinato.http.EventParser` and yields what it makes of it, until the parser
says the answer is done. A truncated last item is dropped; a body that ends before the
answer is done raises what ``unfinished()`` makes. Until the first partial response,
each read goes through ``first`` (the wait for the first event is bounded there).

The last item is not the end of the HTTP body (a chunked body's empty last chunk, the end
of a ``content-length``): once the parser is done, the rest of the body is read too —
at most :data:`TAIL_BYTES`, within :data:`TAIL_SECONDS` — so that the connection goes
back to the pool instead of being closed. A tail that is longer or slower is left
unread (the connection is closed with the response); the answer is complete either way.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Final

from ostinato.errors import MalformedResponseError, ModelError
from ostinato.http._contract import EventParser
from ostinato.model import ChatResponse
from ostinato.transport import ByteBudget, Framing
from ostinato.transport._bounds import within

__all__ = ["TAIL_BYTES", "TAIL_SECONDS", "read_stream"]

#: The most bytes read after the last item to end the body (more: the connection closes).
TAIL_BYTES: Final = 64 << 10
#: The most seconds spent reading that tail.
TAIL_SECONDS: Final = 1.0


async def read_stream(
    pieces: AsyncIterator[bytes],
    *,
    parser: EventParser,
    framing: Framing,
    budget: ByteBudget,
    first: Callable[[Awaitable[bytes | None]], Awaitable[bytes | None]] | None,
    unfinished: Callable[[], ModelError],
) -> AsyncGenerator[ChatResponse, None]:
    """The partial responses of one streamed body.

    Args:
        pieces: the body's bytes as they arrive (closed when the read ends).
        parser: the adapter's parser of items.
        framing: splits the bytes into items.
        budget: the reply's byte budget (raises past ``max_response_bytes``).
        first: runs each read until the first partial response (``None``: unbounded).
        unfinished: the error of a body that ended before the parser was done.
    """
    try:
        while True:
            piece = await (anext(pieces, None) if first is None else first(anext(pieces, None)))
            if piece is None:
                break
            for item in framing.feed(budget.add(piece)):
                chunk = parser.event(item)
                if chunk is not None:
                    first = None
                    yield chunk
                if parser.done:
                    await _read_tail(pieces)
                    return
    finally:  # closed here however the read ends, not left to the garbage collector
        close = getattr(pieces, "aclose", None)
        if close is not None:
            await close()
    for item in framing.close():
        try:
            chunk = parser.event(item)
        except MalformedResponseError:
            break  # a truncated last event
        if chunk is not None:
            yield chunk
    if not parser.done:
        raise unfinished()


async def _read_tail(pieces: AsyncIterator[bytes]) -> None:
    """Read what follows the last item, so that the body ends and the connection is kept."""
    deadline = asyncio.get_running_loop().time() + TAIL_SECONDS
    try:
        await within(deadline, _drain(pieces), TimeoutError)
    except Exception:  # the answer is complete; the connection just closes
        return


async def _drain(pieces: AsyncIterator[bytes]) -> None:
    left = TAIL_BYTES
    async for piece in pieces:
        left -= len(piece)
        if left < 0:
            return
