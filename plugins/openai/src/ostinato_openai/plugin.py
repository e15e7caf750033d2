"""The ``openai`` plugin's hook implementations (entry point ``ostinato: openai``).

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
    "create_openai_chat_model",
    "register_chat_models",
    "register_settings",
]

#: The provider name ``OSTINATO_MODEL=openai:<model>`` selects.
PROVIDER: Final = "openai"
#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_OPENAI_"

#: The plugin, declared: its hooks register the provider and
#: :class:`~ostinato_openai.OpenAISettings`.
PLUGIN: Final = provider_plugin(
    provider=PROVIDER,
    settings_prefix=SETTINGS_PREFIX,
    settings="ostinato_openai._settings:OpenAISettings",
    factory="ostinato_openai._factory:create_chat_model",
)

#: The registered factory ``(context, model_name) -> OpenAIChatModel``: the settings
#: auto-configuration loaded, ``model_name`` (empty: ``OSTINATO_OPENAI_MODEL``).
chat_model_factory: Final = PLUGIN.create_chat_model
#: ``(model_name) -> OpenAIChatModel`` with settings from the environment (empty model
#: name: ``OSTINATO_OPENAI_MODEL``).
create_openai_chat_model: Final = PLUGIN.create_from_environment
#: Registers the ``openai`` provider.
register_chat_models: Final = PLUGIN.register_chat_models
#: Registers :class:`~ostinato_openai.OpenAISettings` under ``OSTINATO_OPENAI_``.
register_settings: Final = PLUGIN.register_settings
