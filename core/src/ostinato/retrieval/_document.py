"""``Document``: a piece of text, its metadata, its id and (from a search) its score."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self

from ostinato._frozen import EMPTY, freeze

__all__ = ["Document"]


def _new_id() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True, slots=True)
class Document:
    """A piece of text a vector store keeps and a retrieval returns.

    Args:
        text: what is embedded and shown to the model.
        metadata: JSON-like values (strings, numbers, booleans, ``None``, lists of them)
            that filter expressions compare; read-only.
        id: unique in a store; adding a document whose id is stored replaces it (default:
            a random UUID).
        score: the similarity to the query, from a search (``None`` otherwise): higher is
            closer, 1.0 the same direction (cosine similarity).
    """

    text: str
    metadata: Mapping[str, Any] = field(default=EMPTY)
    id: str = field(default_factory=_new_id)
    score: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"Document text must be a str, got {type(self.text).__name__}")
        if not isinstance(self.id, str) or not self.id.strip():
            raise ValueError(f"Document id must be a non-blank str, got {self.id!r}")
        object.__setattr__(self, "metadata", freeze(self.metadata))

    def copy(self, **changes: Any) -> Self:
        """A copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "id": self.id,
            "text": self.text,
            "metadata": dict(self.metadata),
            "score": self.score,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Document:
        """Rebuild a document from :meth:`to_dict`'s output."""
        return cls(
            str(data["text"]),
            data.get("metadata") or {},
            str(data["id"]),
            None if data.get("score") is None else float(data["score"]),
        )
