"""The ``memory-postgres`` plugin's hook implementations (entry point
``ostinato: memory-postgres``).

Registers the chat memory repository ``postgres`` (chosen with
``OSTINATO_MEMORY_REPOSITORY=postgres``) and the settings under
``OSTINATO_MEMORY_POSTGRES_``. Import-light on purpose: psycopg and pydantic-settings are
imported only when a factory runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import FactoryContext, hookimpl

if TYPE_CHECKING:
    from ostinato_memory_postgres._repository import PostgresChatMemoryRepository
    from ostinato_memory_postgres._settings import PostgresMemorySettings

__all__ = [
    "REPOSITORY_NAME",
    "SETTINGS_PREFIX",
    "create_postgres_repository",
    "postgres_repository",
    "register_chat_memory_repositories",
    "register_settings",
]

#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_MEMORY_POSTGRES_"
#: The name the repository is registered under (``OSTINATO_MEMORY_REPOSITORY=postgres``).
REPOSITORY_NAME: Final = "postgres"


def create_postgres_repository(
    settings: PostgresMemorySettings | None = None,
) -> PostgresChatMemoryRepository:
    """A repository at ``OSTINATO_MEMORY_POSTGRES_URL`` (nothing connects until first use).

    Raises:
        ConfigurationError: the URL is not set, or a setting has a bad value.
    """
    from ostinato.errors import ConfigurationError
    from ostinato.settings import load_settings
    from ostinato_memory_postgres._repository import PostgresChatMemoryRepository
    from ostinato_memory_postgres._settings import PostgresMemorySettings

    if settings is None:
        settings = load_settings(PostgresMemorySettings)
    if settings.url is None or not settings.url.get_secret_value().strip():
        raise ConfigurationError(
            "OSTINATO_MEMORY_REPOSITORY=postgres needs OSTINATO_MEMORY_POSTGRES_URL, "
            "which is not set\n"
            "fix: set OSTINATO_MEMORY_POSTGRES_URL=postgresql://user:password@host:5432/db"
        )
    return PostgresChatMemoryRepository(
        settings.url,
        pool_min_size=settings.pool_min_size,
        pool_max_size=settings.pool_max_size,
        timeout=settings.timeout,
    )


def postgres_repository(context: FactoryContext | None = None) -> PostgresChatMemoryRepository:
    """The ``postgres`` repository factory (settings from the context, or the environment)."""
    from ostinato_memory_postgres._settings import PostgresMemorySettings

    settings = None if context is None else context.plugin_settings(PostgresMemorySettings)
    return create_postgres_repository(settings)


@hookimpl
def register_chat_memory_repositories(register: Any) -> None:
    """Register ``postgres``."""
    register(REPOSITORY_NAME, postgres_repository)


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_memory_postgres.PostgresMemorySettings`."""
    from ostinato_memory_postgres._settings import PostgresMemorySettings

    register(SETTINGS_PREFIX, PostgresMemorySettings)
