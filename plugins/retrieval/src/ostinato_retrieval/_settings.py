"""``RetrievalSettings``: the retrieval plugin's variables, prefix ``OSTINATO_RETRIEVAL_``.

They choose the embedding model, the vector store and the advisor every auto-configured
client gets (none unless ``OSTINATO_RETRIEVAL_ADVISOR`` names one), and how ``ostinato
index`` cuts files. This module imports pydantic-settings; the plugin module imports it
only inside its hooks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings

__all__ = ["ENV_PREFIX", "RetrievalSettings"]

#: The prefix of every variable of this plugin.
ENV_PREFIX: Final = "OSTINATO_RETRIEVAL_"


class RetrievalSettings(PluginSettings):
    """Retrieval for auto-configured clients and for ``ostinato index``.

    Attributes:
        advisor: ``OSTINATO_RETRIEVAL_ADVISOR``: ``none`` (default), ``question-answer``
            or ``retrieval-augmentation``: the advisor added to every client.
        store: ``OSTINATO_RETRIEVAL_STORE``: ``sqlite`` (default, the file ``path``) or
            ``pgvector`` (``OSTINATO_VECTOR_PGVECTOR_*``, plugin ``ostinato-vector-pgvector``).
        path: ``OSTINATO_RETRIEVAL_PATH``: the SQLite file (default ``vectors.sqlite3``).
        embedding: ``OSTINATO_RETRIEVAL_EMBEDDING``: ``llamacpp`` (default: the bundled
            local model, no key), ``openai`` (``OSTINATO_OPENAI_API_KEY``/``BASE_URL``),
            ``ollama`` (``OSTINATO_OLLAMA_BASE_URL``) or ``hashing`` (offline, for tests).
        embedding_model: ``OSTINATO_RETRIEVAL_EMBEDDING_MODEL``: the model name for
            ``openai`` and ``ollama`` (their defaults otherwise).
        top_k, similarity_threshold: ``OSTINATO_RETRIEVAL_TOP_K`` (4) and
            ``OSTINATO_RETRIEVAL_SIMILARITY_THRESHOLD`` (0.0) of every search.
        allow_empty_context: ``OSTINATO_RETRIEVAL_ALLOW_EMPTY_CONTEXT``: with
            ``retrieval-augmentation``, send the question as it is when nothing is found.
        chunk_size, chunk_overlap: ``OSTINATO_RETRIEVAL_CHUNK_SIZE`` (800) and
            ``OSTINATO_RETRIEVAL_CHUNK_OVERLAP`` (100): how ``ostinato index`` cuts files,
            in tokens.
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX)

    advisor: Literal["none", "question-answer", "retrieval-augmentation"] = Field(
        default="none", description="The advisor every client gets."
    )
    store: Literal["sqlite", "pgvector"] = Field(default="sqlite", description="The store.")
    path: Path = Field(default=Path("vectors.sqlite3"), description="The SQLite file.")
    embedding: Literal["llamacpp", "openai", "ollama", "hashing"] = Field(
        default="llamacpp", description="Who embeds documents and questions."
    )
    embedding_model: str | None = Field(default=None, description="The embedding model name.")
    top_k: int = Field(default=4, ge=1, description="Documents per search.")
    similarity_threshold: float = Field(default=0.0, ge=0.0, le=1.0, description="Threshold.")
    allow_empty_context: bool = Field(default=False, description="Answer with no document.")
    chunk_size: int = Field(default=800, ge=1, description="Tokens per chunk when indexing.")
    chunk_overlap: int = Field(default=100, ge=0, description="Tokens chunks share.")
