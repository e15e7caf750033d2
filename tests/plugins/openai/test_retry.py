"""Retries: which failures, how long between them (Retry-After honoured), and the bounds."""

from __future__ import annotations

import httpx
import pytest

from ostinato.errors import (
    BadRequestError,
    ModelConnectionError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from ostinato.prompt import Prompt
from ostinato.transport import is_retryable
from ostinato_openai import RetryPolicy
from tests.plugins.openai.fakes import (
    OK,
    FakeTime,
    aggregate,
    error_reply,
    model_for,
    sse_body,
    stream_chunks,
)
from tests.plugins.openai.wire import load


def stream_ok() -> httpx.Response:
    return sse_body(
        {"id": "r", "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}
    )


def test_backoff_doubles_up_to_the_cap_with_jitter():
    exact = RetryPolicy(initial_delay=0.5, max_delay=4.0, random=lambda: 0.0)
    assert [exact.backoff(n) for n in range(5)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    jittered = RetryPolicy(initial_delay=1.0, jitter=0.25, random=lambda: 1.0)
    assert jittered.backoff(0) == 0.75


def test_policy_values_are_checked():
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="jitter"):
        RetryPolicy(jitter=2)


@pytest.mark.parametrize(
    ("error", "headers", "retry"),
    [
        (ServerError("x", status=500), None, True),
        (ServerError("x", status=None), None, False),
        (RateLimitError("x", status=429), None, True),
        (RateLimitError("x", status=429, code="insufficient_quota"), None, False),
        (BadRequestError("x", status=400), None, False),
        (BadRequestError("x", status=400), {"x-should-retry": "true"}, True),
        (ServerError("x", status=503), {"x-should-retry": "false"}, False),
        (ModelConnectionError("x"), None, True),
        (StreamInterruptedError("x"), None, False),
    ],
)
def test_what_is_retryable(error, headers, retry: bool):
    assert is_retryable(error, headers) is retry


async def test_the_recorded_azure_429_is_retried_after_its_retry_after():
    azure = load("openai-compatible", "014-azure-foundry-error-429-retry-after.json")
    time = FakeTime()
    model, sent = model_for(azure.response_for(), OK, time=time, max_retries=1)
    assert (await model.call(Prompt("hi"))).text == "ok"
    assert time.sleeps == [1.0]
    assert len(sent) == 2


async def test_a_retry_after_beyond_the_limit_is_raised_at_once():
    time = FakeTime()
    model, sent = model_for(error_reply(429, {"retry-after": "3600"}), OK, time=time, max_retries=3)
    with pytest.raises(RateLimitError) as caught:
        await model.call(Prompt("hi"))
    assert caught.value.retry_after == 3600.0
    assert time.sleeps == []
    assert len(sent) == 1


async def test_retries_are_bounded_in_count_and_the_last_error_raised():
    time = FakeTime()
    model, sent = model_for(
        error_reply(500), error_reply(502), error_reply(503), OK, time=time, max_retries=2
    )
    with pytest.raises(ServerError, match="status 503"):
        await model.call(Prompt("hi"))
    assert len(sent) == 3


async def test_retries_are_bounded_in_total_time():
    time = FakeTime()
    replies = [error_reply(503, {"retry-after": "40"}) for _ in range(5)] + [OK]
    model, sent = model_for(*replies, time=time, max_retries=10)
    model._retry = RetryPolicy(
        max_retries=10, max_total_time=100, sleep=time.sleep, clock=time.clock
    )
    with pytest.raises(ServerError):
        await model.call(Prompt("hi"))
    assert time.sleeps == [40.0, 40.0]  # a third wait would end past 100 s
    assert len(sent) == 3


async def test_client_errors_and_exhausted_quota_are_not_retried():
    time = FakeTime()
    model, sent = model_for(
        error_reply(400), error_reply(429, code="insufficient_quota"), OK, time=time, max_retries=3
    )
    with pytest.raises(BadRequestError):
        await model.call(Prompt("hi"))
    with pytest.raises(RateLimitError):
        await model.call(Prompt("hi"))
    assert len(sent) == 2
    assert time.sleeps == []


async def test_connection_errors_are_retried():
    time = FakeTime()
    model, sent = model_for(
        httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), OK, time=time, max_retries=2
    )
    assert (await model.call(Prompt("hi"))).text == "ok"
    assert len(sent) == 3


async def test_a_stream_is_retried_before_it_delivers():
    time = FakeTime()
    model, sent = model_for(
        error_reply(503), httpx.ConnectError("refused"), stream_ok(), time=time, max_retries=2
    )
    assert (await aggregate(model)).text == "ok"
    assert len(sent) == 3


async def test_a_stream_that_ended_empty_is_not_retried():
    model, sent = model_for(sse_body(done=False), stream_ok(), max_retries=2)
    with pytest.raises(StreamInterruptedError):
        await stream_chunks(model)
    assert len(sent) == 1


async def test_zero_retries_means_one_attempt():
    model, sent = model_for(error_reply(503), OK, max_retries=0)
    with pytest.raises(ServerError):
        await model.call(Prompt("hi"))
    assert len(sent) == 1
