"""``within``: one step under an absolute deadline on the loop's clock.

It does what ``asyncio.timeout_at`` does around the step, so these pin the cases that
matter: the result in time, the bound's error once past it, a ``TimeoutError`` of the step
itself, a cancellation from elsewhere, a step that swallows the cancellation — and the
task left with no cancellation pending and no timer that fires later.
"""

from __future__ import annotations

import asyncio

import pytest

from ostinato.transport._bounds import within


class Late(Exception):
    pass


async def in_time(value: str) -> str:
    await asyncio.sleep(0)
    return value


async def never() -> str:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


def now_plus(seconds: float) -> float:
    return asyncio.get_running_loop().time() + seconds


async def test_the_result_in_time_and_no_timer_left_behind() -> None:
    assert await within(now_plus(0.05), in_time("done"), Late) == "done"
    await asyncio.sleep(0.1)  # a timer left armed would cancel this sleep
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0


async def test_past_the_deadline_the_bound_s_error_without_context() -> None:
    with pytest.raises(Late) as caught:
        await within(now_plus(0.01), never(), Late)
    assert caught.value.__context__ is None
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
    await asyncio.sleep(0)  # the task runs on, not cancelled


async def test_a_deadline_already_past_expires_at_once() -> None:
    with pytest.raises(Late):
        await within(now_plus(-1.0), never(), Late)


async def test_a_timeout_error_of_the_step_itself_passes_through() -> None:
    async def fails() -> str:
        raise TimeoutError("the step's own")

    with pytest.raises(TimeoutError, match="the step's own"):
        await within(now_plus(10.0), fails(), Late)


async def test_a_cancellation_from_elsewhere_is_not_the_bound() -> None:
    started = asyncio.Event()

    async def bounded() -> str:
        started.set()
        return await within(now_plus(10.0), never(), Late)

    task = asyncio.ensure_future(bounded())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_step_that_swallows_the_cancellation_keeps_its_result() -> None:
    async def stubborn() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return "finished anyway"
        return "unreachable"

    assert await within(now_plus(0.01), stubborn(), Late) == "finished anyway"
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
    await asyncio.sleep(0.02)  # not cancelled any more


async def test_a_cancellation_requested_meanwhile_goes_on() -> None:
    async def step() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:  # the bound's; someone else asks too, meanwhile
            current = asyncio.current_task()
            assert current is not None
            current.cancel()
            raise
        return "unreachable"

    task = asyncio.ensure_future(within(now_plus(0.01), step(), Late))
    with pytest.raises(asyncio.CancelledError):
        await task
