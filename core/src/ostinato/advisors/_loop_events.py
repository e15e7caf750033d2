"""What the tool loop tells its event sink: :class:`TurnEvents`.

The :class:`~ostinato.advisors._tool_loop.ToolLoopTurn` holds one when somebody listens
(the request context carries an :class:`~ostinato.events.EventSink` under
``EVENT_SINK``) and none otherwise, so a turn nobody watches pays one ``is None`` test
per step. Each method builds one kind of event from what the loop has at hand; the turn
decides when. Tool events (started, finished) are emitted by the tool calling manager,
which finds the sink through :func:`~ostinato.events.current_event_sink`. This module
must not decide anything about the loop.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.context_keys import EVENT_SINK
from ostinato.events import EventSink, LoopExitReason, ToolFailureKind
from ostinato.events._types import (
    ApprovalRequired,
    LoopEnded,
    RoundFinished,
    RoundStarted,
    TextDelta,
    ToolCallDelta,
    ToolCallRequested,
)
from ostinato.model import ChatResponse, Usage
from ostinato.prompt import ChatOptions, ToolCallingChatOptions

__all__ = ["TurnEvents", "turn_events"]

_NOT_PLAIN = frozenset({"tool_callbacks", "tool_context"})
# What a cancelled call's task is stopped with, whichever way the turn was cancelled.
_CANCELLED_ERROR = "CancelledError"


def turn_events(request: ChatClientRequest) -> TurnEvents | None:
    """The events of the turn ``request`` starts (``None`` when nobody listens)."""
    sink = request.context.get(EVENT_SINK)
    return TurnEvents(sink) if isinstance(sink, EventSink) else None


def plain_options(options: ChatOptions | None) -> dict[str, Any]:
    """The JSON-friendly options sent (set fields only; no tools, no tool context)."""
    if options is None:
        return {}
    plain: dict[str, Any] = {}
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if f.name in _NOT_PLAIN or value is None:
            continue
        if isinstance(value, str | int | float | bool):
            plain[f.name] = value
        elif isinstance(value, tuple | list) and all(isinstance(v, str) for v in value):
            plain[f.name] = list(value)
    return plain


class TurnEvents:
    """Emits one turn's loop events into its sink.

    Attributes:
        sink: where the events go.
        has_ended: whether :class:`LoopEnded` was emitted (it comes once).
    """

    __slots__ = ("has_ended", "sink")

    def __init__(self, sink: EventSink) -> None:
        self.sink = sink
        self.has_ended = False

    async def round_started(self, round_number: int, request: ChatClientRequest) -> None:
        """A round is sent: its number and the request as the loop sends it."""
        self.sink.round = round_number
        prompt = request.prompt
        options = prompt.options
        tools: tuple[str, ...] = ()
        if isinstance(options, ToolCallingChatOptions):
            tools = tuple(cb.tool_definition.name for cb in options.tool_callbacks)
        await self.sink.emit(
            RoundStarted(
                round_number, tuple(prompt.messages), tools, plain_options(options), prompt=prompt
            )
        )

    async def chunk(self, round_number: int, chunk: ChatClientResponse, shown: bool) -> None:
        """A streamed chunk: its text when it is shown, its tool-call pieces."""
        response = chunk.chat_response
        if response is None:
            return
        for generation in response.generations:
            output = generation.output
            if shown and output.text:
                await self.sink.emit(TextDelta(round_number, output.text))
            for call in output.tool_calls:
                await self.sink.emit(
                    ToolCallDelta(round_number, call.index, call.id, call.name, call.arguments)
                )

    async def round_finished(self, round_number: int, response: ChatResponse) -> None:
        """The round's response is complete, then the calls it asks for (if any)."""
        await self.sink.emit(RoundFinished(round_number, response, response.usage))

    async def tool_calls_requested(self, round_number: int, response: ChatResponse) -> None:
        """One event per call of the tool-calling generation the tools run for."""
        generation = next((g for g in response.generations if g.output.has_tool_calls), None)
        if generation is None:
            return
        for call in generation.output.tool_calls:
            await self.sink.emit(ToolCallRequested(round_number, call))

    async def approval_required(self, round_number: int, pending: Any) -> None:
        """Calls wait for a decision and the turn stops: ``pending`` is the
        ``PendingToolCalls`` that resumes it (its JSON form rides in the event)."""
        to_dict = getattr(pending, "to_dict", None)
        await self.sink.emit(
            ApprovalRequired(
                round_number,
                tuple(getattr(pending, "calls", ())),
                to_dict() if callable(to_dict) else None,
            )
        )

    async def text(self, round_number: int, response: ChatResponse | None) -> None:
        """The text of an answer the loop built itself and streams as one chunk."""
        text = response.text if response is not None else None
        if text:
            await self.sink.emit(TextDelta(round_number, text))

    async def ended(
        self,
        reason: LoopExitReason,
        response: ChatResponse | None,
        usage: Usage | None,
        rounds: int,
        limit: str | None = None,
    ) -> None:
        """The loop ended (always the last event); ``limit`` names a usage limit reached."""
        self.has_ended = True
        await self.sink.emit(LoopEnded(reason, response, usage or Usage(), rounds, limit))

    async def cancel_unfinished(self, text: str) -> None:
        """A cancelled :class:`~ostinato.events.ToolFinished` (reading ``text``) for each
        call of the round that was asked for or started and has not finished."""
        for call, seconds in self.sink.batch.unfinished():
            await self.sink.tool_finished(
                call, text, seconds, _CANCELLED_ERROR, False, ToolFailureKind.CANCELLED
            )
