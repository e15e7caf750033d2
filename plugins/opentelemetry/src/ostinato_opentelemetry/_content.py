"""Content capture: messages, tool definitions and tool payloads in the GenAI conventions'
JSON shapes. Each piece of free text goes through ``mask`` (the telemetry's: credentials
masked, a piece far longer than an attribute cut) before it is shaped, so that a
credential is masked as written, not JSON-escaped; the shaped JSON is then bounded to
``limit`` characters."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)

__all__ = [
    "bounded",
    "input_messages",
    "output_messages",
    "system_instructions",
    "tool_definitions",
]

Mask = Callable[[str], str]


def bounded(text: str, limit: int, *, dropped: int = 0) -> str:
    """``text`` cut to at most ``limit`` characters, marking how much was dropped
    (``dropped``: characters already cut off before ``text``'s end)."""
    if len(text) <= limit and not dropped:
        return text
    kept = max(limit - len(f"…[truncated {len(text) + dropped} chars]"), 0)
    return f"{text[:kept]}…[truncated {len(text) + dropped - kept} chars]"


def _arguments(arguments: str, mask: Mask) -> Any:
    """A tool call's arguments as the JSON object they are (as text when they are not)."""
    masked = mask(arguments)
    try:
        return json.loads(masked)
    except ValueError:
        return masked


def _parts(message: Message, mask: Mask) -> list[dict[str, Any]]:
    if isinstance(message, ToolResponseMessage):
        return [
            {"type": "tool_call_response", "id": r.id, "response": mask(r.response_data)}
            for r in message.responses
        ]
    parts: list[dict[str, Any]] = []
    text = getattr(message, "text", None)
    if text:
        parts.append({"type": "text", "content": mask(text)})
    if isinstance(message, AssistantMessage):
        parts.extend(
            {
                "type": "tool_call",
                "id": c.id,
                "name": c.name,
                "arguments": _arguments(c.arguments, mask),
            }
            for c in message.tool_calls
        )
    return parts


def _role(message: Message) -> str:
    if isinstance(message, UserMessage):
        return "user"
    if isinstance(message, AssistantMessage):
        return "assistant"
    if isinstance(message, ToolResponseMessage):
        return "tool"
    return "system"


def input_messages(messages: Iterable[Message], mask: Mask, limit: int) -> str:
    """``gen_ai.input.messages``: the non-system messages sent, as JSON."""
    shaped = [
        {"role": _role(m), "parts": _parts(m, mask)}
        for m in messages
        if not isinstance(m, SystemMessage)
    ]
    return bounded(json.dumps(shaped, ensure_ascii=False, default=str), limit)


def system_instructions(messages: Iterable[Message], mask: Mask, limit: int) -> str | None:
    """``gen_ai.system_instructions``: the system messages' text parts, or ``None``."""
    parts = [
        {"type": "text", "content": mask(m.text)} for m in messages if isinstance(m, SystemMessage)
    ]
    if not parts:
        return None
    return bounded(json.dumps(parts, ensure_ascii=False), limit)


def tool_definitions(callbacks: Iterable[Any], limit: int) -> str | None:
    """``gen_ai.tool.definitions``: the tools offered to the model, as JSON, or ``None``."""
    shaped = []
    for callback in callbacks:
        definition = callback.tool_definition
        try:
            parameters: Any = json.loads(definition.input_schema)
        except ValueError:
            parameters = definition.input_schema
        shaped.append(
            {
                "type": "function",
                "name": definition.name,
                "description": definition.description,
                "parameters": parameters,
            }
        )
    if not shaped:
        return None
    return bounded(json.dumps(shaped, ensure_ascii=False, default=str), limit)


def output_messages(
    outputs: Iterable[tuple[AssistantMessage, str | None]], mask: Mask, limit: int
) -> str:
    """``gen_ai.output.messages``: each generation with its finish reason, as JSON."""
    shaped = [
        {"role": "assistant", "parts": _parts(m, mask), "finish_reason": (reason or "").lower()}
        for m, reason in outputs
    ]
    return bounded(json.dumps(shaped, ensure_ascii=False, default=str), limit)
