"""The private event loop and ``run_sync``: lazy start, reuse, propagation, refusal, fork."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from ostinato.errors import SyncFromLoopError
from ostinato.runtime import get_private_loop, is_private_loop_thread, run_sync

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


async def answer(value: object, delay: float = 0) -> object:
    await asyncio.sleep(delay)
    return value


def call_on_loop(fn):
    """Run ``fn()`` as a plain callback on the private loop; return (result, error)."""
    done = threading.Event()
    outcome: dict[str, object] = {}

    def callback() -> None:
        try:
            outcome["result"] = fn()
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            done.set()

    get_private_loop().call_soon_threadsafe(callback)
    assert done.wait(5), "the private loop did not run the callback"
    return outcome.get("result"), outcome.get("error")


def test_loop_starts_lazily_on_first_use():
    code = (
        "import threading, asyncio\n"
        "import ostinato, ostinato.runtime as r\n"
        "names = lambda: [t.name for t in threading.enumerate()]\n"
        "assert 'ostinato-loop' not in names(), names()\n"
        "assert r.run_sync(asyncio.sleep(0, 'ok')) == 'ok'\n"
        "assert names().count('ostinato-loop') == 1, names()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_the_same_loop_and_daemon_thread_are_reused():
    loop = get_private_loop()
    seen = {run_sync(lambda: answer(asyncio.get_running_loop())) for _ in range(3)}
    assert seen == {loop}
    assert get_private_loop() is loop
    (thread,) = [t for t in threading.enumerate() if t.name == "ostinato-loop"]
    assert thread.daemon


def test_concurrent_first_use_starts_one_loop():
    loops: list[asyncio.AbstractEventLoop] = []
    threads = [threading.Thread(target=lambda: loops.append(get_private_loop())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(loops)) == 1
    assert [t.name for t in threading.enumerate()].count("ostinato-loop") == 1


def test_result_of_a_coroutine_a_factory_and_an_awaitable():
    assert run_sync(answer(1)) == 1
    assert run_sync(lambda: answer(2, 0.01)) == 2

    class Awaitable:
        def __await__(self):
            return answer(3).__await__()

    assert run_sync(Awaitable()) == 3


def test_the_factory_is_called_on_the_private_loop():
    async def where() -> bool:
        return is_private_loop_thread()

    assert run_sync(lambda: where()) is True
    assert is_private_loop_thread() is False


def test_exception_propagates_as_the_same_object():
    error = ValueError("boom")

    async def fail() -> None:
        await asyncio.sleep(0)
        raise error

    with pytest.raises(ValueError, match="boom") as info:
        run_sync(fail())
    assert info.value is error


def test_keyboard_interrupt_raised_by_the_coroutine_propagates_and_the_loop_survives():
    async def interrupt() -> None:
        raise KeyboardInterrupt

    loop = get_private_loop()
    with pytest.raises(KeyboardInterrupt):
        run_sync(interrupt())
    assert run_sync(answer("still alive")) == "still alive"
    assert get_private_loop() is loop


def test_context_variables_of_the_caller_are_visible():
    async def read() -> str:
        return request_id.get()

    token = request_id.set("r-42")
    try:
        assert run_sync(read()) == "r-42"
    finally:
        request_id.reset(token)


async def test_works_when_the_calling_thread_runs_its_own_loop():
    own_loop = asyncio.get_running_loop()
    result = run_sync(lambda: answer(asyncio.get_running_loop(), 0.01))
    assert result is get_private_loop()
    assert result is not own_loop


def test_refused_from_the_loop_thread_with_the_async_twin_named():
    coro = answer("never")
    _, error = call_on_loop(lambda: run_sync(coro, async_name="acontent"))
    assert isinstance(error, SyncFromLoopError)
    assert "`await ....acontent()`" in str(error)
    assert "deadlock" in str(error)
    # closed, so it never warns "coroutine ... was never awaited"
    assert inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED


def test_refused_from_the_loop_thread_without_a_twin_name():
    result, error = call_on_loop(lambda: run_sync(lambda: answer(1)))
    assert result is None
    assert isinstance(error, SyncFromLoopError)
    assert "async twin" in str(error)


def test_refused_from_a_coroutine_running_on_the_private_loop():
    async def sync_face_inside() -> object:
        return run_sync(answer(1), async_name="achat_response")

    with pytest.raises(SyncFromLoopError, match=r"await \.\.\.\.achat_response\(\)"):
        run_sync(sync_face_inside())


def test_is_private_loop_thread():
    assert not is_private_loop_thread()
    result, error = call_on_loop(is_private_loop_thread)
    assert error is None
    assert result is True


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM timers")
def test_interrupting_the_waiting_thread_cancels_the_task():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are delivered to the main thread only")
    started = threading.Event()
    cancelled = threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt):
            run_sync(forever())
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert started.is_set()
    assert cancelled.wait(5)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")  # multi-threaded fork, 3.12+
def test_a_forked_child_gets_its_own_loop():
    parent_loop = get_private_loop()
    assert run_sync(answer("parent")) == "parent"
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        code = 1
        try:
            os.close(read_end)
            signal.alarm(20)  # a hang in the child must not hang the test run
            loop = get_private_loop()
            value = run_sync(lambda: answer(os.getpid(), 0.01))
            ok = loop is not parent_loop and value == os.getpid() and not is_private_loop_thread()
            os.write(write_end, b"ok" if ok else b"wrong")
            code = 0
        except BaseException as exc:
            os.write(write_end, repr(exc).encode())
        finally:
            os._exit(code)
    os.close(write_end)
    deadline = time.monotonic() + 30
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        assert time.monotonic() < deadline, "the forked child hung"
        time.sleep(0.01)
    with os.fdopen(read_end, "rb") as pipe:
        message = pipe.read().decode()
    assert os.waitstatus_to_exitcode(status) == 0, message
    assert message == "ok"
    # and the parent's loop is untouched
    assert get_private_loop() is parent_loop
    assert run_sync(answer("parent again")) == "parent again"
