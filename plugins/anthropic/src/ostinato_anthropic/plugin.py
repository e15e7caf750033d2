"""The ``anthropic`` plugin's hook implementations (entry point ``ostinato: anthropic``).

Import-light on purpose: nothing here imports httpx or pydantic-settings at module level;
the hooks import the modules that do only when they run (DESIGN.md §5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ostinato.plugins import FactoryContext, hookimpl

if TYPE_CHECKING:
    from ostinato_anthropic._model import AnthropicChatModel

__all__ = [
    "PROVIDER",
    "SETTINGS_PREFIX",
    "chat_model_factory",
    "create_anthropic_chat_model",
    "register_chat_models",
    "register_settings",
]

#: The provider name ``OSTINATO_MODEL=anthropic:<model>`` selects.
PROVIDER = "anthropic"
#: The settings prefix this plugin reads.
SETTINGS_PREFIX = "OSTINATO_ANTHROPIC_"


def create_anthropic_chat_model(model_name: str) -> AnthropicChatModel:
    """The ``anthropic`` chat model factory: settings from the environment, ``model_name``
    (empty: ``OSTINATO_ANTHROPIC_MODEL``)."""
    from ostinato_anthropic._factory import create_chat_model

    return create_chat_model(model_name or None)


def chat_model_factory(context: FactoryContext, model_name: str) -> AnthropicChatModel:
    """The registered ``anthropic`` factory: the settings auto-configuration loaded,
    ``model_name`` (empty: ``OSTINATO_ANTHROPIC_MODEL``)."""
    from ostinato_anthropic._factory import create_chat_model
    from ostinato_anthropic._settings import AnthropicSettings

    return create_chat_model(model_name or None, context.plugin_settings(AnthropicSettings))


@hookimpl
def register_chat_models(register: Any) -> None:
    """Register the ``anthropic`` provider."""
    register(PROVIDER, chat_model_factory)


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_anthropic.AnthropicSettings` under ``OSTINATO_ANTHROPIC_``."""
    from ostinato_anthropic._settings import AnthropicSettings

    register(SETTINGS_PREFIX, AnthropicSettings)
