"""An :class:`AnthropicChatModel` from :class:`AnthropicSettings`: the plugin's factory.

Settings fields named like the model's arguments (``base_url``, ...) go to the model, those
named like options fields into the default options (see :func:`ostinato.http.model_factory`).
"""

from __future__ import annotations

from ostinato.http import model_factory
from ostinato_anthropic._model import AnthropicChatModel
from ostinato_anthropic._options import AnthropicChatOptions
from ostinato_anthropic._settings import AnthropicSettings

__all__ = ["create_chat_model"]

#: ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``: an
#: :class:`AnthropicChatModel` for ``model_name`` (empty: the settings' model) configured by
#: ``settings`` (read from the environment and ``.env`` when not given).
create_chat_model = model_factory(AnthropicChatModel, AnthropicSettings, AnthropicChatOptions)
