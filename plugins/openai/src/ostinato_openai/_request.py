"""A :class:`Prompt` and its options as a Chat Completions request body.

The messages are encoded by :class:`~ostinato_openai._messages.ChatCompletionsMessages`.
Tools become ``function`` tools whose ``parameters`` is the tool's input schema;
``tool_choice`` and ``parallel_tool_calls`` are sent only with tools. Options left ``None``
are not sent, so the server's defaults apply. An ``output_schema`` (native structured
output) becomes a strict ``json_schema`` ``response_format``, its schema made
strict-compatible, in place of any other.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ostinato.errors import ConfigurationError
from ostinato.http import PayloadCache, output_schema, plain, tool_schema
from ostinato.prompt import Prompt
from ostinato.tools import ToolDefinition
from ostinato_openai._messages import messages_encoder
from ostinato_openai._options import OpenAIChatOptions, json_schema_response_format

__all__ = [
    "BodyTemplate",
    "build_request_body",
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

    __slots__ = ("_encoder", "_fields", "_messages_from_extra")

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
        self._encoder = messages_encoder(options.system_role or "system")

    def body(self, prompt: Prompt, cache: PayloadCache | None = None) -> dict[str, Any]:
        """A new body carrying ``prompt``'s messages (unless ``extra_body`` set them), their
        payloads taken from ``cache`` when one is given."""
        body = dict(self._fields)
        if not self._messages_from_extra:
            body["messages"] = (
                cache.payloads(prompt.messages, self._encoder)
                if cache is not None
                else self._encoder.encode(prompt.messages)
            )
        return body


def build_request_body(
    prompt: Prompt, options: OpenAIChatOptions, *, stream: bool
) -> dict[str, Any]:
    """The JSON body of a ``POST /chat/completions`` for ``prompt`` with ``options``.

    Raises:
        ConfigurationError: no model name, or a tool whose schema is not JSON.
    """
    return BodyTemplate(options, stream=stream).body(prompt)
