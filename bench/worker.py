"""One contender in its own process, driven by the runner over stdin/stdout (JSON lines).

Commands (one JSON object per line) and replies:

* ``{"op": "setup", "base_url": ...}`` -> ``{"version": ..., "import_s": ..., "setup_s": ...}``
* ``{"op": "run", "mode": ..., "model": ..., "conversations": n, "concurrency": c,
  "history": h}`` -> ``{"wall_s": ..., "cpu_s": ..., "wrong": [...]}``: ``n`` whole
  conversations, at most ``c`` at a time (``c == 1``: one after another);
* ``{"op": "memory"}`` -> ``{"rss_kb": ..., "peak_rss_kb": ...}``;
* ``{"op": "quit"}``.

Any failure is replied as ``{"error": "<traceback>"}``. The contender's async work runs
on one event loop kept for the life of the process (its HTTP pools belong to it); the
``sync`` mode is called from the main thread while that loop is idle. Replies go to the
original stdout; everything else printed goes to stderr.

Run: ``python -m bench.worker <contender>``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import resource
import sys
import time
import traceback
from typing import IO, Any

from bench.contenders import load
from bench.contenders._base import Contender
from bench.scenario import Scenario

__all__ = ["current_rss_kb", "main", "run_batch"]


def current_rss_kb() -> int:
    """The resident set size now, in KiB (0 where ``/proc`` is missing)."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
    except OSError:
        return 0
    return pages * (os.sysconf("SC_PAGE_SIZE") // 1024)


def peak_rss_kb() -> int:
    """The peak resident set size of this process, in KiB (Linux reports KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def run_batch(
    contender: Contender,
    loop: asyncio.AbstractEventLoop,
    *,
    mode: str,
    model: str,
    conversations: int,
    concurrency: int,
    history: int,
) -> dict[str, Any]:
    """Run ``conversations`` conversations and time them (wall and process CPU time)."""
    scenario = Scenario.parse(model)
    expected = scenario.answer()
    if mode != "async" and mode not in contender.modes:
        raise ValueError(f"{contender.name} has no {mode!r} mode")
    if history and not contender.supports_history:
        raise ValueError(f"{contender.name} does not take a history")

    async def batch() -> list[str]:
        if concurrency <= 1:
            return [await contender.converse(scenario, mode, history) for _ in range(conversations)]
        gate = asyncio.Semaphore(concurrency)

        async def one() -> str:
            async with gate:
                return await contender.converse(scenario, mode, history)

        return list(await asyncio.gather(*(one() for _ in range(conversations))))

    gc.collect()
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    if mode == "sync":
        answers = [contender.converse_sync(scenario, history) for _ in range(conversations)]
    else:
        answers = loop.run_until_complete(batch())
    wall, cpu = time.perf_counter() - wall_start, time.process_time() - cpu_start
    wrong = [a for a in answers if a.strip() != expected][:3]
    return {"wall_s": wall, "cpu_s": cpu, "wrong": wrong, "answers": len(answers)}


def _serve(name: str, replies: IO[str]) -> None:
    started = time.perf_counter()
    contender = load(name)
    import_s = time.perf_counter() - started
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    for line in sys.stdin:
        command = json.loads(line)
        op = command.pop("op")
        reply: dict[str, Any]
        try:
            if op == "setup":
                started = time.perf_counter()
                loop.run_until_complete(contender.setup(command["base_url"]))
                reply = {
                    "version": contender.version(),
                    "import_s": import_s,
                    "setup_s": time.perf_counter() - started,
                }
            elif op == "run":
                reply = run_batch(contender, loop, **command)
            elif op == "memory":
                reply = {"rss_kb": current_rss_kb(), "peak_rss_kb": peak_rss_kb()}
            elif op == "quit":
                loop.run_until_complete(contender.aclose())
                replies.write("{}\n")
                replies.flush()
                return
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception:
            reply = {"error": traceback.format_exc()}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def main() -> None:
    """Entry point: ``python -m bench.worker <contender>``."""
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m bench.worker <contender>")
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # stray prints from libraries must not corrupt the replies
    sys.stdout = sys.stderr
    _serve(sys.argv[1], replies)


if __name__ == "__main__":
    main()
