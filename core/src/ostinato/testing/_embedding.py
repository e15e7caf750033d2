"""``HashingEmbeddingModel``: a deterministic embedding model for tests and examples.

Each word (lower-cased, letters and digits) is hashed into one of ``dimensions`` buckets
with a sign; a text's vector is the normalised sum of its words'. Texts sharing words
point the same way, so similarity searches rank as a reader expects, with no model, no
network and the same vectors in every process.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from typing import Final

from ostinato.model import Usage
from ostinato.retrieval import EmbeddingModelSyncFaces, EmbeddingResponse

__all__ = ["HashingEmbeddingModel"]

_WORD: Final = re.compile(r"[^\W_]+")


class HashingEmbeddingModel(EmbeddingModelSyncFaces):
    """Vectors from hashed words: deterministic, offline, and similar for similar texts.

    Args:
        dimensions: the vectors' length.

    Attributes:
        calls: the batches :meth:`embed` was given, in order (to count requests in tests).
    """

    def __init__(self, dimensions: int = 64) -> None:
        if isinstance(dimensions, bool) or dimensions < 2:
            raise ValueError(f"dimensions must be an int of at least 2, got {dimensions!r}")
        self._dimensions = dimensions
        self.calls: list[list[str]] = []

    def vector(self, text: str) -> tuple[float, ...]:
        """The vector of ``text`` (all zeros but one for a text without words)."""
        values = [0.0] * self._dimensions
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            number = int.from_bytes(digest, "big")
            values[number % self._dimensions] += 1.0 if number >> 63 else -1.0
        norm = math.sqrt(sum(v * v for v in values))
        if not norm:
            values[0] = 1.0
            return tuple(values)
        return tuple(v / norm for v in values)

    async def embed(self, texts: Sequence[str]) -> EmbeddingResponse:
        """One vector per text; usage counts words as prompt tokens."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; wrap a single text in a list")
        batch = list(texts)
        self.calls.append(batch)
        words = sum(len(_WORD.findall(t)) for t in batch)
        return EmbeddingResponse(
            tuple(self.vector(t) for t in batch), "hashing", Usage(prompt_tokens=words)
        )

    async def dimensions(self) -> int:
        """The vectors' length."""
        return self._dimensions
