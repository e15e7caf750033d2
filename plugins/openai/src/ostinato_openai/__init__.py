"""ostinato-openai: OpenAI Chat Completions, and every server imitating it, as a chat model.

``OpenAIChatOptions`` (a plain value) is imported eagerly; the model and the settings,
which import httpx and pydantic-settings, are imported on first access (PEP 562), so
loading the plugin stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports
from ostinato_openai._options import OpenAIChatOptions, SystemRole, json_schema_response_format

if TYPE_CHECKING:
    from ostinato.transport import RetryPolicy
    from ostinato_openai._factory import create_chat_model
    from ostinato_openai._model import DEFAULT_BASE_URL, OpenAIChatModel
    from ostinato_openai._settings import OpenAISettings
    from ostinato_openai._wire import OpenAIWireFormat

__all__ = [
    "DEFAULT_BASE_URL",
    "OpenAIChatModel",
    "OpenAIChatOptions",
    "OpenAISettings",
    "OpenAIWireFormat",
    "RetryPolicy",
    "SystemRole",
    "__version__",
    "create_chat_model",
    "json_schema_response_format",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_BASE_URL": "ostinato_openai._model",
        "OpenAIChatModel": "ostinato_openai._model",
        "OpenAIWireFormat": "ostinato_openai._wire",
        "OpenAISettings": "ostinato_openai._settings",
        "RetryPolicy": "ostinato.transport",
        "create_chat_model": "ostinato_openai._factory",
    },
)
