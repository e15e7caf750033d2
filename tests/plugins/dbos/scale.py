"""Throughput of durable turns over N worker processes on Postgres, against a fake model
with a fixed latency: the small version runs in the test suite
(``test_postgres_queue.py``); the full one is ``python -m tests.plugins.dbos.scale``,
whose table is recorded in the durable-turns guide.

Each turn is a tool turn (a model round asking for a tool, the tool, a model round
answering): three units, two model requests of ``latency`` seconds each.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import psycopg

from ostinato.durable import TurnRequest
from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.workers import TOOLS, Workers
from tests.servers import PostgresServer

__all__ = ["ScaleRun", "fresh_database_url", "run_scale"]


@dataclass(frozen=True)
class ScaleRun:
    """One measurement."""

    workers: int
    turns: int
    seconds: float

    @property
    def throughput(self) -> float:
        """Turns per second."""
        return self.turns / self.seconds


def fresh_database_url(server: PostgresServer) -> str:
    """A new, empty database on ``server``."""
    name = f"d_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.url, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    return server.url.rsplit("/", 1)[0] + f"/{name}"


def run_scale(
    workers: Workers, server: FakeModelServer, count: int, turns: int, concurrency: int
) -> ScaleRun:
    """Start ``count`` workers, submit ``turns`` tool turns, wait for every answer; the
    time from the first submission to the last answer. Checks every unit ran once."""
    workers.env["OSTINATO_DBOS_WORKER_CONCURRENCY"] = str(concurrency)
    workers.env["OSTINATO_MEMORY_ENABLED"] = "false"
    started = [workers.start(f"s{i}") for i in range(count)]
    prefix = uuid.uuid4().hex[:6]
    with workers.engine() as engine:
        began = time.perf_counter()
        handles = [
            engine.submit(TurnRequest(f"{prefix}{n} tool", tools=(f"{TOOLS}:count",)))
            for n in range(turns)
        ]
        answers = [h.result(timeout=600).text for h in handles]
        seconds = time.perf_counter() - began
    for process in started:
        workers.terminate(process)
    assert answers == [f"done {prefix}{n}" for n in range(turns)]
    for n in range(turns):
        turn = f"{prefix}{n}"
        assert server.started[("model", turn, 1)] == 1
        assert server.started[("count", turn, 0)] == 1
        assert server.started[("model", turn, 2)] == 1
    return ScaleRun(count, turns, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", default="1,2,4")
    args = parser.parse_args()
    print(
        f"{args.turns} tool turns, model latency {args.latency} s, worker concurrency "
        f"{args.concurrency}"
    )
    print("| workers | seconds | turns/s | vs 1 worker |")
    print("|---:|---:|---:|---:|")
    first = None
    with PostgresServer() as postgres:
        for count in (int(c) for c in args.workers.split(",")):
            with (
                tempfile.TemporaryDirectory() as tmp,
                FakeModelServer(args.latency) as model,
                Workers(Path(tmp), model, fresh_database_url(postgres)) as workers,
            ):
                run = run_scale(workers, model, count, args.turns, args.concurrency)
            first = first or run.throughput
            print(
                f"| {count} | {run.seconds:.1f} | {run.throughput:.1f} | "
                f"{run.throughput / first:.2f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
