"""The ``openai`` plugin (entry point ``ostinato: openai``), declared as ``PLUGIN``."""

from __future__ import annotations

from ostinato.plugins import provider_plugin

#: The plugin, declared with :func:`~ostinato.plugins.provider_plugin`: nothing heavy is
#: imported until a hook or the factory runs.
PLUGIN = provider_plugin(
    "openai",
    settings="ostinato_openai._settings:OpenAISettings",
    description="OpenAI's Chat Completions API, and the servers that speak it (vLLM, LM "
    "Studio, llama-server...): OSTINATO_OPENAI_BASE_URL points at one.",
)
__all__, __getattr__, __dir__ = PLUGIN.module_exports(__name__)
register_chat_models, register_settings = PLUGIN.register_chat_models, PLUGIN.register_settings
