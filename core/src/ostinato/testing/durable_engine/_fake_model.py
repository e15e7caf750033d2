"""A fake OpenAI-compatible model server on loopback for durable turns' tests.

Each request is a turn's round; the turn and what it does come from its first user
message, ``"<turn> <plan>"`` (its first two words; :attr:`FakeModelServer.user_texts`
keeps each round's last user message). The plans: ``plain`` (or any other word) answers
``done <turn>`` at once; ``long`` answers :func:`long_answer`; the others ask for one
tool in their first round (arguments ``{"turn": turn}``), then answer: ``tool`` asks for
``count``, ``approval`` for ``pay`` (which needs an approval), ``progress`` for ``steps``
(which reports its progress), ``reconcile``, ``approve`` and ``fail`` for the
destructive tool of that in-doubt rule (``pay_<rule>``,
:mod:`ostinato.testing.durable_effects`), and ``call:NAME`` for the tool ``NAME``.

The server also serves the tools (``/tool``), so it counts every model round and tool
call, started and finished. A *gate* holds one round or one tool call until the test
releases it, after telling the test it arrived (so a test kills a worker in the middle
of it).

A streamed request (``"stream": true``, as durable turns make them) gets its answer as
server-sent chunks: the tool call in one, the text a word at a time (``word_delay``
seconds apart; each word but the first after its space). The gate of key ``("piece",
turn, round)`` holds such a round after its first word was sent: a worker killed there
dies in the middle of a streamed round. The server notes when each answer was sent in
full (:attr:`FakeModelServer.answered`) and when each piece of text was
(:attr:`FakeModelServer.sent`): what the live delay measurements compare with the
moment a reader read it.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeModelServer", "Gate", "long_answer"]

#: The tool each plan asks for in its first round (and ``call:NAME``: ``NAME``).
_PLAN_TOOLS = {
    "tool": "count",
    "approval": "pay",
    "progress": "steps",
    **{rule: f"pay_{rule}" for rule in ("reconcile", "approve", "fail")},
}

#: ``("model", turn, round)``, ``("piece", turn, round)`` or ``(tool, turn, 0)`` (the
#: ``kind`` a tool reports: ``count``, ``pay``).
Key = tuple[str, str, int]


def long_answer(turn: str, words: int = 40) -> str:
    """The answer of the ``long`` plan: ``done <turn>:`` and ``words`` more words."""
    return f"done {turn}: " + " ".join(f"w{i}" for i in range(words))


def _tool_of(plan: str) -> str | None:
    if plan.startswith("call:"):
        return plan.removeprefix("call:")
    return _PLAN_TOOLS.get(plan)


class Gate:
    """Holds the request of one key: ``arrived`` is set when it comes, and it waits
    for ``release``."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.release = threading.Event()


class _Listening(ThreadingHTTPServer):
    # Hundreds of connections may arrive at once (a served load test): the default
    # backlog of 5 would drop some and the clients see their connection reset.
    request_queue_size = 1024


