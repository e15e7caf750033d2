"""The ``memory-redis`` plugin's hook implementations (entry point
``ostinato: memory-redis``).

Registers the chat memory repository ``redis`` (chosen with
``OSTINATO_MEMORY_REPOSITORY=redis``) and the settings under
``OSTINATO_MEMORY_REDIS_``. Import-light on purpose: redis-py and pydantic-settings are
imported only when a factory runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import FactoryContext, hookimpl

if TYPE_CHECKING:
    from ostinato_memory_redis._repository import RedisChatMemoryRepository
    from ostinato_memory_redis._settings import RedisMemorySettings

__all__ = [
    "REPOSITORY_NAME",
    "SETTINGS_PREFIX",
    "create_redis_repository",
    "redis_repository",
    "register_chat_memory_repositories",
    "register_settings",
]

#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_MEMORY_REDIS_"
#: The name the repository is registered under (``OSTINATO_MEMORY_REPOSITORY=redis``).
REPOSITORY_NAME: Final = "redis"


def create_redis_repository(
    settings: RedisMemorySettings | None = None,
) -> RedisChatMemoryRepository:
    """A repository at ``OSTINATO_MEMORY_REDIS_URL`` (nothing connects until first use).

    Raises:
        ConfigurationError: the URL is not set, or a setting has a bad value.
    """
    from ostinato.errors import ConfigurationError
    from ostinato.settings import load_settings
    from ostinato_memory_redis._repository import RedisChatMemoryRepository
    from ostinato_memory_redis._settings import RedisMemorySettings

    if settings is None:
        settings = load_settings(RedisMemorySettings)
    if settings.url is None or not settings.url.get_secret_value().strip():
        raise ConfigurationError(
            "OSTINATO_MEMORY_REPOSITORY=redis needs OSTINATO_MEMORY_REDIS_URL, "
            "which is not set\n"
            "fix: set OSTINATO_MEMORY_REDIS_URL=redis://:password@host:6379/0"
        )
    return RedisChatMemoryRepository(
        settings.url,
        key_prefix=settings.key_prefix,
        ttl=settings.ttl,
        timeout=settings.timeout,
        max_connections=settings.max_connections,
    )


def redis_repository(context: FactoryContext | None = None) -> RedisChatMemoryRepository:
    """The ``redis`` repository factory (settings from the context, or the environment)."""
    from ostinato_memory_redis._settings import RedisMemorySettings

    settings = None if context is None else context.plugin_settings(RedisMemorySettings)
    return create_redis_repository(settings)


@hookimpl
def register_chat_memory_repositories(register: Any) -> None:
    """Register ``redis``."""
    register(REPOSITORY_NAME, redis_repository)


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_memory_redis.RedisMemorySettings`."""
    from ostinato_memory_redis._settings import RedisMemorySettings

    register(SETTINGS_PREFIX, RedisMemorySettings)
