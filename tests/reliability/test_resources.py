"""The resource check itself: an async generator abandoned to the garbage collector is
closed by the loop in a task of its own, and the check waits for that task instead of
counting it as one left running."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator

import pytest

from tests.reliability.resources import assert_nothing_left, finalised, snapshot


async def _closing_slowly() -> AsyncIterator[int]:
    try:
        yield 1
    finally:
        for _ in range(3):  # closing takes a few turns of the loop (a connection's close)
            await asyncio.sleep(0)


async def _abandon_one() -> None:
    """Start a generator and drop it unclosed, as a library reading a body may."""
    generator = _closing_slowly()
    assert await anext(generator) == 1
    del generator
    gc.collect()
    # One turn of the loop: the finaliser's task starts and is still closing.
    await asyncio.sleep(0)
    await asyncio.sleep(0)


async def test_the_check_waits_for_the_finaliser_of_an_abandoned_generator() -> None:
    before = snapshot()
    await _abandon_one()
    await finalised()
    assert_nothing_left(before)


async def test_without_waiting_the_finaliser_is_named_in_the_failure() -> None:
    before = snapshot()
    await _abandon_one()
    with pytest.raises(AssertionError, match="await finalised"):
        assert_nothing_left(before)
    await finalised()
    assert_nothing_left(before)
