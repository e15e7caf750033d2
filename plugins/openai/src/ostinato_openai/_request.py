"""A :class:`Prompt` and its options as a Chat Completions request body.

Messages map one to one, except a :class:`ToolResponseMessage`, which becomes one
``tool`` message per response. An assistant message without text is sent with
``content: ""`` (accepted everywhere, unlike ``null`` on some imitators); reasoning
metadata is not sent back. Tools become ``function`` tools whose ``parameters`` is the
tool's input schema; ``tool_choice`` and ``parallel_tool_calls`` are sent only with
tools. Options left ``None`` are not sent, so the server's defaults apply.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ostinato.errors import ConfigurationError
from ostinato.messages import (
    AssistantMessage,
    Media,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.prompt import Prompt
from ostinato_openai._options import OpenAIChatOptions

__all__ = ["build_request_body", "message_payloads", "strict_schema", "tool_payload"]

# Option fields sent under the same name when set.
_PASS_THROUGH = (
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "frequency_penalty",
    "presence_penalty",
    "seed",
    "user",
    "n",
    "logprobs",
    "top_logprobs",
    "reasoning_effort",
    "service_tier",
    "store",
)
_MAPPING_OPTIONS = ("response_format", "metadata", "logit_bias")
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


def _plain(value: Any) -> Any:
    """Frozen mappings and tuples as plain JSON containers."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _media_part(media: Media) -> dict[str, Any]:
    mime = media.mime_type.lower()
    if media.url is not None:
        if mime.startswith("image/"):
            return {"type": "image_url", "image_url": {"url": media.url}}
        raise ConfigurationError(
            f"{media!r}: Chat Completions takes only images by URL; send "
            f"{media.mime_type} content inline (Media(data=...))"
        )
    encoded = base64.b64encode(media.data or b"").decode("ascii")
    if mime.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{encoded}"}}
    if mime in _AUDIO_FORMATS:
        return {
            "type": "input_audio",
            "input_audio": {"data": encoded, "format": _AUDIO_FORMATS[mime]},
        }
    file: dict[str, Any] = {"file_data": f"data:{mime};base64,{encoded}"}
    if media.name:
        file["filename"] = media.name
    return {"type": "file", "file": file}


def _user(message: UserMessage) -> dict[str, Any]:
    if not message.media:
        return {"role": "user", "content": message.text}
    parts: list[dict[str, Any]] = []
    if message.text:
        parts.append({"type": "text", "text": message.text})
    parts.extend(_media_part(m) for m in message.media)
    return {"role": "user", "content": parts}


def _assistant(message: AssistantMessage) -> dict[str, Any]:
    payload: dict[str, Any] = {"role": "assistant", "content": message.text or ""}
    if message.tool_calls:
        payload["tool_calls"] = [
            {
                "id": call.id,
                "type": call.type or "function",
                "function": {"name": call.name, "arguments": call.arguments or "{}"},
            }
            for call in message.tool_calls
        ]
    return payload


def message_payloads(
    messages: Iterable[Message], *, system_role: str = "system"
) -> list[dict[str, Any]]:
    """The ``messages`` array for ``messages``."""
    payloads: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            payloads.append({"role": system_role, "content": message.text})
        elif isinstance(message, UserMessage):
            payloads.append(_user(message))
        elif isinstance(message, AssistantMessage):
            payloads.append(_assistant(message))
        elif isinstance(message, ToolResponseMessage):
            payloads.extend(
                {"role": "tool", "tool_call_id": r.id, "content": r.response_data}
                for r in message.responses
            )
        else:  # pragma: no cover - Prompt admits only the four kinds
            raise TypeError(f"cannot send {type(message).__name__} to a chat completion")
    return payloads


def strict_schema(schema: Any) -> Any:
    """``schema`` made acceptable to strict mode: every object closed, every property required."""
    if isinstance(schema, list):
        return [strict_schema(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    result = {k: strict_schema(v) for k, v in schema.items()}
    properties = result.get("properties")
    if result.get("type") == "object" or isinstance(properties, Mapping):
        result.setdefault("additionalProperties", False)
        if isinstance(properties, Mapping):
            result["required"] = list(properties)
    return result


def tool_payload(name: str, description: str, input_schema: str, *, strict: bool) -> dict[str, Any]:
    """One ``function`` tool; ``input_schema`` is the schema's JSON text."""
    try:
        parameters = json.loads(input_schema)
    except ValueError as exc:
        raise ConfigurationError(
            f"tool {name!r}: its input schema is not JSON ({exc}); a ToolDefinition's "
            "input_schema must be JSON schema text"
        ) from None
    function: dict[str, Any] = {"name": name, "description": description}
    if strict:
        function["parameters"] = strict_schema(parameters)
        function["strict"] = True
    else:
        function["parameters"] = parameters
    return {"type": "function", "function": function}


def build_request_body(
    prompt: Prompt, options: OpenAIChatOptions, *, stream: bool
) -> dict[str, Any]:
    """The JSON body of a ``POST /chat/completions`` for ``prompt`` with ``options``.

    Raises:
        ConfigurationError: no model name, or a tool whose schema is not JSON.
    """
    if not options.model:
        raise ConfigurationError(
            "no model name: set OSTINATO_MODEL=openai:<model>, OSTINATO_OPENAI_MODEL, or "
            "OpenAIChatOptions(model=...)"
        )
    body: dict[str, Any] = {
        "model": options.model,
        "messages": message_payloads(prompt.messages, system_role=options.system_role or "system"),
        "stream": stream,
    }
    if stream and options.stream_usage is not False:
        body["stream_options"] = {"include_usage": True}
    for name in _PASS_THROUGH:
        value = getattr(options, name)
        if value is not None:
            body[name] = value
    for name in _MAPPING_OPTIONS:
        value = getattr(options, name)
        if value is not None:
            body[name] = _plain(value)
    if options.stop_sequences:
        body["stop"] = list(options.stop_sequences)
    if options.tool_callbacks:
        strict = bool(options.strict_tools)
        body["tools"] = [
            tool_payload(d.name, d.description, d.input_schema, strict=strict)
            for d in (cb.tool_definition for cb in options.tool_callbacks)
        ]
        if options.tool_choice is not None:
            body["tool_choice"] = _plain(options.tool_choice)
        if options.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = options.parallel_tool_calls
    body.update(_plain(options.extra_body))
    return body