class FakeModelServer:
    """The server (a context manager: serving inside); ``started`` and ``finished``
    count requests by key.

    Args:
        latency: seconds each model round and tool call takes (a scale measurement).
        word_delay: seconds before each word of a streamed answer.
    """

    def __init__(self, latency: float = 0.0, word_delay: float = 0.0) -> None:
        self.latency = latency
        self.word_delay = word_delay
        self.started: Counter[Key] = Counter()
        self.finished: Counter[Key] = Counter()
        #: The idempotency key of each tool call, in arrival order (``""``: none).
        self.keys: list[str] = []
        #: The text of the last user message of each model round, by key, in order.
        self.user_texts: dict[Key, list[str]] = {}
        #: When the last answer of each key was sent in full (``time.time()``).
        self.answered: dict[Key, float] = {}
        #: When each piece of text was sent, by (completion id, text): ``time.time()``.
        self.sent: dict[tuple[str, str], float] = {}
        #: The process id of each tool call's worker, by key, in arrival order (0: the
        #: tool did not say).
        self.pids: dict[Key, list[int]] = {}
        self.gates: dict[Key, Gate] = {}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                answer = server.complete(body)
                if body.get("stream"):
                    self._stream(answer)
                else:
                    self._reply(json.dumps(answer).encode(), "application/json")
                server.answered[("model", answer["turn"], answer["round"])] = time.time()

            def _stream(self, answer: dict[str, Any]) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for chunk in server.chunks(answer):
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        server.sent_now(answer["id"], chunk)
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except OSError:
                    pass  # the worker was killed while it read
                self.close_connection = True

            def do_GET(self) -> None:
                query = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(self.path).query))
                self._reply(server.tool(query).encode(), "text/plain")
                server.answered[(query["kind"], query["turn"], 0)] = time.time()

            def _reply(self, payload: bytes, kind: str) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the worker was killed while it waited

        self._http = _Listening(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}"

    def gate(self, key: Key) -> Gate:
        """Hold the request of ``key`` when it comes."""
        gate = self.gates[key] = Gate()
        return gate

    def _hold(self, key: Key) -> None:
        with self._lock:
            gate = self.gates.get(key)
        if gate is not None and not gate.release.is_set():
            gate.arrived.set()
            gate.release.wait(60)

    def _enter(self, key: Key) -> None:
        with self._lock:
            self.started[key] += 1
        self._hold(key)
        if self.latency:
            time.sleep(self.latency)  # the model's fixed latency (scale measurement)

    def _leave(self, key: Key) -> None:
        with self._lock:
            self.finished[key] += 1

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """A chat completion for ``body`` (see the module's docstring), with the turn
        and the round it answers (``"turn"``, ``"round"``)."""
        messages = body["messages"]
        # The first two words: an advisor may have added text (retrieved documents).
        turn, plan = next(m["content"] for m in messages if m["role"] == "user").split()[:2]
        round_ = 1 + sum(1 for m in messages if m["role"] == "assistant")
        key = ("model", turn, round_)
        last_user = [m["content"] for m in messages if m["role"] == "user"][-1]
        with self._lock:
            self.user_texts.setdefault(key, []).append(last_user)
        self._enter(key)
        message: dict[str, Any]
        name = _tool_of(plan)
        if name is not None and round_ == 1:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call-{turn}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps({"turn": turn})},
                    }
                ],
            }
            finish = "tool_calls"
        else:
            text = long_answer(turn) if plan == "long" else f"done {turn}"
            message = {"role": "assistant", "content": text}
            finish = "stop"
        self._leave(key)
        return {
            "id": f"cmpl-{turn}-{round_}",
            "turn": turn,
            "round": round_,
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    def chunks(self, answer: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """``answer`` as streamed chunks (see the module's docstring)."""
        choice = answer["choices"][0]
        message = choice["message"]

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": answer["id"],
                "object": "chat.completion.chunk",
                "created": 0,
                "model": answer["model"],
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        yield chunk({"role": "assistant", "content": ""})
        for call in message.get("tool_calls") or ():
            yield chunk({"tool_calls": [{"index": 0, **call}]})
        text = message.get("content") or ""
        for n, word in enumerate(text.split(" ") if text else ()):
            if n == 1:
                self._hold(("piece", answer["turn"], answer["round"]))
            if self.word_delay:
                time.sleep(self.word_delay)
            yield chunk({"content": word if n == 0 else " " + word})
        yield chunk({}, choice["finish_reason"])
        yield {**chunk({}), "choices": [], "usage": answer["usage"]}

    def sent_now(self, completion_id: str, chunk: dict[str, Any]) -> None:
        """Note when ``chunk``'s text was sent (now): :attr:`sent`."""
        for choice in chunk["choices"]:
            text = choice["delta"].get("content")
            if text:
                self.sent[(completion_id, text)] = time.time()

    def tool(self, query: dict[str, str]) -> str:
        """One tool call (counted, with its idempotency key and its worker's pid)."""
        key = (query["kind"], query["turn"], 0)
        with self._lock:
            self.pids.setdefault(key, []).append(int(query.get("pid", 0)))
        self._enter(key)
        with self._lock:
            self.keys.append(query.get("key", ""))  # none outside a durable turn
        self._leave(key)
        return f"{query['kind']} {query['turn']} ok"

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for gate in self.gates.values():
            gate.release.set()
        self._http.shutdown()
        self._http.server_close()
