"""The answer memory stores: the assistant messages of a response, or of a whole stream.

On the call path it is the outputs of the response's generations. On the stream path it
must be the same messages, so a streamed turn and a called one leave the same memory
(Spring AI stores the text of every streamed round, concatenated): chunks are folded with
core's :class:`~ostinato.advisors.ChatClientMessageAggregator`, which keeps the final
round of a tool loop only. One case needs more than the aggregator: a turn that ends with one
whole response of several generations (return-direct over several tools) — the
aggregator keeps the first generation only, ``call()`` returns them all.

A final answer is stored with the usage its response reported (:func:`with_usage`,
metadata key ``usage``), so a stored conversation says what each turn cost.
"""

from __future__ import annotations

import dataclasses

from ostinato.advisors import TOOL_LOOP_ROUND, ChatClientMessageAggregator, ChatClientResponse
from ostinato.messages import AssistantMessage
from ostinato.model import ChatResponse, Usage

__all__ = ["USAGE", "StreamedAnswer", "outputs_of", "usage_of", "with_usage"]

#: The metadata key of the usage recorded on a stored answer.
USAGE = "usage"

_NO_ROUND = object()


def outputs_of(response: ChatResponse | None) -> list[AssistantMessage]:
    """The assistant message of each generation of ``response`` (none without one)."""
    if response is None:
        return []
    return [generation.output for generation in response.generations]


def usage_of(response: ChatResponse | None) -> Usage | None:
    """The usage ``response`` reported (``None`` without a response)."""
    return None if response is None else response.metadata.usage


def with_usage(outputs: list[AssistantMessage], usage: Usage | None) -> list[AssistantMessage]:
    """``outputs`` with ``usage`` (its counts that were reported) in the metadata of each
    message that carries none; unchanged when nothing was counted."""
    if usage is None or usage.is_empty:
        return outputs
    counts = {key: value for key, value in usage.to_dict().items() if value is not None}
    return [
        output
        if USAGE in output.metadata
        else dataclasses.replace(output, metadata={**output.metadata, USAGE: counts})
        for output in outputs
    ]


class StreamedAnswer:
    """Collects a stream's chunks; :meth:`outputs` is what ``call()`` would have returned."""

    __slots__ = ("_aggregator", "_round", "_round_chunks")

    def __init__(self) -> None:
        self._aggregator = ChatClientMessageAggregator()
        self._round: object = _NO_ROUND
        self._round_chunks: list[ChatResponse] = []

    def add(self, chunk: ChatClientResponse) -> None:
        """Fold ``chunk`` in."""
        self._aggregator.add(chunk)
        if chunk.chat_response is None:
            return
        round_number = chunk.context.get(TOOL_LOOP_ROUND)
        if round_number != self._round:
            self._round = round_number
            self._round_chunks = []
        self._round_chunks.append(chunk.chat_response)

    def response(self) -> ChatResponse | None:
        """The final answer's response, as ``call()`` would have returned it."""
        chunks = self._round_chunks
        if len(chunks) == 1 and len(chunks[0].generations) > 1:
            return chunks[0]
        result = self._aggregator.result()
        return result.chat_response if result is not None else None

    def outputs(self) -> list[AssistantMessage]:
        """The assistant messages of the final answer."""
        return outputs_of(self.response())
