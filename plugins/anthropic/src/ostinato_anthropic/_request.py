"""A :class:`Prompt` and its options as a Messages API request body.

``max_tokens`` is always sent (the API requires it). Tools become ``{name, description,
input_schema}``; ``tool_choice`` is sent only with tools. Extended thinking comes from the
``thinking`` mapping or the ``thinking_budget`` shortcut. Prompt-caching breakpoints go
where the options ask (system, tools, conversation). Options left ``None`` are not sent,
so the API's defaults apply; ``extra_body`` is laid over the rest. An ``output_schema``
(native structured output) becomes ``output_config.format`` (``json_schema``), beside
the other ``output_config`` entries and in place of another format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.errors import ConfigurationError
from ostinato.http import output_schema, plain, tool_schema
from ostinato.prompt import Prompt
from ostinato_anthropic._messages import AnthropicMessages, cache_control, merged_turns
from ostinato_anthropic._options import (
    DEFAULT_MAX_TOKENS,
    AnthropicChatOptions,
    json_schema_output_config,
)

__all__ = ["build_request_body", "thinking_payload", "tool_choice_payload", "tool_payload"]

_CHOICE_TYPES = {"auto": "auto", "any": "any", "required": "any", "none": "none"}


def tool_payload(name: str, description: str, input_schema: str) -> dict[str, Any]:
    """One tool definition; ``input_schema`` is the schema's JSON text."""
    schema = tool_schema(name, input_schema)
    return {"name": name, "description": description, "input_schema": schema}


def tool_choice_payload(
    choice: str | Mapping[str, Any] | None, parallel_tool_calls: bool | None
) -> dict[str, Any] | None:
    """The ``tool_choice`` object, or ``None`` when the API's default will do."""
    payload: dict[str, Any] | None
    if isinstance(choice, Mapping):
        payload = plain(choice)
    elif isinstance(choice, str):
        kind = _CHOICE_TYPES.get(choice.lower())
        payload = {"type": kind} if kind else {"type": "tool", "name": choice}
    else:
        payload = None
    if parallel_tool_calls is False:
        payload = payload or {"type": "auto"}
        if payload.get("type") != "none":
            payload["disable_parallel_tool_use"] = True
    return payload


def thinking_payload(options: AnthropicChatOptions, max_tokens: int) -> dict[str, Any] | None:
    """The ``thinking`` object the options ask for, checked against ``max_tokens``.

    Raises:
        ConfigurationError: the thinking budget is not below ``max_tokens``.
    """
    if options.thinking is not None:
        thinking: dict[str, Any] = plain(options.thinking)
    elif options.thinking_budget is not None:
        thinking = {"type": "enabled", "budget_tokens": options.thinking_budget}
    else:
        return None
    budget = thinking.get("budget_tokens")
    if isinstance(budget, int) and budget >= max_tokens:
        raise ConfigurationError(
            f"the thinking budget ({budget} tokens) must be below max_tokens ({max_tokens}), "
            "which counts the thinking too\n"
            "fix: raise max_tokens (OSTINATO_ANTHROPIC_MAX_TOKENS) or lower the budget "
            "(OSTINATO_ANTHROPIC_THINKING_BUDGET)"
        )
    return thinking


def build_request_body(
    prompt: Prompt, options: AnthropicChatOptions, *, stream: bool
) -> dict[str, Any]:
    """The JSON body of a ``POST /v1/messages`` for ``prompt`` with ``options``.

    Raises:
        ConfigurationError: no model name, a tool whose schema is not JSON, or a thinking
            budget that does not fit in ``max_tokens``.
    """
    if not options.model:
        raise ConfigurationError(
            "no model name: set OSTINATO_MODEL=anthropic:<model>, OSTINATO_ANTHROPIC_MODEL, "
            "or AnthropicChatOptions(model=...)"
        )
    ttl = options.cache_ttl
    max_tokens = options.max_tokens or DEFAULT_MAX_TOKENS
    encoder = AnthropicMessages(ttl=ttl)
    turns = encoder.encode(prompt.messages)
    body: dict[str, Any] = {
        "model": options.model,
        "messages": merged_turns(turns, cache_last=bool(options.cache_messages), ttl=ttl),
        "stream": stream,
        "max_tokens": max_tokens,
    }
    system = encoder.system_blocks
    if system:
        if options.cache_system:
            system[-1]["cache_control"] = cache_control(True, ttl)
        body["system"] = system
    for name in ("temperature", "top_p", "top_k", "service_tier"):
        value = getattr(options, name)
        if value is not None:
            body[name] = value
    if options.stop_sequences:
        body["stop_sequences"] = list(options.stop_sequences)
    if options.tool_callbacks:
        tools = [
            tool_payload(d.name, d.description, d.input_schema)
            for d in (cb.tool_definition for cb in options.tool_callbacks)
        ]
        if options.cache_tools:
            tools[-1]["cache_control"] = cache_control(True, ttl)
        body["tools"] = tools
        choice = tool_choice_payload(options.tool_choice, options.parallel_tool_calls)
        if choice is not None:
            body["tool_choice"] = choice
    thinking = thinking_payload(options, max_tokens)
    if thinking is not None:
        body["thinking"] = thinking
    for name in ("output_config", "metadata"):
        value = getattr(options, name)
        if value is not None:
            body[name] = plain(value)
    schema = output_schema(options)
    if schema is not None:
        body["output_config"] = {
            **body.get("output_config", {}),
            **json_schema_output_config(schema),
        }
    body.update(plain(options.extra_body))
    return body
