"""ostinato-anthropic: Anthropic's Messages API (Claude) as a chat model.

``AnthropicChatOptions``, its helpers and the metadata keys (plain values) are imported
eagerly; the model
and the settings, which import httpx and pydantic-settings, are imported on first access
(PEP 562), so loading the plugin stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports
from ostinato_anthropic._normalise import FINISH_REASON_RAW, STOP_SEQUENCE, THINKING_BLOCKS
from ostinato_anthropic._options import (
    CACHE_CONTROL,
    DEFAULT_MAX_TOKENS,
    AnthropicChatOptions,
    json_schema_output_config,
)

if TYPE_CHECKING:
    from ostinato_anthropic._factory import create_chat_model
    from ostinato_anthropic._model import AnthropicChatModel
    from ostinato_anthropic._settings import (
        DEFAULT_API_VERSION,
        DEFAULT_BASE_URL,
        AnthropicSettings,
    )
    from ostinato_anthropic._wire import AnthropicWireFormat

__all__ = [
    "CACHE_CONTROL",
    "DEFAULT_API_VERSION",
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_TOKENS",
    "FINISH_REASON_RAW",
    "STOP_SEQUENCE",
    "THINKING_BLOCKS",
    "AnthropicChatModel",
    "AnthropicChatOptions",
    "AnthropicSettings",
    "AnthropicWireFormat",
    "__version__",
    "create_chat_model",
    "json_schema_output_config",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AnthropicChatModel": "ostinato_anthropic._model",
        "AnthropicWireFormat": "ostinato_anthropic._wire",
        "AnthropicSettings": "ostinato_anthropic._settings",
        "DEFAULT_API_VERSION": "ostinato_anthropic._settings",
        "DEFAULT_BASE_URL": "ostinato_anthropic._settings",
        "create_chat_model": "ostinato_anthropic._factory",
    },
)
