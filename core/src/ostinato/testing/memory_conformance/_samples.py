"""Messages the repository conformance kit stores: every type, with every field set.

Built fresh by functions (not module constants) so a repository that keeps references
cannot make two tests share state.
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

__all__ = ["ODD_CONVERSATION_IDS", "every_message_type", "turn"]

#: Conversation ids a store must keep apart and return exactly: separators of key
#: layouts, SQL wildcards and quotes, Unicode, whitespace inside, a long one.
ODD_CONVERSATION_IDS: tuple[str, ...] = (
    "a",
    "a:b",
    "a:messages",
    "conversation:a",
    "{a}",
    "50%_off",
    'it\'s "quoted"; DROP TABLE x; --',
    "path/with\\slashes",
    "ünïcødé 会話 🎵",
    "tab\tand space",
    "*",
    "x" * 512,
)


def every_message_type(tag: str = "") -> list[Message]:
    """A conversation using every message type and field: system, user with media,
    assistant with reasoning metadata and two tool calls, their tool responses, a final
    assistant answer with media."""
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
            metadata={"reasoning": "two cities: two calls", "finish_reason": "tool_calls"},
        ),
        ToolResponseMessage(
            responses=(
                ToolResponse("call_1", "weather", '{"temp": 18}'),
                ToolResponse("call_2", "weather", "Error: upstream timed out"),
            ),
        ),
        AssistantMessage(
            f"Paris 18°C; Tokyo unknown.{tag}",
            metadata={"usage": {"prompt_tokens": 12, "completion_tokens": 7}},
            media=(Media("audio/wav", data=b"\x00\x01RIFF"),),
        ),
    ]


def turn(label: str) -> list[Message]:
    """One whole turn: a user message and its answer, both naming ``label``."""
    return [UserMessage(f"question {label}"), AssistantMessage(f"answer {label}")]
