"""A tiny HTTP/1.1 server on 127.0.0.1 that replays recorded exchanges in sequence.

Shared by the adapters' end-to-end tests. It runs its own event loop on a thread, so tests
can drive an adapter through the sync faces (which block the calling thread) as well as
the async ones. Streams are sent with chunked transfer encoding, one frame per chunk (an
SSE event, or an NDJSON line), like a real server; bodies that are not streams carry a
``content-length``. Connections are kept alive.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol

__all__ = ["LoopbackServer", "ReceivedRequest", "ndjson_lines", "sse_events"]


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


class LoopbackServer:
    """Serves ``exchanges``' responses, one per request, in order."""

    def __init__(
        self,
        exchanges: list[Any],
        *,
        api_root: str = "/v1",
        frames: Callable[[bytes], list[bytes]] = sse_events,
    ) -> None:
        self._exchanges: list[Exchange] = list(exchanges)
        self._api_root = api_root
        self._frames = frames
        self.requests: list[ReceivedRequest] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        """The API root to point the adapter at."""
        return f"http://127.0.0.1:{self.port}{self._api_root}"

    def start(self) -> LoopbackServer:
        """Listen on a free port."""
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        future.result(timeout=10)
        return self

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def stop(self) -> None:
        """Stop listening, drop open connections and end the thread."""

        async def close() -> None:
            assert self._server is not None
            self._server.close()
            await self._server.wait_closed()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    return
                method, target, _ = request_line.decode("ascii").split(" ", 2)
                headers: dict[str, str] = {}
                while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                self.requests.append(ReceivedRequest(method, target, headers, body))
                if not self._exchanges:
                    await self._send(writer, 500, {"content-type": "text/plain"}, b"no more")
                    return
                exchange = self._exchanges.pop(0)
                await self._respond(writer, exchange)
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    async def _respond(self, writer: asyncio.StreamWriter, exchange: Exchange) -> None:
        response = exchange.response
        headers = dict(response["headers"])
        if response["body_text"] is None:
            await self._send(writer, response["status"], headers, exchange.content)
            return
        head = self._head(response["status"], {**headers, "transfer-encoding": "chunked"})
        writer.write(head)
        for piece in self._frames(response["body_text"].encode("utf-8")):
            writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    @staticmethod
    def _head(status: int, headers: dict[str, str]) -> bytes:
        lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def _send(
        self, writer: asyncio.StreamWriter, status: int, headers: dict[str, str], body: bytes
    ) -> None:
        writer.write(self._head(status, {**headers, "content-length": str(len(body))}) + body)
        await writer.drain()
