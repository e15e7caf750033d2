"""The errors of retrieval: a filter that does not parse, vectors of the wrong size, a
store that failed."""

from __future__ import annotations

from ostinato.errors import OstinatoError

__all__ = [
    "DimensionMismatchError",
    "FilterExpressionError",
    "RetrievalError",
    "VectorStoreError",
]


class RetrievalError(OstinatoError):
    """Base of the errors of embedding models' callers, splitters and vector stores."""


class FilterExpressionError(RetrievalError, ValueError):
    """A filter expression that does not parse or cannot be applied."""


class DimensionMismatchError(RetrievalError, ValueError):
    """A vector whose length is not the store's (or the model's) dimensions."""


class VectorStoreError(RetrievalError):
    """A vector store failed (its database could not be opened, a statement failed)."""
