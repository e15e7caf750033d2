"""The ``anthropic`` plugin's hook implementations (entry point ``ostinato: anthropic``).

Declared with :func:`~ostinato.plugins.provider_plugin`: the settings class and the
factory are named by dotted paths, so importing this module imports neither httpx nor
pydantic-settings; each is imported when a hook or the factory runs.
"""

from __future__ import annotations

from typing import Final

from ostinato.plugins import provider_plugin

__all__ = [
    "PLUGIN",
    "PROVIDER",
    "SETTINGS_PREFIX",
    "chat_model_factory",
    "create_anthropic_chat_model",
    "register_chat_models",
    "register_settings",
]

#: The provider name ``OSTINATO_MODEL=anthropic:<model>`` selects.
PROVIDER: Final = "anthropic"
#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_ANTHROPIC_"

#: The plugin, declared: its hooks register the provider and
#: :class:`~ostinato_anthropic.AnthropicSettings`.
PLUGIN: Final = provider_plugin(
    provider=PROVIDER,
    settings_prefix=SETTINGS_PREFIX,
    settings="ostinato_anthropic._settings:AnthropicSettings",
    factory="ostinato_anthropic._factory:create_chat_model",
)

#: The registered factory ``(context, model_name) -> AnthropicChatModel``: the settings
#: auto-configuration loaded, ``model_name`` (empty: ``OSTINATO_ANTHROPIC_MODEL``).
chat_model_factory: Final = PLUGIN.create_chat_model
#: ``(model_name) -> AnthropicChatModel`` with settings from the environment (empty model
#: name: ``OSTINATO_ANTHROPIC_MODEL``).
create_anthropic_chat_model: Final = PLUGIN.create_from_environment
#: Registers the ``anthropic`` provider.
register_chat_models: Final = PLUGIN.register_chat_models
#: Registers :class:`~ostinato_anthropic.AnthropicSettings` under ``OSTINATO_ANTHROPIC_``.
register_settings: Final = PLUGIN.register_settings
