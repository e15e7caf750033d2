"""A fast, deterministic OpenAI-compatible fake model server on loopback (raw asyncio).

``POST /v1/chat/completions`` answers from the :class:`~bench.scenario.Scenario` the model
name describes: tool rounds first, then the answer. Non-streamed replies are one JSON
body; streamed ones are proper server-sent events over chunked transfer encoding: a role
chunk, each tool call's id and name followed by its arguments in three fragments (or the
answer in several content pieces), the finish chunk, a usage-only chunk when
``stream_options.include_usage`` asks for it, and ``[DONE]``. A ``-w`` scenario sends the
answer word by word and the arguments three characters at a time, each event written to
the socket on its own.

It checks what the clients send: every tool message of the current turn must answer a
call it made with the expected result. ``GET /stats`` reports the counts (requests,
streamed requests, tool rounds, answers, verified and wrong tool results, protocol
errors); ``POST /stats/reset`` zeroes them. The benchmark runner compares them with what
each batch should have produced, so a contender that did not really run the loop fails.

Run: ``python -m bench.server [--port 0] [--cpu 1]``; it prints ``listening <port>`` once
ready and stops on SIGTERM/SIGINT or when its stdin closes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import threading
import time
from collections import Counter
from typing import Any, Final

from bench.scenario import Scenario, tool_result_matches

__all__ = ["FakeModelServer", "main"]

_CREATED: Final = 1_700_000_000
_MAX_HEADER: Final = 64 * 1024


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _asks_tools(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("role") == "assistant"
        and bool(message.get("tool_calls"))
    )


def _fragments(text: str, pieces: int) -> list[str]:
    """``text`` cut into ``pieces`` non-empty parts (fewer when it is shorter)."""
    size = max(1, -(-len(text) // pieces))
    return [text[i : i + size] for i in range(0, len(text), size)]


class Stats:
    """What the server saw, by kind (see the module docstring).

    ``gaps_ms`` are the client's times between rounds: from the moment a tool-round reply
    was written to the moment the next request of the turn arrived. They are meaningful
    when one conversation runs at a time (the tool-batch measurement).
    """

    __slots__ = ("counts", "gaps_ms", "last_reply_at")

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.gaps_ms: list[float] = []
        self.last_reply_at: float | None = None

    def reset(self) -> None:
        """Zero everything."""
        self.counts.clear()
        self.gaps_ms.clear()
        self.last_reply_at = None

    def snapshot(self) -> dict[str, Any]:
        """Every count, zeros included, and the gaps."""
        keys = (
            "requests",
            "stream_requests",
            "tool_rounds",
            "answers",
            "tool_results_ok",
            "tool_results_bad",
            "errors",
        )
        result: dict[str, Any] = {key: self.counts[key] for key in keys}
        result["gaps_ms"] = self.gaps_ms[-10_000:]
        return result


class FakeModelServer:
    """The request handling, independent of the transport (so it is easy to exercise)."""

    def __init__(self) -> None:
        self.stats = Stats()

    def pace(self, body: dict[str, Any]) -> float:
        """Seconds between two streamed events of the request's scenario."""
        try:
            return Scenario.parse(str(body.get("model"))).pace_ms / 1000
        except ValueError:
            return 0.0

    def completion(
        self, body: dict[str, Any], received_at: float = 0.0
    ) -> tuple[bytes, bytes | list[bytes], bool]:
        """``(content type, body or SSE events, streamed)`` for one chat completion request
        (the events as one piece, or as a list of pieces each written on its own).

        Raises:
            ValueError: the request cannot be answered (reported as a 400).
        """
        scenario = Scenario.parse(str(body.get("model")))
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a non-empty list")
        tools = {
            t.get("function", {}).get("name")
            for t in body.get("tools") or ()
            if isinstance(t, dict)
        }
        if scenario.tool_name not in tools:
            raise ValueError(f"the request does not offer the tool {scenario.tool_name!r}")
        round_index = self._check_turn(scenario, messages)
        stats = self.stats
        if round_index > 0 and stats.last_reply_at is not None:
            stats.gaps_ms.append((received_at - stats.last_reply_at) * 1000)
        stream = bool(body.get("stream"))
        counts = self.stats.counts
        counts["requests"] += 1
        if stream:
            counts["stream_requests"] += 1
        if round_index < scenario.rounds:
            counts["tool_rounds"] += 1
        else:
            counts["answers"] += 1
        usage = {
            "prompt_tokens": 10 * len(messages),
            "completion_tokens": 7,
            "total_tokens": 10 * len(messages) + 7,
        }
        response_id = f"chatcmpl-{scenario.model}-{round_index}"
        if not stream:
            return (
                b"application/json",
                self._whole(scenario, round_index, response_id, usage),
                False,
            )
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
        events = self._events(scenario, round_index, response_id, usage if include_usage else None)
        return b"text/event-stream", events, True

    def _check_turn(self, scenario: Scenario, messages: list[Any]) -> int:
        """The round this request is in; verifies the tool results of the current turn."""
        last_user = max(
            (i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "user"),
            default=-1,
        )
        if last_user < 0:
            raise ValueError("no user message")
        turn = messages[last_user + 1 :]
        latest = f"call_{sum(1 for m in turn if _asks_tools(m)) - 1}_"
        expected: dict[str, int] = {}
        rounds_done = 0
        counts = self.stats.counts
        for message in turn:
            if not isinstance(message, dict):
                raise ValueError("a message is not an object")
            role = message.get("role")
            if _asks_tools(message):
                for position in range(scenario.parallel):
                    expected[scenario.call_id(rounds_done, position)] = scenario.result(
                        rounds_done, position
                    )
                rounds_done += 1
            elif role == "tool":
                call_id = message.get("tool_call_id")
                if call_id in expected and tool_result_matches(
                    message.get("content"), expected.pop(call_id)
                ):
                    # Earlier rounds' results come again with every later request: count
                    # each result once, in the request right after its round.
                    if call_id.startswith(latest):
                        counts["tool_results_ok"] += 1
                else:
                    counts["tool_results_bad"] += 1
        if expected:
            counts["tool_results_bad"] += len(expected)  # calls that got no result
        return rounds_done

    def _tool_calls(self, scenario: Scenario, round_index: int) -> list[dict[str, Any]]:
        return [
            {
                "id": scenario.call_id(round_index, i),
                "type": "function",
                "function": {
                    "name": scenario.tool_name,
                    "arguments": json.dumps(scenario.arguments(round_index, i)),
                },
            }
            for i in range(scenario.parallel)
        ]

    def _whole(
        self, scenario: Scenario, round_index: int, response_id: str, usage: dict[str, int]
    ) -> bytes:
        if round_index < scenario.rounds:
            message: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": self._tool_calls(scenario, round_index),
            }
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": scenario.answer()}
            finish = "stop"
        return _dumps(
            {
                "id": response_id,
                "object": "chat.completion",
                "created": _CREATED,
                "model": scenario.model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
        )

    def _events(
        self,
        scenario: Scenario,
        round_index: int,
        response_id: str,
        usage: dict[str, int] | None,
    ) -> bytes | list[bytes]:
        head = {"id": response_id, "object": "chat.completion.chunk", "created": _CREATED}
        head["model"] = scenario.model

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return {**head, "choices": [choice]}

        events: list[dict[str, Any]] = [chunk({"role": "assistant", "content": None})]
        if round_index < scenario.rounds:
            for i, call in enumerate(self._tool_calls(scenario, round_index)):
                function = call["function"]
                events.append(
                    chunk(
                        {
                            "tool_calls": [
                                {
                                    "index": i,
                                    "id": call["id"],
                                    "type": "function",
                                    "function": {"name": function["name"], "arguments": ""},
                                }
                            ]
                        }
                    )
                )
                arguments = function["arguments"]
                pieces = (
                    [arguments[i : i + 3] for i in range(0, len(arguments), 3)]
                    if scenario.fine
                    else _fragments(arguments, 3)
                )
                events.extend(
                    chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
                    for piece in pieces
                )
            events.append(chunk({}, "tool_calls"))
        else:
            answer = scenario.answer()
            words = (
                [w + " " for w in answer.split(" ")[:-1]] + [answer.split(" ")[-1]]
                if scenario.fine
                else _fragments(answer, 4)
            )
            events.extend(chunk({"content": piece}) for piece in words)
            events.append(chunk({}, "stop"))
        if usage is not None:
            events.append({**head, "choices": [], "usage": usage})
        frames = [b"data: " + _dumps(e) + b"\n\n" for e in events]
        frames.append(b"data: [DONE]\n\n")
        chunks = [b"%x\r\n%s\r\n" % (len(f), f) for f in frames]
        chunks.append(b"0\r\n\r\n")
        return chunks if scenario.fine else b"".join(chunks)


class _Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection (Content-Length or chunked request bodies)."""

    def __init__(self, server: FakeModelServer) -> None:
        self._server = server
        self._buffer = bytearray()
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        while self._transport is not None and self._handle_one():
            pass

    def _handle_one(self) -> bool:
        buffer = self._buffer
        end = buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(buffer) > _MAX_HEADER:
                self._reply(431, b"text/plain", b"headers too large", close=True)
            return False
        head = bytes(buffer[:end]).decode("latin-1").split("\r\n")
        try:
            method, target, _ = head[0].split(" ", 2)
        except ValueError:
            self._reply(400, b"text/plain", b"bad request line", close=True)
            return False
        headers = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        start = end + 4
        if headers.get("transfer-encoding", "").lower() == "chunked":
            parsed = _dechunk(buffer, start)
            if parsed is None:
                return False
            body, consumed = parsed
        else:
            length = int(headers.get("content-length") or 0)
            if len(buffer) < start + length:
                return False
            body, consumed = bytes(buffer[start : start + length]), start + length
        del buffer[:consumed]
        close = headers.get("connection", "").lower() == "close"
        self._route(method, target.split("?", 1)[0], body, close)
        return True

    def _route(self, method: str, path: str, body: bytes, close: bool) -> None:
        server = self._server
        if method == "POST" and path.endswith("/chat/completions"):
            received_at = time.perf_counter()
            try:
                request = json.loads(body)
                content_type, payload, streamed = server.completion(request, received_at)
            except (ValueError, TypeError, AttributeError) as exc:
                server.stats.counts["errors"] += 1
                error = {"error": {"message": str(exc), "type": "invalid_request_error"}}
                self._reply(400, b"application/json", _dumps(error), close)
                return
            if streamed:
                self._reply_chunked(content_type, payload, close, server.pace(request))
            else:
                self._reply(200, content_type, payload, close)
            server.stats.last_reply_at = time.perf_counter()
        elif method == "GET" and path == "/stats":
            self._reply(200, b"application/json", _dumps(server.stats.snapshot()), close)
        elif method == "POST" and path == "/stats/reset":
            server.stats.reset()
            self._reply(200, b"application/json", b"{}", close)
        else:
            self._reply(404, b"application/json", b'{"error":{"message":"not found"}}', close)

    def _reply(self, status: int, content_type: bytes, body: bytes, close: bool = False) -> None:
        reason = {200: b"OK", 400: b"Bad Request", 404: b"Not Found"}.get(status, b"Error")
        assert self._transport is not None
        self._transport.write(
            b"HTTP/1.1 %d %s\r\ncontent-type: %s\r\ncontent-length: %d\r\n%s\r\n%s"
            % (
                status,
                reason,
                content_type,
                len(body),
                b"connection: close\r\n" if close else b"",
                body,
            )
        )
        if close:
            self._transport.close()
            self._transport = None

    def _reply_chunked(
        self, content_type: bytes, chunks: bytes | list[bytes], close: bool, pace: float = 0.0
    ) -> None:
        assert self._transport is not None
        pieces = [chunks] if isinstance(chunks, bytes) else chunks
        if pace:  # each event written ``pace`` seconds after the one before, as tokens come
            loop = asyncio.get_running_loop()
            head = (
                b"HTTP/1.1 200 OK\r\ncontent-type: %s\r\ncache-control: no-cache\r\n"
                b"transfer-encoding: chunked\r\n%s\r\n"
                % (content_type, b"connection: close\r\n" if close else b"")
            )
            transport = self._transport
            transport.write(head)
            for n, piece in enumerate(pieces):
                loop.call_later(pace * n, _write_if_open, transport, piece)
            if close:
                loop.call_later(pace * len(pieces), transport.close)
                self._transport = None
            return
        self._transport.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: %s\r\ncache-control: no-cache\r\n"
            b"transfer-encoding: chunked\r\n%s\r\n%s"
            % (content_type, b"connection: close\r\n" if close else b"", pieces[0])
        )
        for piece in pieces[1:]:  # one send each: the client reads them as they come
            self._transport.write(piece)
        if close:
            self._transport.close()
            self._transport = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None


def _write_if_open(transport: asyncio.Transport, piece: bytes) -> None:
    if not transport.is_closing():
        transport.write(piece)


def _dechunk(buffer: bytearray, start: int) -> tuple[bytes, int] | None:
    """A chunked body starting at ``start``: ``(body, end offset)``, or ``None`` if partial."""
    body = bytearray()
    pos = start
    while True:
        line_end = buffer.find(b"\r\n", pos)
        if line_end < 0:
            return None
        size = int(bytes(buffer[pos:line_end]).split(b";")[0], 16)
        pos = line_end + 2
        if size == 0:
            trailer_end = buffer.find(b"\r\n", pos)
            return None if trailer_end < 0 else (bytes(body), trailer_end + 2)
        if len(buffer) < pos + size + 2:
            return None
        body += buffer[pos : pos + size]
        pos += size + 2


async def serve(host: str, port: int, *, watch_stdin: bool = False) -> None:
    """Serve until SIGTERM/SIGINT (or, with ``watch_stdin``, until stdin closes); prints
    ``listening <port>`` once ready."""
    server = FakeModelServer()
    loop = asyncio.get_running_loop()
    listener = await loop.create_server(
        lambda: _Connection(server), host, port, backlog=1024, reuse_address=True
    )
    bound = listener.sockets[0].getsockname()[1]
    print(f"listening {bound}", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if watch_stdin:
        # The runner keeps our stdin open; when it dies, stdin closes and we stop too.
        def wait_for_eof() -> None:
            while os.read(0, 1024):
                pass
            loop.call_soon_threadsafe(stop.set)

        threading.Thread(target=wait_for_eof, name="stdin-watch", daemon=True).start()
    async with listener:
        await stop.wait()


def main(argv: list[str] | None = None) -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument(
        "--watch-stdin", action="store_true", help="stop when stdin closes (the runner's way)"
    )
    args = parser.parse_args(argv)
    asyncio.run(serve(args.host, args.port, watch_stdin=args.watch_stdin))


if __name__ == "__main__":
    main()
