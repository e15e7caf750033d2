"""The sync stream bridge: order, errors, closing, abandonment, backpressure, timeouts."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import threading
import time
from collections.abc import AsyncIterator, Callable

import pytest

from ostinato.errors import SyncFromLoopError
from ostinato.runtime import SyncStream, get_private_loop, iterate_sync

trace_id: contextvars.ContextVar[str] = contextvars.ContextVar("trace_id", default="-")


async def numbers(n: int) -> AsyncIterator[int]:
    for i in range(n):
        await asyncio.sleep(0)
        yield i


def counting_factory(n: int) -> tuple[Callable[[], AsyncIterator[int]], threading.Event]:
    """A factory of ``numbers(n)``, and the event it sets when it is called."""
    called = threading.Event()

    def factory() -> AsyncIterator[int]:
        called.set()
        return numbers(n)

    return factory, called


class Endless:
    """An endless async generator recording its cleanup and the task it ran in."""

    def __init__(self) -> None:
        self.finalized = threading.Event()
        self.task: asyncio.Task[object] | None = None
        self.produced = 0

    async def __call__(self) -> AsyncIterator[int]:
        self.task = asyncio.current_task()
        try:
            while True:
                self.produced += 1
                yield self.produced
                await asyncio.sleep(0)
        finally:
            await asyncio.sleep(0.01)  # an awaiting cleanup, like closing an HTTP response
            self.finalized.set()


def consume(stream: SyncStream[int], into: list[int]) -> None:
    for item in stream:
        into.append(item)


def wait_until(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_all_items_in_order():
    assert list(iterate_sync(lambda: numbers(100))) == list(range(100))


def test_an_empty_stream():
    assert list(iterate_sync(lambda: numbers(0))) == []


def test_any_async_iterator_not_only_generators():
    class Countdown:
        def __init__(self) -> None:
            self.n = 3

        def __aiter__(self) -> Countdown:
            return self

        async def __anext__(self) -> int:
            if self.n == 0:
                raise StopAsyncIteration
            self.n -= 1
            return self.n

    assert list(iterate_sync(Countdown)) == [2, 1, 0]


def test_nothing_runs_until_the_first_item_is_asked_for():
    factory, called = counting_factory(2)
    stream = iterate_sync(factory)
    time.sleep(0.05)
    assert not called.is_set()
    assert next(stream) == 0
    assert called.is_set()
    stream.close()


def test_exception_mid_stream_after_the_items_before_it():
    error = ValueError("broken pipe")

    async def failing() -> AsyncIterator[int]:
        yield 1
        yield 2
        raise error

    received: list[int] = []
    with pytest.raises(ValueError, match="broken pipe") as info:
        consume(iterate_sync(failing), received)
    assert received == [1, 2]
    assert info.value is error


def test_exception_from_the_factory_itself():
    def factory() -> AsyncIterator[int]:
        raise LookupError("no such model")

    with pytest.raises(LookupError, match="no such model"):
        next(iterate_sync(factory))


def test_a_stop_iteration_from_the_async_side_is_an_error_not_a_silent_end():
    stop = StopIteration("from __anext__")

    class Broken:
        def __init__(self) -> None:
            self.sent = False

        def __aiter__(self) -> Broken:
            return self

        def __anext__(self) -> asyncio.Future[int]:
            if self.sent:
                raise stop  # raised by __anext__ itself, not from a coroutine
            self.sent = True
            future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            future.set_result(1)
            return future

    received: list[int] = []
    with pytest.raises(RuntimeError, match="raised StopIteration") as info:
        consume(iterate_sync(Broken), received)
    assert received == [1]
    assert info.value.__cause__ is stop


def test_a_stop_iteration_from_the_factory_is_an_error_not_an_empty_stream():
    def factory() -> AsyncIterator[int]:
        raise StopIteration

    with pytest.raises(RuntimeError, match="raised StopIteration"):
        list(iterate_sync(factory))


def test_keyboard_interrupt_on_the_async_side_reaches_the_reader_and_the_loop_survives():
    async def interrupted() -> AsyncIterator[int]:
        yield 1
        raise KeyboardInterrupt

    loop = get_private_loop()
    stream = iterate_sync(interrupted)
    assert next(stream) == 1
    with pytest.raises(KeyboardInterrupt):
        next(stream)
    assert list(iterate_sync(lambda: numbers(2))) == [0, 1]
    assert get_private_loop() is loop


def test_a_finished_or_failed_stream_stays_finished():
    stream = iterate_sync(lambda: numbers(1))
    assert list(stream) == [0]
    with pytest.raises(StopIteration):
        next(stream)


def test_break_inside_with_closes_and_cancels_at_once():
    gen = Endless()
    with iterate_sync(gen) as stream:
        for item in stream:
            if item == 3:
                break
    assert gen.finalized.is_set()  # no waiting: close() waited for the cleanup
    assert gen.task is not None
    assert gen.task.done()
    assert gen.task.cancelled()
    with pytest.raises(StopIteration):
        next(stream)


def test_close_is_idempotent_and_ends_iteration():
    gen = Endless()
    stream = iterate_sync(gen)
    assert next(stream) == 1
    stream.close()
    stream.close()
    assert gen.finalized.is_set()
    assert list(stream) == []


def test_closing_a_stream_never_started_does_nothing():
    factory, called = counting_factory(1)
    stream = iterate_sync(factory)
    stream.close()
    assert list(stream) == []
    assert not called.is_set()


def test_break_out_of_a_for_loop_over_a_temporary_closes_it():
    gen = Endless()
    for item in iterate_sync(gen):
        if item == 2:
            break
    assert gen.finalized.is_set()
    assert gen.task is not None
    assert gen.task.cancelled()


def test_an_abandoned_stream_is_closed_when_collected():
    gen = Endless()
    stream = iterate_sync(gen)
    assert next(stream) == 1
    del stream
    gc.collect()
    assert gen.finalized.wait(5)
    assert wait_until(lambda: gen.task is not None and gen.task.cancelled())


def test_close_from_another_thread_wakes_a_blocked_reader():
    started = threading.Event()
    finalized = threading.Event()

    async def slow() -> AsyncIterator[int]:
        try:
            yield 1
            started.set()
            await asyncio.sleep(60)
            yield 2
        finally:
            finalized.set()

    stream = iterate_sync(slow)
    assert next(stream) == 1
    closer = threading.Timer(0.05, stream.close)
    closer.start()
    with pytest.raises(StopIteration):
        next(stream)
    closer.join()
    assert started.is_set()
    assert finalized.wait(5)


@pytest.mark.parametrize("maxsize", [1, 3, 8])
def test_bounded_buffer_applies_backpressure(maxsize: int):
    gen = Endless()
    with iterate_sync(gen, maxsize=maxsize) as stream:
        assert next(stream) == 1
        # The producer fills the buffer, then waits for the reader.
        assert wait_until(lambda: gen.produced >= maxsize)
        time.sleep(0.1)
        assert maxsize <= gen.produced <= maxsize + 1
        # Reading makes room again, one item per item read.
        assert [next(stream) for _ in range(5)] == [2, 3, 4, 5, 6]
        time.sleep(0.1)
        assert gen.produced <= maxsize + 6


def test_maxsize_must_be_a_positive_int():
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="maxsize must be an int of at least 1"):
            iterate_sync(lambda: numbers(1), maxsize=bad)  # type: ignore[arg-type]


def test_asyncio_timeout_spanning_the_yields_works():
    async def timed() -> AsyncIterator[int]:
        async with asyncio.timeout(5):
            for i in range(5):
                await asyncio.sleep(0)
                yield i

    assert list(iterate_sync(timed, maxsize=1)) == list(range(5))


def test_asyncio_timeout_inside_the_stream_fires_through_the_bridge():
    async def stalls() -> AsyncIterator[int]:
        async with asyncio.timeout(0.05):
            yield 1
            await asyncio.sleep(10)
            yield 2

    received: list[int] = []
    with pytest.raises(TimeoutError):
        consume(iterate_sync(stalls), received)
    assert received == [1]


def test_context_variables_of_the_reader_are_visible():
    async def read() -> AsyncIterator[str]:
        yield trace_id.get()

    token = trace_id.set("t-7")
    try:
        assert list(iterate_sync(read)) == ["t-7"]
    finally:
        trace_id.reset(token)


async def test_works_when_the_reading_thread_runs_its_own_loop():
    assert list(iterate_sync(lambda: numbers(3))) == [0, 1, 2]


def test_refused_when_created_on_the_loop_thread():
    done = threading.Event()
    errors: list[BaseException] = []

    def callback() -> None:
        try:
            iterate_sync(lambda: numbers(1), async_name="acontent")
        except BaseException as exc:
            errors.append(exc)
        finally:
            done.set()

    get_private_loop().call_soon_threadsafe(callback)
    assert done.wait(5)
    (error,) = errors
    assert isinstance(error, SyncFromLoopError)
    assert "`await ....acontent()`" in str(error)


def test_refused_when_iterated_on_the_loop_thread():
    factory, called = counting_factory(1)
    stream: SyncStream[int] = iterate_sync(factory, async_name="acontent")

    async def iterate_on_loop() -> list[int]:
        return list(stream)

    from ostinato.runtime import run_sync

    with pytest.raises(SyncFromLoopError, match="acontent"):
        run_sync(iterate_on_loop())
    assert not called.is_set()
