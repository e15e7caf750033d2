"""Each unit's result to and from JSON, in the project's JSON forms.

A wrapper that records units (a durable engine) stores each unit's result as JSON with
the unit's :attr:`~ostinato.units.Unit.codec` and reads it back on replay; these are the
codecs of core's units. A model round's
result is a :class:`~ostinato.model.ChatResponse` (``to_dict``), a tool call's the text the
model reads or the :class:`~ostinato.errors.ToolError` it failed with (its class, message
and fields; a recorded failure has no ``__cause__``), a memory read's the messages
(``Message.to_dict``), a memory write's nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from ostinato.errors import (
    ToolArgumentsError,
    ToolError,
    ToolExecutionError,
    ToolNotFoundError,
    ToolTimeoutError,
)
from ostinato.messages import Message, message_from_dict
from ostinato.model import ChatResponse
from ostinato.units._unit import UnitCodec

if TYPE_CHECKING:
    from ostinato.prompt import Prompt

__all__ = [
    "MESSAGES",
    "NOTHING",
    "RESPONSE",
    "TOOL_OUTCOME",
    "decode_messages",
    "decode_nothing",
    "decode_response",
    "decode_tool_outcome",
    "describe_prompt",
    "encode_messages",
    "encode_nothing",
    "encode_response",
    "encode_tool_outcome",
]

_TOOL_ERRORS: Final[dict[str, type[ToolError]]] = {
    cls.__name__: cls
    for cls in (ToolError, ToolNotFoundError, ToolArgumentsError, ToolExecutionError)
}


def describe_prompt(prompt: Prompt) -> dict[str, Any]:
    """A model round's input: the messages, the plain options (no callables) and the
    definitions of the tools offered."""
    from ostinato.prompt import ToolCallingChatOptions
    from ostinato.tools import PendingToolCalls

    options = prompt.options
    tools = options.tool_callbacks if isinstance(options, ToolCallingChatOptions) else ()
    return {
        "messages": encode_messages(prompt.messages),
        "options": PendingToolCalls.plain_options(options),
        "tools": [
            {
                "name": t.tool_definition.name,
                "description": t.tool_definition.description,
                "input_schema": t.tool_definition.input_schema,
            }
            for t in tools
        ],
    }


def encode_response(response: ChatResponse) -> dict[str, Any]:
    """A model round's response, as ``ChatResponse.to_dict``."""
    return response.to_dict()


def decode_response(data: Any) -> ChatResponse:
    """A recorded model round's response."""
    return ChatResponse.from_dict(data)


def encode_tool_outcome(outcome: str | ToolError) -> dict[str, Any]:
    """``{"text": ...}``, or ``{"error": class name, "message": ..., "tool_name": ...}``
    (plus ``raised``, the class the tool raised, ``timeout`` or ``available`` for the
    failures carrying them, and ``input``, the request of a call that asked for input)."""
    if isinstance(outcome, str):
        return {"text": outcome}
    data: dict[str, Any] = {
        "error": type(outcome).__name__,
        "message": str(outcome),
        "tool_name": outcome.tool_name,
    }
    if outcome.error_type != type(outcome).__qualname__:
        data["raised"] = outcome.error_type  # a replay's events name it as the first run's
    if isinstance(outcome, ToolTimeoutError):
        data["timeout"] = outcome.timeout
    if isinstance(outcome, ToolNotFoundError):
        data["available"] = list(outcome.available)
    cause = outcome.__cause__
    if cause is not None:
        from ostinato.tools._input import ToolInputRequired

        if isinstance(cause, ToolInputRequired):  # the call asked for input
            data["input"] = cause.request.to_dict()
    return data


def decode_tool_outcome(data: Any) -> str | ToolError:
    """A recorded tool outcome (a failure class this module does not know is read as
    :class:`~ostinato.errors.ToolExecutionError`)."""
    if "text" in data:
        return str(data["text"])
    name, message, tool = data["error"], data["message"], data.get("tool_name")
    error: ToolError
    if name == "ToolTimeoutError":
        error = ToolTimeoutError(message, tool_name=tool, timeout=float(data["timeout"]))
    elif name == "ToolNotFoundError":
        error = ToolNotFoundError(message, tool_name=tool, available=tuple(data["available"]))
    else:
        error = _TOOL_ERRORS.get(name, ToolExecutionError)(message, tool_name=tool)
    raised = data.get("raised")
    if isinstance(raised, str):
        error.raised_type = raised
    return error


def encode_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages, each as ``Message.to_dict``."""
    return [m.to_dict() for m in messages]


def decode_messages(data: Any) -> list[Message]:
    """Recorded messages."""
    return [message_from_dict(m) for m in data]


def encode_nothing(result: None) -> None:
    """A unit without a result (a memory write)."""
    return None


def decode_nothing(data: Any) -> None:
    """A recorded unit without a result."""
    return None


#: A model round's result: a :class:`~ostinato.model.ChatResponse`.
RESPONSE: Final[UnitCodec[ChatResponse]] = UnitCodec(encode_response, decode_response)
#: A tool call's outcome: its text, or the :class:`~ostinato.errors.ToolError` it failed with.
TOOL_OUTCOME: Final[UnitCodec[str | ToolError]] = UnitCodec(
    encode_tool_outcome, decode_tool_outcome
)
#: A memory read's result: the conversation's messages.
MESSAGES: Final[UnitCodec[list[Message]]] = UnitCodec(encode_messages, decode_messages)
#: A unit without a result (a memory write).
NOTHING: Final[UnitCodec[None]] = UnitCodec(encode_nothing, decode_nothing)
