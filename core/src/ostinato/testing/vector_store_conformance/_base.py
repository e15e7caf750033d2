"""What a vector store's test module provides to the kit, and helpers its tests share."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import pytest

from ostinato.retrieval import (
    Document,
    EmbeddingModel,
    EmbeddingModelSyncFaces,
    EmbeddingResponse,
    SearchRequest,
    VectorStore,
)
from ostinato.testing._embedding import HashingEmbeddingModel

__all__ = ["ResizableEmbeddingModel", "VectorStoreConformanceBase"]


class ResizableEmbeddingModel(EmbeddingModelSyncFaces):
    """A :class:`~ostinato.testing.HashingEmbeddingModel` whose length can change midway,
    to check that a store refuses vectors of another length."""

    def __init__(self, dimensions: int = 64) -> None:
        self.inner = HashingEmbeddingModel(dimensions)

    def resize(self, dimensions: int) -> None:
        """Make the vectors ``dimensions`` long from now on."""
        self.inner = HashingEmbeddingModel(dimensions)

    async def embed(self, texts: Sequence[str]) -> EmbeddingResponse:
        """The inner model's vectors."""
        return await self.inner.embed(texts)

    async def dimensions(self) -> int:
        """The current length."""
        return await self.inner.dimensions()


class VectorStoreConformanceBase:
    """The hooks of the store under test (no tests here).

    A subclass implements :meth:`make_store`; :meth:`close_store` calls the store's
    ``aclose()`` or ``close()`` when it has one.
    """

    pytestmark = pytest.mark.asyncio
    #: Whether a store made again on the same place sees what an earlier one stored.
    persistent = True

    async def make_store(self, embedding_model: EmbeddingModel) -> VectorStore:
        """An empty store of the kind under test, embedding with ``embedding_model``.

        Called once or more per test, on the test's event loop; every call within one
        test must give a store on the same, fresh place (a new file, schema or table for
        each test), so that a store made twice sees what the first one stored.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement make_store()")

    async def close_store(self, store: VectorStore) -> None:
        """Release what :meth:`make_store` opened (default: ``aclose()`` or ``close()``)."""
        for name in ("aclose", "close"):
            closer = getattr(store, name, None)
            if callable(closer):
                result = closer()
                if inspect.isawaitable(result):
                    await result
                return

    @asynccontextmanager
    async def opened(self, model: EmbeddingModel | None = None) -> AsyncIterator[VectorStore]:
        """A store from :meth:`make_store`, closed on the way out."""
        store = await self.make_store(model or HashingEmbeddingModel())
        assert isinstance(store, VectorStore), (
            f"make_store() returned {type(store).__name__}, not an ostinato.retrieval.VectorStore"
        )
        try:
            yield store
        finally:
            await self.close_store(store)

    @staticmethod
    async def everything(store: VectorStore, query: str = "anything") -> list[Document]:
        """Every stored document (a search with a large ``top_k``)."""
        return await store.similarity_search(SearchRequest(query, top_k=10_000))

    @staticmethod
    async def ids(store: VectorStore, filter_expression: object = None) -> set[str]:
        """The ids of the documents a search with ``filter_expression`` finds."""
        request = SearchRequest("anything", top_k=10_000, filter_expression=filter_expression)  # type: ignore[arg-type]
        return {d.id for d in await store.similarity_search(request)}
