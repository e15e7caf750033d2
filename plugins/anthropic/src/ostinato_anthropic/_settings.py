"""``AnthropicSettings``: the plugin's environment variables, prefix ``OSTINATO_ANTHROPIC_``.

Flat (no ``__`` nesting). The key and base URL fall back to the Anthropic SDK's
``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``, so an existing setup works unchanged.
Mappings (headers, query, extra body) are JSON in the environment; the beta list is
comma-separated. This module imports pydantic-settings; the plugin module imports it only
inside its hooks.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, SecretStr
from pydantic_settings import NoDecode

from ostinato.http import ChatProviderSettings, provider_field

__all__ = ["DEFAULT_API_VERSION", "DEFAULT_BASE_URL", "ENV_PREFIX", "AnthropicSettings"]

#: The prefix of every variable of this plugin.
ENV_PREFIX = "OSTINATO_ANTHROPIC_"
#: The API root (requests go to ``<base>/v1/messages``).
DEFAULT_BASE_URL = "https://api.anthropic.com"
#: The ``anthropic-version`` header sent by default.
DEFAULT_API_VERSION = "2023-06-01"


def _split_commas(value: Any) -> Any:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


class AnthropicSettings(ChatProviderSettings, env_prefix=ENV_PREFIX):
    """Connection, retry and default-option settings of the ``anthropic`` provider.

    Attributes:
        api_key: ``OSTINATO_ANTHROPIC_API_KEY``, else ``ANTHROPIC_API_KEY``; sent as
            ``x-api-key``. Required by Anthropic's own API.
        base_url: ``OSTINATO_ANTHROPIC_BASE_URL``, else ``ANTHROPIC_BASE_URL``; default
            ``https://api.anthropic.com``.
        api_version: the ``anthropic-version`` header (default ``2023-06-01``).
        betas: comma-separated beta features for the ``anthropic-beta`` header.
        timeout, connect_timeout, max_retries, max_retry_time, max_connections,
            max_keepalive_connections, extra_headers, extra_query, max_response_bytes,
            call_deadline, first_event_timeout: see
            :class:`~ostinato.http.ProviderSettings`.
        model: the model used when ``OSTINATO_MODEL`` names none (``anthropic:``).
        max_tokens: the answer's token limit, which the API requires (default 4096).
        temperature: at most 1 here (see :class:`~ostinato.http.ChatProviderSettings`).
        top_p, extra_body: see :class:`~ostinato.http.ChatProviderSettings`.
        top_k, thinking_budget, cache_system, cache_tools, cache_messages, cache_ttl:
            default request options (see ``AnthropicChatOptions``).
    """

    provider = "anthropic"
    key_required_at = "api.anthropic.com"

    api_key: SecretStr | None = provider_field(ENV_PREFIX, "api_key", "ANTHROPIC_API_KEY")
    base_url: str = provider_field(
        ENV_PREFIX, "base_url", "ANTHROPIC_BASE_URL", default=DEFAULT_BASE_URL
    )
    api_version: str = DEFAULT_API_VERSION
    betas: Annotated[list[str], NoDecode, BeforeValidator(_split_commas)] = Field(
        default_factory=list
    )
    model: str = "claude-sonnet-4-5"
    max_tokens: int = Field(default=4096, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=1)
    top_k: int | None = Field(default=None, ge=1)
    thinking_budget: int | None = Field(default=None, ge=1)
    cache_system: bool | None = None
    cache_tools: bool | None = None
    cache_messages: bool | None = None
    cache_ttl: str | None = None

    @property
    def uses_anthropic(self) -> bool:
        """Whether ``base_url`` points at Anthropic itself (where a key is required)."""
        return "api.anthropic.com" in self.base_url
