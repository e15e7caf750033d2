"""A :class:`Prompt` and its options as a Chat Completions request body.

Messages map one to one, except a :class:`ToolResponseMessage`, which becomes one
``tool`` message per response. An assistant message without text is sent with
``content: ""`` (accepted everywhere, unlike ``null`` on some imitators); reasoning
metadata is not sent back. Tools become ``function`` tools whose ``parameters`` is the
tool's input schema; ``tool_choice`` and ``parallel_tool_calls`` are sent only with
tools. Options left ``None`` are not sent, so the server's defaults apply. An
``output_schema`` (native structured output) becomes a strict ``json_schema``
``response_format``, its schema made strict-compatible, in place of any other.
"""

from __future__ import annotations

import base64
import functools
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ostinato.errors import ConfigurationError
from ostinato.http import output_schema, plain, tool_schema
from ostinato.messages import (
    AssistantMessage,
    Media,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.prompt import Prompt
from ostinato.tools import ToolDefinition
from ostinato_openai._options import OpenAIChatOptions, json_schema_response_format

__all__ = [
    "BodyTemplate",
    "PayloadCache",
    "build_request_body",
    "message_payloads",
    "strict_schema",
    "tool_payload",
]

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
    # The history can be long: the common kinds are checked first and built inline.
    payloads: list[dict[str, Any]] = []
    append = payloads.append
    for message in messages:
        if isinstance(message, UserMessage):
            append(_user(message) if message.media else {"role": "user", "content": message.text})
        elif isinstance(message, AssistantMessage):
            append(
                _assistant(message)
                if message.tool_calls
                else {"role": "assistant", "content": message.text or ""}
            )
        elif isinstance(message, ToolResponseMessage):
            payloads.extend(
                {"role": "tool", "tool_call_id": r.id, "content": r.response_data}
                for r in message.responses
            )
        elif isinstance(message, SystemMessage):
            append({"role": system_role, "content": message.text})
        else:  # pragma: no cover - Prompt admits only the four kinds
            raise TypeError(f"cannot send {type(message).__name__} to a chat completion")
    return payloads


class PayloadCache:
    """The payloads of messages being sent, by message identity.

    A tool loop sends the whole history every round, and an application often sends the
    same earlier turns again: messages are immutable, so each is turned into its payload
    once. Entries hold the message only weakly and go away with it, so the cache never
    keeps a conversation alive. The payloads are shared between bodies, which are only
    ever serialised.
    """

    __slots__ = ("__weakref__", "_entries")

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[Message], str, list[dict[str, Any]]]] = {}

    def payloads(self, messages: Iterable[Message], system_role: str) -> list[dict[str, Any]]:
        """The ``messages`` array for ``messages`` (as :func:`message_payloads`)."""
        entries = self._entries
        result: list[dict[str, Any]] = []
        for message in messages:
            entry = entries.get(id(message))
            if entry is None or entry[0]() is not message or entry[1] != system_role:
                entry = (
                    weakref.ref(message, self._forget(id(message))),
                    system_role,
                    message_payloads((message,), system_role=system_role),
                )
                entries[id(message)] = entry
            result += entry[2]
        return result

    def __len__(self) -> int:
        return len(self._entries)

    def _forget(self, key: int) -> Callable[[weakref.ref[Message]], None]:
        # The callback must not hold the cache: a model that is dropped drops its cache.
        cache = weakref.ref(self)

        def forget(ref: weakref.ref[Message]) -> None:
            owner = cache()
            if owner is not None:
                entry = owner._entries.get(key)
                if entry is not None and entry[0] is ref:
                    del owner._entries[key]

        return forget


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
    parameters = tool_schema(name, input_schema)
    function: dict[str, Any] = {"name": name, "description": description}
    if strict:
        function["parameters"] = strict_schema(parameters)
        function["strict"] = True
    else:
        function["parameters"] = parameters
    return {"type": "function", "function": function}


@functools.lru_cache(maxsize=1024)
def _cached_tool_payload(definition: ToolDefinition, strict: bool) -> dict[str, Any]:
    # Tool definitions are immutable values: parse each schema once, not once per request.
    # The payload is shared between bodies, which are only ever serialised.
    return tool_payload(
        definition.name, definition.description, definition.input_schema, strict=strict
    )


class BodyTemplate:
    """Everything a request body holds except its messages, for one options object.

    Building it reads every option and parses every tool schema; a model keeps one per
    options object it sees, so a tool loop's rounds (which share their options) pay for
    it once. :meth:`body` adds the messages.
    """

    __slots__ = ("_fields", "_messages_from_extra", "_system_role")

    def __init__(self, options: OpenAIChatOptions, *, stream: bool) -> None:
        if not options.model:
            raise ConfigurationError(
                "no model name: set OSTINATO_MODEL=openai:<model>, OSTINATO_OPENAI_MODEL, or "
                "OpenAIChatOptions(model=...)"
            )
        fields: dict[str, Any] = {"model": options.model, "messages": None, "stream": stream}
        if stream and options.stream_usage is not False:
            fields["stream_options"] = {"include_usage": True}
        for name in _PASS_THROUGH:
            value = getattr(options, name)
            if value is not None:
                fields[name] = value
        for name in _MAPPING_OPTIONS:
            value = getattr(options, name)
            if value is not None:
                fields[name] = plain(value)
        schema = output_schema(options)
        if schema is not None:
            fields["response_format"] = json_schema_response_format(strict_schema(schema))
        if options.stop_sequences:
            fields["stop"] = list(options.stop_sequences)
        if options.tool_callbacks:
            strict = bool(options.strict_tools)
            fields["tools"] = [
                _cached_tool_payload(cb.tool_definition, strict) for cb in options.tool_callbacks
            ]
            if options.tool_choice is not None:
                fields["tool_choice"] = plain(options.tool_choice)
            if options.parallel_tool_calls is not None:
                fields["parallel_tool_calls"] = options.parallel_tool_calls
        extra = plain(options.extra_body)
        fields.update(extra)
        self._fields = fields
        self._messages_from_extra = "messages" in extra
        self._system_role = options.system_role or "system"

    def body(
        self, messages: Iterable[Message], cache: PayloadCache | None = None
    ) -> dict[str, Any]:
        """A new body carrying ``messages`` (unless ``extra_body`` set them), their
        payloads taken from ``cache`` when one is given."""
        body = dict(self._fields)
        if not self._messages_from_extra:
            body["messages"] = (
                cache.payloads(messages, self._system_role)
                if cache is not None
                else message_payloads(messages, system_role=self._system_role)
            )
        return body


def build_request_body(
    prompt: Prompt, options: OpenAIChatOptions, *, stream: bool
) -> dict[str, Any]:
    """The JSON body of a ``POST /chat/completions`` for ``prompt`` with ``options``.

    Raises:
        ConfigurationError: no model name, or a tool whose schema is not JSON.
    """
    return BodyTemplate(options, stream=stream).body(prompt.messages)
