"""Stamping the chunks of the stream path with their round, and carrying the usage of
earlier rounds into the chunks of a later one. This module only builds values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ostinato._frozen import EMPTY, FrozenDict
from ostinato.advisors._exchange import ChatClientResponse, response_with_context
from ostinato.context_keys import SENT_OPTIONS, TOOL_LOOP_ROUND
from ostinato.model import ChatResponse, UsageAccumulator, cumulative_usage

if TYPE_CHECKING:
    from ostinato.advisors._loop_steps import LoopExit

__all__ = ["RoundMarker", "mark_round", "stream_tail", "with_previous_usage"]


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
        self._out: FrozenDict = EMPTY

    def mark(self, chunk: ChatClientResponse) -> ChatClientResponse:
        """``chunk`` with the stamped context."""
        if chunk.context is not self._in:
            context = {k: v for k, v in chunk.context.items() if k != SENT_OPTIONS}
            context[TOOL_LOOP_ROUND] = self._round
            self._in, self._out = chunk.context, FrozenDict(context)
        return response_with_context(chunk.chat_response, self._out)


def with_previous_usage(chunk: ChatClientResponse, previous: Any) -> ChatClientResponse:
    """``chunk`` with the usage of earlier rounds (``previous``) added to its own."""
    response = chunk.chat_response
    if previous is None or response is None or response.usage.is_empty:
        return chunk
    return chunk.copy(chat_response=response.with_usage(cumulative_usage(response.usage, previous)))


def stream_tail(
    ending: LoopExit, usage: UsageAccumulator, rounds: int
) -> ChatClientResponse | None:
    """What the stream path still yields after ``ending``: the answer the loop built,
    or, for an answer the model streamed, a trailer with the turn's ``usage`` when the
    last round's chunks did not carry it (``None``: nothing)."""
    if not ending.model_answered:
        return ending.response
    accumulated = usage.accumulated
    if usage.total is None or accumulated is None:
        return None
    if ending.asked is not None and not ending.asked.usage.is_empty:
        return None
    trailer = ChatResponse((), accumulated.metadata)
    return mark_round(ending.response.copy(chat_response=trailer), rounds)
