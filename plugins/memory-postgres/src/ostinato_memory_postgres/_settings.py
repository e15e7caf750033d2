"""``PostgresMemorySettings``: the plugin's variables, prefix ``OSTINATO_MEMORY_POSTGRES_``.

Flat (no ``__`` nesting), read from the environment and ``.env``. The URL is a secret: its
password never appears in a repr, a log or an error message. This module imports
pydantic-settings; the plugin module imports it only inside its hooks.
"""

from __future__ import annotations

from typing import Final

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["ENV_PREFIX", "PostgresMemorySettings"]

#: The prefix of every variable of this plugin.
ENV_PREFIX: Final = "OSTINATO_MEMORY_POSTGRES_"


class PostgresMemorySettings(BaseSettings):
    """Where the ``postgres`` chat memory repository keeps conversations.

    Attributes:
        url: ``OSTINATO_MEMORY_POSTGRES_URL``: the database, as a libpq URL
            (``postgresql://user:password@host:5432/db``); required when
            ``OSTINATO_MEMORY_REPOSITORY=postgres``.
        pool_min_size: ``OSTINATO_MEMORY_POSTGRES_POOL_MIN_SIZE``: connections kept open
            per event loop (default 1).
        pool_max_size: ``OSTINATO_MEMORY_POSTGRES_POOL_MAX_SIZE``: connections at most per
            event loop (default 10).
        timeout: ``OSTINATO_MEMORY_POSTGRES_TIMEOUT``: seconds an operation waits for a
            connection, then at most as long for the server to answer its statements,
            before ``ChatMemoryStoreUnavailableError`` (default 10).
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
    )

    url: SecretStr | None = Field(
        default=None, description="The database URL (postgresql://user:password@host/db)."
    )
    pool_min_size: int = Field(default=1, ge=0, description="Connections kept open per loop.")
    pool_max_size: int = Field(default=10, gt=0, description="Connections at most per loop.")
    timeout: float = Field(
        default=10.0,
        gt=0,
        description="Seconds to wait for a connection, then for answers, before failing.",
    )
