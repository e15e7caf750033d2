"""The Chat Completions wire format, both ways: the caller's ``messages``, ``tools`` and
options in; completions and chunks out.

Pure functions over JSON values; nothing here runs a turn. Every problem with the
request is an :class:`~ostinato_serve._problems.ApiError` of type
``invalid_request_error`` (OpenAI's) naming the field.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.model import Usage
from ostinato.prompt import ChatOptions
from ostinato.tools import ToolContext, ToolDefinition, ToolMetadata
from ostinato_serve._problems import ApiError

__all__ = [
    "CallerTool",
    "caller_tools",
    "calls_json",
    "chunk",
    "completion",
    "finish_reason",
    "request_messages",
    "request_options",
    "usage_json",
]

_INVALID: Final = "invalid_request_error"
_FINISH: Final = frozenset({"stop", "length", "tool_calls", "content_filter"})


def _bad(message: str) -> ApiError:
    return ApiError(400, _INVALID, message)


def _text(content: Any, where: str) -> str:
    """A message's ``content``: a string, or a list of ``{"type": "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text":
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                raise _bad(f"{where}: only text content parts are accepted, got {kind!r}")
            texts.append(str(part.get("text", "")))
        return "".join(texts)
    raise _bad(f"{where}: content must be a string or a list of text parts, got {content!r}")


def _tool_calls(value: Any, where: str) -> tuple[ToolCall, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _bad(f"{where}.tool_calls must be a list")
    calls = []
    for n, item in enumerate(value):
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(item.get("id"), str):
            raise _bad(f"{where}.tool_calls[{n}] needs an 'id' and a 'function' object")
        calls.append(
            ToolCall(item["id"], str(function.get("name", "")), str(function.get("arguments", "")))
        )
    return tuple(calls)


def request_messages(value: Any) -> list[Message]:
    """The caller's ``messages`` as ostinato messages (consecutive tool messages become
    one :class:`ToolResponseMessage`).

    Raises:
        ApiError: not a non-empty list of well-formed messages.
    """
    if not isinstance(value, list) or not value:
        raise _bad(f"'messages' must be a non-empty list, got {value!r}")
    messages: list[Message] = []
    names: dict[str, str] = {}
    for n, item in enumerate(value):
        where = f"messages[{n}]"
        role = item.get("role") if isinstance(item, dict) else None
        if role in ("system", "developer"):
            messages.append(SystemMessage(_text(item.get("content"), where)))
        elif role == "user":
            messages.append(UserMessage(_text(item.get("content"), where)))
        elif role == "assistant":
            content = item.get("content")
            calls = _tool_calls(item.get("tool_calls"), where)
            names.update((c.id, c.name) for c in calls)
            text = None if content is None else _text(content, where)
            messages.append(AssistantMessage(text, tool_calls=calls))
        elif role == "tool":
            call_id = item.get("tool_call_id")
            if not isinstance(call_id, str):
                raise _bad(f"{where}: a tool message needs 'tool_call_id'")
            response = ToolResponse(
                call_id, names.get(call_id, ""), _text(item.get("content"), where)
            )
            last = messages[-1] if messages else None
            if isinstance(last, ToolResponseMessage):
                messages[-1] = ToolResponseMessage((*last.responses, response))
            else:
                messages.append(ToolResponseMessage((response,)))
        else:
            raise _bad(
                f"{where}: role must be system, developer, user, assistant or tool, got {role!r}"
            )
    return messages


_NUMBERS: Final = ("temperature", "top_p", "presence_penalty", "frequency_penalty")


def request_options(body: Mapping[str, Any]) -> ChatOptions | None:
    """The sampling options the caller set (``None`` when none).

    Raises:
        ApiError: a value of the wrong type, or ``n`` other than 1.
    """
    changes: dict[str, Any] = {}
    for key in _NUMBERS:
        value = body.get(key)
        if value is not None:
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise _bad(f"'{key}' must be a number, got {value!r}")
            changes[key] = float(value)
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    if limit is not None:
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise _bad(f"'max_tokens' must be a positive integer, got {limit!r}")
        changes["max_tokens"] = limit
    stop = body.get("stop")
    if stop is not None:
        stops = [stop] if isinstance(stop, str) else stop
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise _bad(f"'stop' must be a string or a list of strings, got {stop!r}")
        changes["stop_sequences"] = tuple(stops)
    if body.get("n", 1) != 1:
        raise _bad(f"'n' must be 1 (one answer per request), got {body.get('n')!r}")
    return ChatOptions(**changes) if changes else None


@dataclass(frozen=True, slots=True)
class CallerTool:
    """A tool the caller declared: the model may call it, the caller runs it (the server
    never does: it is never called here)."""

    tool_definition: ToolDefinition
    tool_metadata: ToolMetadata = field(default_factory=ToolMetadata)

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """Never called: the server returns the caller's tool calls to the caller."""
        raise RuntimeError(f"{self.tool_definition.name} is the caller's tool; it runs there")


def caller_tools(value: Any) -> list[CallerTool]:
    """The caller's ``tools`` (``[{"type": "function", "function": {...}}]``).

    Raises:
        ApiError: a tool is not a well-formed function declaration.
    """
    if value is None:
        return []
    if not isinstance(value, list):
        raise _bad(f"'tools' must be a list, got {value!r}")
    tools = []
    for n, item in enumerate(value):
        function = item.get("function") if isinstance(item, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise _bad(f"tools[{n}] must be {{'type': 'function', 'function': {{'name': ...}}}}")
        assert isinstance(function, dict)
        schema = function.get("parameters") or {"type": "object", "properties": {}}
        description = function.get("description") or ToolDefinition.default_description(name)
        tools.append(CallerTool(ToolDefinition(name, str(description), json.dumps(schema))))
    return tools


def finish_reason(raw: str | None, has_calls: bool) -> str:
    """OpenAI's finish reason for ours: the loop's own endings (limits, approvals, a
    return-direct answer, a cancelled turn) read as ``stop``."""
    if has_calls:
        return "tool_calls"
    return raw if raw in _FINISH else "stop"


def usage_json(usage: Usage | None) -> dict[str, int]:
    """OpenAI's ``usage`` object (zeros when the model reported none)."""
    if usage is None:
        return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }


def calls_json(calls: Sequence[ToolCall], *, indexed: bool = False) -> list[dict[str, Any]]:
    """Tool calls in the wire format (with their ``index`` in a chunk)."""
    return [
        {
            **({"index": n} if indexed else {}),
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": c.arguments},
        }
        for n, c in enumerate(calls)
    ]


def completion(
    completion_id: str,
    model: str,
    text: str | None,
    calls: Sequence[ToolCall],
    finish: str,
    usage: Usage | None,
) -> dict[str, Any]:
    """A ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls_json(calls)
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage_json(usage),
    }


def chunk(
    completion_id: str,
    model: str,
    delta: Mapping[str, Any] | None,
    finish: str | None = None,
    usage: Usage | None = None,
) -> dict[str, Any]:
    """A ``chat.completion.chunk`` object (``delta=None``: the usage-only chunk)."""
    choices = [] if delta is None else [{"index": 0, "delta": dict(delta), "finish_reason": finish}]
    return {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": choices,
        "usage": usage_json(usage) if delta is None else None,
    }
