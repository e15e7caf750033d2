"""``RedisMemorySettings``: the plugin's variables, prefix ``OSTINATO_MEMORY_REDIS_``.

Flat (no ``__`` nesting), read from the environment and ``.env``. The URL is a secret: its
password never appears in a repr, a log or an error message. This module imports
pydantic-settings; the plugin module imports it only inside its hooks.
"""

from __future__ import annotations

from typing import Final

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings

__all__ = ["ENV_PREFIX", "RedisMemorySettings"]

#: The prefix of every variable of this plugin.
ENV_PREFIX: Final = "OSTINATO_MEMORY_REDIS_"


class RedisMemorySettings(PluginSettings):
    """Where the ``redis`` chat memory repository keeps conversations.

    Attributes:
        url: ``OSTINATO_MEMORY_REDIS_URL``: the server (``redis://:password@host:6379/0``,
            ``rediss://`` for TLS); required when ``OSTINATO_MEMORY_REPOSITORY=redis``.
        key_prefix: ``OSTINATO_MEMORY_REDIS_KEY_PREFIX``: the start of every key
            (default ``ostinato:memory:``).
        ttl: ``OSTINATO_MEMORY_REDIS_TTL``: seconds a conversation lives after its last
            change (default: unset, forever).
        timeout: ``OSTINATO_MEMORY_REDIS_TIMEOUT``: seconds to connect or wait for a reply
            before ``ChatMemoryStoreUnavailableError`` (default 5).
        max_connections: ``OSTINATO_MEMORY_REDIS_MAX_CONNECTIONS``: connections at most per
            event loop (default 50).
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX)

    url: SecretStr | None = Field(default=None, description="The server URL (redis://...).")
    key_prefix: str = Field(default="ostinato:memory:", description="The start of every key.")
    ttl: int | None = Field(
        default=None, gt=0, description="Seconds a conversation lives after its last change."
    )
    timeout: float = Field(default=5.0, gt=0, description="Seconds to connect or get a reply.")
    max_connections: int = Field(default=50, gt=0, description="Connections at most per loop.")
