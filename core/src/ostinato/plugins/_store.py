"""A chat memory store plugin, declared: a repository name, its settings, its class.

A server-backed store's ``plugin.py`` (``memory-postgres``, ``memory-redis``) is the same
two hooks and two functions every time; :func:`store_plugin` declares it with dotted paths
(the settings class, the repository class), so importing the plugin imports neither the
settings module (pydantic-settings) nor the driver. The settings class has a ``url``
(``SecretStr | None``); once it is known to be set, the repository is made as
``repository_class(settings.url, **{option: settings.<option>})`` for each of
``options``. The plugin module's names (:meth:`StorePlugin.module_values`) are
``PLUGIN``, ``REPOSITORY_NAME``, ``SETTINGS_PREFIX``, ``create_<repository>_repository``
(``(settings=None) -> repository``, settings read from the environment when left out),
``<repository>_repository`` (the registered factory, ``(context=None) -> repository``)
and the two hooks, which the module assigns itself (pluggy finds hooks among a module's
own attributes only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ostinato.plugins._declared import DeclaredPlugin, check_path, load
from ostinato.plugins._hookspecs import hookimpl

if TYPE_CHECKING:
    from ostinato.plugins._context import FactoryContext
    from ostinato.plugins._types import RegisterChatMemoryRepository

__all__ = ["StorePlugin", "store_plugin"]


@dataclass(frozen=True, slots=True)
class StorePlugin(DeclaredPlugin):
    """The hook implementations of a chat memory store (see :func:`store_plugin`).

    Attributes:
        repository: the name ``OSTINATO_MEMORY_REPOSITORY=<repository>`` selects.
        settings_prefix: the settings' flat prefix (``OSTINATO_MEMORY_POSTGRES_``).
        settings: ``"module:Class"`` of the plugin's settings class (with a ``url``).
        repository_class: ``"module:Class"`` of the repository, made as
            ``Class(settings.url, **options)``.
        options: the settings fields passed to the repository class by name
            (``("pool_min_size", "pool_max_size", "timeout")``).
        url_example: a URL of the store, shown by the error when ``<prefix>URL`` is not
            set.
    """

    repository: str
    settings_prefix: str
    settings: str
    repository_class: str
    options: tuple[str, ...]
    url_example: str

    def create(self, settings: Any = None) -> Any:
        """A repository at ``<prefix>URL`` (nothing connects until first use), with
        ``settings`` or, when left out, the settings read from the environment.

        Raises:
            ConfigurationError: the URL is not set, or a setting has a bad value.
        """
        from ostinato.errors import ConfigurationError
        from ostinato.settings import load_settings

        if settings is None:
            settings = load_settings(self.settings_class())
        if settings.url is None or not settings.url.get_secret_value().strip():
            variable = f"{self.settings_prefix}URL"
            raise ConfigurationError(
                f"OSTINATO_MEMORY_REPOSITORY={self.repository} needs {variable}, "
                f"which is not set\n"
                f"fix: set {variable}={self.url_example}"
            )
        options = {option: getattr(settings, option) for option in self.options}
        return load(self.repository_class)(settings.url, **options)

    def create_repository(self, context: FactoryContext | None = None) -> Any:
        """The registered factory: the repository with the settings the context holds
        (no context: the settings read from the environment)."""
        if context is None:
            return self.create()
        return self.create(context.plugin_settings(self.settings_class()))

    def module_values(self) -> dict[str, Any]:
        """The plugin module's names and values: ``PLUGIN`` (this object),
        ``REPOSITORY_NAME``, ``SETTINGS_PREFIX``, ``create_<repository>_repository``
        (:meth:`create`), ``<repository>_repository`` (:meth:`create_repository`) and the
        hooks ``register_chat_memory_repositories`` and ``register_settings``."""
        return {
            "PLUGIN": self,
            "REPOSITORY_NAME": self.repository,
            "SETTINGS_PREFIX": self.settings_prefix,
            f"create_{self.repository}_repository": self.create,
            f"{self.repository}_repository": self.create_repository,
            "register_chat_memory_repositories": self.register_chat_memory_repositories,
            "register_settings": self.register_settings,
        }

    @hookimpl
    def register_chat_memory_repositories(self, register: RegisterChatMemoryRepository) -> None:
        """Register the repository under its name."""
        register(self.repository, self.create_repository)


def store_plugin(
    repository: str,
    *,
    settings: str,
    repository_class: str,
    options: tuple[str, ...] = (),
    url_example: str,
    settings_prefix: str | None = None,
) -> StorePlugin:
    """Declare a chat memory store plugin; nothing is imported until a hook or factory runs.

    Args:
        repository: the repository name (``"postgres"``), chosen with
            ``OSTINATO_MEMORY_REPOSITORY``.
        settings: ``"package.module:SettingsClass"``; the class has a ``url``
            (``SecretStr | None``).
        repository_class: ``"package.module:RepositoryClass"``, made as
            ``RepositoryClass(settings.url, **options)`` once the URL is known to be set.
        options: the names of the settings fields passed to the repository class as
            keyword arguments of the same names.
        url_example: a URL of the store for the error naming the missing variable
            (``"postgresql://user:password@host:5432/db"``).
        settings_prefix: the settings' flat prefix; default
            ``OSTINATO_MEMORY_<REPOSITORY>_`` (``"OSTINATO_MEMORY_POSTGRES_"``).

    Returns:
        The :class:`StorePlugin`; the plugin module serves its names with
        :meth:`~StorePlugin.module_exports` and assigns its
        ``register_chat_memory_repositories`` and ``register_settings`` (or registers
        the object itself).

    Raises:
        ValueError: a path is not ``module:attribute``.
    """
    check_path("store_plugin", "settings", settings)
    check_path("store_plugin", "repository_class", repository_class)
    prefix = settings_prefix or f"OSTINATO_MEMORY_{repository.upper()}_"
    return StorePlugin(repository, prefix, settings, repository_class, options, url_example)
