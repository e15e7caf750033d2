"""A tiny HTTP/1.1 server on 127.0.0.1 that replays recorded exchanges in sequence.

Shared by the adapters' end-to-end tests. It runs its own event loop on a thread, so tests
can drive an adapter through the sync faces (which block the calling thread) as well as
the async ones. Streams are sent with chunked transfer encoding, one frame per chunk (an
SSE event, or an NDJSON line), like a real server; bodies that are not streams carry a
``content-length``. Connections are kept alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol, Self

__all__ = [
    "LoopbackServer",
    "ReceivedRequest",
    "ThreadedServer",
    "http_head",
    "ndjson_lines",
    "read_request",
    "sse_events",
]


class Exchange(Protocol):
    """A recorded exchange: its response and the response body as bytes."""

    @property
    def response(self) -> dict[str, Any]: ...

    @property
    def content(self) -> bytes: ...


def sse_events(body: bytes) -> list[bytes]:
    """A server-sent-event stream cut into its events."""
    return [event + b"\n\n" for event in body.split(b"\n\n") if event]


def ndjson_lines(body: bytes) -> list[bytes]:
    """An NDJSON stream cut into its lines."""
    return [line for line in body.splitlines(keepends=True) if line.strip()]


@dataclass(frozen=True)
class ReceivedRequest:
    """One request the server received."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body, parsed."""
        return json.loads(self.body)


async def read_request(reader: asyncio.StreamReader) -> ReceivedRequest | None:
    """The next HTTP/1.1 request on a connection; ``None`` when the client closed it."""
    request_line = await reader.readline()
    if not request_line:
        return None
    method, target, _ = request_line.decode("ascii").split(" ", 2)
    headers: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return ReceivedRequest(method, target, headers, body)


def http_head(status: int, headers: Mapping[str, str]) -> bytes:
    """The status line and headers of a response."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Unknown"
    lines = [f"HTTP/1.1 {status} {phrase}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class ThreadedServer:
    """A server on 127.0.0.1 whose event loop runs on a thread of its own.

    Subclasses implement :meth:`_handle` (one connection) and may implement
    :meth:`_closed`, called once that connection's socket is closed. ``stop`` drops the
    open connections (``_writers``) rather than cancel their handlers: on Python 3.11 a
    cancelled handler makes asyncio log a spurious ``CancelledError``.
    """

    def __init__(self, *, api_root: str = "/v1", name: str = "loopback-server") -> None:
        self._api_root = api_root
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    @property
    def base_url(self) -> str:
        """The API root to point the adapter at."""
        return f"http://127.0.0.1:{self.port}{self._api_root}"

    def start(self) -> Self:
        """Listen on a free port."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=512)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            await self._handle(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self._writers.discard(writer)
            writer.close()
            try:
                # close() only schedules the socket's closing, on the loop's next turn: a
                # connection is reported closed once its file descriptor is gone.
                with contextlib.suppress(OSError):
                    await writer.wait_closed()
            finally:
                self._closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError

    def _closed(self) -> None:
        """A connection's socket was closed (after its :meth:`_handle` returned)."""

    def stop(self) -> None:
        """Stop listening, drop open connections and end the thread (idempotent)."""
        if self._loop.is_closed():
            return

        async def close() -> None:
            assert self._server is not None
            self._server.close()
            for writer in list(self._writers):
                writer.transport.abort()
            handlers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            if handlers:
                _, pending = await asyncio.wait(handlers, timeout=5)
                for task in pending:
                    task.cancel()
            await self._server.wait_closed()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class LoopbackServer(ThreadedServer):
    """Serves ``exchanges``' responses, one per request, in order."""

    def __init__(
        self,
        exchanges: list[Any],
        *,
        api_root: str = "/v1",
        frames: Callable[[bytes], list[bytes]] = sse_events,
    ) -> None:
        super().__init__(api_root=api_root)
        self._exchanges: list[Exchange] = list(exchanges)
        self._frames = frames
        self.requests: list[ReceivedRequest] = []

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (request := await read_request(reader)) is not None:
            self.requests.append(request)
            if not self._exchanges:
                await self._send(writer, 500, {"content-type": "text/plain"}, b"no more")
                return
            await self._respond(writer, self._exchanges.pop(0))

    async def _respond(self, writer: asyncio.StreamWriter, exchange: Exchange) -> None:
        response = exchange.response
        headers = dict(response["headers"])
        if response["body_text"] is None:
            await self._send(writer, response["status"], headers, exchange.content)
            return
        head = http_head(response["status"], {**headers, "transfer-encoding": "chunked"})
        writer.write(head)
        for piece in self._frames(response["body_text"].encode("utf-8")):
            writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async def _send(
        self, writer: asyncio.StreamWriter, status: int, headers: dict[str, str], body: bytes
    ) -> None:
        writer.write(http_head(status, {**headers, "content-length": str(len(body))}) + body)
        await writer.drain()
