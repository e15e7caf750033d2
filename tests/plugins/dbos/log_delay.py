"""The live delay of a durable turn's log: from the moment the model sends a piece of
text to the moment a reader in another process reads its ``TextDelta``, on SQLite and on
a Postgres on loopback (``make bench-turn-log``; the figures are in docs/durable.md).

A worker process runs streamed turns on the fake model (a word every 20 ms); this
process follows each turn's log (``handle.events()``, polled every 20 ms, the default)
and compares, for each word, when it read it with when the model sent it (one clock:
one machine). So the delay holds the worker's reading of the chunk, the event's
emission, its write and the reader's poll."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from ostinato.durable import TurnRequest
from ostinato.events import TextDelta
from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.scale import fresh_database_url
from tests.plugins.dbos.workers import Workers
from tests.servers import PostgresServer

__all__ = ["measure"]


def measure(tmp: Path, database_url: str, turns: int = 5) -> list[float]:
    """The delays (seconds) of every word of ``turns`` streamed turns."""
    with FakeModelServer(word_delay=0.02) as server, Workers(tmp, server, database_url) as workers:
        workers.start("d1")
        delays: list[float] = []
        with workers.engine() as engine:
            engine.event_poll_seconds = 0.02
            for n in range(turns):
                turn_id = f"delay-{n}-{time.time_ns()}"
                request = TurnRequest(f"{turn_id} long", conversation_id=turn_id)
                handle = engine.submit(request, turn_id=turn_id)
                for event in handle.events(timeout=120):
                    if isinstance(event, TextDelta):
                        read = time.time()
                        key = next(
                            (k for k in server.sent if k[1] == event.text and turn_id in k[0]),
                            None,
                        )
                        if key is not None:
                            delays.append(read - server.sent[key])
        return delays


def report(name: str, delays: list[float]) -> str:
    """``name: p50 ... p95 ... (n)`` in milliseconds."""
    ordered = sorted(delays)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return (
        f"{name}: p50 {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
        f"max {ordered[-1] * 1000:.1f} ms ({len(ordered)} events)"
    )


def main() -> None:
    only = sys.argv[1:]  # "sqlite" or "postgres": one of them only
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory)
        if not only or "sqlite" in only:
            (tmp / "sqlite").mkdir()
            sqlite = measure(tmp / "sqlite", f"sqlite:///{tmp / 'sqlite' / 'dbos.sqlite3'}")
            print(report("SQLite", sqlite), flush=True)
        if only and "postgres" not in only:
            return
        with PostgresServer() as postgres:
            (tmp / "pg").mkdir()
            pg = measure(tmp / "pg", fresh_database_url(postgres))
        print(report("Postgres (loopback)", pg), flush=True)


if __name__ == "__main__":
    sys.exit(main())
