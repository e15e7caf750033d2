"""Feeding a body to an incremental decoder piece by piece, as a network delivers it.

Works with any decoder that has ``feed(bytes) -> list`` and ``close() -> list`` (the SSE
and NDJSON decoders of ``ostinato.transport``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

__all__ = ["IncrementalDecoder", "decode_in_pieces", "decode_pieces"]

T = TypeVar("T")


class IncrementalDecoder(Protocol[T]):
    """A decoder fed bytes as they arrive, and closed at the end of the body."""

    def feed(self, data: bytes) -> list[T]: ...

    def close(self) -> list[T]: ...


def decode_pieces(decoder: IncrementalDecoder[T], pieces: Iterable[bytes]) -> list[T]:
    """Everything ``decoder`` gives for ``pieces`` fed in turn, then closed."""
    found: list[T] = []
    for piece in pieces:
        found += decoder.feed(piece)
    return found + decoder.close()


def decode_in_pieces(decoder: IncrementalDecoder[T], body: bytes, size: int | None) -> list[T]:
    """``body`` fed in pieces of ``size`` bytes (all at once when ``None``), then closed."""
    step = size or len(body) or 1
    return decode_pieces(decoder, (body[i : i + step] for i in range(0, len(body), step)))
