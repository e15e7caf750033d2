"""``InMemoryVectorStore``: documents and vectors in process memory, searched exactly.

For tests, small corpora and examples (Spring AI's ``SimpleVectorStore``). A search
compares the query with every stored vector; :meth:`InMemoryVectorStore.save` and
:meth:`InMemoryVectorStore.load` keep the store in a JSON file.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Sequence
from pathlib import Path

from ostinato.retrieval._document import Document
from ostinato.retrieval._embedding import (
    Embedding,
    EmbeddingModel,
    check_dimensions,
    cosine_similarity,
)
from ostinato.retrieval._filter import Filter, matches
from ostinato.retrieval._store import SearchRequest
from ostinato.retrieval._store_base import VectorStoreBase

__all__ = ["InMemoryVectorStore"]


class InMemoryVectorStore(VectorStoreBase):
    """A vector store in a dict, searched by comparing the query with every vector.

    Args: as :class:`~ostinato.retrieval.VectorStoreBase`.
    """

    __slots__ = ("_rows",)
    store_name = "in-memory"

    def __init__(self, embedding_model: EmbeddingModel, **arguments: int | None) -> None:
        super().__init__(embedding_model, **arguments)  # type: ignore[arg-type]
        self._rows: dict[str, tuple[Document, Embedding]] = {}

    def __len__(self) -> int:
        return len(self._rows)

    async def _upsert(self, documents: Sequence[Document], vectors: Sequence[Embedding]) -> None:
        for document, vector in zip(documents, vectors):
            self._rows[document.id] = (document.copy(score=None), vector)

    async def _remove(self, ids: Sequence[str]) -> None:
        for key in ids:
            self._rows.pop(key, None)

    async def _remove_where(self, expression: Filter) -> None:
        for key in [k for k, (d, _) in self._rows.items() if matches(expression, d.metadata)]:
            del self._rows[key]

    async def _nearest(self, vector: Embedding, request: SearchRequest) -> list[Document]:
        scored = (
            (cosine_similarity(vector, stored), document)
            for document, stored in list(self._rows.values())
            if matches(request.filter_expression, document.metadata)
        )
        best = heapq.nlargest(
            request.top_k,
            ((s, d) for s, d in scored if request.accepts(s)),
            key=lambda pair: pair[0],
        )
        return [document.copy(score=score) for score, document in best]

    def save(self, path: str | Path) -> None:
        """Write every document and vector to the JSON file ``path``."""
        rows = [
            {**document.to_dict(), "embedding": list(vector)}
            for document, vector in self._rows.values()
        ]
        Path(path).write_text(json.dumps({"dimensions": self._dimensions, "documents": rows}))

    def load(self, path: str | Path) -> None:
        """Add the documents and vectors :meth:`save` wrote to ``path`` (no embedding)."""
        data = json.loads(Path(path).read_text())
        for row in data["documents"]:
            vector = tuple(float(x) for x in row["embedding"])
            if self._dimensions is None:
                self._dimensions = len(vector)
            check_dimensions(vector, self._dimensions, f"document {row['id']!r} of {path}")
            self._rows[row["id"]] = (Document.from_dict(row).copy(score=None), vector)
