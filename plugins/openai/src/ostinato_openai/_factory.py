"""Building an :class:`OpenAIChatModel` from :class:`OpenAISettings` (what the plugin does).

Settings fields named like the model's arguments (``base_url``, ...) go to the model, those
named like options fields into the default options (see :func:`ostinato.http.model_factory`).
"""

from __future__ import annotations

from ostinato.http import model_factory
from ostinato_openai._model import OpenAIChatModel
from ostinato_openai._options import OpenAIChatOptions
from ostinato_openai._settings import OpenAISettings

__all__ = ["create_chat_model"]

#: ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``: an
#: :class:`OpenAIChatModel` for ``model_name`` (empty: the settings' model) configured by
#: ``settings`` (read from the environment and ``.env`` when not given).
create_chat_model = model_factory(OpenAIChatModel, OpenAISettings, OpenAIChatOptions)
