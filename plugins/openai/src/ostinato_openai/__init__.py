"""ostinato-openai: OpenAI Chat Completions, and every server imitating it, as a chat model.

``OpenAIChatOptions`` (a plain value) is imported eagerly; the model and the settings,
which import httpx and pydantic-settings, are imported on first access (PEP 562), so
loading the plugin stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_package
from ostinato_openai._options import OpenAIChatOptions as OpenAIChatOptions
from ostinato_openai._options import SystemRole as SystemRole
from ostinato_openai._options import json_schema_response_format as json_schema_response_format

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato.transport import RetryPolicy as RetryPolicy
    from ostinato_openai._factory import create_chat_model as create_chat_model
    from ostinato_openai._model import DEFAULT_BASE_URL as DEFAULT_BASE_URL
    from ostinato_openai._model import OpenAIChatModel as OpenAIChatModel
    from ostinato_openai._settings import OpenAISettings as OpenAISettings
    from ostinato_openai._wire import OpenAIWireFormat as OpenAIWireFormat
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "OpenAIWireFormat": "ostinato_openai._wire",
            "DEFAULT_BASE_URL": "ostinato_openai._model",
            "OpenAIChatModel": "ostinato_openai._model",
            "OpenAISettings": "ostinato_openai._settings",
            "RetryPolicy": "ostinato.transport",
            "create_chat_model": "ostinato_openai._factory",
        },
    )
