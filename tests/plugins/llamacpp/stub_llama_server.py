"""A stand-in for ``llama-server``: the same command line, ``/health`` and a scripted
``/v1/chat/completions``, in a few lines of standard-library Python.

What it does is read from the "model" file (``--model``), a JSON object:

* ``pid_file``: write this process's pid there once listening;
* ``exit_at_start``: print a line and exit with this status before listening;
* ``loading_seconds``: answer ``/health`` with 503 for this long (default 0);
* ``reply``: the assistant's text (default ``"hello from the stub"``);
* ``status_500``: answer chat requests with HTTP 500 and this message;
* ``crash``: ``"call"`` exits (status 3) on a chat request before answering; ``"stream"``
  exits after the first streamed chunk;
* ``crash_once_marker``: crash only if this file does not exist yet (then create it);
* ``requests_file``: append each chat request body (one JSON per line).

``/metrics`` counts 3 prompt tokens per chat request.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

__all__ = ["main"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", "-m", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    args, _ = parser.parse_known_args()  # the real server's other options
    script = json.loads(Path(args.model).read_text())
    print(f"stub llama-server: args {sys.argv[1:]}", flush=True)
    if "exit_at_start" in script:
        print("stub llama-server: failing at start as scripted", flush=True)
        return int(script["exit_at_start"])
    ready_at = time.monotonic() + float(script.get("loading_seconds", 0))
    answered = [0]  # prompt tokens "read" so far (3 a request), for /metrics

    def should_crash(kind: str) -> bool:
        if script.get("crash") != kind:
            return False
        marker = script.get("crash_once_marker")
        if marker is None:
            return True
        if Path(marker).exists():
            return False
        Path(marker).write_text("crashed")
        return True

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            print("stub llama-server: " + format % args, flush=True)

        def _json(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/metrics":  # what `--metrics` adds, in Prometheus' text format
                body = (
                    f"llamacpp:prompt_tokens_total {answered[0]}\nllamacpp:requests_processing 0\n"
                )
                self.send_response(200)
                self.send_header("content-type", "text/plain")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())
            elif self.path not in ("/health", "/v1/health"):
                self._json(404, {"error": {"code": 404, "message": "not found"}})
            elif time.monotonic() < ready_at:
                self._json(503, {"error": {"code": 503, "message": "Loading model"}})
            else:
                self._json(200, {"status": "ok"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            answered[0] += 3
            if "requests_file" in script:
                with open(script["requests_file"], "a") as f:
                    f.write(json.dumps(body) + "\n")
            if should_crash("call"):
                os._exit(3)
            if "status_500" in script:
                error = {"code": 500, "message": script["status_500"], "type": "server_error"}
                self._json(500, {"error": error})
                return
            text = script.get("reply", "hello from the stub")
            if not body.get("stream"):
                self._json(200, completion(text))
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            for i, word in enumerate(text.split(" ")):
                piece = word if i == 0 else " " + word
                self._event(chunk({"role": "assistant", "content": piece}, None))
                if should_crash("stream"):
                    os._exit(3)
            self._event(chunk({}, "stop"))
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def _event(self, payload: object) -> None:
            self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
            self.wfile.flush()

    server = ThreadingHTTPServer((args.host, args.port), Handler)
    if "pid_file" in script:
        Path(script["pid_file"]).write_text(str(os.getpid()))
    print(f"stub llama-server: listening on {args.host}:{args.port}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def completion(text: str) -> dict[str, object]:
    message = {"role": "assistant", "content": text}
    return {
        "id": "stub-1",
        "object": "chat.completion",
        "model": "stub",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }


def chunk(delta: dict[str, object], finish: str | None) -> dict[str, object]:
    return {
        "id": "stub-1",
        "object": "chat.completion.chunk",
        "model": "stub",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


if __name__ == "__main__":
    sys.exit(main())
