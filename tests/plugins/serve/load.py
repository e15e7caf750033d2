"""The served load test: many concurrent conversations through ``ostinato serve``
processes, durable (PostgreSQL, two server processes, two workers) and in process (one
and two server processes), against a fake model with a fixed latency on loopback.

Each conversation is one streamed turn, ``POST /api/turns`` with ``"stream": true``
(server processes taken in turn): a model round asking for a tool, the tool (an HTTP
call to the fake model's server), a model round answering. Every model request takes
``latency`` seconds. The run measures, from the first request sent to the last turn
read to its end: throughput (turns per second), and for each turn the time to its first
loop event (the first message with an ``id:``, after the opening ``event: turn``), as
p50 and p95. Every answer is checked, and every model round and tool call is checked to
have run once. Servers and workers get a warm-up of a few turns first (a fresh worker
builds its client on its first turn). Conversation memory is off in both modes, so
they do the same work per turn.

Run: ``python -m tests.plugins.serve.load`` (``make bench-serve``; ``--conversations``,
``--latency``, ``--concurrency`` for the workers, ``--modes``); the table it prints is
recorded in the serve guide. ``test_load.py`` runs it with a handful of conversations
so that it keeps working.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.scale import fresh_database_url
from tests.plugins.dbos.served import Servers
from tests.plugins.dbos.workers import PLAN_TOOLS, Workers
from tests.servers import PostgresServer

__all__ = ["MODES", "LoadRun", "converse", "run_mode"]

#: The ways of serving measured: (name, durable, server processes, workers).
MODES = {
    "durable": (True, 2, 2),
    "in-process-1": (False, 1, 0),
    "in-process-2": (False, 2, 0),
}
#: Turns per server process before the measurement (not counted).
WARM_UP = 2


@dataclass(frozen=True)
class LoadRun:
    """One measurement: ``first_event`` holds each turn's seconds to its first event."""

    mode: str
    conversations: int
    seconds: float
    first_event: list[float]

    @property
    def throughput(self) -> float:
        """Turns per second."""
        return self.conversations / self.seconds

    def percentile(self, p: int) -> float:
        """The ``p``-th percentile of the time to the first event, in seconds."""
        return statistics.quantiles(self.first_event, n=100, method="inclusive")[p - 1]


async def converse(http: httpx.AsyncClient, url: str, turn: str) -> float:
    """One conversation's turn, read to its end; its seconds to the first loop event.

    Raises:
        AssertionError: the stream did not end with the expected answer, or a loop
            event came out of order.
    """
    body = {"message": f"{turn} tool", "conversation_id": turn, "stream": True}
    sent = time.perf_counter()
    first: float | None = None
    seqs: list[int] = []
    text, last = "", ""
    async with http.stream("POST", f"{url}/api/turns", json=body) as response:
        assert response.status_code == 200, (await response.aread()).decode()
        event, data = "message", ""
        async for line in response.aiter_lines():
            if line.startswith("id: "):
                seqs.append(int(line[4:]))
                if first is None:
                    first = time.perf_counter() - sent
            elif line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif not line and data:
                if event == "text_delta":
                    text += json.loads(data)["text"]
                elif event == "error":
                    raise AssertionError(f"{turn}: the turn failed: {data}")
                elif event == "tool_finished":
                    failed = json.loads(data).get("error")
                    assert not failed, f"{turn}: the tool failed ({failed})"
                last, event, data = event, "message", ""
    assert seqs == list(range(1, len(seqs) + 1)), f"{turn}: events out of order: {seqs}"
    assert last == "loop_ended", f"{turn}: the stream ended with {last!r}"
    assert text == f"done {turn}", f"{turn}: answered {text!r}"
    assert first is not None
    return first


