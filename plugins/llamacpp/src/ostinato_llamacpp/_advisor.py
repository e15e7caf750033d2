"""``SmallModelHintAdvisor``: explains a tool loop that ran into its iteration cap.

The tool advisor ends a turn that reached ``max_iterations`` with one generation whose
finish reason is ``maxIterationsExceeded``; with a small local model that usually means
the model kept repeating its tool calls. This advisor sits just outside the tool loop
and appends to that generation's text what happened and how to choose a stronger model.
Every other response passes unchanged, on the call and the stream paths.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from ostinato.advisors import (
    AdvisorChain,
    BaseAdvisor,
    ChatClientResponse,
    ToolCallingAdvisor,
)
from ostinato.messages import AssistantMessage
from ostinato.model import ChatResponse, FinishReason, Generation

__all__ = ["HINT_ADVISOR_NAME", "SmallModelHintAdvisor"]

#: The name the plugin registers the advisor under.
HINT_ADVISOR_NAME: Final = "llamacpp-hints"


class SmallModelHintAdvisor(BaseAdvisor):
    """Appends ``hint`` to the answer of a turn stopped by the iteration cap.

    Args:
        hint: the explanation (see :func:`~ostinato_llamacpp.small_model_hint`).
        order: its place in the chain; by default just outside the tool advisor, so it
            sees the turn's final answer rather than each round's.
    """

    __slots__ = ("_hint", "_order")

    def __init__(self, hint: str, *, order: int = ToolCallingAdvisor.DEFAULT_ORDER - 1) -> None:
        self._hint = hint
        self._order = order

    @property
    def name(self) -> str:
        """``llamacpp-hints``."""
        return HINT_ADVISOR_NAME

    @property
    def order(self) -> int:
        """Just outside the tool advisor unless given."""
        return self._order

    @property
    def hint(self) -> str:
        """The text appended to a capped turn's answer."""
        return self._hint

    async def after(self, response: ChatClientResponse, chain: AdvisorChain) -> ChatClientResponse:
        """Append the hint to generations that ended at the iteration cap."""
        chat_response = response.chat_response
        if chat_response is None or not chat_response.has_finish_reasons(
            FinishReason.MAX_ITERATIONS_EXCEEDED
        ):
            return response
        return response.copy(chat_response=self._with_hint(chat_response))

    def _with_hint(self, chat_response: ChatResponse) -> ChatResponse:
        generations = [self._generation(g) for g in chat_response.generations]
        return chat_response.copy(generations=generations)

    def _generation(self, generation: Generation) -> Generation:
        reason = (generation.finish_reason or "").lower()
        if reason != FinishReason.MAX_ITERATIONS_EXCEEDED.lower():
            return generation
        output = generation.output
        text = f"{output.text}\n\n{self._hint}" if output.text else self._hint
        message = AssistantMessage(text, output.tool_calls, output.metadata, output.media)
        return dataclasses.replace(generation, output=message)
