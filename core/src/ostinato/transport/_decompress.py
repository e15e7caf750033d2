"""Decompressing a reply in bounded pieces, so that its size limit bounds memory too.

An HTTP library decompresses each network read whole: a 64 KiB read of a gzip bomb
(zeros compress a thousandfold) becomes 64 MiB at once, before any size limit sees it.
:func:`decompressed` reads the *raw* bytes (``httpx.Response.aiter_raw()``) and never
lets one piece of output grow past ``piece_size``: zlib's ``max_length`` stops each step,
and the input it did not consume waits for the next one. A
:class:`~ostinato.transport.ByteBudget` counting these pieces therefore stops a bomb with
no more than ``piece_size`` past the limit in memory.

It handles what HTTP servers send compressed without extra packages: ``gzip``
(``x-gzip``) and ``deflate`` (zlib-wrapped, or raw as some servers send it), one or
several layers. :func:`can_decompress` says whether a ``content-encoding`` is one of
them; other encodings (``br``, ``zstd``, when their packages are installed) are left to
the HTTP library. Imports no HTTP library.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from typing import Final

from ostinato.errors import MalformedResponseError

__all__ = ["DECOMPRESSED_PIECE_BYTES", "can_decompress", "decompressed"]

#: The most bytes one decompressed piece holds.
DECOMPRESSED_PIECE_BYTES: Final = 64 << 10

_WBITS: Final = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS}


def _encodings(content_encoding: str | None) -> list[str]:
    """The codings applied, in the order they were applied (``identity`` left out)."""
    names = [e.strip().lower() for e in (content_encoding or "").split(",")]
    return [e for e in names if e and e != "identity"]


def can_decompress(content_encoding: str | None) -> bool:
    """Whether :func:`decompressed` decodes ``content_encoding`` (``None``: no coding)."""
    return all(e in ("gzip", "x-gzip", "deflate") for e in _encodings(content_encoding))


class _Layer:
    """One coding undone in pieces of at most ``piece_size`` bytes."""

    __slots__ = ("_decompressor", "_encoding", "_piece_size", "_provider", "_started")

    def __init__(self, encoding: str, piece_size: int, provider: str | None) -> None:
        self._encoding = encoding
        self._piece_size = piece_size
        self._provider = provider
        self._started = False
        self._decompressor = zlib.decompressobj(_WBITS.get(encoding, zlib.MAX_WBITS))

    def _error(self, exc: zlib.error) -> MalformedResponseError:
        prefix = f"{self._provider}: " if self._provider else ""
        return MalformedResponseError(
            f"{prefix}the reply's {self._encoding} content could not be decompressed ({exc})",
            provider=self._provider,
        )

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The output ``data`` gives, piece by piece."""
        while data:
            try:
                piece = self._decompressor.decompress(data, self._piece_size)
            except zlib.error as exc:
                if self._encoding == "deflate" and not self._started:
                    # Raw deflate, without the zlib wrapper (some servers send it so).
                    self._started = True
                    self._decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise self._error(exc) from None
            self._started = True
            data = self._decompressor.unconsumed_tail
            if piece:
                yield piece

    def close(self) -> Iterator[bytes]:
        """What the end of the input completes."""
        try:
            tail = self._decompressor.flush()
        except zlib.error as exc:
            raise self._error(exc) from None
        if tail:
            yield tail


def _through(layers: list[_Layer], data: bytes) -> Iterator[bytes]:
    """``data`` through every layer (the last coding applied is undone first)."""
    if not layers:
        if data:
            yield data
        return
    for piece in layers[0].feed(data):
        yield from _through(layers[1:], piece)


def _finish(layers: list[_Layer]) -> Iterator[bytes]:
    """What the end of the input completes, through the layers after each."""
    for index, layer in enumerate(layers):
        for piece in layer.close():
            yield from _through(layers[index + 1 :], piece)


async def decompressed(
    raw: AsyncIterable[bytes],
    content_encoding: str | None,
    *,
    provider: str | None = None,
    piece_size: int = DECOMPRESSED_PIECE_BYTES,
) -> AsyncIterator[bytes]:
    """The decoded body of ``raw`` (the bytes as received), in pieces of at most
    ``piece_size`` bytes; ``raw`` as it is when there is no coding.

    Raises:
        ValueError: ``content_encoding`` is not one :func:`can_decompress` accepts.
        MalformedResponseError: the content is not valid for its coding.
    """
    if not can_decompress(content_encoding):
        raise ValueError(f"cannot decompress content-encoding {content_encoding!r}")
    layers = [_Layer(e, piece_size, provider) for e in reversed(_encodings(content_encoding))]
    source = aiter(raw)
    try:
        async for data in source:
            for piece in _through(layers, data):
                yield piece
    finally:  # the raw stream is ours to close, not the garbage collector's
        close = getattr(source, "aclose", None)
        if close is not None:
            await close()
    for piece in _finish(layers):
        yield piece
