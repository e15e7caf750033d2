"""Canned provider replies and the ``httpx.MockTransport`` that serves them.

A :class:`CannedResponse` is what a provider would send: status, headers, body bytes.
:class:`Replay` serves a sequence of them (or exceptions, or byte streams) through an
``httpx.MockTransport`` and records every request; bodies can be served in pieces of any
size, to test stream parsers against awkward splits, and a :class:`GatedStream` stops
delivering once the consumer got its first chunk, to test cancellation.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import httpx

__all__ = [
    "BrokenStream",
    "CannedResponse",
    "GatedStream",
    "PiecewiseStream",
    "Replay",
    "Reply",
    "body_strings",
    "cut_at_line",
]


@dataclass(frozen=True, slots=True)
class CannedResponse:
    """One HTTP reply of a provider.

    Attributes:
        status: the HTTP status.
        headers: response headers (``content-type`` included).
        body: the entity body as sent on the wire.
    """

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""

    @classmethod
    def json(
        cls, payload: Any, *, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> CannedResponse:
        """A JSON reply (``content-type: application/json`` unless given)."""
        merged = {"content-type": "application/json", **(headers or {})}
        return cls(status, merged, json.dumps(payload, ensure_ascii=False).encode("utf-8"))

    @classmethod
    def text(
        cls,
        body: str,
        *,
        content_type: str = "text/event-stream",
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> CannedResponse:
        """A reply whose body is ``body`` (a server-sent events stream by default)."""
        merged = {"content-type": content_type, **(headers or {})}
        return cls(status, merged, body.encode("utf-8"))

    def to_httpx(self, stream: httpx.AsyncByteStream | None = None) -> httpx.Response:
        """This reply as an ``httpx.Response`` (its body from ``stream`` when given)."""
        return httpx.Response(
            self.status,
            headers=dict(self.headers),
            stream=stream if stream is not None else PiecewiseStream(self.body),
        )


class PiecewiseStream(httpx.AsyncByteStream):
    """A body served in pieces of ``size`` bytes (all at once when ``size`` is ``None``)."""

    def __init__(self, body: bytes, size: int | None = None) -> None:
        self._body = body
        self._size = size
        #: Whether the consumer closed the body.
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = self._size or max(len(self._body), 1)
        for start in range(0, len(self._body), size):
            yield self._body[start : start + size]
            await asyncio.sleep(0)

    async def aclose(self) -> None:
        """Record that the consumer closed the body."""
        self.closed = True


class BrokenStream(httpx.AsyncByteStream):
    """A body whose first ``len(head)`` bytes arrive, then the connection breaks."""

    def __init__(self, head: bytes) -> None:
        self._head = head
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for line in self._head.splitlines(keepends=True):
            yield line
            await asyncio.sleep(0)
        raise httpx.RemoteProtocolError("peer closed connection without sending complete message")

    async def aclose(self) -> None:
        """Record that the consumer closed the body."""
        self.closed = True


class GatedStream(httpx.AsyncByteStream):
    """A body served line by line until :attr:`gate` is set, then never finishing.

    The consumer sets the gate when it has its first chunk; the body then waits forever,
    like a slow model, until the consumer closes or cancels the stream.
    """

    def __init__(self, body: bytes) -> None:
        self._body = body
        self.gate = asyncio.Event()
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for line in self._body.splitlines(keepends=True):
            if self.gate.is_set():
                await asyncio.Event().wait()
            yield line
            await asyncio.sleep(0)
        await asyncio.Event().wait()

    async def aclose(self) -> None:
        """Record that the consumer closed the body."""
        self.closed = True


Reply: TypeAlias = (
    CannedResponse | httpx.Response | BaseException | Callable[[httpx.Request], httpx.Response]
)
"""One step of a :class:`Replay`: a reply, a prepared response, an exception to raise
(``httpx.ConnectError(...)``), or a function of the request."""


class Replay:
    """Serves ``replies`` in order through an ``httpx.MockTransport``, recording requests.

    Args:
        replies: one per expected request; asking for more fails the test.
        piece_size: serve canned bodies in pieces of this many bytes.
    """

    def __init__(self, replies: Iterable[Reply], *, piece_size: int | None = None) -> None:
        self._replies = list(replies)
        self._piece_size = piece_size
        #: Every request received, bodies read.
        self.requests: list[httpx.Request] = []
        #: The body streams served, in order (to check that they were closed).
        self.streams: list[httpx.AsyncByteStream] = []
        #: The transport to build the adapter's client on.
        self.transport = httpx.MockTransport(self._handle)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        position = len(self.requests) - 1
        if position >= len(self._replies):
            raise AssertionError(
                f"the adapter sent request #{position + 1}, but only {len(self._replies)} "
                f"{'was' if len(self._replies) == 1 else 'were'} expected "
                f"({request.method} {request.url})"
            )
        reply = self._replies[position]
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, CannedResponse):
            stream = PiecewiseStream(reply.body, self._piece_size)
            self.streams.append(stream)
            return reply.to_httpx(stream)
        if isinstance(reply, httpx.Response):
            self.streams.append(reply.stream)  # type: ignore[arg-type]  # an async stream here
            return reply
        return reply(request)

    @property
    def request_count(self) -> int:
        """How many requests arrived."""
        return len(self.requests)

    def body(self, position: int = -1) -> Any:
        """The JSON body of a recorded request."""
        return json.loads(self.requests[position].content)


def cut_at_line(body: bytes, fraction: float) -> bytes:
    """``body`` up to the last line break before ``fraction`` of its length."""
    limit = max(int(len(body) * fraction), 1)
    cut = max(body.rfind(b"\n", 0, limit), 0)
    return body[: cut + 1] if cut else body[:limit]


def body_strings(payload: Any) -> set[str]:
    """Every string in a JSON document: keys and values, nested ones too.

    Provider-neutral checks of a request ("the tool result was sent") look in here; JSON
    text nested in a string (tool arguments) is searched too.
    """
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            for key, item in value.items():
                found.add(str(key))
                walk(item)
        elif isinstance(value, Sequence) and not isinstance(value, str | bytes):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            found.add(value)
            if value[:1] in "{[":
                with contextlib.suppress(ValueError):
                    walk(json.loads(value))

    walk(payload)
    return found
