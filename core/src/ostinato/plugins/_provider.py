"""A chat model provider plugin, declared: a provider name, a settings class, a factory.

An adapter's ``plugin.py`` is the same three hooks' worth of code every time; this
declares it with dotted paths, so importing the plugin imports neither the settings
module (pydantic-settings) nor the model (httpx, an SDK)::

    PLUGIN = provider_plugin("openai", settings="ostinato_openai._settings:OpenAISettings")
    __all__, __getattr__, __dir__ = PLUGIN.module_exports(__name__)
    register_chat_models, register_settings = PLUGIN.register_chat_models, PLUGIN.register_settings

The factory (by default ``ostinato_<provider>._factory:create_chat_model``) is called as
``factory(model_name or None, settings)`` with the plugin's settings as
auto-configuration loaded them. The plugin module's names
(:meth:`ProviderPlugin.module_values`) are ``PLUGIN``, ``PROVIDER``,
``SETTINGS_PREFIX``, ``chat_model_factory`` (the registered factory ``(context,
model_name) -> model``), ``create_<provider>_chat_model`` (``(model_name) -> model`` with
settings read from the environment; an empty name takes ``OSTINATO_<PROVIDER>_MODEL``)
and the hooks ``register_chat_models`` and ``register_settings``, which the module
assigns itself (pluggy finds hooks among a module's own attributes only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ostinato.plugins._declared import DeclaredPlugin, check_path, load
from ostinato.plugins._hookspecs import hookimpl

if TYPE_CHECKING:
    from ostinato.plugins._context import FactoryContext

__all__ = ["ProviderPlugin", "provider_plugin"]


@dataclass(frozen=True, slots=True)
class ProviderPlugin(DeclaredPlugin):
    """The hook implementations of a chat model provider (see :func:`provider_plugin`).

    Attributes:
        provider: the name ``OSTINATO_MODEL=<provider>:<model>`` selects.
        settings_prefix: the settings' flat prefix (``OSTINATO_OPENAI_``).
        settings: ``"module:Class"`` of the plugin's settings class.
        factory: ``"module:function"`` of ``(model_name: str | None, settings) ->
            ChatModel``.
        description: what the provider is, in one sentence (``ostinato models`` shows
            it; the registered factory carries it as its ``description``).
    """

    provider: str
    settings_prefix: str
    settings: str
    factory: str
    description: str = ""

    def create_chat_model(self, context: FactoryContext, model_name: str) -> Any:
        """The registered factory: the model ``model_name`` (empty: the settings' default)
        with the settings the context holds."""
        settings = context.plugin_settings(self.settings_class())
        return load(self.factory)(model_name or None, settings)

    def create_from_environment(self, model_name: str) -> Any:
        """The model ``model_name`` (empty: the settings' default), settings read from the
        environment (outside auto-configuration)."""
        return load(self.factory)(model_name or None)

    def module_values(self) -> dict[str, Any]:
        """The plugin module's names and values: ``PLUGIN`` (this object), ``PROVIDER``,
        ``SETTINGS_PREFIX``, ``chat_model_factory`` (:meth:`create_chat_model`),
        ``create_<provider>_chat_model`` (:meth:`create_from_environment`) and the hooks
        ``register_chat_models`` and ``register_settings``."""
        return {
            "PLUGIN": self,
            "PROVIDER": self.provider,
            "SETTINGS_PREFIX": self.settings_prefix,
            "chat_model_factory": self.create_chat_model,
            f"create_{self.provider}_chat_model": self.create_from_environment,
            "register_chat_models": self.register_chat_models,
            "register_settings": self.register_settings,
        }

    @hookimpl
    def register_chat_models(self, register: Any) -> None:
        """Register the provider."""
        register(self.provider, self.create_chat_model)

    @property
    def chat_model_description(self) -> str:
        """:attr:`description`; how ``ostinato models`` finds it from the registered
        factory, a method of this object."""
        return self.description


def provider_plugin(
    provider: str,
    *,
    settings: str,
    factory: str | None = None,
    settings_prefix: str | None = None,
    description: str = "",
) -> ProviderPlugin:
    """Declare a chat model provider plugin; nothing is imported until a hook or factory runs.

    Args:
        provider: the provider name (``"openai"``).
        settings: ``"package.module:SettingsClass"``.
        factory: ``"package.module:create_chat_model"`` (default
            ``"ostinato_<provider>._factory:create_chat_model"``), called as
            ``factory(model_name or None, settings)`` (and ``factory(model_name or None)``
            by :meth:`ProviderPlugin.create_from_environment`).
        settings_prefix: the settings' flat prefix; default ``OSTINATO_<PROVIDER>_``
            (``"OSTINATO_OPENAI_"``).
        description: what the provider is, in one sentence, for ``ostinato models``
            (``"OpenAI's Chat Completions API and the servers that speak it."``).

    Returns:
        The :class:`ProviderPlugin`; the plugin module serves its names with
        :meth:`~ProviderPlugin.module_exports` and assigns its ``register_chat_models``
        and ``register_settings`` (or registers the object itself).

    Raises:
        ValueError: a path is not ``module:attribute``.
    """
    factory = factory or f"ostinato_{provider}._factory:create_chat_model"
    check_path("provider_plugin", "settings", settings)
    check_path("provider_plugin", "factory", factory)
    prefix = settings_prefix or f"OSTINATO_{provider.upper()}_"
    return ProviderPlugin(provider, prefix, settings, factory, description)
