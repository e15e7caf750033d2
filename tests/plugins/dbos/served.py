"""``ostinato serve`` processes on the durable engine (``OSTINATO_SERVE_TURNS=durable``)
for the multi-process tests and the load script: started with the workers' environment,
each on a free loopback port, killed with the test; and an SSE reader of their turns."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, Self

import httpx

from ostinato_mcp._lifetime import guarded_command
from tests.plugins.dbos.workers import PLAN_TOOLS, ROOT, Workers

__all__ = ["Message", "Servers", "messages"]

Message = tuple[str, int | None, dict[str, Any]]  # (event, id, data)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Servers:
    """Server processes sharing the workers' database and memory (a context manager:
    kills those still running when it exits)."""

    def __init__(self, workers: Workers) -> None:
        self.workers = workers
        self.env = {
            **workers.env,
            "OSTINATO_LOAD_PLUGINS": "openai,memory,dbos,serve",
            "OSTINATO_SERVE_TURNS": "durable",
            "OSTINATO_SERVE_DURABLE_TOOLS": ",".join(PLAN_TOOLS.values()),
            "OSTINATO_SERVE_MAX_CONCURRENT_TURNS": "1000",
        }
        self.processes: list[subprocess.Popen[str]] = []

    def start(self, *extra: str) -> tuple[subprocess.Popen[str], str]:
        """A server process (``ostinato serve`` with ``extra`` arguments) and its base
        URL, once it answers ``/healthz``."""
        port = _free_port()
        args = ["-m", "ostinato.cli", "serve", "--port", str(port), *extra]
        command, argv = guarded_command(sys.executable, args)
        process = subprocess.Popen(
            [command, *argv],
            env=self.env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.processes.append(process)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + self.workers.patience
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"the server on port {port} exited ({process.returncode})")
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    return process, url
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError(f"the server on port {port} did not answer")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait(30)


def messages(
    response: httpx.Response, stop: Callable[[list[Message]], bool] = lambda _: False
) -> Iterator[Message]:
    """The SSE messages of ``response`` as they come; ``stop`` (given those read so far)
    ends the reading early (the caller then closes the connection)."""
    read: list[Message] = []
    event, ident, data = "message", None, []
    for line in response.iter_lines():
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("id: "):
            ident = int(line[4:])
        elif line.startswith("data: "):
            data.append(line[6:])
        elif not line and data:
            message = (event, ident, json.loads("\n".join(data)))
            read.append(message)
            yield message
            event, ident, data = "message", None, []
            if stop(read):
                return
