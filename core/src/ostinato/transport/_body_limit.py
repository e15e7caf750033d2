"""Reading a reply without holding more of it than a limit allows.

A misbehaving server (or a proxy) can answer with far more than any chat reply: an
adapter reads the body in pieces and stops once it passes ``max_response_bytes``, with a
:class:`~ostinato.errors.MalformedResponseError` saying so, instead of holding it all.
Error bodies are only quoted, so they are cut at :data:`ERROR_BODY_BYTES` instead.
Works on any async iterable of ``bytes`` (``httpx.Response.aiter_bytes()``); imports no
HTTP library.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

from ostinato.errors import ConfigurationError, MalformedResponseError

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "ERROR_BODY_BYTES",
    "ByteBudget",
    "check_max_response_bytes",
    "read_body",
    "read_error_body",
]

#: The default most bytes one reply may carry (a call's body, or a whole stream).
DEFAULT_MAX_RESPONSE_BYTES: Final = 64 << 20
#: How much of an error body is read (it is only quoted in the error message).
ERROR_BODY_BYTES: Final = 64 << 10


def check_max_response_bytes(value: object) -> int:
    """``value`` if it is a usable limit.

    Raises:
        ConfigurationError: not an int, or below 1.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigurationError(f"max_response_bytes must be an int, got {value!r}")
    if value < 1:
        raise ConfigurationError(f"max_response_bytes must be at least 1, got {value}")
    return value


class ByteBudget:
    """The bytes of one reply counted against ``limit``; :meth:`add` raises past it.

    Args:
        limit: the most bytes the reply may carry.
        provider: named in the error.
        url: where the reply came from, named in the error.
    """

    __slots__ = ("limit", "provider", "received", "url")

    def __init__(self, limit: int, *, provider: str, url: str) -> None:
        self.limit = limit
        self.provider = provider
        self.url = url
        self.received = 0

    def too_large(self, received: int) -> MalformedResponseError:
        """The error for a reply of (at least) ``received`` bytes."""
        return MalformedResponseError(
            f"{self.provider}: the reply from {self.url} is larger than "
            f"max_response_bytes={self.limit} (stopped reading after {received} bytes)\n"
            "fix: raise max_response_bytes if replies this large are expected",
            provider=self.provider,
        )

    def check_length(self, content_length: str | None) -> None:
        """Refuse at once a reply whose ``content-length`` header is over the limit."""
        if content_length and content_length.isdigit() and int(content_length) > self.limit:
            raise self.too_large(int(content_length))

    def add(self, piece: bytes) -> bytes:
        """Count ``piece`` (returned as is).

        Raises:
            MalformedResponseError: the reply is now over the limit.
        """
        self.received += len(piece)
        if self.received > self.limit:
            raise self.too_large(self.received)
        return piece


async def read_body(
    pieces: AsyncIterable[bytes], budget: ByteBudget, content_length: str | None = None
) -> bytes:
    """The whole body of ``pieces``.

    Raises:
        MalformedResponseError: the body (or its announced length) is over the budget;
            reading stopped there.
    """
    budget.check_length(content_length)
    async with _closing(pieces) as source:
        chunks = [budget.add(piece) async for piece in source]
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def read_error_body(pieces: AsyncIterable[bytes], limit: int = ERROR_BODY_BYTES) -> bytes:
    """The first ``limit`` bytes of an error body; the rest is not read."""
    chunks: list[bytes] = []
    received = 0
    async with _closing(pieces) as source:
        async for piece in source:
            if received + len(piece) >= limit:
                chunks.append(piece[: limit - received])
                break
            chunks.append(piece)
            received += len(piece)
    return b"".join(chunks)


@asynccontextmanager
async def _closing(pieces: AsyncIterable[bytes]) -> AsyncIterator[AsyncIterator[bytes]]:
    """An iterator over ``pieces``, closed on leaving (a body read in part leaves no
    generator to the garbage collector's finaliser)."""
    source = aiter(pieces)
    try:
        yield source
    finally:
        close = getattr(source, "aclose", None)
        if close is not None:
            await close()
