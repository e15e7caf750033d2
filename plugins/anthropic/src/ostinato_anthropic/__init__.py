"""ostinato-anthropic: Anthropic's Messages API (Claude) as a chat model.

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
    from ostinato_anthropic._factory import create_chat_model as create_chat_model
    from ostinato_anthropic._model import AnthropicChatModel as AnthropicChatModel
    from ostinato_anthropic._normalise import FINISH_REASON_RAW as FINISH_REASON_RAW
    from ostinato_anthropic._normalise import STOP_SEQUENCE as STOP_SEQUENCE
    from ostinato_anthropic._normalise import THINKING_BLOCKS as THINKING_BLOCKS
    from ostinato_anthropic._options import CACHE_CONTROL as CACHE_CONTROL
    from ostinato_anthropic._options import DEFAULT_MAX_TOKENS as DEFAULT_MAX_TOKENS
    from ostinato_anthropic._options import AnthropicChatOptions as AnthropicChatOptions
    from ostinato_anthropic._options import json_schema_output_config as json_schema_output_config
    from ostinato_anthropic._settings import DEFAULT_API_VERSION as DEFAULT_API_VERSION
    from ostinato_anthropic._settings import DEFAULT_BASE_URL as DEFAULT_BASE_URL
    from ostinato_anthropic._settings import AnthropicSettings as AnthropicSettings
    from ostinato_anthropic._wire import AnthropicWireFormat as AnthropicWireFormat
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "FINISH_REASON_RAW": "ostinato_anthropic._normalise",
            "STOP_SEQUENCE": "ostinato_anthropic._normalise",
            "THINKING_BLOCKS": "ostinato_anthropic._normalise",
            "CACHE_CONTROL": "ostinato_anthropic._options",
            "DEFAULT_MAX_TOKENS": "ostinato_anthropic._options",
            "AnthropicChatOptions": "ostinato_anthropic._options",
            "json_schema_output_config": "ostinato_anthropic._options",
            "AnthropicWireFormat": "ostinato_anthropic._wire",
            "AnthropicChatModel": "ostinato_anthropic._model",
            "AnthropicSettings": "ostinato_anthropic._settings",
            "DEFAULT_API_VERSION": "ostinato_anthropic._settings",
            "DEFAULT_BASE_URL": "ostinato_anthropic._settings",
            "create_chat_model": "ostinato_anthropic._factory",
        },
    )
