"""An :class:`AnthropicChatModel` from :class:`AnthropicSettings`: the plugin's factory."""

from __future__ import annotations

from typing import Any

from ostinato.http import model_factory
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


def _arguments(settings: AnthropicSettings) -> dict[str, Any]:
    """The ``anthropic-version`` and ``anthropic-beta`` headers' values."""
    return {"api_version": settings.api_version, "betas": settings.betas}


#: ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``: an
#: :class:`AnthropicChatModel` for ``model_name`` (empty: the settings' model) configured by
#: ``settings`` (read from the environment and ``.env`` when not given).
create_chat_model = model_factory(
    AnthropicChatModel, AnthropicSettings, default_options_from, _arguments
)
