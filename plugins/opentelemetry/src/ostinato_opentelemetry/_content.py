"""Content capture: messages and tool payloads in the GenAI conventions' JSON shapes,
bounded in size."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)

__all__ = ["bounded", "input_messages", "output_messages", "system_instructions"]


def bounded(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marking how much was dropped."""
    if len(text) <= limit:
        return text
    marker = f"…[truncated {len(text) - limit} chars]"
    return text[: max(limit - len(marker), 0)] + marker


def _parts(message: Message) -> list[dict[str, Any]]:
    if isinstance(message, ToolResponseMessage):
        return [
            {"type": "tool_call_response", "id": r.id, "response": r.response_data}
            for r in message.responses
        ]
    parts: list[dict[str, Any]] = []
    text = getattr(message, "text", None)
    if text:
        parts.append({"type": "text", "content": text})
    if isinstance(message, AssistantMessage):
        parts.extend(
            {"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments}
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


def input_messages(messages: Iterable[Message], limit: int) -> str:
    """``gen_ai.input.messages``: the non-system messages sent, as JSON."""
    shaped = [
        {"role": _role(m), "parts": _parts(m)} for m in messages if not isinstance(m, SystemMessage)
    ]
    return bounded(json.dumps(shaped, ensure_ascii=False, default=str), limit)


def system_instructions(messages: Iterable[Message], limit: int) -> str | None:
    """``gen_ai.system_instructions``: the system messages' text parts, or ``None``."""
    parts = [{"type": "text", "content": m.text} for m in messages if isinstance(m, SystemMessage)]
    if not parts:
        return None
    return bounded(json.dumps(parts, ensure_ascii=False), limit)


def output_messages(outputs: Iterable[tuple[AssistantMessage, str | None]], limit: int) -> str:
    """``gen_ai.output.messages``: each generation with its finish reason, as JSON."""
    shaped = [
        {"role": "assistant", "parts": _parts(m), "finish_reason": (reason or "").lower()}
        for m, reason in outputs
    ]
    return bounded(json.dumps(shaped, ensure_ascii=False, default=str), limit)
