"""ostinato-llamacpp: a local ``llama-server`` as ostinato's zero-config chat model.

``OSTINATO_MODEL=llamacpp:default`` runs the bundled Qwen2.5-Coder-1.5B-Instruct that
``ostinato local setup`` builds and assembles; ``llamacpp:/path/to/model.gguf`` runs any
GGUF. Every name is imported on first access (PEP 562), so loading the plugin, which
every auto-configured client does, stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_llamacpp._advisor import SmallModelHintAdvisor as SmallModelHintAdvisor
    from ostinato_llamacpp._artifacts import DEFAULT_MODEL as DEFAULT_MODEL
    from ostinato_llamacpp._artifacts import DEFAULT_MODEL_NAME as DEFAULT_MODEL_NAME
    from ostinato_llamacpp._artifacts import LLAMA_CPP_SDIST as LLAMA_CPP_SDIST
    from ostinato_llamacpp._artifacts import CacheLayout as CacheLayout
    from ostinato_llamacpp._artifacts import DistributionFile as DistributionFile
    from ostinato_llamacpp._artifacts import ModelPart as ModelPart
    from ostinato_llamacpp._artifacts import PinnedModel as PinnedModel
    from ostinato_llamacpp._artifacts import default_cache_dir as default_cache_dir
    from ostinato_llamacpp._errors import LlamaServerCrashedError as LlamaServerCrashedError
    from ostinato_llamacpp._errors import LlamaServerError as LlamaServerError
    from ostinato_llamacpp._errors import LlamaServerStartError as LlamaServerStartError
    from ostinato_llamacpp._errors import small_model_hint as small_model_hint
    from ostinato_llamacpp._factory import BUNDLED_TEMPLATE as BUNDLED_TEMPLATE
    from ostinato_llamacpp._factory import create_chat_model as create_chat_model
    from ostinato_llamacpp._model import LlamaCppChatModel as LlamaCppChatModel
    from ostinato_llamacpp._server import LlamaServer as LlamaServer
    from ostinato_llamacpp._server import ServerSpec as ServerSpec
    from ostinato_llamacpp._settings import LlamaCppSettings as LlamaCppSettings
    from ostinato_llamacpp._setup import SetupOptions as SetupOptions
    from ostinato_llamacpp._setup import SetupResult as SetupResult
    from ostinato_llamacpp._setup import run_setup as run_setup
    from ostinato_llamacpp._shared import acquire_server as acquire_server
    from ostinato_llamacpp._shared import release_server as release_server
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "DEFAULT_MODEL": "ostinato_llamacpp._artifacts",
            "DEFAULT_MODEL_NAME": "ostinato_llamacpp._artifacts",
            "LLAMA_CPP_SDIST": "ostinato_llamacpp._artifacts",
            "CacheLayout": "ostinato_llamacpp._artifacts",
            "DistributionFile": "ostinato_llamacpp._artifacts",
            "ModelPart": "ostinato_llamacpp._artifacts",
            "PinnedModel": "ostinato_llamacpp._artifacts",
            "default_cache_dir": "ostinato_llamacpp._artifacts",
            "LlamaServerCrashedError": "ostinato_llamacpp._errors",
            "LlamaServerError": "ostinato_llamacpp._errors",
            "LlamaServerStartError": "ostinato_llamacpp._errors",
            "small_model_hint": "ostinato_llamacpp._errors",
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
