"""An :class:`OllamaChatModel` from :class:`OllamaSettings`: the plugin's factory."""

from __future__ import annotations

from ostinato.http import model_factory
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


#: ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``: an
#: :class:`OllamaChatModel` for ``model_name`` (empty: the settings' model) configured by
#: ``settings`` (read from the environment and ``.env`` when not given).
create_chat_model = model_factory(OllamaChatModel, OllamaSettings, default_options_from)
