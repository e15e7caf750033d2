"""A chat model provider plugin, declared: a provider name, a settings class, a factory.

An adapter's ``plugin.py`` is the same three hooks' worth of code every time; this
declares it with dotted paths, so importing the plugin imports neither the settings
module (pydantic-settings) nor the model (httpx, an SDK)::

    plugin = provider_plugin(
        provider="openai",
        settings_prefix="OSTINATO_OPENAI_",
        settings="ostinato_openai._settings:OpenAISettings",
        factory="ostinato_openai._factory:create_chat_model",
    )
    register_chat_models = plugin.register_chat_models
    register_settings = plugin.register_settings

The factory at ``factory`` is called as ``factory(model_name or None, settings)`` with the
plugin's settings as auto-configuration loaded them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ostinato.plugins._hookspecs import hookimpl

if TYPE_CHECKING:
    from ostinato.plugins._context import FactoryContext

__all__ = ["ProviderPlugin", "provider_plugin"]


def _check_path(what: str, path: str) -> None:
    module, sep, attribute = path.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(
            f"provider_plugin({what}={path!r}) is not a dotted path to an attribute\n"
            f"fix: write it as 'package.module:attribute'"
        )


def _load(path: str) -> Any:
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True, slots=True)
class ProviderPlugin:
    """The hook implementations of a chat model provider (see :func:`provider_plugin`).

    Attributes:
        provider: the name ``OSTINATO_MODEL=<provider>:<model>`` selects.
        settings_prefix: the settings' flat prefix (``OSTINATO_OPENAI_``).
        settings: ``"module:Class"`` of the plugin's settings class.
        factory: ``"module:function"`` of ``(model_name: str | None, settings) ->
            ChatModel``.
    """

    provider: str
    settings_prefix: str
    settings: str
    factory: str

    def settings_class(self) -> type[Any]:
        """The settings class (imports its module)."""
        found: type[Any] = _load(self.settings)
        return found

    def create_chat_model(self, context: FactoryContext, model_name: str) -> Any:
        """The registered factory: the model ``model_name`` (empty: the settings' default)
        with the settings the context holds."""
        settings = context.plugin_settings(self.settings_class())
        return _load(self.factory)(model_name or None, settings)

    def create_from_environment(self, model_name: str) -> Any:
        """The model ``model_name`` (empty: the settings' default), settings read from the
        environment (outside auto-configuration)."""
        return _load(self.factory)(model_name or None)

    @hookimpl
    def register_chat_models(self, register: Any) -> None:
        """Register the provider."""
        register(self.provider, self.create_chat_model)

    @hookimpl
    def register_settings(self, register: Any) -> None:
        """Register the settings class under the prefix."""
        register(self.settings_prefix, self.settings_class())


def provider_plugin(
    *, provider: str, settings_prefix: str, settings: str, factory: str
) -> ProviderPlugin:
    """Declare a chat model provider plugin; nothing is imported until a hook or factory runs.

    Args:
        provider: the provider name (``"openai"``).
        settings_prefix: the settings' flat prefix (``"OSTINATO_OPENAI_"``).
        settings: ``"package.module:SettingsClass"``.
        factory: ``"package.module:create_chat_model"``, called as
            ``factory(model_name or None, settings)`` (and ``factory(model_name or None)``
            by :meth:`ProviderPlugin.create_from_environment`).

    Returns:
        The :class:`ProviderPlugin`; assign its ``register_chat_models`` and
        ``register_settings`` in the plugin module (or register the object itself).

    Raises:
        ValueError: a path is not ``module:attribute``.
    """
    _check_path("settings", settings)
    _check_path("factory", factory)
    return ProviderPlugin(provider, settings_prefix, settings, factory)
