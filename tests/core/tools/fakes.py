"""Fakes and builders shared by the tool tests (never the thing under test)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from ostinato.messages import AssistantMessage, Message, ToolCall, UserMessage
from ostinato.model import ChatResponse, Generation
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.tools import ToolContext, ToolDefinition, ToolMetadata

MISSION = "Mission accomplished!"


class RecordingCallback:
    """A hand-written ToolCallback: returns ``result`` (or runs ``behaviour``) and records
    every call's arguments and context."""

    def __init__(
        self,
        name: str,
        result: Any = MISSION,
        *,
        behaviour: Callable[[str, ToolContext | None], Awaitable[Any]] | None = None,
        return_direct: bool = False,
        sequential: bool = False,
        timeout: float | None = None,
    ) -> None:
        self._definition = ToolDefinition(name, f"the {name} tool", '{"type":"object"}')
        self._metadata = ToolMetadata(
            return_direct=return_direct, sequential=sequential, timeout=timeout
        )
        self.result = result
        self.behaviour = behaviour
        self.calls: list[tuple[str, ToolContext | None]] = []

    @property
    def tool_definition(self) -> ToolDefinition:
        return self._definition

    @property
    def tool_metadata(self) -> ToolMetadata:
        return self._metadata

    async def call(self, arguments: str, context: ToolContext | None = None) -> Any:
        self.calls.append((arguments, context))
        if self.behaviour is not None:
            return await self.behaviour(arguments, context)
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result


def calls(*names: str, arguments: str = "{}") -> list[ToolCall]:
    """One call per name, each with its name as id."""
    return [ToolCall(name, name, arguments) for name in names]


def tool_response(*tool_calls: ToolCall, text: str = "", generations: int = 1) -> ChatResponse:
    """A response whose (only) generation asks for ``tool_calls``."""
    return ChatResponse(
        [Generation(AssistantMessage(text, tool_calls=tuple(tool_calls)))]
        + [Generation(AssistantMessage("other")) for _ in range(generations - 1)]
    )


def prompt_with(
    callbacks: Sequence[Any] = (),
    messages: Iterable[Message] | None = None,
    *,
    context: Mapping[str, Any] | None = None,
    options: ChatOptions | None = None,
) -> Prompt:
    """A prompt carrying ``callbacks`` (and a tool context) in ToolCallingChatOptions."""
    if options is None:
        options = ToolCallingChatOptions(
            tool_callbacks=tuple(callbacks), tool_context=context or {}
        )
    return Prompt(list(messages) if messages is not None else [UserMessage("hi")], options)


def responses_of(result: Any) -> list[tuple[str, str, str]]:
    """(id, name, text) of each response in the last message of a ToolExecutionResult."""
    last = result.conversation_history[-1]
    return [(r.id, r.name, r.response_data) for r in last.responses]
