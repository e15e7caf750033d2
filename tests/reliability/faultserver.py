"""A loopback HTTP/1.1 server speaking the OpenAI Chat Completions protocol, with faults.

Each request is answered by a :class:`Fault` — a plain reply, an event stream, or one of
the ways a server breaks: a reset before the response or in the middle of a stream, a
stream that stalls, one that ends without ``[DONE]``, malformed events, a 200 with an HTML
page, an oversized body. Faults come from a script (one per request, in order) or from a
function of the request (the load test decides per conversation).

The server runs its own event loop on a thread, so the adapter can be driven through the
sync faces too. It counts what the reliability tests check from the server's side:
connections opened and still open, and whether the client hung up in the middle of a
response (what closing a stream's HTTP response looks like from here).
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.loopback import ReceivedRequest, ThreadedServer, http_head, read_request

__all__ = [
    "Fault",
    "FaultServer",
    "ReceivedRequest",
    "closed_port",
    "completion_body",
    "html_page",
    "model_reply",
    "oversized",
    "reply",
    "reset",
    "reset_mid_stream",
    "sse",
    "stalled_stream",
    "text_chunks",
    "tool_call_chunks",
    "trickle",
]


class _Connection:
    """What a fault needs to answer: the streams and the server (for its records)."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, server: FaultServer
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.server = server

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def send_chunk(self, data: bytes) -> None:
        """One piece of a chunked body."""
        if data:
            await self.send(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    async def end_chunks(self) -> None:
        await self.send(b"0\r\n\r\n")

    def abort(self) -> None:
        """Drop the connection with a TCP reset (no orderly close)."""
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            # SO_LINGER with a zero timeout: close() sends RST instead of FIN.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()

    async def client_hung_up(self, within: float) -> bool:
        """Wait (at most ``within`` s) for the client to close its side; True if it did."""
        try:
            async with asyncio.timeout(within):
                while await self.reader.read(65536):
                    pass
        except TimeoutError:
            return False
        except ConnectionError:
            pass
        return True


# A fault answers one request; it returns whether the connection may serve another one.
Fault = Callable[[_Connection, ReceivedRequest], Any]


# -- bodies ------------------------------------------------------------------------------


def completion_body(
    text: str | None = "ok", *, tool_calls: Sequence[Mapping[str, Any]] = (), finish: str = "stop"
) -> dict[str, Any]:
    """A ``chat.completion`` object with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = list(tool_calls)
    return {
        "id": "chatcmpl-fault",
        "object": "chat.completion",
        "model": "fault-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def text_chunks(*pieces: str) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` events of a streamed text answer (finish included)."""
    chunks: list[dict[str, Any]] = [
        {
            "id": "chatcmpl-fault",
            "object": "chat.completion.chunk",
            "model": "fault-model",
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
        }
        for piece in pieces
    ]
    chunks.append(
        {
            "id": "chatcmpl-fault",
            "object": "chat.completion.chunk",
            "model": "fault-model",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
    )
    return chunks


def tool_call_chunks(calls: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """The events of a streamed answer asking for ``(id, name, arguments)`` calls."""
    deltas = [
        {
            "index": i,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        for i, (call_id, name, arguments) in enumerate(calls)
    ]
    base = {"id": "chatcmpl-fault", "object": "chat.completion.chunk", "model": "fault-model"}
    return [
        {**base, "choices": [{"index": 0, "delta": {"tool_calls": deltas}}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]


def _event(item: Mapping[str, Any] | str | bytes) -> bytes:
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        return item.encode()
    return b"data: " + json.dumps(item).encode() + b"\n\n"


async def _start_event_stream(
    conn: _Connection, items: Iterable[Mapping[str, Any] | str | bytes]
) -> None:
    """Send a 200 event-stream head and each of ``items`` as a chunk."""
    fields = {"content-type": "text/event-stream", "transfer-encoding": "chunked"}
    await conn.send(http_head(200, fields))
    for item in items:
        await conn.send_chunk(_event(item))


# -- faults ------------------------------------------------------------------------------


def reply(
    status: int = 200,
    body: bytes | Mapping[str, Any] | str = b"",
    *,
    headers: Mapping[str, str] | None = None,
    content_type: str | None = None,
) -> Fault:
    """A whole response with a ``content-length`` (a mapping body is sent as JSON)."""
    if isinstance(body, Mapping):
        content = json.dumps(body).encode()
        content_type = content_type or "application/json"
    else:
        content = body.encode() if isinstance(body, str) else body
        content_type = content_type or "text/plain"

    async def respond(conn: _Connection, request: ReceivedRequest) -> bool:
        fields = {"content-type": content_type, **(headers or {})}
        fields["content-length"] = str(len(content))
        await conn.send(http_head(status, fields) + content)
        return True

    return respond


def sse(
    events: Iterable[Mapping[str, Any] | str | bytes],
    *,
    done: bool = True,
    content_type: str = "text/event-stream",
    headers: Mapping[str, str] | None = None,
    piece: int | None = None,
) -> Fault:
    """A 200 event stream, one event per chunk (or per ``piece`` bytes, for long events);
    ``done=False`` leaves out ``[DONE]``."""
    items = list(events)

    async def respond(conn: _Connection, request: ReceivedRequest) -> bool:
        fields = {"content-type": content_type, **(headers or {}), "transfer-encoding": "chunked"}
        await conn.send(http_head(200, fields))
        for item in items:
            data = _event(item)
            step = piece or len(data) or 1
            for start in range(0, len(data), step):
                await conn.send_chunk(data[start : start + step])
        if done:
            await conn.send_chunk(b"data: [DONE]\n\n")
        await conn.end_chunks()
        return True

    return respond


def reset() -> Fault:
    """Read the request, then drop the connection without a byte of response."""

    async def respond(conn: _Connection, request: ReceivedRequest) -> bool:
        conn.abort()
        return False

    return respond


def reset_mid_stream(events: Iterable[Mapping[str, Any] | str | bytes]) -> Fault:
    """Start an event stream, send ``events``, then drop the connection."""
    items = list(events)

    async def respond(conn: _Connection, request: ReceivedRequest) -> bool:
        await _start_event_stream(conn, items)
        conn.abort()
        return False

    return respond


def stalled_stream(
    events: Iterable[Mapping[str, Any] | str | bytes] = (), *, hold: float = 30.0
) -> Fault:
    """Start an event stream, send ``events``, then send nothing until the client hangs
    up (at most ``hold`` seconds). The server records whether it did."""
    items = list(events)

    async def respond(conn: _Connection, request: ReceivedRequest) -> bool:
        await _start_event_stream(conn, items)
        conn.server.record_stream_started()
        if await conn.client_hung_up(hold):
            conn.server.record_hang_up()
        return False

    return respond


def trickle(
    piece: bytes,
    *,
    every: float,
    content_type: str,
    hold: float = 30.0,
    then: bytes | None = None,
) -> Fault:
    """Start a chunked 200 reply, then send ``piece`` (JSON whitespace, an SSE comment, a
    blank NDJSON line: nothing that completes anything) every ``every`` seconds until the
    client hangs up, for at most ``hold`` seconds: each read gets a byte, so no per-read
    timeout fires. Then ``then`` ends the reply, if given. The server records whether the
    client hung up."""

    async def respond(conn: _Connection, request: ReceivedRequest) -> bool:
        await conn.send(
            http_head(200, {"content-type": content_type, "transfer-encoding": "chunked"})
        )
        conn.server.record_stream_started()
        end = time.monotonic() + hold
        try:
            while time.monotonic() < end:
                await conn.send_chunk(piece)
                if await conn.client_hung_up(every):
                    conn.server.record_hang_up()
                    return False
            if then is not None:
                await conn.send_chunk(then)
                await conn.end_chunks()
                return True
        except ConnectionError:
            conn.server.record_hang_up()
        return False

    return respond


def html_page(status: int = 200) -> Fault:
    """An HTML error page (a proxy or captive portal answering instead of the API)."""
    page = b"<!DOCTYPE html><html><head><title>Bad Gateway</title></head><body>oops</body></html>"
    return reply(status, page, content_type="text/html; charset=utf-8")


def oversized(size: int, *, stream: bool = False, piece: int = 1 << 16) -> Fault:
    """A 200 body of ``size`` bytes: one JSON string that never ends (``stream=False``), or
    one ``data:`` line that never ends (``stream=True``). Chunked, so no length warns the
    client; the server records a hang-up if the client stops reading early."""

    async def respond(conn: _Connection, request: ReceivedRequest) -> bool:
        kind = "text/event-stream" if stream else "application/json"
        await conn.send(http_head(200, {"content-type": kind, "transfer-encoding": "chunked"}))
        await conn.send_chunk(b'data: {"x": "' if stream else b'{"x": "')
        sent = 0
        filler = b"a" * piece
        try:
            while sent < size:
                await conn.send_chunk(filler)
                sent += piece
            await conn.end_chunks()
        except ConnectionError:
            conn.server.record_hang_up()
            return False
        return True

    return respond


def model_reply(request: ReceivedRequest) -> Fault:
    """What a model would answer ``request``, as a call or a stream (as it asks).

    A user message ending in ``?`` gets a call of the ``echo`` tool with the message's
    text first; once the tool answered, or for any other user message, the answer is
    ``answer to <the last user message>`` (after a tool round: ``<the tool's result>``).
    """
    body = request.json()
    messages = body["messages"]
    last = messages[-1]
    stream = bool(body.get("stream"))
    user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    if last["role"] == "user" and user.endswith("?"):
        call = ("call-1", "echo", json.dumps({"text": user}))
        if stream:
            return sse(tool_call_chunks([call]))
        tool_call = {
            "id": call[0],
            "type": "function",
            "function": {"name": call[1], "arguments": call[2]},
        }
        return reply(200, completion_body(None, tool_calls=[tool_call], finish="tool_calls"))
    answer = last["content"] if last["role"] == "tool" else f"answer to {user}"
    if stream:
        return sse(text_chunks(answer[: len(answer) // 2], answer[len(answer) // 2 :]))
    return reply(200, completion_body(answer))


def closed_port() -> int:
    """A loopback port nobody listens on (connecting to it is refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# -- the server --------------------------------------------------------------------------


@dataclass
class _Records:
    requests: list[ReceivedRequest] = field(default_factory=list)
    opened: int = 0
    open: int = 0
    hang_ups: int = 0
    streams_started: int = 0


class FaultServer(ThreadedServer):
    """Answers requests on 127.0.0.1 with the faults of ``script``.

    Args:
        script: one fault per request, in order (a request after the last gets a 500), or
            a function choosing the fault for each request.
        keep_requests: remember every request (``requests``); a long load run does not.
    """

    def __init__(
        self,
        script: Sequence[Fault] | Callable[[ReceivedRequest], Fault] = (),
        *,
        keep_requests: bool = True,
    ) -> None:
        super().__init__(name="fault-server")
        self._keep_requests = keep_requests
        self._script: list[Fault] | None = None if callable(script) else list(script)
        self._choose = script if callable(script) else None
        self._records = _Records()
        self._changed = threading.Condition()

    # -- what happened ------------------------------------------------------------------

    @property
    def requests(self) -> list[ReceivedRequest]:
        """The requests read so far."""
        with self._changed:
            return list(self._records.requests)

    @property
    def connections_opened(self) -> int:
        """How many connections were accepted."""
        with self._changed:
            return self._records.opened

    @property
    def open_connections(self) -> int:
        """How many connections are open now."""
        with self._changed:
            return self._records.open

    @property
    def hang_ups(self) -> int:
        """How many responses the client stopped reading by closing the connection."""
        with self._changed:
            return self._records.hang_ups

    def wait_for(self, condition: Callable[[FaultServer], bool], timeout: float = 10.0) -> bool:
        """Block until ``condition(self)`` holds (re-checked on every change); its last value."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return condition(self)
                self._changed.wait(left)
            return True

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until no connection is open; whether that happened in time."""
        return self.wait_for(lambda s: s._records.open == 0, timeout)

    def record_hang_up(self) -> None:
        """Note that the client closed the connection in the middle of a response."""
        with self._changed:
            self._records.hang_ups += 1
            self._changed.notify_all()

    def record_stream_started(self) -> None:
        """Note that a stalled stream sent its head and events."""
        with self._changed:
            self._records.streams_started += 1
            self._changed.notify_all()

    @property
    def streams_started(self) -> int:
        """How many stalled streams have sent what they were to send."""
        with self._changed:
            return self._records.streams_started

    # -- serving ------------------------------------------------------------------------

    def _next_fault(self, request: ReceivedRequest) -> Fault:
        if self._choose is not None:
            return self._choose(request)
        assert self._script is not None
        with self._changed:
            if self._script:
                return self._script.pop(0)
        return reply(500, {"error": {"message": "the fault script has ended"}})

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with self._changed:
            self._records.opened += 1
            self._records.open += 1
            self._changed.notify_all()
        conn = _Connection(reader, writer, self)
        while (request := await read_request(reader)) is not None:
            if self._keep_requests:
                with self._changed:
                    self._records.requests.append(request)
                    self._changed.notify_all()
            if not await self._next_fault(request)(conn, request):
                return

    def _closed(self) -> None:
        # Counted closed only once its socket is: a test that saw no connection open may
        # count the process's sockets at once.
        with self._changed:
            self._records.open -= 1
            self._changed.notify_all()
