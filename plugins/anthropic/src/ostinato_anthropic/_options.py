"""``AnthropicChatOptions``: the Messages API request options beyond the portable ones.

Pure values: this module imports nothing heavy (no httpx), so the package can export it
eagerly. How each field reaches the wire is decided in ``_request``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ostinato.prompt import ToolCallingChatOptions

__all__ = [
    "CACHE_CONTROL",
    "DEFAULT_MAX_TOKENS",
    "AnthropicChatOptions",
    "json_schema_output_config",
]

#: ``max_tokens`` is required by the API; this is sent when no option sets it.
DEFAULT_MAX_TOKENS: Final = 4096
#: Message metadata key: a truthy value (or a ``cache_control`` mapping) marks the end of
#: that message as a prompt-caching breakpoint.
CACHE_CONTROL: Final = "cache_control"


@dataclass(frozen=True, slots=True, kw_only=True)
class AnthropicChatOptions(ToolCallingChatOptions):
    """Options of one Messages API request; ``None`` leaves the server's default.

    The portable fields ``model``, ``temperature``, ``max_tokens``, ``top_p``, ``top_k``
    and ``stop_sequences`` and the tool fields come from
    :class:`~ostinato.prompt.ToolCallingChatOptions`; ``frequency_penalty`` and
    ``presence_penalty`` are not part of the API and are not sent. ``max_tokens`` is
    required by the API: without it :data:`DEFAULT_MAX_TOKENS` is sent.

    Attributes:
        tool_choice: ``"auto"``, ``"any"`` (``"required"`` is taken as ``"any"``),
            ``"none"``, a tool's name (that tool must be called), or the API's own mapping
            (``{"type": "tool", "name": "weather"}``). Sent only with tools.
        parallel_tool_calls: ``False`` asks for at most one tool call per answer
            (``disable_parallel_tool_use``). Sent only with tools.
        thinking: the API's ``thinking`` mapping, as given
            (``{"type": "enabled", "budget_tokens": 2048}``).
        thinking_budget: shortcut for extended thinking with this many budget tokens
            (ignored when ``thinking`` is set); must be below ``max_tokens``.
        output_config: the API's ``output_config`` mapping, e.g. a JSON schema the answer
            must follow (see :func:`json_schema_output_config`).
        metadata: request metadata (``{"user_id": "..."}``).
        service_tier: ``"auto"`` or ``"standard_only"``.
        betas: beta features, sent in the ``anthropic-beta`` header.
        cache_system, cache_tools, cache_messages: place a prompt-caching breakpoint
            after the system prompt, after the last tool definition, or after the last
            message (the whole conversation so far). A message whose metadata has
            ``cache_control`` gets one too.
        cache_ttl: the lifetime of those breakpoints (``"5m"``, the default, or ``"1h"``).
        extra_body: extra top-level request fields, laid over everything else.
    """

    tool_choice: str | Mapping[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    thinking: Mapping[str, Any] | None = None
    thinking_budget: int | None = None
    output_config: Mapping[str, Any] | None = None
    metadata: Mapping[str, Any] | None = None
    service_tier: str | None = None
    betas: tuple[str, ...] | None = None
    cache_system: bool | None = None
    cache_tools: bool | None = None
    cache_messages: bool | None = None
    cache_ttl: str | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ToolCallingChatOptions.__post_init__(self)
        betas: object = self.betas
        if betas is not None:
            if isinstance(betas, str):
                raise TypeError("betas must be a sequence of str, not one str")
            object.__setattr__(self, "betas", tuple(self.betas or ()))


def json_schema_output_config(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An ``output_config`` asking for an answer that is JSON matching ``schema``."""
    return {"format": {"type": "json_schema", "schema": dict(schema)}}
