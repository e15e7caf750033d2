"""An :class:`OllamaChatModel` from :class:`OllamaSettings`: the plugin's factory.

Settings fields named like the model's arguments (``base_url``, ...) go to the model, those
named like options fields into the default options (see :func:`ostinato.http.model_factory`).
"""

from __future__ import annotations

from typing import Any

from ostinato.http import model_factory
from ostinato_ollama._model import OllamaChatModel
from ostinato_ollama._options import OllamaChatOptions
from ostinato_ollama._settings import OllamaSettings

__all__ = ["create_chat_model"]


def _overrides(settings: OllamaSettings) -> dict[str, Any]:
    """Option values the settings hold in another form."""
    return {"options": settings.options or None, "keep_alive": settings.keep_alive_value}


#: ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``: an
#: :class:`OllamaChatModel` for ``model_name`` (empty: the settings' model) configured by
#: ``settings`` (read from the environment and ``.env`` when not given).
create_chat_model = model_factory(OllamaChatModel, OllamaSettings, OllamaChatOptions, _overrides)
