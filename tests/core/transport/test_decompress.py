"""``decompressed``: gzip and deflate undone in pieces no larger than ``piece_size``."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import AsyncIterator

import pytest

from ostinato.errors import MalformedResponseError
from ostinato.transport import can_decompress, decompressed

TEXT = b"".join(b"line %d of a reply\n" % i for i in range(5000))


async def pieces_of(data: bytes, size: int = 1000) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


async def collect(data: bytes, encoding: str | None, piece_size: int = 4096) -> list[bytes]:
    return [p async for p in decompressed(pieces_of(data), encoding, piece_size=piece_size)]


def raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        (None, lambda d: d),
        ("identity", lambda d: d),
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", raw_deflate),  # without the zlib wrapper, as some servers send it
        ("deflate, gzip", lambda d: gzip.compress(zlib.compress(d))),
        ("GZIP", gzip.compress),
    ],
)
async def test_the_body_comes_back_whole_in_bounded_pieces(encoding, encode):
    pieces = await collect(encode(TEXT), encoding)
    assert b"".join(pieces) == TEXT
    assert max(len(p) for p in pieces) <= max(4096, 1000)


async def test_a_highly_compressed_piece_is_split():
    pieces = await collect(gzip.compress(b"\0" * (1 << 20)), "gzip", piece_size=1 << 10)
    assert len(pieces) == 1024 and all(len(p) == 1 << 10 for p in pieces)


async def test_corrupt_content_is_a_malformed_response():
    with pytest.raises(MalformedResponseError, match="openai: the reply's gzip content could"):
        async for _ in decompressed(pieces_of(b"not gzip at all"), "gzip", provider="openai"):
            pass


def test_can_decompress():
    assert can_decompress(None) and can_decompress("gzip") and can_decompress("deflate, gzip")
    assert not can_decompress("br") and not can_decompress("gzip, zstd")


async def test_another_encoding_is_refused_clearly():
    with pytest.raises(ValueError, match="cannot decompress content-encoding 'br'"):
        await collect(b"", "br")


async def test_closing_the_decoded_body_closes_the_raw_one():
    closed: list[bool] = []

    async def raw() -> AsyncIterator[bytes]:
        try:
            async for piece in pieces_of(gzip.compress(TEXT)):
                yield piece
        finally:
            closed.append(True)

    body = decompressed(raw(), "gzip")
    assert await anext(body)
    await body.aclose()
    assert closed == [True]
