"""``PgVectorSettings``: the plugin's variables, prefix ``OSTINATO_VECTOR_PGVECTOR_``.

Flat (no ``__`` nesting), read from the environment and ``.env``. The URL is a secret: its
password never appears in a repr, a log or an error message. This module imports
pydantic-settings; the plugin module imports it only inside its hooks.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings

__all__ = ["ENV_PREFIX", "PgVectorSettings"]

#: The prefix of every variable of this plugin.
ENV_PREFIX: Final = "OSTINATO_VECTOR_PGVECTOR_"


class PgVectorSettings(PluginSettings):
    """Where the pgvector store keeps documents.

    Attributes:
        url: ``OSTINATO_VECTOR_PGVECTOR_URL``: the database, as a libpq URL; required when
            ``OSTINATO_RETRIEVAL_STORE=pgvector``.
        table: ``OSTINATO_VECTOR_PGVECTOR_TABLE``: the table of documents (default
            ``ostinato_documents``).
        index: ``OSTINATO_VECTOR_PGVECTOR_INDEX``: ``none`` (exact) or ``hnsw``.
        create_extension: ``OSTINATO_VECTOR_PGVECTOR_CREATE_EXTENSION``: run ``CREATE
            EXTENSION IF NOT EXISTS vector`` first (default true).
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX)

    url: SecretStr | None = Field(default=None, description="The database URL.")
    table: str = Field(default="ostinato_documents", description="The table of documents.")
    index: Literal["none", "hnsw"] = Field(default="none", description="none (exact) or hnsw.")
    create_extension: bool = Field(default=True, description="Create the vector extension.")
