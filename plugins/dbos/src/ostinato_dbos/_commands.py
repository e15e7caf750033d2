"""``ostinato worker`` and ``ostinato approve``: run a worker; decide a waiting turn."""

from __future__ import annotations

import argparse
import signal
import threading
from typing import Final

__all__ = ["APPROVE_HELP", "WORKER_HELP", "run_approve", "run_worker"]

#: ``ostinato help`` line of ``ostinato worker``.
WORKER_HELP: Final = "run a durable-turn worker (DBOS) until SIGTERM or Ctrl-C"
#: ``ostinato help`` line of ``ostinato approve``.
APPROVE_HELP: Final = "approve or deny the tool calls a durable turn waits for"


def run_worker(argv: list[str]) -> int:
    """``ostinato worker [--concurrency N] [--executor-id ID]``: take turns from the queue
    until SIGTERM or SIGINT, then finish or hand back the turns in flight."""
    from ostinato_dbos._settings import DbosSettings
    from ostinato_dbos._worker import Worker

    parser = argparse.ArgumentParser(prog="ostinato worker", description=WORKER_HELP)
    parser.add_argument("--concurrency", type=int, help="turns run at once (worker)")
    parser.add_argument(
        "--executor-id",
        help="this worker's id (default: HOST-PROJECT-SLOT, the first slot no running "
        "worker of this project on this host holds)",
    )
    parser.add_argument(
        "--poll",
        type=float,
        default=1.0,
        help="queue (and, on SQLite, decisions) polling period, s",
    )
    parser.add_argument("--grace", type=float, help="seconds to finish turns on SIGTERM")
    args = parser.parse_args(argv)
    changes: dict[str, object] = {}
    if args.concurrency is not None:
        changes["worker_concurrency"] = args.concurrency
    if args.executor_id:
        changes["executor_id"] = args.executor_id
    settings = DbosSettings(**changes)  # type: ignore[arg-type]
    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())
    worker = Worker(settings, poll_seconds=args.poll)
    worker.start()
    print(
        f"ostinato worker {worker.executor_id}: taking turns from {settings.queue!r}",
        flush=True,
    )
    stop.wait()
    handed = worker.stop(args.grace)
    print(f"ostinato worker {worker.executor_id}: stopped, handed back {len(handed)} turn(s)")
    return 0


def run_approve(argv: list[str]) -> int:
    """``ostinato approve`` (see :mod:`ostinato_dbos._approve_command`)."""
    from ostinato_dbos._approve_command import run_approve as approve

    return approve(argv, APPROVE_HELP)
