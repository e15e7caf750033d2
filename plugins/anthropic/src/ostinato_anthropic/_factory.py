"""An :class:`AnthropicChatModel` from :class:`AnthropicSettings`: the plugin's factory."""

from __future__ import annotations

import httpx

from ostinato.errors import ConfigurationError
from ostinato.transport import RetryPolicy
from ostinato_anthropic._model import AnthropicChatModel
from ostinato_anthropic._options import AnthropicChatOptions
from ostinato_anthropic._settings import AnthropicSettings

__all__ = ["create_chat_model", "default_options_from"]


def default_options_from(
    settings: AnthropicSettings, model: str | None = None
) -> AnthropicChatOptions:
    """The default request options the settings describe (``model`` overrides theirs)."""
    return AnthropicChatOptions(
        model=model or settings.model,
        max_tokens=settings.max_tokens,
        temperature=settings.temperature,
        top_p=settings.top_p,
        top_k=settings.top_k,
        thinking_budget=settings.thinking_budget,
        cache_system=settings.cache_system,
        cache_tools=settings.cache_tools,
        cache_messages=settings.cache_messages,
        cache_ttl=settings.cache_ttl,
        extra_body=settings.extra_body,
    )


def create_chat_model(
    model_name: str | None = None,
    settings: AnthropicSettings | None = None,
    *,
    retry_policy: RetryPolicy | None = None,
) -> AnthropicChatModel:
    """An :class:`AnthropicChatModel` for ``model_name`` configured by ``settings``.

    Without ``settings`` they are read from the environment (and ``.env``).

    Raises:
        ConfigurationError: a setting has a bad value, or the base URL is Anthropic's and
            no API key is set.
    """
    if settings is None:
        from ostinato.settings import load_settings

        settings = load_settings(AnthropicSettings)
    if settings.api_key is None and settings.uses_anthropic:
        raise ConfigurationError(
            f"the anthropic provider needs an API key for {settings.base_url}\n"
            "fix: set OSTINATO_ANTHROPIC_API_KEY (or ANTHROPIC_API_KEY), or point "
            "OSTINATO_ANTHROPIC_BASE_URL at a server that needs none"
        )
    timeout = httpx.Timeout(settings.timeout, connect=settings.connect_timeout)
    limits = httpx.Limits(
        max_connections=settings.max_connections,
        max_keepalive_connections=settings.max_keepalive_connections,
        keepalive_expiry=30.0,
    )
    policy = retry_policy or RetryPolicy(
        max_retries=settings.max_retries, max_total_time=settings.max_retry_time
    )
    return AnthropicChatModel(
        default_options=default_options_from(settings, model_name),
        api_key=settings.api_key,
        base_url=settings.base_url,
        api_version=settings.api_version,
        betas=settings.betas,
        timeout=timeout,
        retry_policy=policy,
        extra_headers=settings.extra_headers,
        extra_query=settings.extra_query,
        limits=limits,
    )
