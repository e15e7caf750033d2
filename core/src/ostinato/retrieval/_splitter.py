"""``TextSplitter``: documents cut into overlapping chunks small enough to embed.

Text is cut between words (a word longer than a chunk is cut inside), counting either
characters or tokens. Tokens are counted by a function given to the splitter; the default
counts words and punctuation marks, close to what a sub-word tokenizer gives for English
prose (about 1.3 tokens per word) without needing one. Each chunk keeps its document's
metadata, adds ``parent_document_id`` and ``chunk_index``, and has the id
``<parent id>:<index>``, so indexing the same document again replaces its chunks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final, Literal

from ostinato.retrieval._document import Document

__all__ = [
    "CHUNK_INDEX",
    "PARENT_DOCUMENT_ID",
    "TextSplitter",
    "count_word_tokens",
]

#: The metadata key holding the id of the document a chunk came from.
PARENT_DOCUMENT_ID: Final = "parent_document_id"
#: The metadata key holding a chunk's position in its document (from 0).
CHUNK_INDEX: Final = "chunk_index"

_PIECE: Final = re.compile(r"\S+\s*|\s+")
_WORD_TOKEN: Final = re.compile(r"\w+|[^\w\s]")


def count_word_tokens(text: str) -> int:
    """How many words and punctuation marks ``text`` holds (the default token count)."""
    return len(_WORD_TOKEN.findall(text))


class TextSplitter:
    """Cuts documents into chunks of at most ``chunk_size`` units, consecutive chunks
    sharing up to ``chunk_overlap`` units.

    Args:
        chunk_size: the most units in a chunk (positive).
        chunk_overlap: how many units of a chunk's end the next chunk repeats (below
            ``chunk_size``).
        unit: ``"characters"`` or ``"tokens"``.
        count_tokens: the token count of a text (default :func:`count_word_tokens`); a
            model's tokenizer can be given, e.g. ``lambda t: len(encoding.encode(t))``.

    Raises:
        ValueError: a size is not positive, the overlap is not below the size, or the
            unit is unknown.
    """

    __slots__ = ("_count", "_overlap", "_size", "_unit")

    def __init__(
        self,
        chunk_size: int = 800,
        chunk_overlap: int = 100,
        *,
        unit: Literal["characters", "tokens"] = "tokens",
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
        if not isinstance(chunk_overlap, int) or not 0 <= chunk_overlap < chunk_size:
            raise ValueError(
                f"chunk_overlap must be an int from 0 to chunk_size - 1 ({chunk_size - 1}), "
                f"got {chunk_overlap!r}"
            )
        if unit not in ("characters", "tokens"):
            raise ValueError(f"unit must be 'characters' or 'tokens', got {unit!r}")
        self._size = chunk_size
        self._overlap = chunk_overlap
        self._unit = unit
        self._count: Callable[[str], int] = (
            len if unit == "characters" else (count_tokens or count_word_tokens)
        )

    @property
    def chunk_size(self) -> int:
        """The most units in a chunk."""
        return self._size

    @property
    def chunk_overlap(self) -> int:
        """How many units consecutive chunks share at most."""
        return self._overlap

    @property
    def unit(self) -> str:
        """``"characters"`` or ``"tokens"``."""
        return self._unit

    def _pieces(self, text: str) -> list[str]:
        """``text`` as words with their trailing spaces, each at most one chunk long."""
        pieces: list[str] = []
        for piece in _PIECE.findall(text):
            if self._count(piece) <= self._size:
                pieces.append(piece)
                continue
            current = ""
            for character in piece:  # a word longer than a chunk: cut where it fills
                if current and self._count(current + character) > self._size:
                    pieces.append(current)
                    current = ""
                current += character
            if current:
                pieces.append(current)
        return pieces

    def split_text(self, text: str) -> list[str]:
        """The chunks of ``text`` (stripped; none for blank text)."""
        pieces = self._pieces(text)
        sizes = [self._count(p) for p in pieces]
        chunks: list[str] = []
        start = 0
        while start < len(pieces):
            end, total = start, 0
            while end < len(pieces) and total + sizes[end] <= self._size:
                total += sizes[end]
                end += 1
            end = max(end, start + 1)
            chunk = "".join(pieces[start:end]).strip()
            if chunk:
                chunks.append(chunk)
            if end >= len(pieces):
                break
            # The next chunk starts early enough to repeat up to ``overlap`` units.
            back, shared = end, 0
            while back - 1 > start and shared + sizes[back - 1] <= self._overlap:
                back -= 1
                shared += sizes[back]
            start = back
        return chunks

    def split(self, documents: Document | Iterable[Document]) -> list[Document]:
        """The chunks of ``documents``, in order, as documents of their own."""
        if isinstance(documents, Document):
            documents = [documents]
        chunks: list[Document] = []
        for document in documents:
            for index, text in enumerate(self.split_text(document.text)):
                metadata = {
                    **document.metadata,
                    PARENT_DOCUMENT_ID: document.id,
                    CHUNK_INDEX: index,
                }
                chunks.append(Document(text, metadata, f"{document.id}:{index}"))
        return chunks

    def split_texts(self, texts: Sequence[str]) -> list[Document]:
        """The chunks of ``texts``, each text a document with a new id."""
        return self.split([Document(t) for t in texts])
