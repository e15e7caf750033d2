"""Folding a stream of :class:`ChatClientResponse` chunks into one, context included."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from ostinato._aio import closing_stream
from ostinato._frozen import FrozenDict
from ostinato.advisors._exchange import ChatClientResponse
from ostinato.context_keys import TOOL_LOOP_ROUND
from ostinato.model import MessageAggregator

__all__ = ["ChatClientMessageAggregator"]


class ChatClientMessageAggregator:
    """Aggregates advisor-level stream chunks: the chat responses with
    :class:`~ostinato.model.MessageAggregator`, and the contexts as their union.

    Chunks without a chat response are skipped. When chunks come from the tool loop
    (their context carries :data:`~ostinato.advisors.TOOL_LOOP_ROUND`), only the last
    round's chunks make the aggregate: that is the turn's answer, equal to what
    ``call()`` returns (intermediate-round text was shown, but is not the answer).
    Use :meth:`add` and :meth:`result`, or
    :meth:`aggregate` to pass a stream through while collecting it — the way to drive the
    loop yourself when tool calling is turned off (see ``docs/chat-client.md``).
    """

    __slots__ = ("_context", "_count", "_frozen", "_last_context", "_messages", "_round")

    def __init__(self) -> None:
        self._messages = MessageAggregator()
        self._context: dict[str, Any] = {}
        self._count = 0
        self._round: object = None
        # The chunks of a round share one (immutable) context object: merge it once, and
        # freeze the accumulated context once per change rather than once per chunk.
        self._last_context: object = None
        self._frozen: FrozenDict | None = None

    def add(self, chunk: ChatClientResponse) -> ChatClientResponse | None:
        """Fold ``chunk`` in; return it re-wrapped with the context accumulated so far
        (``None`` when the chunk has no chat response)."""
        if not self.fold(chunk):
            return None
        frozen = self._frozen
        if frozen is None:
            frozen = self._frozen = FrozenDict(self._context)
        return ChatClientResponse(chunk.chat_response, frozen)

    def fold(self, chunk: ChatClientResponse) -> bool:
        """Fold ``chunk`` in, as :meth:`add` does, without re-wrapping it (for a caller that
        only wants the :meth:`result`); ``False`` when the chunk has no chat response."""
        context = chunk.context
        if context is not self._last_context:
            self._last_context = context
            if context:
                self._context.update(context)
                self._frozen = None
        response = chunk.chat_response
        if response is None:
            return False
        self._count += 1
        round_number = context.get(TOOL_LOOP_ROUND)
        if round_number != self._round:
            if self._round is not None:
                self._messages = MessageAggregator()
            self._round = round_number
        self._messages.add(response)
        return True

    @property
    def chunk_count(self) -> int:
        """How many chunks with a chat response were added."""
        return self._count

    def result(self) -> ChatClientResponse | None:
        """The aggregate, or ``None`` when no chunk carried a chat response."""
        if self._count == 0:
            return None
        return ChatClientResponse(self._messages.result(), self._context)

    @classmethod
    async def aggregate(
        cls,
        stream: AsyncIterator[ChatClientResponse],
        on_complete: Callable[[ChatClientResponse], Awaitable[None] | None],
    ) -> AsyncIterator[ChatClientResponse]:
        """Pass ``stream`` through (with accumulated contexts) and call ``on_complete``
        with the aggregate once it ends normally."""
        aggregator = cls()
        async with closing_stream(stream) as chunks:
            async for chunk in chunks:
                wrapped = aggregator.add(chunk)
                if wrapped is not None:
                    yield wrapped
        result = aggregator.result()
        if result is None:
            result = ChatClientResponse(MessageAggregator().result(), aggregator._context)
        outcome = on_complete(result)
        if outcome is not None:
            await outcome
