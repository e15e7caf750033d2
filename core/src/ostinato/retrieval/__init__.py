"""Retrieval: documents, embedding models, vector stores, filters and a splitter.

* :class:`Document`: text, metadata, id and (from a search) a score.
* :class:`EmbeddingModel`: texts in, vectors out (adapters in the provider plugins, on
  :class:`HttpxEmbeddingModel`).
* :class:`VectorStore`: documents kept with their vectors, searched by similarity with a
  :class:`SearchRequest` (``top_k``, a similarity threshold, a metadata filter);
  :class:`VectorStoreBase` is what a store builds on and :class:`InMemoryVectorStore` the
  store in process memory. The SQLite store is a plugin (``ostinato-retrieval``).
* Filters: :class:`Key` builds them in Python, :func:`parse_filter` reads Spring AI's
  filter language, :func:`matches` applies one to metadata, :func:`filter_to_sql` writes
  one as a SQL condition in a store's :class:`SqlFilterDialect`.
* :class:`TextSplitter`: documents cut into overlapping chunks of characters or tokens.

Every contract is async, with blocking ``*_sync`` faces. :class:`HttpxEmbeddingModel` is
imported on first access (it needs httpx).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports
from ostinato.retrieval._document import Document
from ostinato.retrieval._embedding import (
    Embedding,
    EmbeddingModel,
    EmbeddingModelSyncFaces,
    EmbeddingResponse,
    check_dimensions,
    cosine_similarity,
)
from ostinato.retrieval._errors import (
    DimensionMismatchError,
    FilterExpressionError,
    RetrievalError,
    VectorStoreError,
)
from ostinato.retrieval._filter import (
    COMPARISONS,
    And,
    Comparison,
    Filter,
    Key,
    Not,
    Or,
    Scalar,
    matches,
    value_kind,
)
from ostinato.retrieval._filter_text import as_filter, parse_filter
from ostinato.retrieval._in_memory import InMemoryVectorStore
from ostinato.retrieval._splitter import (
    CHUNK_INDEX,
    PARENT_DOCUMENT_ID,
    TextSplitter,
    count_word_tokens,
)
from ostinato.retrieval._sql_filter import SqlFilterDialect, filter_to_sql
from ostinato.retrieval._store import (
    DEFAULT_TOP_K,
    SIMILARITY_THRESHOLD_ACCEPT_ALL,
    SearchRequest,
    VectorStore,
    VectorStoreSyncFaces,
)
from ostinato.retrieval._store_base import DEFAULT_BATCH_SIZE, VectorStoreBase

if TYPE_CHECKING:
    from ostinato.retrieval._http_embedding import HttpxEmbeddingModel

__all__ = [
    "CHUNK_INDEX",
    "COMPARISONS",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_TOP_K",
    "PARENT_DOCUMENT_ID",
    "SIMILARITY_THRESHOLD_ACCEPT_ALL",
    "And",
    "Comparison",
    "DimensionMismatchError",
    "Document",
    "Embedding",
    "EmbeddingModel",
    "EmbeddingModelSyncFaces",
    "EmbeddingResponse",
    "Filter",
    "FilterExpressionError",
    "HttpxEmbeddingModel",
    "InMemoryVectorStore",
    "Key",
    "Not",
    "Or",
    "RetrievalError",
    "Scalar",
    "SearchRequest",
    "SqlFilterDialect",
    "TextSplitter",
    "VectorStore",
    "VectorStoreBase",
    "VectorStoreError",
    "VectorStoreSyncFaces",
    "as_filter",
    "check_dimensions",
    "cosine_similarity",
    "count_word_tokens",
    "filter_to_sql",
    "matches",
    "parse_filter",
    "value_kind",
]

__getattr__, __dir__ = lazy_exports(
    __name__, {"HttpxEmbeddingModel": "ostinato.retrieval._http_embedding"}
)
