"""``OpenAIChatOptions``: the Chat Completions request options beyond the portable ones.

Pure values: this module imports nothing heavy (no httpx), so the package can export it
eagerly. How each field reaches the wire is decided in ``_request``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ostinato.prompt import ToolCallingChatOptions

__all__ = ["OpenAIChatOptions", "SystemRole", "json_schema_response_format"]

#: The role system messages are sent with: ``developer`` for OpenAI's reasoning models.
SystemRole = Literal["system", "developer"]


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenAIChatOptions(ToolCallingChatOptions):
    """Options of one Chat Completions request; ``None`` leaves the server's default.

    The portable fields (``model``, ``temperature``, ``max_tokens``, ``top_p``,
    ``stop_sequences``, ``frequency_penalty``, ``presence_penalty``) and the tool fields
    come from :class:`~ostinato.prompt.ToolCallingChatOptions`; ``top_k`` is not part of
    the protocol and is not sent (put it in ``extra_body`` for servers that take it).

    Attributes:
        max_completion_tokens: the newer token limit (required by OpenAI's reasoning
            models, which reject ``max_tokens``); both are sent when both are set.
        seed: ask for deterministic sampling.
        user: an end-user identifier for abuse monitoring.
        n: how many choices to generate (``stream()`` follows the first one only).
        tool_choice: ``"auto"``, ``"none"``, ``"required"``, or a mapping naming a
            function (``{"type": "function", "function": {"name": "weather"}}``).
        parallel_tool_calls: allow several tool calls in one answer (sent only when the
            request has tools).
        strict_tools: declare every tool ``strict`` and make its schema strict-compatible
            (``additionalProperties: false``, every property required).
        response_format: ``{"type": "json_object"}`` or a ``json_schema`` format (see
            :func:`json_schema_response_format`).
        logprobs, top_logprobs: return token log probabilities (kept in generation
            metadata under ``logprobs``).
        reasoning_effort: how hard a reasoning model thinks (``minimal``, ``low``,
            ``medium``, ``high``...; the server decides which it knows).
        service_tier, store, metadata, logit_bias: passed through as named.
        stream_usage: ask for the usage-only final chunk when streaming
            (``stream_options.include_usage``); ``None`` means yes.
        system_role: send system messages as ``system`` (default) or ``developer``.
        extra_body: extra top-level request fields, laid over everything else (vendor
            options such as ``{"enable_thinking": False}``).
    """

    max_completion_tokens: int | None = None
    seed: int | None = None
    user: str | None = None
    n: int | None = None
    tool_choice: str | Mapping[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    strict_tools: bool | None = None
    response_format: Mapping[str, Any] | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    reasoning_effort: str | None = None
    service_tier: str | None = None
    store: bool | None = None
    metadata: Mapping[str, str] | None = None
    logit_bias: Mapping[str, int] | None = None
    stream_usage: bool | None = None
    system_role: SystemRole | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)


def json_schema_response_format(
    schema: Mapping[str, Any], *, name: str = "response", strict: bool = True
) -> dict[str, Any]:
    """A ``response_format`` asking for JSON matching ``schema`` (structured output)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": dict(schema), "strict": strict},
    }