async def _drive(urls: list[str], turns: list[str]) -> tuple[float, list[float]]:
    limits = httpx.Limits(max_connections=len(turns) + 10, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=600, limits=limits) as http:
        began = time.perf_counter()
        firsts = await asyncio.gather(
            *(converse(http, urls[n % len(urls)], turn) for n, turn in enumerate(turns))
        )
        return time.perf_counter() - began, list(firsts)


def _check_once(model: FakeModelServer, turns: list[str]) -> None:
    for turn in turns:
        for key in (("model", turn, 1), ("count", turn, 0), ("model", turn, 2)):
            assert model.started[key] == 1, f"{key} ran {model.started[key]} times"


@contextmanager
def _served(
    mode: str, model: FakeModelServer, postgres: PostgresServer | None, concurrency: int
) -> Iterator[list[str]]:
    """The base URLs of the mode's server processes (and its workers), running."""
    durable, count, workers_count = MODES[mode]
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        if durable:
            assert postgres is not None
            database_url = fresh_database_url(postgres)
        else:
            database_url = f"sqlite:///{tmp / 'unused.sqlite'}"
        workers = stack.enter_context(Workers(tmp, model, database_url))
        workers.env["OSTINATO_MEMORY_ENABLED"] = "false"
        workers.env["OSTINATO_DBOS_WORKER_CONCURRENCY"] = str(concurrency)
        for n in range(workers_count):
            workers.start(f"load{n}")
        # A server's start is work of the kind of a worker's: with no worker started,
        # wait for it as for a slow worker's (on a loaded machine it takes a minute).
        workers.slowest_start = max(workers.slowest_start, 60.0)
        servers = stack.enter_context(Servers(workers))
        if not durable:
            del servers.env["OSTINATO_SERVE_TURNS"]
            servers.env["OSTINATO_LOAD_PLUGINS"] = "openai,serve"
        tools = () if durable else ("--tools", PLAN_TOOLS["tool"])
        yield [servers.start(*tools)[1] for _ in range(count)]


def run_mode(
    mode: str,
    conversations: int,
    latency: float,
    postgres: PostgresServer | None = None,
    concurrency: int = 100,
) -> LoadRun:
    """Serve as ``mode`` says, warm it up, then run ``conversations`` concurrent
    conversations and measure them."""
    with (
        FakeModelServer(latency) as model,
        _served(mode, model, postgres, concurrency) as urls,
    ):
        prefix = uuid.uuid4().hex[:6]
        warm = [f"{prefix}w{n}" for n in range(WARM_UP * len(urls))]
        asyncio.run(_drive(urls, warm))
        turns = [f"{prefix}c{n}" for n in range(conversations)]
        seconds, firsts = asyncio.run(_drive(urls, turns))
        _check_once(model, warm + turns)
    return LoadRun(mode, conversations, seconds, firsts)


def render(runs: list[LoadRun], latency: float) -> str:
    """The table of ``runs``, with the machine and the date."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"{runs[0].conversations} concurrent conversations, one tool turn each (two model "
        f"requests of {latency:g} s), {datetime.date.today()}, {platform.machine()}, "
        f"{os.cpu_count()} cores, load average {load:.1f} at the end",
        "",
        "| serving | turns/s | first event p50 | first event p95 | seconds |",
        "|---|---:|---:|---:|---:|",
    ]
    for run in runs:
        lines.append(
            f"| {run.mode} | {run.throughput:.1f} | {run.percentile(50) * 1000:.0f} ms "
            f"| {run.percentile(95) * 1000:.0f} ms | {run.seconds:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=100, help="turns per worker")
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        parser.error(f"unknown mode(s) {unknown}; expected some of {', '.join(MODES)}")
    runs = []
    with PostgresServer() as postgres:
        for mode in modes:
            runs.append(
                run_mode(mode, args.conversations, args.latency, postgres, args.concurrency)
            )
            print(render(runs[-1:], args.latency).splitlines()[-1], flush=True)
    print(render(runs, args.latency))


if __name__ == "__main__":
    main()
