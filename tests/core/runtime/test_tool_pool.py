"""The sync-tool thread pool: context variables, size, resizing, not blocking the loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
import time
from collections.abc import Iterator

import pytest

from ostinato.runtime import (
    DEFAULT_TOOL_THREADS,
    run_in_tool_thread,
    set_tool_thread_pool_size,
    tool_thread_pool_size,
)

user: contextvars.ContextVar[str] = contextvars.ContextVar("user", default="anonymous")


@pytest.fixture
def restore_pool_size() -> Iterator[None]:
    before = tool_thread_pool_size()
    yield
    set_tool_thread_pool_size(before)


async def test_context_variables_reach_the_tool_thread():
    def whoami(greeting: str, *, punctuation: str) -> tuple[str, str]:
        return f"{greeting} {user.get()}{punctuation}", threading.current_thread().name

    token = user.set("ada")
    try:
        text, thread_name = await run_in_tool_thread(whoami, "hello", punctuation="!")
    finally:
        user.reset(token)
    assert text == "hello ada!"
    assert thread_name.startswith("ostinato-tool")
    assert thread_name != threading.current_thread().name


async def test_changes_made_by_the_tool_stay_in_its_copy_of_the_context():
    def change() -> None:
        user.set("mallory")

    await run_in_tool_thread(change)
    assert user.get() == "anonymous"


async def test_exceptions_propagate_unchanged():
    error = OSError("disk full")

    def fail() -> None:
        raise error

    with pytest.raises(OSError, match="disk full") as info:
        await run_in_tool_thread(fail)
    assert info.value is error


def test_default_size_is_at_least_32():
    assert DEFAULT_TOOL_THREADS >= 32
    assert tool_thread_pool_size() >= 32


async def test_32_blocking_tools_run_at_once():
    barrier = threading.Barrier(32, timeout=10)  # breaks (and fails) if fewer threads run

    def meet() -> int:
        return barrier.wait()

    results = await asyncio.gather(*(run_in_tool_thread(meet) for _ in range(32)))
    assert sorted(results) == list(range(32))


async def test_a_blocking_tool_does_not_block_the_event_loop():
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    try:
        await run_in_tool_thread(time.sleep, 0.2)
    finally:
        ticker.cancel()
    assert ticks >= 5


async def test_resizing_caps_the_threads_used(restore_pool_size: None):
    set_tool_thread_pool_size(2)
    assert tool_thread_pool_size() == 2
    names: set[str] = set()
    lock = threading.Lock()

    def record() -> None:
        with lock:
            names.add(threading.current_thread().name)
        time.sleep(0.02)

    await asyncio.gather(*(run_in_tool_thread(record) for _ in range(8)))
    assert 1 <= len(names) <= 2


@pytest.mark.parametrize("bad", [0, -3])
def test_resizing_rejects_sizes_below_one(bad: int, restore_pool_size: None):
    with pytest.raises(ValueError, match=f"at least 1, got {bad}"):
        set_tool_thread_pool_size(bad)


@pytest.mark.parametrize("bad", [2.5, "8", True, None])
def test_resizing_rejects_non_integers(bad: object, restore_pool_size: None):
    with pytest.raises(TypeError, match="max_workers must be an int"):
        set_tool_thread_pool_size(bad)  # type: ignore[arg-type]


def raising(error: BaseException):
    def fail() -> None:
        raise error

    return fail


@pytest.mark.parametrize(
    "error",
    [
        concurrent.futures.CancelledError("the tool's own"),
        asyncio.CancelledError("the tool's own"),
        KeyboardInterrupt("the tool's own"),
        SystemExit(3),
        GeneratorExit("the tool's own"),
        StopAsyncIteration("the tool's own"),
        TimeoutError("the tool's own"),
    ],
    ids=type,
)
async def test_every_exception_kind_is_raised_unchanged_and_cancels_nothing(error):
    async with asyncio.timeout(10):  # a regression fails instead of hanging
        with pytest.raises(type(error)) as info:
            await run_in_tool_thread(raising(error))
    assert info.value is error
    assert asyncio.current_task().cancelling() == 0  # the caller was not cancelled


async def test_stop_iteration_arrives_as_the_runtime_error_a_coroutine_gets():
    stop = StopIteration("exhausted")
    async with asyncio.timeout(10):  # asyncio alone would never resolve the call
        with pytest.raises(RuntimeError, match="coroutine raised StopIteration") as info:
            await run_in_tool_thread(raising(stop))
    assert info.value.__cause__ is stop


async def test_the_threads_are_daemon_threads_so_an_abandoned_tool_never_holds_the_exit():
    def thread() -> threading.Thread:
        return threading.current_thread()

    worker = await run_in_tool_thread(thread)
    assert worker.daemon
    assert worker.name.startswith("ostinato-tool")


async def test_a_call_abandoned_before_it_started_never_runs(restore_pool_size: None):
    set_tool_thread_pool_size(1)
    release = threading.Event()
    started = threading.Event()
    ran: list[str] = []

    def block() -> None:
        started.set()
        release.wait(10)

    blocker = asyncio.create_task(run_in_tool_thread(block))
    await asyncio.to_thread(started.wait, 5)
    queued = asyncio.create_task(run_in_tool_thread(ran.append, "queued"))
    await asyncio.sleep(0)
    queued.cancel()
    with pytest.raises(asyncio.CancelledError):
        await queued
    release.set()
    await blocker
    await run_in_tool_thread(ran.append, "after")  # the same single thread, in order
    assert ran == ["after"]


async def test_work_submitted_while_resizing_is_never_lost(restore_pool_size: None):
    results = await asyncio.gather(
        *(run_in_tool_thread(lambda i=i: i) for i in range(20)),
        asyncio.to_thread(set_tool_thread_pool_size, 3),
        *(run_in_tool_thread(lambda i=i: i) for i in range(20, 40)),
    )
    assert [r for r in results if r is not None] == list(range(40))
