"""Helpers of the tool loop's rounds: the options a round runs with, the round number
stamped on streamed chunks, usage carried across rounds, the tool responses of the last
round. Private to :mod:`ostinato.advisors._tool_calling`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ostinato._frozen import FrozenDict
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.advisors._model_advisors import SENT_OPTIONS, TOOL_LOOP_ROUND
from ostinato.messages import Message, ToolResponseMessage
from ostinato.model import cumulative_usage
from ostinato.prompt import ToolCallingChatOptions

__all__ = [
    "RoundMarker",
    "last_tool_responses",
    "mark_round",
    "tool_options",
    "with_previous_usage",
]


def tool_options(
    request: ChatClientRequest, fallback: ToolCallingChatOptions
) -> ToolCallingChatOptions:
    """The tool-calling options of ``request``, else ``fallback``."""
    options = request.prompt.options
    return options if isinstance(options, ToolCallingChatOptions) else fallback


def last_tool_responses(history: Sequence[Message]) -> ToolResponseMessage | None:
    """The tool responses that end ``history``, if it ends with some."""
    last = history[-1] if history else None
    return last if isinstance(last, ToolResponseMessage) else None


def mark_round(chunk: ChatClientResponse, round_number: int) -> ChatClientResponse:
    """``chunk`` stamped with ``round_number`` (under ``TOOL_LOOP_ROUND``)."""
    return RoundMarker(round_number).mark(chunk)


class RoundMarker:
    """Stamps chunks with their round; chunks of a round usually share one context object,
    so the stamped context is built once per distinct context, not once per chunk."""

    __slots__ = ("_in", "_out", "_round")

    def __init__(self, round_number: int) -> None:
        self._round = round_number
        self._in: object = None
        self._out: dict[str, Any] = {}

    def mark(self, chunk: ChatClientResponse) -> ChatClientResponse:
        """``chunk`` with the stamped context."""
        if chunk.context is not self._in:
            context = {k: v for k, v in chunk.context.items() if k != SENT_OPTIONS}
            context[TOOL_LOOP_ROUND] = self._round
            self._in, self._out = chunk.context, FrozenDict(context)
        return ChatClientResponse(chunk.chat_response, self._out)


def with_previous_usage(chunk: ChatClientResponse, previous: Any) -> ChatClientResponse:
    """``chunk`` with the usage of earlier rounds (``previous``) added to its own."""
    response = chunk.chat_response
    if previous is None or response is None or response.usage.is_empty:
        return chunk
    return chunk.copy(chat_response=response.with_usage(cumulative_usage(response.usage, previous)))
