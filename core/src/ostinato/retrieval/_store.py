"""``VectorStore``: documents kept with their vectors, searched by similarity.

A store embeds what it is given with its :class:`~ostinato.retrieval.EmbeddingModel`.
:meth:`VectorStore.add` replaces a stored document of the same id (an upsert);
:meth:`VectorStore.similarity_search` returns the ``top_k`` closest documents whose
metadata satisfies the request's filter and whose score reaches its threshold, closest
first, each carrying its score (cosine similarity). The contract is async;
:class:`VectorStoreSyncFaces` gives an implementation its blocking faces. The conformance
kit is :mod:`ostinato.testing.vector_store_conformance`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol, runtime_checkable

from ostinato.retrieval._document import Document
from ostinato.retrieval._filter import Filter
from ostinato.retrieval._filter_text import as_filter

__all__ = [
    "DEFAULT_TOP_K",
    "SIMILARITY_THRESHOLD_ACCEPT_ALL",
    "SearchRequest",
    "VectorStore",
    "VectorStoreSyncFaces",
]

#: How many documents a search returns unless told otherwise (Spring AI's default).
DEFAULT_TOP_K: Final = 4
#: The threshold that accepts every document, however far (Spring AI's default).
SIMILARITY_THRESHOLD_ACCEPT_ALL: Final = 0.0


@dataclass(frozen=True, slots=True, init=False)
class SearchRequest:
    """What to search for: the query text, how many, how close, which metadata.

    Args:
        query: the text whose embedding is compared.
        top_k: at most this many documents (positive).
        similarity_threshold: only documents scoring at least this (0.0 to 1.0); 0.0
            (:data:`SIMILARITY_THRESHOLD_ACCEPT_ALL`) accepts every document.
        filter_expression: a :class:`~ostinato.retrieval.Filter` node or its text
            (parsed here, so a typo fails now), or ``None`` for every document.

    Raises:
        ValueError: ``top_k`` is not positive or the threshold is outside 0.0–1.0.
        FilterExpressionError: the filter text does not parse.
    """

    query: str
    top_k: int
    similarity_threshold: float
    filter_expression: Filter | None = field(default=None)

    def __init__(
        self,
        query: str = "",
        *,
        top_k: int = DEFAULT_TOP_K,
        similarity_threshold: float = SIMILARITY_THRESHOLD_ACCEPT_ALL,
        filter_expression: Filter | str | None = None,
    ) -> None:
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"top_k must be a positive int, got {top_k!r}")
        threshold = float(similarity_threshold)
        if math.isnan(threshold) or not 0.0 <= threshold <= 1.0:
            raise ValueError(
                f"similarity_threshold must be between 0.0 and 1.0, got {similarity_threshold!r}"
            )
        object.__setattr__(self, "query", query)
        object.__setattr__(self, "top_k", top_k)
        object.__setattr__(self, "similarity_threshold", threshold)
        object.__setattr__(self, "filter_expression", as_filter(filter_expression))

    def copy(
        self,
        *,
        query: str | None = None,
        top_k: int | None = None,
        similarity_threshold: float | None = None,
        filter_expression: Filter | str | None = None,
    ) -> SearchRequest:
        """A copy with the given fields replaced (``None`` keeps a field)."""
        return SearchRequest(
            self.query if query is None else query,
            top_k=self.top_k if top_k is None else top_k,
            similarity_threshold=(
                self.similarity_threshold if similarity_threshold is None else similarity_threshold
            ),
            filter_expression=(
                self.filter_expression if filter_expression is None else filter_expression
            ),
        )

    def accepts(self, score: float) -> bool:
        """Whether a document scoring ``score`` reaches the threshold."""
        return self.similarity_threshold == SIMILARITY_THRESHOLD_ACCEPT_ALL or (
            score >= self.similarity_threshold
        )


@runtime_checkable
class VectorStore(Protocol):
    """Documents kept with their embeddings and searched by similarity."""

    @property
    def name(self) -> str:
        """What the store is (``sqlite``, ``in-memory``), shown in errors and logs."""
        ...

    async def add(self, documents: Sequence[Document]) -> None:
        """Embed and store ``documents``, replacing stored ones of the same ids."""
        ...

    async def delete(self, ids: Sequence[str]) -> None:
        """Remove the documents of ``ids`` (unknown ids are ignored)."""
        ...

    async def delete_by_filter(self, filter_expression: Filter | str) -> None:
        """Remove every document whose metadata satisfies ``filter_expression``."""
        ...

    async def similarity_search(self, request: SearchRequest | str) -> list[Document]:
        """The documents closest to the request's query, closest first, with scores (a
        bare string is a request with the defaults)."""
        ...


class VectorStoreSyncFaces:
    """Blocking faces of a :class:`VectorStore`, for an implementation to inherit (each
    runs the async method on ostinato's private loop and waits)."""

    __slots__ = ()

    def add_sync(self: VectorStore, documents: Sequence[Document]) -> None:
        """Blocking :meth:`VectorStore.add`."""
        from ostinato.runtime import run_sync

        run_sync(self.add(documents), async_name="add")

    def delete_sync(self: VectorStore, ids: Sequence[str]) -> None:
        """Blocking :meth:`VectorStore.delete`."""
        from ostinato.runtime import run_sync

        run_sync(self.delete(ids), async_name="delete")

    def delete_by_filter_sync(self: VectorStore, filter_expression: Filter | str) -> None:
        """Blocking :meth:`VectorStore.delete_by_filter`."""
        from ostinato.runtime import run_sync

        run_sync(self.delete_by_filter(filter_expression), async_name="delete_by_filter")

    def similarity_search_sync(self: VectorStore, request: SearchRequest | str) -> list[Document]:
        """Blocking :meth:`VectorStore.similarity_search`."""
        from ostinato.runtime import run_sync

        return run_sync(self.similarity_search(request), async_name="similarity_search")
