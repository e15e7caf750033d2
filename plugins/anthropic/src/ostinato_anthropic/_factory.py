"""An :class:`AnthropicChatModel` from :class:`AnthropicSettings`: the plugin's factory."""

from __future__ import annotations

from ostinato.http import connection_arguments
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
    settings = AnthropicSettings.resolve(settings)
    return AnthropicChatModel(
        default_options=default_options_from(settings, model_name),
        base_url=settings.base_url,
        api_version=settings.api_version,
        betas=settings.betas,
        **connection_arguments(settings, retry_policy),
    )
