"""A tool calling manager that returns scripted results and records what it was given.

Used where a test is about the *advisor* and wants to pin the manager's answers exactly
(as Spring AI's tests do with a mocked manager).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ostinato.messages import ToolResponse, ToolResponseMessage
from ostinato.model import ChatResponse
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.tools import ToolDefinition, ToolExecutionResult


def default_result(
    prompt: Prompt, response: ChatResponse, text: str = "result"
) -> ToolExecutionResult:
    """The prompt's messages, the assistant message and one response per call."""
    generation = next(g for g in response.generations if g.output.has_tool_calls)
    responses = [ToolResponse(c.id, c.name, text) for c in generation.output.tool_calls]
    return ToolExecutionResult(
        [*prompt.messages, generation.output, ToolResponseMessage(responses)], False
    )


class RecordingManager:
    """Answers each ``execute_tool_calls`` with the next scripted entry.

    Entries: a ToolExecutionResult, an exception to raise, or a function
    ``(prompt, response) -> ToolExecutionResult``. With the script empty, answers with
    :func:`default_result`.
    """

    def __init__(self, *script: Any) -> None:
        self.script = list(script)
        self.prompts: list[Prompt] = []
        self.responses: list[ChatResponse] = []

    @property
    def calls(self) -> int:
        return len(self.prompts)

    def resolve_tool_definitions(self, options: ChatOptions) -> list[ToolDefinition]:
        if isinstance(options, ToolCallingChatOptions):
            return [cb.tool_definition for cb in options.tool_callbacks]
        return []

    async def execute_tool_calls(
        self, prompt: Prompt, chat_response: ChatResponse
    ) -> ToolExecutionResult:
        self.prompts.append(prompt)
        self.responses.append(chat_response)
        entry: Any = self.script.pop(0) if self.script else default_result
        if isinstance(entry, BaseException):
            raise entry
        if isinstance(entry, ToolExecutionResult):
            return entry
        fn: Callable[[Prompt, ChatResponse], ToolExecutionResult] = entry
        return fn(prompt, chat_response)
