"""How a stream's bytes split into items: server-sent events or JSON lines.

A :class:`Framing` is fed the bytes of one reply as they arrive and returns the complete
items (an adapter's event parser turns each into a partial response); :meth:`close`
returns what the end of the body completes. :class:`SSEFraming` (OpenAI, Anthropic)
yields :class:`~ostinato.transport.ServerSentEvent` s, :class:`NDJSONFraming` (Ollama)
JSON values; a line that is not JSON is a
:class:`~ostinato.errors.MalformedResponseError` with the line quoted, its secret masked.
"""

from __future__ import annotations

from typing import Any, Protocol

from ostinato.errors import MalformedResponseError
from ostinato.redaction import Redactor
from ostinato.transport._ndjson import NDJSONDecoder, NDJSONError
from ostinato.transport._sse import SSEDecoder
from ostinato.transport._status import excerpt

__all__ = ["Framing", "NDJSONFraming", "SSEFraming"]


class Framing(Protocol):
    """Splits one reply's bytes into items."""

    def feed(self, data: bytes) -> list[Any]:
        """The items ``data`` completes."""
        ...

    def close(self) -> list[Any]:
        """The items the end of the body completes (a truncated last one is dropped)."""
        ...


class SSEFraming:
    """Server-sent events (``text/event-stream``)."""

    __slots__ = ("_decoder",)

    def __init__(self, *, provider: str, secret: str | Redactor | None) -> None:
        self._decoder = SSEDecoder(provider=provider)

    def feed(self, data: bytes) -> list[Any]:
        """The events ``data`` completes."""
        return self._decoder.feed(data)

    def close(self) -> list[Any]:
        """The last event, if the body ended without its blank line."""
        return self._decoder.close()


class NDJSONFraming:
    """One JSON value per line (``application/x-ndjson``)."""

    __slots__ = ("_decoder", "_provider", "_secret")

    def __init__(self, *, provider: str, secret: str | Redactor | None) -> None:
        self._decoder = NDJSONDecoder()
        self._provider = provider
        self._secret = secret

    def feed(self, data: bytes) -> list[Any]:
        """The values of the lines ``data`` completes.

        Raises:
            MalformedResponseError: a line is not JSON (quoted, the secret masked).
        """
        try:
            return self._decoder.feed(data)
        except NDJSONError as exc:
            raise MalformedResponseError(
                f"{self._provider}: a stream line is not JSON: {excerpt(exc.line, self._secret)}",
                provider=self._provider,
            ) from None

    def close(self) -> list[Any]:
        """The value of a last line without its newline; nothing if it is cut short."""
        try:
            return self._decoder.close()
        except NDJSONError:
            return []
