"""A compressed reply cannot take more memory than its size limit allows.

A gzip bomb — 1 MiB on the wire, 1 GiB once decompressed — is served to every adapter
(a call, a stream, an error reply) with ``max_response_bytes`` at 1 MiB. The reply is
refused with :class:`MalformedResponseError`, and the peak of memory allocated while it
was read (``tracemalloc``) stays within a few times the limit: the body is decompressed
in bounded pieces, not a network read (a thousandfold) at a time.
"""

from __future__ import annotations

import struct
import tracemalloc
import zlib
from collections.abc import AsyncIterator
from functools import cache
from typing import Any

import httpx
import pytest

from ostinato.errors import MalformedResponseError, ModelError
from ostinato.prompt import Prompt
from ostinato.transport import RetryPolicy
from ostinato_anthropic import AnthropicChatModel
from ostinato_ollama import OllamaChatModel
from ostinato_openai import OpenAIChatModel

LIMIT = 1 << 20
#: Peak memory allowed while the bomb is read: the limit, its copy when joined, pieces.
PEAK_ALLOWED = 4 * LIMIT
MIB = 1 << 20


@cache
def bomb(prefix: bytes, fill: bytes, mebibytes: int = 1024) -> bytes:
    """A valid gzip member of ``prefix`` then ``fill`` repeated up to ``mebibytes`` MiB,
    built without compressing it all: after a full flush every MiB compresses alike."""
    block = fill * (MIB // len(fill))
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    head = compressor.compress(prefix + block[len(prefix) :]) + compressor.flush(zlib.Z_FULL_FLUSH)
    middle = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.flush()[:-8]  # the final empty block; its trailer is rewritten
    crc = zlib.crc32(prefix + block[len(prefix) :])
    for _ in range(mebibytes - 1):
        crc = zlib.crc32(block, crc)
    trailer = struct.pack("<II", crc, (mebibytes * MIB) & 0xFFFFFFFF)
    return head + middle * (mebibytes - 1) + end + trailer


ADAPTERS: dict[str, type[Any]] = {
    "openai": OpenAIChatModel,
    "anthropic": AnthropicChatModel,
    "ollama": OllamaChatModel,
}
STREAM_TYPES = {
    "openai": "text/event-stream",
    "anthropic": "text/event-stream",
    "ollama": "application/x-ndjson",
}


def serving(adapter: str, status: int, body: bytes, content_type: str) -> Any:
    async def raw() -> AsyncIterator[bytes]:
        for start in range(0, len(body), 64 << 10):  # network-sized reads
            yield body[start : start + (64 << 10)]

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": content_type, "content-encoding": "gzip"}
        return httpx.Response(status, content=raw(), headers=headers)

    return ADAPTERS[adapter](
        model="m",
        max_response_bytes=LIMIT,
        retry_policy=RetryPolicy(max_retries=0),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )


async def peak_while(action: Any) -> tuple[int, BaseException]:
    """The peak of memory allocated while ``action()`` ran, and what it raised."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        try:
            await action()
        except ModelError as exc:
            caught: BaseException = exc
        else:
            raise AssertionError("the bomb was accepted")
        return tracemalloc.get_traced_memory()[1], caught
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("adapter", list(ADAPTERS))
async def test_a_gzip_bomb_reply_is_refused_within_the_limit(adapter: str) -> None:
    model = serving(adapter, 200, bomb(b'{"id": "', b" "), "application/json")
    async with model:
        peak, error = await peak_while(lambda: model.call(Prompt("hi")))
    assert isinstance(error, MalformedResponseError)
    assert f"max_response_bytes={LIMIT}" in str(error)
    assert peak < PEAK_ALLOWED, f"peak {peak / MIB:.1f} MiB for a {LIMIT / MIB:.0f} MiB limit"


@pytest.mark.parametrize("adapter", list(ADAPTERS))
async def test_a_gzip_bomb_stream_is_refused_within_the_limit(adapter: str) -> None:
    prefix = b'data: {"x": "' if adapter != "ollama" else b'{"x": "'
    model = serving(adapter, 200, bomb(prefix, b"a"), STREAM_TYPES[adapter])

    async def consume() -> None:
        async for _ in model.stream(Prompt("hi")):
            pass

    async with model:
        peak, error = await peak_while(consume)
    assert isinstance(error, MalformedResponseError)
    assert f"max_response_bytes={LIMIT}" in str(error)
    assert peak < PEAK_ALLOWED, f"peak {peak / MIB:.1f} MiB for a {LIMIT / MIB:.0f} MiB limit"


@pytest.mark.parametrize("adapter", list(ADAPTERS))
async def test_a_gzip_bomb_error_body_is_read_only_as_far_as_it_is_quoted(adapter: str) -> None:
    model = serving(adapter, 500, bomb(b"overloaded ", b"x"), "text/plain")
    async with model:
        peak, error = await peak_while(lambda: model.call(Prompt("hi")))
    assert "overloaded" in str(error)
    assert peak < PEAK_ALLOWED, f"peak {peak / MIB:.1f} MiB for an error body"
