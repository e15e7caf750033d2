"""A tool round built by hand: the assistant message asking for tool calls, and the
tool-response message answering them.

The tool, its arguments and its result are the same weather call everywhere; only the
call ids, which pair a response with its call, differ from test to test.
"""

from __future__ import annotations

from ostinato.messages import AssistantMessage, ToolCall, ToolResponse, ToolResponseMessage

__all__ = ["tool_calls", "tool_results"]


def tool_calls(*call_ids: str) -> AssistantMessage:
    """An assistant message, without text, asking for one weather call per id, in that
    order."""
    return AssistantMessage(
        None, tuple(ToolCall(i, "weather", '{"city": "Paris"}') for i in call_ids)
    )


def tool_results(*call_ids: str) -> ToolResponseMessage:
    """The tool-response message answering the calls ``call_ids``, in that order."""
    return ToolResponseMessage(tuple(ToolResponse(i, "weather", "sunny") for i in call_ids))
