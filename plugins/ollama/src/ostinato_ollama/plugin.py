"""The ``ollama`` plugin's hook implementations (entry point ``ostinato: ollama``).

Import-light on purpose: nothing here imports httpx or pydantic-settings at module level;
the hooks import the modules that do only when they run (DESIGN.md §5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ostinato.plugins import FactoryContext, hookimpl

if TYPE_CHECKING:
    from ostinato_ollama._model import OllamaChatModel

__all__ = [
    "PROVIDER",
    "SETTINGS_PREFIX",
    "chat_model_factory",
    "create_ollama_chat_model",
    "register_chat_models",
    "register_settings",
]

#: The provider name ``OSTINATO_MODEL=ollama:<model>`` selects.
PROVIDER = "ollama"
#: The settings prefix this plugin reads.
SETTINGS_PREFIX = "OSTINATO_OLLAMA_"


def create_ollama_chat_model(model_name: str) -> OllamaChatModel:
    """The ``ollama`` chat model factory: settings from the environment, ``model_name``
    (empty: ``OSTINATO_OLLAMA_MODEL``)."""
    from ostinato_ollama._factory import create_chat_model

    return create_chat_model(model_name or None)


def chat_model_factory(context: FactoryContext, model_name: str) -> OllamaChatModel:
    """The registered ``ollama`` factory: the settings auto-configuration loaded,
    ``model_name`` (empty: ``OSTINATO_OLLAMA_MODEL``)."""
    from ostinato_ollama._factory import create_chat_model
    from ostinato_ollama._settings import OllamaSettings

    return create_chat_model(model_name or None, context.plugin_settings(OllamaSettings))


@hookimpl
def register_chat_models(register: Any) -> None:
    """Register the ``ollama`` provider."""
    register(PROVIDER, chat_model_factory)


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_ollama.OllamaSettings` under ``OSTINATO_OLLAMA_``."""
    from ostinato_ollama._settings import OllamaSettings

    register(SETTINGS_PREFIX, OllamaSettings)
