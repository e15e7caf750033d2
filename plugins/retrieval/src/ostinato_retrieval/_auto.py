"""The embedding model, vector store and advisor :class:`RetrievalSettings` describe.

Each provider is imported only when chosen, and a missing plugin is a
:class:`~ostinato.errors.ConfigurationError` naming what to install.
"""

from __future__ import annotations

import importlib
from typing import Any

from ostinato.advisors import Advisor
from ostinato.errors import ConfigurationError
from ostinato.retrieval import EmbeddingModel, SearchRequest, VectorStore
from ostinato_retrieval._settings import RetrievalSettings

__all__ = ["advisor_from_settings", "embedding_model_from_settings", "store_from_settings"]

_EMBEDDINGS = {
    "openai": ("ostinato_openai.embedding", "ostinato-openai"),
    "ollama": ("ostinato_ollama.embedding", "ostinato-ollama"),
    "llamacpp": ("ostinato_llamacpp.embedding", "ostinato-llamacpp"),
}


def _module(name: str, distribution: str, variable: str, value: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ConfigurationError(
            f"{variable}={value} needs the {distribution} plugin, which is not installed\n"
            f"fix: pip install {distribution}"
        ) from None


def embedding_model_from_settings(settings: RetrievalSettings) -> EmbeddingModel:
    """The embedding model ``OSTINATO_RETRIEVAL_EMBEDDING`` names."""
    from ostinato.settings import load_settings

    choice = settings.embedding
    if choice == "hashing":
        from ostinato.testing import HashingEmbeddingModel

        return HashingEmbeddingModel()
    name, distribution = _EMBEDDINGS[choice]
    module = _module(name, distribution, "OSTINATO_RETRIEVAL_EMBEDDING", choice)
    named = {"model": settings.embedding_model} if settings.embedding_model else {}
    if choice == "llamacpp":
        model: EmbeddingModel = module.LlamaCppEmbeddingModel()
    elif choice == "openai":
        from ostinato_openai import OpenAISettings

        found = load_settings(OpenAISettings)
        key = found.api_key.get_secret_value() if found.api_key else None
        model = module.OpenAIEmbeddingModel(base_url=found.base_url, api_key=key, **named)
    else:
        from ostinato_ollama import OllamaSettings

        model = module.OllamaEmbeddingModel(
            base_url=load_settings(OllamaSettings).base_url, **named
        )
    return model


def store_from_settings(
    settings: RetrievalSettings, embedding_model: EmbeddingModel | None = None
) -> VectorStore:
    """The vector store ``OSTINATO_RETRIEVAL_STORE`` names, embedding with
    ``embedding_model`` (default: :func:`embedding_model_from_settings`)."""
    from ostinato.settings import load_settings

    model = embedding_model or embedding_model_from_settings(settings)
    if settings.store == "sqlite":
        from ostinato_retrieval._sqlite import SQLiteVectorStore

        return SQLiteVectorStore(model, settings.path)
    module = _module(
        "ostinato_vector_pgvector",
        "ostinato-vector-pgvector",
        "OSTINATO_RETRIEVAL_STORE",
        "pgvector",
    )
    from ostinato_vector_pgvector import PgVectorSettings

    found = load_settings(PgVectorSettings)
    if found.url is None:
        raise ConfigurationError(
            "OSTINATO_RETRIEVAL_STORE=pgvector needs OSTINATO_VECTOR_PGVECTOR_URL\n"
            "fix: set it to postgresql://user:password@host:5432/db"
        )
    store: VectorStore = module.PgVectorStore(
        model,
        found.url.get_secret_value(),
        table=found.table,
        index=found.index,
        create_extension=found.create_extension,
    )
    return store


def advisor_from_settings(settings: RetrievalSettings) -> Advisor | None:
    """The advisor ``OSTINATO_RETRIEVAL_ADVISOR`` names over the configured store, or
    ``None`` for ``none``."""
    if settings.advisor == "none":
        return None
    store = store_from_settings(settings)
    if settings.advisor == "question-answer":
        from ostinato_retrieval._question_answer import QuestionAnswerAdvisor

        request = SearchRequest(
            top_k=settings.top_k, similarity_threshold=settings.similarity_threshold
        )
        return QuestionAnswerAdvisor(store, search_request=request)
    from ostinato_retrieval._rag_advisor import RetrievalAugmentationAdvisor
    from ostinato_retrieval._rag_modules import (
        ContextualQueryAugmenter,
        VectorStoreDocumentRetriever,
    )

    retriever = VectorStoreDocumentRetriever(
        store, top_k=settings.top_k, similarity_threshold=settings.similarity_threshold
    )
    augmenter = ContextualQueryAugmenter(allow_empty_context=settings.allow_empty_context)
    return RetrievalAugmentationAdvisor(retriever, query_augmenter=augmenter)
