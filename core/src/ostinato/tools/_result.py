"""What one batch of tool calls produced, and the manager protocol that produces it."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import ClassVar, Protocol, runtime_checkable

from ostinato._tool_contract import ToolDefinition
from ostinato.errors import ToolCallLimitExceeded
from ostinato.messages import AssistantMessage, Message, ToolResponseMessage
from ostinato.model import ChatGenerationMetadata, ChatResponse, FinishReason, Generation
from ostinato.prompt import ChatOptions, Prompt

__all__ = ["ToolCallingManager", "ToolExecutionResult", "tool_call_limit_generation"]

# ``m is None`` for every message in C: a tool loop builds a result of the whole history
# every round, so a Python-level check would cost per earlier message per round.
_IS_NONE = partial(operator.is_, None)


@dataclass(frozen=True, slots=True, init=False)
class ToolExecutionResult:
    """The conversation after a batch of tool calls, and whether to return it directly.

    Attributes:
        conversation_history: the prompt's messages, the assistant message that asked for
            the tools, and one :class:`~ostinato.messages.ToolResponseMessage` holding every
            response of the batch in call order.
        return_direct: every executed call was return-direct: hand the results to the
            caller instead of asking the model again.
    """

    FINISH_REASON: ClassVar[str] = FinishReason.RETURN_DIRECT
    METADATA_TOOL_ID = "toolId"
    METADATA_TOOL_NAME = "toolName"

    conversation_history: tuple[Message, ...]
    return_direct: bool

    def __init__(
        self, conversation_history: Sequence[Message] = (), return_direct: bool = False
    ) -> None:
        history = tuple(conversation_history)
        if any(map(_IS_NONE, history)):
            raise ValueError("conversation_history must not contain None")
        object.__setattr__(self, "conversation_history", history)
        object.__setattr__(self, "return_direct", return_direct)

    @property
    def tool_response_message(self) -> ToolResponseMessage | None:
        """The last message if it is a tool response message."""
        if self.conversation_history and isinstance(
            self.conversation_history[-1], ToolResponseMessage
        ):
            return self.conversation_history[-1]
        return None

    @staticmethod
    def build_generations(result: ToolExecutionResult) -> list[Generation]:
        """One generation per tool response of the last message (return-direct output).

        Each carries the response text, finish reason ``returnDirect`` and the tool's id
        and name in its metadata. Empty when the last message is not a tool response.
        """
        last = result.tool_response_message
        if last is None:
            return []
        return [
            Generation(
                AssistantMessage(r.response_data),
                ChatGenerationMetadata(
                    finish_reason=ToolExecutionResult.FINISH_REASON,
                    metadata={
                        ToolExecutionResult.METADATA_TOOL_ID: r.id,
                        ToolExecutionResult.METADATA_TOOL_NAME: r.name,
                    },
                ),
            )
            for r in last.responses
        ]


def tool_call_limit_generation(breach: ToolCallLimitExceeded[ToolExecutionResult]) -> Generation:
    """One generation telling the caller about a tool-call limit ``breach``.

    Its text is the breach response sent for the offending call, its finish reason
    :attr:`~ostinato.FinishReason.TOOL_CALL_LIMIT_EXCEEDED`, and its metadata
    ``partialToolResponses`` lists the responses of the same batch that did run. The tool
    loop ends a turn with it.
    """
    history = breach.partial_result.conversation_history
    last = history[-1] if history else None
    if isinstance(last, ToolResponseMessage) and last.responses:
        text = last.responses[-1].response_data
        partial = list(last.responses[:-1])
    else:
        text = str(breach)
        partial = []
    return Generation(
        AssistantMessage(text),
        ChatGenerationMetadata(
            finish_reason=FinishReason.TOOL_CALL_LIMIT_EXCEEDED,
            metadata={ToolCallLimitExceeded.METADATA_PARTIAL_TOOL_RESPONSES: partial},
        ),
    )


@runtime_checkable
class ToolCallingManager(Protocol):
    """Resolves tool definitions for a request and executes the tool calls of a response.

    Stateless across calls: everything per turn (e.g. limit counts) is derived from the
    prompt it is given.
    """

    def resolve_tool_definitions(self, options: ChatOptions) -> list[ToolDefinition]:
        """The definitions of the tools attached to ``options``, in order."""
        ...

    async def execute_tool_calls(
        self, prompt: Prompt, chat_response: ChatResponse
    ) -> ToolExecutionResult:
        """Run the tool calls of ``chat_response`` with ``prompt`` as the turn so far."""
        ...
