"""The load test's model server, run in a child process.

:class:`FlakyModelServer` answers like a model and fails a seeded share of the requests
in random ways; :class:`ChildServer` runs it in a separate process, so that the server's
own work neither competes with the client for the interpreter lock nor shows in the
client's memory measurements.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from tests.reliability.faultserver import (
    Fault,
    FaultServer,
    ReceivedRequest,
    model_reply,
    reply,
    reset,
    reset_mid_stream,
    text_chunks,
)

__all__ = ["ChildServer", "FlakyModelServer"]

_FAULTS: dict[str, Callable[[bool], Fault]] = {
    "500": lambda stream: reply(500, {"error": {"message": "internal"}}),
    "503": lambda stream: reply(503, {"error": {"message": "overloaded"}}),
    "429": lambda stream: reply(
        429, {"error": {"message": "slow down"}}, headers={"retry-after": "0"}
    ),
    "reset": lambda stream: reset(),
    "reset-mid-body": lambda stream: reset_mid_stream(
        text_chunks("partial")[:1] if stream else ['{"id": "x", "choi']
    ),
    "malformed": lambda stream: reply(200, "{not json", content_type="application/json"),
    "400": lambda stream: reply(400, {"error": {"message": "bad request"}}),
}


class FlakyModelServer:
    """Answers like :func:`model_reply`; fails ``failure_rate`` of the requests.

    Whether a request fails depends only on what it is (conversation, turn, round) and
    how often it was tried, so the run is the same whatever the scheduling. Every request
    is checked for messages of another conversation.
    """

    def __init__(self, failure_rate: float, seed: int) -> None:
        self._failure_rate = failure_rate
        self._seed = seed
        self.attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.injected: Counter[str] = Counter()
        self.cross_talk: list[str] = []

    def __call__(self, request: ReceivedRequest) -> Fault:
        body = request.json()
        messages = body["messages"]
        users = [m["content"] for m in messages if m["role"] == "user"]
        owner = users[0].split("-")[0]
        strangers = [u for u in users if u.split("-")[0] != owner]
        key = f"{users[-1]}/{len(messages)}"
        with self._lock:
            if strangers:
                self.cross_talk.append(f"{owner} saw {strangers}")
            attempt = self.attempts[key]
            self.attempts[key] += 1
        digest = hashlib.sha256(f"{self._seed}/{key}/{attempt}".encode()).digest()
        chance = random.Random(digest)
        if chance.random() >= self._failure_rate:
            return model_reply(request)
        kind = chance.choice(sorted(_FAULTS))
        with self._lock:
            self.injected[kind] += 1
        return _FAULTS[kind](bool(body.get("stream")))


def _serve(connection: Connection, failure_rate: float, seed: int) -> None:
    """The child process: serve until told to stop; answer questions about the run."""
    script = FlakyModelServer(failure_rate, seed)
    with FaultServer(script, keep_requests=False) as server:
        connection.send(server.port)
        while True:
            command = connection.recv()
            if command == "stop":
                break
            connection.send(
                {
                    "injected": dict(script.injected),
                    "cross_talk": list(script.cross_talk),
                    "idle": server.wait_idle(),
                    "requests": sum(script.attempts.values()),
                }
            )


class ChildServer:
    """A :class:`FlakyModelServer` behind a :class:`FaultServer`, in a child process."""

    def __init__(self, failure_rate: float, seed: int) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a threaded process
        self._connection, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, failure_rate, seed), name="flaky-model-server"
        )
        self._process.start()
        deadline = time.monotonic() + 60
        while not self._connection.poll(0.1):
            if not self._process.is_alive() or time.monotonic() > deadline:
                self._process.kill()
                raise RuntimeError(
                    f"the flaky model server did not start (exit code {self._process.exitcode})"
                )
        self.port: int = self._connection.recv()

    @property
    def base_url(self) -> str:
        """The API root to point the adapter at."""
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, Any]:
        """What was injected, any cross-talk seen, and whether all connections closed."""
        self._connection.send("stats")
        result: dict[str, Any] = self._connection.recv()
        return result

    def stop(self) -> None:
        """Stop the server and wait for the child to end."""
        if self._process.is_alive():
            self._connection.send("stop")
            self._process.join(30)
        self._connection.close()
