"""``EmbeddingModel``: texts in, one vector per text out.

The contract is async (what vector stores and advisors call); :class:`EmbeddingModelSyncFaces`
gives an implementation its blocking faces. Adapters live in the provider plugins
(``ostinato-openai``, ``ostinato-ollama``, ``ostinato-llamacpp``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from ostinato.model import Usage
from ostinato.retrieval._errors import DimensionMismatchError

__all__ = [
    "Embedding",
    "EmbeddingModel",
    "EmbeddingModelSyncFaces",
    "EmbeddingResponse",
    "check_dimensions",
    "cosine_similarity",
]

#: One vector.
Embedding = tuple[float, ...]

_NO_USAGE: Final = Usage()


@dataclass(frozen=True, slots=True)
class EmbeddingResponse:
    """The vectors of one request, in the order of its texts, with the model's usage."""

    embeddings: tuple[Embedding, ...]
    model: str = ""
    usage: Usage = _NO_USAGE

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "embeddings", tuple(tuple(float(x) for x in e) for e in self.embeddings)
        )


@runtime_checkable
class EmbeddingModel(Protocol):
    """A model turning texts into vectors of one length."""

    async def embed(self, texts: Sequence[str]) -> EmbeddingResponse:
        """One vector per text of ``texts``, in order (none for none)."""
        ...

    async def dimensions(self) -> int:
        """The length of every vector (asked of the model once when not configured)."""
        ...


class EmbeddingModelSyncFaces:
    """Blocking faces of an :class:`EmbeddingModel`, for an implementation to inherit.

    Each runs the async method on ostinato's private event loop and waits (from the
    loop's own thread it raises :class:`~ostinato.errors.SyncFromLoopError`).
    """

    __slots__ = ()

    def embed_sync(self: EmbeddingModel, texts: Sequence[str]) -> EmbeddingResponse:
        """Blocking :meth:`EmbeddingModel.embed`."""
        from ostinato.runtime import run_sync

        return run_sync(self.embed(texts), async_name="embed")

    def dimensions_sync(self: EmbeddingModel) -> int:
        """Blocking :meth:`EmbeddingModel.dimensions`."""
        from ostinato.runtime import run_sync

        return run_sync(self.dimensions(), async_name="dimensions")


def check_dimensions(vector: Sequence[float], expected: int, what: str) -> None:
    """Raise :class:`DimensionMismatchError` unless ``vector`` has ``expected`` values."""
    if len(vector) != expected:
        raise DimensionMismatchError(
            f"{what} has {len(vector)} dimensions, expected {expected}\n"
            "fix: embed with the model the store was made with, or give the store "
            "dimensions matching the model (a new table or file)"
        )


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of the angle between ``a`` and ``b`` (0.0 when either is all zeros)."""
    dot = math.fsum(x * y for x, y in zip(a, b))
    norms = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return dot / norms if norms else 0.0
