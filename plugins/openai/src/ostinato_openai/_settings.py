"""``OpenAISettings``: the plugin's environment variables, prefix ``OSTINATO_OPENAI_``.

Flat (no ``__`` nesting). The key and base URL fall back to the ecosystem's
``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` (and ``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID``),
so an existing OpenAI setup works unchanged. Mappings (headers, query, extra body) are
JSON in the environment. This module imports pydantic-settings; the plugin module imports
it only inside its hooks.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr

from ostinato.http import ChatProviderSettings, provider_field

__all__ = ["ENV_PREFIX", "OpenAISettings"]

#: The prefix of every variable of this plugin.
ENV_PREFIX = "OSTINATO_OPENAI_"

_DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAISettings(ChatProviderSettings, env_prefix=ENV_PREFIX):
    """Connection, retry and default-option settings of the ``openai`` provider.

    Attributes:
        api_key: ``OSTINATO_OPENAI_API_KEY``, else ``OPENAI_API_KEY``. Optional for local
            servers; required when ``base_url`` is OpenAI's.
        base_url: ``OSTINATO_OPENAI_BASE_URL``, else ``OPENAI_BASE_URL``; default
            ``https://api.openai.com/v1``.
        organization, project: OpenAI organisation and project headers (fallbacks
            ``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID``).
        timeout, connect_timeout, max_retries, max_retry_time, max_connections,
            max_keepalive_connections, extra_headers, extra_query (Azure's
            ``api-version``), max_response_bytes, call_deadline, first_event_timeout:
            see :class:`~ostinato.http.ProviderSettings`.
        model: the model used when ``OSTINATO_MODEL`` names none (``openai:``).
        temperature, top_p, max_tokens, extra_body: see
            :class:`~ostinato.http.ChatProviderSettings`.
        max_completion_tokens, seed, reasoning_effort, parallel_tool_calls, strict_tools,
            stream_usage, system_role: default request options (see ``OpenAIChatOptions``).
    """

    provider = "openai"
    key_required_at = "api.openai.com"

    api_key: SecretStr | None = provider_field(ENV_PREFIX, "api_key", "OPENAI_API_KEY")
    base_url: str = provider_field(
        ENV_PREFIX, "base_url", "OPENAI_BASE_URL", default=_DEFAULT_BASE_URL
    )
    organization: str | None = provider_field(ENV_PREFIX, "organization", "OPENAI_ORG_ID")
    project: str | None = provider_field(ENV_PREFIX, "project", "OPENAI_PROJECT_ID")
    model: str = "gpt-4.1-mini"
    max_completion_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    reasoning_effort: str | None = None
    parallel_tool_calls: bool | None = None
    strict_tools: bool | None = None
    stream_usage: bool = True
    system_role: Literal["system", "developer"] = "system"

    @property
    def uses_openai(self) -> bool:
        """Whether ``base_url`` points at OpenAI itself (where a key is required)."""
        return "api.openai.com" in self.base_url
