"""``ToolCallObserver``: how ``ostinato chat`` sees the tool loop as it runs.

An advisor ordered *inside* the tool loop, just before the model: it runs once per model
round, says when each round starts, and wraps the round's tool callbacks so that every
call reports its name, arguments, duration and result or error as it happens. A call the
tool calling manager answers without running a tool of the request (an unknown tool
name) is reported from the tool responses the next round carries. It changes nothing the
model is sent or the tools do; it must not print (it hands events to a :class:`ChatEvents`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

from ostinato._aio import closing_stream
from ostinato.advisors import (
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    Ordered,
    StreamAdvisor,
)
from ostinato.errors import ToolError
from ostinato.messages import Message, ToolCall, ToolResponseMessage
from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.tools import ToolCallback, ToolContext, ToolDefinition, ToolMetadata
from ostinato.tools._tool_failure import current_task, tool_failure

if TYPE_CHECKING:
    from ostinato.advisors import AdvisorChain

__all__ = ["ChatEvents", "ObservedToolCallback", "ToolCallEvent", "ToolCallObserver"]

_ERROR_PREFIX: Final = "Error: "


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    """One finished tool call.

    Attributes:
        name: the tool's name.
        arguments: the arguments as the model wrote them (JSON text).
        duration: seconds the tool ran; ``None`` when no tool of the request ran (the
            model asked for an unknown tool).
        result: the text the model reads, when the call succeeded.
        error: what went wrong (without the ``Error:`` prefix the model reads), or
            ``None``.
    """

    name: str
    arguments: str
    duration: float | None
    result: str | None = None
    error: str | None = None


class ChatEvents(Protocol):
    """What the observer reports; the chat command's renderer implements it."""

    def model_started(self, round_number: int) -> None:
        """A model round (from 1) is about to be sent."""

    def tool_started(self, name: str, arguments: str) -> None:
        """A tool starts running with ``arguments`` (JSON text)."""

    def tool_finished(self, event: ToolCallEvent) -> None:
        """A tool call ended (or was answered without running a tool)."""


def _error_text(error: BaseException) -> str:
    if isinstance(error, ToolError):
        from ostinato.tools import tool_error_text

        return tool_error_text(error).removeprefix(_ERROR_PREFIX)
    return f"{type(error).__name__}: {error}" if str(error).strip() else type(error).__name__


class ObservedToolCallback:
    """A tool callback that reports each call of the tool it wraps to ``events``.

    Everything else (definition, metadata, the result, the exceptions) is the wrapped
    callback's, so the tool calling manager treats it exactly like the original.
    """

    __slots__ = ("_delegate", "_events")

    def __init__(self, delegate: ToolCallback, events: ChatEvents) -> None:
        self._delegate = delegate
        self._events = events

    @property
    def delegate(self) -> ToolCallback:
        """The wrapped callback."""
        return self._delegate

    @property
    def tool_definition(self) -> ToolDefinition:
        """The wrapped tool's definition."""
        return self._delegate.tool_definition

    @property
    def tool_metadata(self) -> ToolMetadata:
        """The wrapped tool's metadata."""
        return self._delegate.tool_metadata

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """Run the wrapped tool, reporting its start and its end."""
        name = self._delegate.tool_definition.name
        self._events.tool_started(name, arguments)
        started = time.perf_counter()
        task = current_task()
        try:
            result = await self._delegate.call(arguments, context)
        except asyncio.CancelledError as exc:
            elapsed = time.perf_counter() - started
            if tool_failure(exc, task) is not None:  # raised by the tool, not a cancellation
                self._events.tool_finished(
                    ToolCallEvent(name, arguments, elapsed, error=_error_text(exc))
                )
                raise
            timeout = self._delegate.tool_metadata.timeout
            # The manager enforces timeouts by cancelling the call.
            timed_out = timeout is not None and elapsed >= timeout * 0.99
            reason = f"timed out after {timeout:g} s" if timed_out else "cancelled"
            self._events.tool_finished(ToolCallEvent(name, arguments, elapsed, error=reason))
            raise
        except Exception as exc:
            elapsed = time.perf_counter() - started
            self._events.tool_finished(
                ToolCallEvent(name, arguments, elapsed, error=_error_text(exc))
            )
            raise
        elapsed = time.perf_counter() - started
        self._events.tool_finished(ToolCallEvent(name, arguments, elapsed, result=result))
        return result

    def __repr__(self) -> str:
        return f"ObservedToolCallback({self._delegate!r})"


