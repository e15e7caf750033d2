"""The advisor contracts: ``Advisor``, ``CallAdvisor``, ``StreamAdvisor``, ``BaseAdvisor``, markers.

An advisor wraps the model call: it sees the request on the way in and the response on
the way out, and decides whether (and how often) to call the rest of the chain. Advisors
are ordered by :attr:`Advisor.order`: lower runs further out.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final, Self

from ostinato._aio import closing_stream
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse

if TYPE_CHECKING:
    from ostinato.advisors._chain import AdvisorChain

__all__ = [
    "Advisor",
    "BaseAdvisor",
    "CallAdvisor",
    "MemoryAdvisor",
    "Ordered",
    "StreamAdvisor",
    "ToolAdvisor",
]


class Ordered:
    """Order constants: lower values run further out (first on the way in)."""

    HIGHEST_PRECEDENCE: Final = -(2**31)
    LOWEST_PRECEDENCE: Final = 2**31 - 1


class Advisor:
    """Anything that can sit in the advisor chain.

    Subclass :class:`CallAdvisor` and/or :class:`StreamAdvisor` (or :class:`BaseAdvisor`
    for the before/after shape). :attr:`name` defaults to the class name and
    :attr:`order` to 0; override either as a property or class attribute.
    """

    __slots__ = ()

    @property
    def name(self) -> str:
        """A readable name, shown in errors and chain renderings."""
        return type(self).__name__

    @property
    def order(self) -> int:
        """Position in the chain: lower runs further out."""
        return 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} order={self.order}>"


class CallAdvisor(Advisor, ABC):
    """An advisor on the blocking (one-response) path."""

    __slots__ = ()

    @abstractmethod
    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Handle ``request``; call ``await chain.next_call(request)`` to go further in."""


class StreamAdvisor(Advisor, ABC):
    """An advisor on the streaming path.

    ``advise_stream`` is an async generator function: each call starts a fresh run, and
    ``chain.next_stream(request)`` yields the inner responses.
    """

    __slots__ = ()

    @abstractmethod
    def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Handle ``request``; iterate ``chain.next_stream(request)`` to go further in."""


class BaseAdvisor(CallAdvisor, StreamAdvisor):
    """An advisor written as :meth:`before` and :meth:`after`, on both paths.

    On the call path: ``after(await chain.next_call(await before(request)))``. On the
    stream path :meth:`before` runs once, then :meth:`after` is applied to each chunk that
    carries a finish reason (the end of an answer); other chunks pass unchanged.
    """

    __slots__ = ()

    async def before(self, request: ChatClientRequest, chain: AdvisorChain) -> ChatClientRequest:
        """Change the request on its way in (default: unchanged)."""
        return request

    async def after(self, response: ChatClientResponse, chain: AdvisorChain) -> ChatClientResponse:
        """Change the response on its way out (default: unchanged)."""
        return response

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """``after(next_call(before(request)))``."""
        request = await self.before(request, chain)
        response = await chain.next_call(request)
        return await self.after(response, chain)

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """``before`` once, then ``after`` on each chunk that ends an answer."""
        request = await self.before(request, chain)
        async with closing_stream(chain.next_stream(request)) as stream:
            async for chunk in stream:
                if _ends_answer(chunk):
                    chunk = await self.after(chunk, chain)
                yield chunk


def _ends_answer(chunk: ChatClientResponse) -> bool:
    response = chunk.chat_response
    if response is None:
        return False
    return any(
        g.metadata.finish_reason is not None and g.metadata.finish_reason.strip()
        for g in response.generations
    )


class ToolAdvisor(Advisor):
    """Marker: this advisor owns the tool loop. A chain holds at most one.

    A ``ChatClient`` keeps its tool advisor as a prototype and puts
    ``prototype.copy(conversation_history_enabled=...)`` into every request's chain
    (:meth:`copy` is part of the contract).

    The events are part of the contract too: when the request context carries an
    :class:`~ostinato.events.EventSink` (under ``ostinato.context_keys.EVENT_SINK``), a
    tool advisor emits the turn's loop events into it — rounds, deltas on the stream
    path, tool calls, tool runs (the default tool calling manager emits those when the
    sink is made current with :func:`~ostinato.events.set_event_sink`), and one
    :class:`~ostinato.events.LoopEnded` last — the same on the call and the stream path
    but for the deltas. An advisor built on
    :class:`~ostinato.advisors.ToolCallingAdvisor` does all of it; the conformance kit
    :mod:`ostinato.testing.tool_advisor` checks it.
    """

    __slots__ = ()

    def copy(self, **changes: Any) -> Self:
        """A tool advisor for one request: of the same class and settings, with
        ``changes`` applied.

        The client passes ``conversation_history_enabled`` (``False`` when a memory
        advisor runs inside the tool loop and supplies the history itself). This default
        returns the advisor itself, unchanged: right for a tool advisor without settings
        and safe to share between requests. One with settings (like
        :class:`~ostinato.advisors.ToolCallingAdvisor`) returns a new advisor; one with
        per-request state must return a fresh one.
        """
        return self


class MemoryAdvisor(Advisor):
    """Marker: this advisor owns conversation memory.

    When one sits inside the tool loop (ordered after the tool advisor), the
    auto-registered tool advisor stops forwarding its own full history.
    """

    __slots__ = ()
