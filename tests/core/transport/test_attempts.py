"""``retry_call`` and ``retry_stream``: attempts, waits, and streams never retried once
they delivered."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

import pytest

from ostinato.errors import (
    BadRequestError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
    ServerError,
    StreamInterruptedError,
)
from ostinato.transport import AttemptFailed, RetryPolicy, retry_call, retry_stream
from tests.fakes.mock_model import FakeTime


def policy(time: FakeTime, max_retries: int = 2) -> RetryPolicy:
    return RetryPolicy(
        max_retries=max_retries, sleep=time.sleep, clock=time.clock, random=lambda: 0.0
    )


class Script:
    """Attempts that fail with the given errors, then succeed."""

    def __init__(self, *failures: BaseException) -> None:
        self.failures = list(failures)
        self.attempts = 0

    async def call(self) -> str:
        self.attempts += 1
        if self.failures:
            raise self.failures.pop(0)
        return "ok"

    async def stream(self) -> AsyncGenerator[str, None]:
        self.attempts += 1
        if self.failures:
            raise self.failures.pop(0)
        yield "a"
        yield "b"


async def collect(stream: AsyncGenerator[str, None]) -> list[str]:
    async with aclosing(stream) as items:
        return [item async for item in items]


async def test_a_call_is_retried_and_succeeds():
    time = FakeTime()
    script = Script(AttemptFailed(ServerError("x", status=503)), ModelConnectionError("down"))
    assert await retry_call(script.call, policy(time)) == "ok"
    assert script.attempts == 3
    assert time.sleeps == [0.5, 1.0]


async def test_the_headers_of_a_failure_decide():
    time = FakeTime()
    refused = AttemptFailed(ServerError("x", status=503), {"x-should-retry": "false"})
    with pytest.raises(ServerError):
        await retry_call(Script(refused).call, policy(time))
    invited = AttemptFailed(BadRequestError("x", status=400), {"x-should-retry": "true"})
    script = Script(invited)
    assert await retry_call(script.call, policy(time)) == "ok"
    assert script.attempts == 2


async def test_the_last_error_is_raised_with_its_own_cause():
    time = FakeTime()
    cause = OSError("reset")
    last = ServerError("third", status=503)
    last.__cause__ = cause
    script = Script(
        AttemptFailed(ServerError("first", status=500)),
        AttemptFailed(ServerError("second", status=502)),
        AttemptFailed(last),
    )
    with pytest.raises(ServerError, match="third") as caught:
        await retry_call(script.call, policy(time))
    assert caught.value.__cause__ is cause
    assert script.attempts == 3


async def test_errors_that_are_not_model_errors_pass_through():
    with pytest.raises(KeyError):
        await retry_call(Script(KeyError("bug")).call, policy(FakeTime()))


async def test_a_stream_is_retried_before_it_delivers():
    time = FakeTime()
    script = Script(AttemptFailed(ServerError("x", status=529)), ModelTimeoutError("slow"))
    assert await collect(retry_stream(script.stream, policy(time), provider="p")) == ["a", "b"]
    assert script.attempts == 3


async def broken_after_one(error: ModelError) -> AsyncGenerator[str, None]:
    yield "a"
    raise error


@pytest.mark.parametrize("error", [ModelConnectionError("reset"), ModelTimeoutError("slow")])
async def test_a_stream_broken_after_delivery_is_interrupted_not_retried(error: ModelError):
    attempts = 0

    def attempt() -> AsyncGenerator[str, None]:
        nonlocal attempts
        attempts += 1
        return broken_after_one(error)

    got: list[str] = []
    with pytest.raises(StreamInterruptedError, match="broke after it had started") as caught:
        async with aclosing(retry_stream(attempt, policy(FakeTime()), provider="acme")) as s:
            async for item in s:
                got.append(item)
    assert got == ["a"]
    assert attempts == 1
    assert caught.value.provider == "acme"
    assert caught.value.__cause__ is error


async def test_other_errors_after_delivery_are_raised_as_they_are():
    failure = BadRequestError("event: error", status=400)
    with pytest.raises(BadRequestError, match="event: error"):
        await collect(
            retry_stream(lambda: broken_after_one(failure), policy(FakeTime()), provider="p")
        )


async def test_closing_the_outer_stream_closes_the_attempt():
    closed = False

    async def endless() -> AsyncGenerator[str, None]:
        nonlocal closed
        try:
            while True:
                yield "x"
        finally:
            closed = True

    async with aclosing(retry_stream(endless, policy(FakeTime()), provider="p")) as stream:
        async for _item in stream:
            break
    assert closed
