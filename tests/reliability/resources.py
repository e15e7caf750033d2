"""Counting what a run may leave behind: sockets, asyncio tasks and threads.

Take a :func:`snapshot` before a scenario and :func:`assert_nothing_left` after it (once
the model is closed; on a running loop, ``await finalised()`` first). An async generator
dropped unclosed (httpx's body iterators are, when a body is not read to its end) is
closed by the loop in a task of its own, scheduled when the garbage collector finds it:
:func:`finalised` waits for those tasks, which would otherwise race the count. Threads that ostinato and asyncio keep on purpose — the private
event loop, the tool thread pool, the memory plugin's SQLite threads, an event loop's
default executor (DNS lookups) — may appear, bounded by their pool sizes; any other new
thread is a leak.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
from dataclasses import dataclass

import pytest

from ostinato.runtime import get_private_loop, tool_thread_pool_size
from ostinato_memory._sqlite import POOL_THREADS

__all__ = ["Snapshot", "assert_nothing_left", "finalised", "open_sockets", "snapshot"]

#: How long closing the abandoned async generators may take.
FINALISE_SECONDS = 5.0

# Threads kept on purpose, and how many of each kind there may be.
_KEPT = {
    "ostinato-loop": 1,
    "ostinato-tool": tool_thread_pool_size(),
    "ostinato-memory": POOL_THREADS,  # the SQLite repositories' pool
    "asyncio_": min(32, (os.cpu_count() or 1) + 4),  # the default executor's bound
}


def open_sockets() -> int:
    """How many socket file descriptors the process holds (Linux only)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("counting sockets needs /proc/self/fd")
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                count += 1
        except OSError:
            continue  # closed between listing and reading
    return count


@dataclass(frozen=True)
class Snapshot:
    """What the process holds at one moment."""

    sockets: int
    tasks: int
    threads: frozenset[int]


def _others() -> list[asyncio.Task[object]]:
    try:
        current = asyncio.current_task()
    except RuntimeError:
        return []
    return [t for t in asyncio.all_tasks() if t is not current]


def _tasks() -> int:
    return len(_others())


def _is_finaliser(task: asyncio.Task[object]) -> bool:
    """Whether ``task`` is the loop closing an abandoned async generator (``aclose()``)."""
    return type(task.get_coro()).__name__ == "async_generator_athrow"


async def finalised() -> None:
    """Wait until the running loop has closed every async generator abandoned so far.

    The loop's finaliser hook schedules each ``aclose()`` with ``call_soon_threadsafe``;
    a callback queued after those runs after them, so once it ran, their tasks exist.
    Closing one may abandon another (a generator reading from a generator): repeat until
    none is left.
    """
    loop = asyncio.get_running_loop()
    while True:
        gc.collect()
        queued = loop.create_future()
        loop.call_soon(queued.set_result, None)
        await queued
        closing = [t for t in _others() if _is_finaliser(t)]
        if not closing:
            return
        _, pending = await asyncio.wait(closing, timeout=FINALISE_SECONDS)
        assert not pending, f"{len(pending)} abandoned async generator(s) never finished closing"


def snapshot() -> Snapshot:
    """Sockets, tasks of the running loop (if any) and live threads, now.

    ostinato's private event loop is started first: it lives as long as the process (its
    self-pipe would otherwise count as two new sockets)."""
    get_private_loop()
    gc.collect()
    return Snapshot(
        open_sockets(), _tasks(), frozenset(t.ident or 0 for t in threading.enumerate())
    )


def _kind(name: str) -> str | None:
    return next((kind for kind in _KEPT if name.startswith(kind)), None)


def assert_nothing_left(before: Snapshot) -> None:
    """No more sockets or tasks than ``before``, and no new thread of an unknown kind."""
    gc.collect()
    after = snapshot()
    assert after.sockets <= before.sockets, f"{after.sockets - before.sockets} socket(s) left open"
    finalisers = sum(1 for t in _others() if _is_finaliser(t))
    assert after.tasks <= before.tasks, f"{after.tasks - before.tasks} task(s) left running" + (
        f" ({finalisers} closing an abandoned async generator: await finalised() first)"
        if finalisers
        else ""
    )
    new = [t for t in threading.enumerate() if (t.ident or 0) not in before.threads]
    unknown = [t.name for t in new if _kind(t.name) is None]
    assert not unknown, f"thread(s) left behind: {unknown}"
    counts: dict[str, int] = {}
    for thread in threading.enumerate():
        kind = _kind(thread.name)
        if kind is not None:
            counts[kind] = counts.get(kind, 0) + 1
    over = {kind: n for kind, n in counts.items() if n > _KEPT[kind]}
    assert not over, f"more threads than their pools allow: {over}"
