"""An :class:`OllamaChatModel` from :class:`OllamaSettings`: the plugin's factory."""

from __future__ import annotations

import httpx

from ostinato.transport import RetryPolicy
from ostinato_ollama._model import OllamaChatModel
from ostinato_ollama._options import OllamaChatOptions
from ostinato_ollama._settings import OllamaSettings

__all__ = ["create_chat_model", "default_options_from"]


def default_options_from(settings: OllamaSettings, model: str | None = None) -> OllamaChatOptions:
    """The default request options the settings describe (``model`` overrides theirs)."""
    return OllamaChatOptions(
        model=model or settings.model,
        temperature=settings.temperature,
        top_p=settings.top_p,
        top_k=settings.top_k,
        max_tokens=settings.max_tokens,
        seed=settings.seed,
        num_ctx=settings.num_ctx,
        options=settings.options or None,
        format=settings.format,
        think=settings.think,
        keep_alive=settings.keep_alive_value,
        extra_body=settings.extra_body,
    )


def create_chat_model(
    model_name: str | None = None,
    settings: OllamaSettings | None = None,
    *,
    retry_policy: RetryPolicy | None = None,
) -> OllamaChatModel:
    """An :class:`OllamaChatModel` for ``model_name`` configured by ``settings``.

    Without ``settings`` they are read from the environment (and ``.env``).

    Raises:
        ConfigurationError: a setting has a bad value.
    """
    if settings is None:
        from ostinato.settings import load_settings

        settings = load_settings(OllamaSettings)
    timeout = httpx.Timeout(settings.timeout, connect=settings.connect_timeout)
    limits = httpx.Limits(
        max_connections=settings.max_connections,
        max_keepalive_connections=settings.max_keepalive_connections,
        keepalive_expiry=30.0,
    )
    policy = retry_policy or RetryPolicy(
        max_retries=settings.max_retries, max_total_time=settings.max_retry_time
    )
    return OllamaChatModel(
        default_options=default_options_from(settings, model_name),
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=timeout,
        retry_policy=policy,
        extra_headers=settings.extra_headers,
        limits=limits,
    )
