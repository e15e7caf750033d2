"""OpenAI's retries: a recorded Retry-After, the total-time bound, an exhausted quota,
transport failures, and streams retried only before they deliver (the retries every HTTP
adapter shares are ``tests/plugins/test_adapter_retries.py``'s)."""

from __future__ import annotations

import httpx
import pytest

from ostinato.errors import RateLimitError, ServerError, StreamInterruptedError
from ostinato.prompt import Prompt
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


async def test_the_recorded_azure_429_is_retried_after_its_retry_after():
    azure = load("openai-compatible", "014-azure-foundry-error-429-retry-after.json")
    time = FakeTime()
    model, sent = model_for(azure.response_for(), OK, time=time, max_retries=1)
    assert (await model.call(Prompt("hi"))).text == "ok"
    assert time.sleeps == [1.0]
    assert len(sent) == 2


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


async def test_an_exhausted_quota_is_not_retried():
    time = FakeTime()
    model, sent = model_for(
        error_reply(429, code="insufficient_quota"), OK, time=time, max_retries=3
    )
    with pytest.raises(RateLimitError):
        await model.call(Prompt("hi"))
    assert len(sent) == 1
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
