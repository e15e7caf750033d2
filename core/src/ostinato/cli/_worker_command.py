"""``ostinato worker``: run a worker of the installed durable engine until SIGTERM or
Ctrl-C, then finish or hand back the turns in flight."""

from __future__ import annotations

import argparse
import signal
import threading
from typing import TYPE_CHECKING, Any, Final

from ostinato.cli._engine_choice import add_engine_option, open_engine

if TYPE_CHECKING:
    from ostinato.cli._context import CliContext

__all__ = ["WORKER_HELP", "add_worker_command", "declare_worker_options", "run_worker"]

#: ``ostinato help`` line of ``ostinato worker``.
WORKER_HELP: Final = "run a durable-turn worker until SIGTERM or Ctrl-C"


def declare_worker_options(parser: Any) -> None:
    """Declare the options of ``ostinato worker`` on ``parser``."""
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
    add_engine_option(parser)


def add_worker_command(subparsers: Any) -> None:
    """Declare ``ostinato worker``."""
    parser = subparsers.add_parser("worker", help=WORKER_HELP, description=WORKER_HELP)
    declare_worker_options(parser)
    parser.set_defaults(handler=run_worker)


def run_worker(args: argparse.Namespace, context: CliContext) -> int:
    """Take turns from the engine's queue until SIGTERM or SIGINT; then stop, finishing
    the turns in flight within ``--grace`` seconds and handing back the rest.

    Raises:
        ConfigurationError: no (or no single) durable engine is installed, or the worker
            cannot run turns (no usable model...).
    """
    from ostinato.transport import prefer_server_engine

    # A worker runs for long: aiohttp's start-up cost is soon paid back.
    with prefer_server_engine():
        return _run_worker(args, context)


def _run_worker(args: argparse.Namespace, context: CliContext) -> int:
    engine = open_engine(context, args.engine, "worker")
    try:
        worker = engine.worker(
            concurrency=args.concurrency,
            executor_id=args.executor_id or None,
            poll_seconds=args.poll,
        )
        stop = threading.Event()
        previous = {n: signal.signal(n, lambda *_: stop.set()) for n in _STOP_SIGNALS}
        try:
            worker.start()
            print(
                f"ostinato worker {worker.executor_id}: taking turns from {worker.queue!r}",
                flush=True,
            )
            stop.wait()
            handed = worker.stop(args.grace)
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
        print(f"ostinato worker {worker.executor_id}: stopped, handed back {len(handed)} turn(s)")
    finally:
        engine.close()
    return 0


_STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)
