"""A :class:`Prompt` and its options as a native ``/api/chat`` request body.

Messages map one to one, except a :class:`ToolResponseMessage`, which becomes one
``tool`` message per response (with ``tool_name`` and ``tool_call_id``). An assistant
message is sent with its text (``""`` when it has none), its reasoning as ``thinking``,
and its tool calls with the arguments as objects. Images travel base64-encoded in
``images``. Tools become ``function`` tools. Sampling options go in the ``options``
object; ``stream`` is always sent, since Ollama streams when it is left out. An
``output_schema`` (native structured output) is sent as ``format``, in place of another.
"""

from __future__ import annotations

import base64
from typing import Any

from ostinato.errors import ConfigurationError
from ostinato.http import (
    MessageEncoder,
    Payload,
    arguments_object,
    output_schema,
    plain,
    tool_schema,
)
from ostinato.messages import (
    AssistantMessage,
    Media,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.prompt import Prompt
from ostinato_ollama._options import OllamaChatOptions

__all__ = ["OllamaMessages", "build_request_body", "model_options", "tool_payload"]

# Option fields that go in "options" under another name, or the same.
_RENAMED = {"max_tokens": "num_predict"}
_SAMPLING = (
    "temperature",
    "top_p",
    "top_k",
    "seed",
    "num_ctx",
    "max_tokens",
    "frequency_penalty",
    "presence_penalty",
)


def _image(media: Media) -> str:
    if not media.mime_type.lower().startswith("image/") or media.data is None:
        raise ConfigurationError(
            f"{media!r}: Ollama takes images sent inline (Media('image/png', data=...)); "
            "download referenced media first"
        )
    return base64.b64encode(media.data).decode("ascii")


class OllamaMessages(MessageEncoder):
    """Messages as ``/api/chat`` messages."""

    __slots__ = ()

    def user(self, message: UserMessage) -> list[Payload]:
        """``{"role": "user"}`` with the text, and the images base64-encoded."""
        payload: Payload = {"role": "user", "content": message.text}
        if message.media:
            payload["images"] = [_image(m) for m in message.media]
        return [payload]

    def assistant(self, message: AssistantMessage) -> list[Payload]:
        """The text (``""`` for none), the reasoning as ``thinking``, the tool calls."""
        payload: Payload = {"role": "assistant", "content": message.text or ""}
        if message.reasoning:
            payload["thinking"] = message.reasoning
        if message.tool_calls:
            payload["tool_calls"] = [
                {
                    "id": call.id,
                    "function": {
                        "index": position,
                        "name": call.name,
                        "arguments": arguments_object(call.arguments),
                    },
                }
                for position, call in enumerate(message.tool_calls)
            ]
        return [payload]

    def tool_responses(self, message: ToolResponseMessage) -> list[Payload]:
        """One ``tool`` message per response, with ``tool_name`` and ``tool_call_id``."""
        return [
            {"role": "tool", "content": r.response_data, "tool_name": r.name, "tool_call_id": r.id}
            for r in message.responses
        ]

    def system(self, message: SystemMessage) -> list[Payload]:
        """``{"role": "system"}`` with the text."""
        return [{"role": "system", "content": message.text}]


_MESSAGES = OllamaMessages()


def tool_payload(name: str, description: str, input_schema: str) -> dict[str, Any]:
    """One ``function`` tool; ``input_schema`` is the schema's JSON text."""
    parameters = tool_schema(name, input_schema)
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def model_options(options: OllamaChatOptions) -> dict[str, Any] | None:
    """The ``options`` object: the raw model options with the named ones laid over them
    (``None`` when there is nothing to send)."""
    merged: dict[str, Any] = plain(options.options) if options.options is not None else {}
    for name in _SAMPLING:
        value = getattr(options, name)
        if value is not None:
            merged[_RENAMED.get(name, name)] = value
    if options.stop_sequences:
        merged["stop"] = list(options.stop_sequences)
    if not merged and options.options is None:
        return None
    return merged


def build_request_body(
    prompt: Prompt, options: OllamaChatOptions, *, stream: bool
) -> dict[str, Any]:
    """The JSON body of a ``POST /api/chat`` for ``prompt`` with ``options``.

    Raises:
        ConfigurationError: no model name, a tool whose schema is not JSON, or media
            Ollama cannot take.
    """
    if not options.model:
        raise ConfigurationError(
            "no model name: set OSTINATO_MODEL=ollama:<model>, OSTINATO_OLLAMA_MODEL, or "
            "OllamaChatOptions(model=...)"
        )
    body: dict[str, Any] = {
        "model": options.model,
        "messages": _MESSAGES.encode(prompt.messages),
        "stream": stream,
    }
    if options.tool_callbacks:
        body["tools"] = [
            tool_payload(d.name, d.description, d.input_schema)
            for d in (cb.tool_definition for cb in options.tool_callbacks)
        ]
    if options.format is not None:
        body["format"] = plain(options.format)
    schema = output_schema(options)
    if schema is not None:
        body["format"] = schema
    sampling = model_options(options)
    if sampling is not None:
        body["options"] = sampling
    if options.think is not None:
        body["think"] = options.think
    if options.keep_alive is not None:
        body["keep_alive"] = options.keep_alive
    body.update(plain(options.extra_body))
    return body
