"""The ``openai`` plugin's hook implementations (entry point ``ostinato: openai``).

Import-light on purpose: nothing here imports httpx or pydantic-settings at module level;
the hooks import the modules that do only when they run (DESIGN.md §5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ostinato.plugins import FactoryContext, hookimpl

if TYPE_CHECKING:
    from ostinato_openai._model import OpenAIChatModel

__all__ = [
    "PROVIDER",
    "SETTINGS_PREFIX",
    "chat_model_factory",
    "create_openai_chat_model",
    "register_chat_models",
    "register_settings",
]

#: The provider name ``OSTINATO_MODEL=openai:<model>`` selects.
PROVIDER = "openai"
#: The settings prefix this plugin reads.
SETTINGS_PREFIX = "OSTINATO_OPENAI_"


def create_openai_chat_model(model_name: str) -> OpenAIChatModel:
    """The ``openai`` chat model factory: settings from the environment, ``model_name``
    (empty: ``OSTINATO_OPENAI_MODEL``)."""
    from ostinato_openai._factory import create_chat_model

    return create_chat_model(model_name or None)


def chat_model_factory(context: FactoryContext, model_name: str) -> OpenAIChatModel:
    """The registered ``openai`` factory: the settings auto-configuration loaded,
    ``model_name`` (empty: ``OSTINATO_OPENAI_MODEL``)."""
    from ostinato_openai._factory import create_chat_model
    from ostinato_openai._settings import OpenAISettings

    return create_chat_model(model_name or None, context.plugin_settings(OpenAISettings))


@hookimpl
def register_chat_models(register: Any) -> None:
    """Register the ``openai`` provider."""
    register(PROVIDER, chat_model_factory)


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_openai.OpenAISettings` under ``OSTINATO_OPENAI_``."""
    from ostinato_openai._settings import OpenAISettings

    register(SETTINGS_PREFIX, OpenAISettings)
