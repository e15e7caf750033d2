"""``VectorStoreBase``: what every vector store shares, so a store writes its storage only.

The base embeds documents in batches with the store's model, checks every vector's length
against the store's dimensions (fixed when the store is made, or by its first vector),
turns a bare query into a :class:`SearchRequest` and a filter's text into its node, and
serialises writes that must not interleave with a lock a store may take. A store
implements :meth:`_upsert`, :meth:`_remove`, :meth:`_remove_where` and :meth:`_nearest`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Final

from ostinato.retrieval._document import Document
from ostinato.retrieval._embedding import Embedding, EmbeddingModel, check_dimensions
from ostinato.retrieval._errors import FilterExpressionError
from ostinato.retrieval._filter import Filter
from ostinato.retrieval._filter_text import as_filter
from ostinato.retrieval._store import SearchRequest, VectorStoreSyncFaces

__all__ = ["DEFAULT_BATCH_SIZE", "VectorStoreBase"]

#: How many texts a store sends its embedding model in one request.
DEFAULT_BATCH_SIZE: Final = 64


class VectorStoreBase(VectorStoreSyncFaces, ABC):
    """Base of vector stores: embedding, dimension checks and requests shared.

    Args:
        embedding_model: embeds the documents added and the queries searched.
        dimensions: the length of every vector; ``None``: the first vector's (or the
            length a store already holds).
        batch_size: the most texts embedded in one request.
    """

    __slots__ = ("_batch_size", "_dimensions", "_model")

    #: The store's kind, shown in errors (``sqlite``, ``in-memory``).
    store_name = "vector store"

    def __init__(
        self,
        embedding_model: EmbeddingModel,
        *,
        dimensions: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        if not isinstance(embedding_model, EmbeddingModel):
            raise TypeError(
                f"embedding_model must be an ostinato.retrieval.EmbeddingModel, "
                f"got {type(embedding_model).__name__}"
            )
        if dimensions is not None and (isinstance(dimensions, bool) or dimensions < 1):
            raise ValueError(f"dimensions must be a positive int, got {dimensions!r}")
        if isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        self._model = embedding_model
        self._dimensions = dimensions
        self._batch_size = batch_size

    @property
    def name(self) -> str:
        """The store's kind (:attr:`store_name`)."""
        return self.store_name

    @property
    def embedding_model(self) -> EmbeddingModel:
        """The model embedding documents and queries."""
        return self._model

    @property
    def dimensions(self) -> int | None:
        """The length of the stored vectors (``None`` until known)."""
        return self._dimensions

    # -- what a store writes -----------------------------------------------------------

    @abstractmethod
    async def _upsert(self, documents: Sequence[Document], vectors: Sequence[Embedding]) -> None:
        """Store each document with its vector, replacing one of the same id."""

    @abstractmethod
    async def _remove(self, ids: Sequence[str]) -> None:
        """Remove the documents of ``ids``."""

    @abstractmethod
    async def _remove_where(self, expression: Filter) -> None:
        """Remove the documents whose metadata satisfies ``expression``."""

    @abstractmethod
    async def _nearest(self, vector: Embedding, request: SearchRequest) -> list[Document]:
        """The ``request.top_k`` documents closest to ``vector`` that satisfy the request's
        filter and threshold, closest first, each with its score."""

    async def _stored_dimensions(self) -> int | None:
        """The length of the vectors the storage already holds (``None``: empty or
        unknown); asked before the first vector is checked."""
        return None

    # -- shared ------------------------------------------------------------------------

    async def _checked_dimensions(self, vector: Embedding, what: str) -> None:
        if self._dimensions is None:
            self._dimensions = await self._stored_dimensions()
        if self._dimensions is None:
            self._dimensions = len(vector)
            return
        check_dimensions(vector, self._dimensions, f"{what} (the {self.name} store)")

    async def embed_texts(self, texts: Sequence[str]) -> list[Embedding]:
        """The vectors of ``texts``, embedded in batches and checked."""
        vectors: list[Embedding] = []
        for start in range(0, len(texts), self._batch_size):
            batch = texts[start : start + self._batch_size]
            response = await self._model.embed(batch)
            if len(response.embeddings) != len(batch):
                raise ValueError(
                    f"the embedding model returned {len(response.embeddings)} vectors for "
                    f"{len(batch)} texts; every text needs one"
                )
            vectors.extend(response.embeddings)
        for index, vector in enumerate(vectors):
            await self._checked_dimensions(vector, f"the embedding of text {index}")
        return vectors

    async def add(self, documents: Sequence[Document]) -> None:
        """Embed and store ``documents``, replacing stored ones of the same ids (the last
        of repeated ids wins)."""
        unique = list({d.id: d for d in _documents(documents)}.values())
        if not unique:
            return
        vectors = await self.embed_texts([d.text for d in unique])
        await self._upsert(unique, vectors)

    async def delete(self, ids: Sequence[str]) -> None:
        """Remove the documents of ``ids`` (unknown ids are ignored)."""
        if isinstance(ids, str):
            raise TypeError("delete() takes a sequence of ids; wrap a single id in a list")
        if ids:
            await self._remove(list(dict.fromkeys(ids)))

    async def delete_by_filter(self, filter_expression: Filter | str) -> None:
        """Remove every document whose metadata satisfies ``filter_expression``."""
        expression = as_filter(filter_expression)
        if expression is None:
            raise FilterExpressionError(
                "delete_by_filter needs a filter expression; to remove every document, "
                "delete a store's table or file"
            )
        await self._remove_where(expression)

    async def similarity_search(self, request: SearchRequest | str) -> list[Document]:
        """The documents closest to the request's query, closest first, with scores."""
        if isinstance(request, str):
            request = SearchRequest(request)
        elif not isinstance(request, SearchRequest):
            raise TypeError(f"request must be a SearchRequest or str, got {type(request).__name__}")
        (vector,) = await self.embed_texts([request.query])
        return await self._nearest(vector, request)


def _documents(documents: Sequence[Document]) -> list[Document]:
    if isinstance(documents, Document):
        raise TypeError("add() takes a sequence of documents; wrap a single one in a list")
    found = list(documents)
    for document in found:
        if not isinstance(document, Document):
            raise TypeError(
                f"add() stores ostinato.retrieval.Document s, got {type(document).__name__}"
            )
    return found
