"""ostinato-llamacpp: a local ``llama-server`` as ostinato's zero-config chat model.

``OSTINATO_MODEL=llamacpp:default`` runs the bundled Qwen2.5-Coder-1.5B-Instruct that
``ostinato local setup`` builds and assembles; ``llamacpp:/path/to/model.gguf`` runs any
GGUF. The pins, cache layout and errors are imported eagerly (plain values); the model,
the process machinery and the settings, which import httpx, subprocess machinery and
pydantic-settings, on first access (PEP 562), so loading the plugin stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports
from ostinato_llamacpp._artifacts import (
    DEFAULT_MODEL,
    DEFAULT_MODEL_NAME,
    LLAMA_CPP_SDIST,
    CacheLayout,
    DistributionFile,
    ModelPart,
    PinnedModel,
    default_cache_dir,
)
from ostinato_llamacpp._errors import (
    LlamaServerCrashedError,
    LlamaServerError,
    LlamaServerStartError,
    small_model_hint,
)

if TYPE_CHECKING:
    from ostinato_llamacpp._advisor import SmallModelHintAdvisor
    from ostinato_llamacpp._factory import BUNDLED_TEMPLATE, create_chat_model
    from ostinato_llamacpp._model import LlamaCppChatModel
    from ostinato_llamacpp._server import LlamaServer, ServerSpec
    from ostinato_llamacpp._settings import LlamaCppSettings
    from ostinato_llamacpp._setup import SetupOptions, SetupResult, run_setup
    from ostinato_llamacpp._shared import acquire_server, release_server

__all__ = [
    "BUNDLED_TEMPLATE",
    "DEFAULT_MODEL",
    "DEFAULT_MODEL_NAME",
    "LLAMA_CPP_SDIST",
    "CacheLayout",
    "DistributionFile",
    "LlamaCppChatModel",
    "LlamaCppSettings",
    "LlamaServer",
    "LlamaServerCrashedError",
    "LlamaServerError",
    "LlamaServerStartError",
    "ModelPart",
    "PinnedModel",
    "ServerSpec",
    "SetupOptions",
    "SetupResult",
    "SmallModelHintAdvisor",
    "__version__",
    "acquire_server",
    "create_chat_model",
    "default_cache_dir",
    "release_server",
    "run_setup",
    "small_model_hint",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "BUNDLED_TEMPLATE": "ostinato_llamacpp._factory",
        "LlamaCppChatModel": "ostinato_llamacpp._model",
        "LlamaCppSettings": "ostinato_llamacpp._settings",
        "LlamaServer": "ostinato_llamacpp._server",
        "ServerSpec": "ostinato_llamacpp._server",
        "SetupOptions": "ostinato_llamacpp._setup",
        "SetupResult": "ostinato_llamacpp._setup",
        "SmallModelHintAdvisor": "ostinato_llamacpp._advisor",
        "acquire_server": "ostinato_llamacpp._shared",
        "create_chat_model": "ostinato_llamacpp._factory",
        "release_server": "ostinato_llamacpp._shared",
        "run_setup": "ostinato_llamacpp._setup",
    },
)