class ToolCallObserver(CallAdvisor, StreamAdvisor):
    """Reports model rounds and tool calls to ``events``, from inside the tool loop.

    Args:
        events: receives the reports (called on the event loop running the turn).
        order: its place in the chain; by default just before the model, so that it
            is inside whichever tool advisor runs the loop.

    Use one observer per turn: :attr:`rounds` counts that turn's model rounds.
    """

    __slots__ = ("_events", "_order", "_rounds", "_unanswered", "_wrapped")

    DEFAULT_ORDER: Final = Ordered.LOWEST_PRECEDENCE - 1

    def __init__(self, events: ChatEvents, *, order: int = DEFAULT_ORDER) -> None:
        self._events = events
        self._order = order
        self._rounds = 0
        self._wrapped: dict[int, ObservedToolCallback] = {}
        self._unanswered: dict[str, ToolCall] = {}

    @property
    def name(self) -> str:
        """``"ostinato chat observer"``."""
        return "ostinato chat observer"

    @property
    def order(self) -> int:
        """Just before the model unless given."""
        return self._order

    @property
    def rounds(self) -> int:
        """Model rounds started so far."""
        return self._rounds

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Report the round, run it with observed tools, note calls no tool will answer."""
        request = self._before(request)
        response = await chain.next_call(request)
        self._after(request, response.chat_response)
        return response

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """The stream twin of :meth:`advise_call`: chunks pass unchanged."""
        request = self._before(request)
        aggregator = MessageAggregator()
        async with closing_stream(chain.next_stream(request)) as chunks:
            async for chunk in chunks:
                if chunk.chat_response is not None:
                    aggregator.add(chunk.chat_response)
                yield chunk
        self._after(request, aggregator.result())

    def _before(self, request: ChatClientRequest) -> ChatClientRequest:
        self._report_unanswered(request.prompt.messages)
        self._rounds += 1
        self._events.model_started(self._rounds)
        options = request.prompt.options
        if not isinstance(options, ToolCallingChatOptions) or not options.tool_callbacks:
            return request
        observed = options.with_tool_callbacks(self._wrap(cb) for cb in options.tool_callbacks)
        return request.copy(prompt=Prompt(request.prompt.messages, observed))

    def _wrap(self, callback: ToolCallback) -> ToolCallback:
        if isinstance(callback, ObservedToolCallback):
            return callback
        wrapped = self._wrapped.get(id(callback))
        if wrapped is None or wrapped.delegate is not callback:
            wrapped = self._wrapped[id(callback)] = ObservedToolCallback(callback, self._events)
        return wrapped

    def _after(self, request: ChatClientRequest, response: ChatResponse | None) -> None:
        if response is None:
            return
        options = request.prompt.options
        known = set(options.tool_names) if isinstance(options, ToolCallingChatOptions) else set()
        for generation in response.generations:
            for call in generation.output.tool_calls:
                if call.name not in known:
                    self._unanswered[call.id] = call

    def _report_unanswered(self, messages: tuple[Message, ...]) -> None:
        if not self._unanswered:
            return
        last = messages[-1] if messages else None
        if isinstance(last, ToolResponseMessage):
            for response in last.responses:
                call = self._unanswered.get(response.id)
                if call is None:
                    continue
                text = response.response_data
                failed = text.startswith(_ERROR_PREFIX)
                self._events.tool_finished(
                    ToolCallEvent(
                        call.name,
                        call.arguments,
                        None,
                        result=None if failed else text,
                        error=text.removeprefix(_ERROR_PREFIX) if failed else None,
                    )
                )
        self._unanswered.clear()
