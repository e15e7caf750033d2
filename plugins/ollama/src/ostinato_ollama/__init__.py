"""ostinato-ollama: Ollama's native chat API (``/api/chat``) as a chat model.

``OllamaChatOptions`` and the metadata keys (plain values) are imported eagerly; the
model and the settings, which import httpx and pydantic-settings, are imported on first
access (PEP 562), so loading the plugin stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports
from ostinato_ollama._normalise import CREATED_AT, FINISH_REASON_RAW
from ostinato_ollama._options import OllamaChatOptions

if TYPE_CHECKING:
    from ostinato_ollama._factory import create_chat_model
    from ostinato_ollama._model import OllamaChatModel
    from ostinato_ollama._settings import DEFAULT_BASE_URL, OllamaSettings, ollama_base_url
    from ostinato_ollama._wire import OllamaWireFormat

__all__ = [
    "CREATED_AT",
    "DEFAULT_BASE_URL",
    "FINISH_REASON_RAW",
    "OllamaChatModel",
    "OllamaChatOptions",
    "OllamaSettings",
    "OllamaWireFormat",
    "__version__",
    "create_chat_model",
    "ollama_base_url",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_BASE_URL": "ostinato_ollama._settings",
        "OllamaChatModel": "ostinato_ollama._model",
        "OllamaWireFormat": "ostinato_ollama._wire",
        "OllamaSettings": "ostinato_ollama._settings",
        "create_chat_model": "ostinato_ollama._factory",
        "ollama_base_url": "ostinato_ollama._settings",
    },
)
