"""``ostinato_llamacpp`` exports exactly these names, all documented (see ``tests.fakes.public_api``)."""

from __future__ import annotations

import ostinato_llamacpp
from tests.fakes.public_api import public_surface_tests

PACKAGE = {
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
}

SURFACE = public_surface_tests(ostinato_llamacpp, PACKAGE)
test_the_package_exports_exactly_the_intended_names = SURFACE.exports
test_every_module_documents_itself_and_its_exports = SURFACE.documented
test_modules_stay_small = SURFACE.small
