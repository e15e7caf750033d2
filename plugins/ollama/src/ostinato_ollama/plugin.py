"""The ``ollama`` plugin (entry point ``ostinato: ollama``), declared as ``PLUGIN``."""

from __future__ import annotations

from ostinato.plugins import provider_plugin

#: The plugin, declared with :func:`~ostinato.plugins.provider_plugin`: nothing heavy is
#: imported until a hook or the factory runs.
PLUGIN = provider_plugin(
    "ollama",
    settings="ostinato_ollama._settings:OllamaSettings",
    description="The models of an Ollama server, local or remote (OSTINATO_OLLAMA_BASE_URL).",
)
__all__, __getattr__, __dir__ = PLUGIN.module_exports(__name__)
register_chat_models, register_settings = PLUGIN.register_chat_models, PLUGIN.register_settings
