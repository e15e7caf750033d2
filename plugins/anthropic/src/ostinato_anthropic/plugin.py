"""The ``anthropic`` plugin (entry point ``ostinato: anthropic``), declared as ``PLUGIN``."""

from __future__ import annotations

from ostinato.plugins import provider_plugin

#: The plugin, declared with :func:`~ostinato.plugins.provider_plugin`: nothing heavy is
#: imported until a hook or the factory runs.
PLUGIN = provider_plugin(
    "anthropic",
    settings="ostinato_anthropic._settings:AnthropicSettings",
    description="Anthropic's Messages API: the Claude models (needs OSTINATO_ANTHROPIC_API_KEY).",
)
__all__, __getattr__, __dir__ = PLUGIN.module_exports(__name__)
register_chat_models, register_settings = PLUGIN.register_chat_models, PLUGIN.register_settings
