"""The read loop of a streamed reply: bytes in, partial responses out, whatever the format.

:func:`read_stream` feeds each piece of the body to the :class:`~ostinato.http.Framing`
(counted against the reply's byte budget), hands each complete item to the adapter's
:class:`~ostinato.http.EventParser` and yields what it makes of it, until the parser
says the answer is done. A truncated last item is dropped; a body that ends before the
answer is done raises what ``unfinished()`` makes. Until the first partial response,
each read goes through ``first`` (the wait for the first event is bounded there).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable

from ostinato.errors import MalformedResponseError, ModelError
from ostinato.http._contract import EventParser
from ostinato.http._framing import Framing
from ostinato.model import ChatResponse
from ostinato.transport import ByteBudget

__all__ = ["read_stream"]


async def read_stream(
    pieces: AsyncIterator[bytes],
    *,
    parser: EventParser,
    framing: Framing,
    budget: ByteBudget,
    first: Callable[[Awaitable[bytes | None]], Awaitable[bytes | None]] | None,
    ended: Callable[[bool], None],
    unfinished: Callable[[], ModelError],
) -> AsyncGenerator[ChatResponse, None]:
    """The partial responses of one streamed body.

    Args:
        pieces: the body's bytes as they arrive.
        parser: the adapter's parser of items.
        framing: splits the bytes into items.
        budget: the reply's byte budget (raises past ``max_response_bytes``).
        first: runs each read until the first partial response (``None``: unbounded).
        ended: called once the parser is done, with whether a chunk held a generation.
        unfinished: the error of a body that ended before the parser was done.
    """
    answered = False
    while True:
        piece = await (anext(pieces, None) if first is None else first(anext(pieces, None)))
        if piece is None:
            break
        for item in framing.feed(budget.add(piece)):
            chunk = parser.event(item)
            if chunk is not None:
                first = None
                answered = answered or bool(chunk.generations)
                yield chunk
            if parser.done:
                ended(answered)
                return
    for item in framing.close():
        try:
            chunk = parser.event(item)
        except MalformedResponseError:
            break  # a truncated last event
        if chunk is not None:
            yield chunk
    if not parser.done:
        raise unfinished()
