"""``RetryPolicy``: which failures are retried, how long between them, and the bounds."""

from __future__ import annotations

import pytest

from ostinato.errors import (
    BadRequestError,
    MalformedResponseError,
    ModelConnectionError,
    ModelTimeoutError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from ostinato.transport import RetryPolicy, is_retryable
from tests.fakes.mock_model import FakeTime


def test_backoff_doubles_up_to_the_cap_with_jitter():
    exact = RetryPolicy(initial_delay=0.5, max_delay=4.0, random=lambda: 0.0)
    assert [exact.backoff(n) for n in range(5)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    jittered = RetryPolicy(initial_delay=1.0, jitter=0.25, random=lambda: 1.0)
    assert jittered.backoff(0) == 0.75
    no_jitter = RetryPolicy(initial_delay=1.0, jitter=0.0, random=lambda: 1.0)
    assert no_jitter.backoff(1) == 2.0


def test_policy_values_are_checked():
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="jitter"):
        RetryPolicy(jitter=2)


def test_policies_compare_by_their_numbers_not_their_functions():
    async def other_sleep(_seconds: float) -> None:
        pass

    assert RetryPolicy(max_retries=3) == RetryPolicy(max_retries=3, sleep=other_sleep)
    assert RetryPolicy(max_retries=3) != RetryPolicy(max_retries=4)


@pytest.mark.parametrize(
    ("error", "headers", "retry"),
    [
        (ServerError("x", status=500), None, True),
        (ServerError("x", status=529), None, True),
        (ServerError("x", status=None), None, False),
        (RateLimitError("x", status=429), None, True),
        (RateLimitError("x", status=429, code="insufficient_quota"), None, False),
        (ModelTimeoutError("x", status=408), None, True),
        (BadRequestError("x", status=409), None, True),
        (BadRequestError("x", status=400), None, False),
        (BadRequestError("x", status=400), {"x-should-retry": "true"}, True),
        (ServerError("x", status=503), {"x-should-retry": "false"}, False),
        (ModelConnectionError("x"), None, True),
        (ModelTimeoutError("x"), None, True),
        (StreamInterruptedError("x"), None, False),
        (MalformedResponseError("x"), None, False),
    ],
)
def test_what_is_retryable(error, headers, retry: bool):
    assert is_retryable(error, headers) is retry


async def test_next_delay_backs_off_and_counts():
    time = FakeTime()
    state = RetryPolicy(
        max_retries=3, sleep=time.sleep, clock=time.clock, random=lambda: 0.0
    ).start()
    error = ServerError("x", status=503)
    for expected in (0.5, 1.0, 2.0):
        delay = state.next_delay(error)
        assert delay == expected
        await state.wait(delay)
    assert state.retries == 3
    assert state.next_delay(error) is None
    assert time.sleeps == [0.5, 1.0, 2.0]


def test_a_servers_wait_is_honoured_up_to_a_limit():
    policy = RetryPolicy(max_retries=2, max_retry_after=60)
    assert policy.start().next_delay(RateLimitError("x", status=429, retry_after=7.0)) == 7.0
    assert policy.start().next_delay(RateLimitError("x", status=429, retry_after=61.0)) is None


async def test_no_retry_starts_past_the_total_time():
    time = FakeTime()
    state = RetryPolicy(
        max_retries=10, max_total_time=100, sleep=time.sleep, clock=time.clock
    ).start()
    error = ServerError("x", status=503, retry_after=40.0)
    waited = []
    while (delay := state.next_delay(error)) is not None:
        waited.append(delay)
        await state.wait(delay)
    assert waited == [40.0, 40.0]  # a third wait would end past 100 s


def test_zero_retries_never_retries():
    assert RetryPolicy(max_retries=0).start().next_delay(ServerError("x", status=503)) is None
