"""The live delay of a durable turn's log, per engine:
``python -m tests.durable_log_delay --engine temporal`` (or ``dbos``; ``make
bench-turn-log`` measures DBOS's streamed pieces). The figures are in the durable-turns
guide.

One worker runs tool turns one after the other against the durable engine kit's fake
model; this process follows each turn's log (``handle.events()``) and compares when it
read each round's ``round_finished`` and the tool's ``tool_finished`` with when the fake
server sent that round's last byte or the tool's reply (one clock: one machine). So the
delay holds the worker's handling of the answer, the event's emission, its way into the
engine's store and the reader's way to it: on DBOS a row written by the worker's writer
thread and a reader's poll; on Temporal the workflow task that tells the event, the
command that ships it, and the history's long poll.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid

from ostinato.durable import TurnRequest, durable_engine
from ostinato.testing.durable_engine import TOOLS, FakeModelServer, Workers
from tests.durable_scale import ROOT, _environment, engine_service

__all__ = ["main", "measure"]


def measure(engine: str, service: dict[str, str], turns: int) -> list[float]:
    """The delays (seconds) of the round and tool endings of ``turns`` tool turns."""
    import os

    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as model:
        env = _environment(engine, service, model, tmp)
        os.environ.update(env)
        args = ["--engine", engine] + (["--poll", "0.05"] if engine == "dbos" else [])
        delays: list[float] = []
        with Workers(env, args, ROOT) as workers:
            workers.start()
            submitter = durable_engine(engine)
            try:
                for n in range(turns):
                    turn = f"d{n}{uuid.uuid4().hex[:6]}"
                    handle = submitter.submit(
                        TurnRequest(f"{turn} tool", tools=(f"{TOOLS}:count",))
                    )
                    for event in handle.events(timeout=60):
                        read = time.time()
                        if event.kind == "round_finished":
                            key = ("model", turn, int(getattr(event, "round", 0)))
                        elif event.kind == "tool_finished":
                            key = ("count", turn, 0)
                        else:
                            continue
                        delays.append(read - model.answered[key])
            finally:
                submitter.close()
        return delays


def main() -> None:
    """Print the delays' p50, p95 and max."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", choices=("temporal", "dbos"), required=True)
    parser.add_argument("--turns", type=int, default=20)
    options = parser.parse_args()
    with engine_service(options.engine) as service:
        delays = sorted(measure(options.engine, service, options.turns))
    p95 = delays[int(0.95 * (len(delays) - 1))]
    print(
        f"{options.engine}: p50 {statistics.median(delays) * 1000:.1f} ms, "
        f"p95 {p95 * 1000:.1f} ms, max {delays[-1] * 1000:.1f} ms ({len(delays)} events)"
    )


if __name__ == "__main__":
    main()
