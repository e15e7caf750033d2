"""ostinato-ollama: Ollama's native chat API (``/api/chat``) as a chat model.

Every name is imported on first access (PEP 562), so loading the plugin, which every
auto-configured client does, stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_ollama._factory import create_chat_model as create_chat_model
    from ostinato_ollama._model import OllamaChatModel as OllamaChatModel
    from ostinato_ollama._normalise import CREATED_AT as CREATED_AT
    from ostinato_ollama._normalise import FINISH_REASON_RAW as FINISH_REASON_RAW
    from ostinato_ollama._options import OllamaChatOptions as OllamaChatOptions
    from ostinato_ollama._settings import DEFAULT_BASE_URL as DEFAULT_BASE_URL
    from ostinato_ollama._settings import OllamaSettings as OllamaSettings
    from ostinato_ollama._settings import ollama_base_url as ollama_base_url
    from ostinato_ollama._wire import OllamaWireFormat as OllamaWireFormat
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "CREATED_AT": "ostinato_ollama._normalise",
            "FINISH_REASON_RAW": "ostinato_ollama._normalise",
            "OllamaChatOptions": "ostinato_ollama._options",
            "OllamaWireFormat": "ostinato_ollama._wire",
            "DEFAULT_BASE_URL": "ostinato_ollama._settings",
            "OllamaChatModel": "ostinato_ollama._model",
            "OllamaSettings": "ostinato_ollama._settings",
            "create_chat_model": "ostinato_ollama._factory",
            "ollama_base_url": "ostinato_ollama._settings",
        },
    )
