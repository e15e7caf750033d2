"""An :class:`OllamaChatModel` from :class:`OllamaSettings`: the plugin's factory."""

from __future__ import annotations

from ostinato.http import connection_arguments
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
    settings = OllamaSettings.resolve(settings)
    return OllamaChatModel(
        default_options=default_options_from(settings, model_name),
        base_url=settings.base_url,
        **connection_arguments(settings, retry_policy),
    )
