"""A sample conversation with every message type and every field set.

For round-trip tests of anything that stores, sends or serialises messages: a memory
store, an adapter's request mapping, a JSON form.
"""

from __future__ import annotations

from ostinato.messages import (
    AssistantMessage,
    Media,
    Message,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)

__all__ = ["every_message_type"]


def every_message_type(tag: str = "") -> list[Message]:
    """A conversation using every message type and field: a system message, a user
    message with media, an assistant message asking for two tool calls (with reasoning
    metadata), the tool responses to them, and a final assistant answer with media.

    Every message carries metadata, nested JSON values included; texts hold non-ASCII
    characters and the media bytes every byte value. ``tag`` is appended to the texts of
    the system, user and final messages, so that two conversations can differ. The list
    and its messages are built fresh on each call."""
    return [
        SystemMessage(f"You are terse.{tag}", metadata={"source": "kit"}),
        UserMessage(
            f"What is the weather in Paris and Tokyo?{tag}",
            media=(
                Media("image/png", data=bytes(range(256)), name="chart.png"),
                Media("text/html", url="https://example.com/a?b=c&d=e"),
            ),
            metadata={"nested": {"list": [1, 2.5, None, True, "s"]}},
        ),
        AssistantMessage(
            None,
            tool_calls=(
                ToolCall("call_1", "weather", '{"city": "Paris"}'),
                ToolCall("call_2", "weather", '{"city": "東京"}'),
            ),
            metadata={
                "reasoning": "two cities: two calls",
                "reasoning_signature": "c2ln",
                "finish_reason": "tool_calls",
            },
        ),
        ToolResponseMessage(
            responses=(
                ToolResponse("call_1", "weather", '{"temp": 18}'),
                ToolResponse("call_2", "weather", "Error: upstream timed out"),
            ),
            metadata={"elapsed_ms": 12},
        ),
        AssistantMessage(
            f"Paris 18°C; Tokyo unknown.{tag}",
            metadata={"usage": {"prompt_tokens": 12, "completion_tokens": 7}},
            media=(Media("audio/wav", data=b"\x00\x01RIFF", name="answer.wav"),),
        ),
    ]
