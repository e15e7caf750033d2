"""Anthropic's retries: x-should-retry honoured, the recorded 401 not retried, overloaded
streams retried before they deliver, never after (the retries every HTTP adapter shares
are ``tests/plugins/test_adapter_retries.py``'s)."""

from __future__ import annotations

import httpx
import pytest

from ostinato.errors import (
    AuthenticationError,
    ServerError,
    StreamInterruptedError,
)
from ostinato.prompt import Prompt
from tests.plugins.anthropic.fakes import (
    OK,
    FakeTime,
    aggregate,
    error_reply,
    model_for,
    sse_body,
    start,
    stream_chunks,
    text_events,
)
from tests.plugins.anthropic.wire import load


def ok_stream() -> httpx.Response:
    end = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn"},
        "usage": {"output_tokens": 1},
    }
    return sse_body(start(), *text_events("ok"), end)


async def test_x_should_retry_overrides_the_status():
    time = FakeTime()
    model, sent = model_for(
        error_reply(503, **{"x-should-retry": "false"}), OK, time=time, max_retries=3
    )
    with pytest.raises(ServerError):
        await model.call(Prompt("hi"))
    assert len(sent) == 1
    model, sent = model_for(
        error_reply(400, "invalid_request_error", **{"x-should-retry": "true"}),
        OK,
        time=time,
        max_retries=3,
    )
    assert (await model.call(Prompt("hi"))).text == "ok"
    assert len(sent) == 2


async def test_the_recorded_401_is_not_retried():
    time = FakeTime()
    model, sent = model_for(
        load("011-error-401-authentication.json").response_for(), OK, time=time, max_retries=3
    )
    with pytest.raises(AuthenticationError):
        await model.call(Prompt("hi"))
    assert len(sent) == 1
    assert time.sleeps == []


async def test_a_stream_overloaded_before_it_delivers_is_retried():
    # An error event right after message_start: nothing reached the caller yet.
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    time = FakeTime()
    model, sent = model_for(
        sse_body(start(), {"type": "ping"}, overloaded, stop=False),
        httpx.ConnectError("refused"),
        ok_stream(),
        time=time,
        max_retries=2,
    )
    assert (await aggregate(model)).text == "ok"
    assert len(sent) == 3


async def test_a_stream_is_never_retried_once_it_delivered():
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    model, sent = model_for(
        sse_body(start(), *text_events("Hel"), overloaded, stop=False), ok_stream(), max_retries=3
    )
    with pytest.raises(ServerError, match="overloaded_error"):
        await stream_chunks(model)
    assert len(sent) == 1


async def test_a_stream_cut_after_it_delivered_is_interrupted():
    body = sse_body(start(), *text_events("Hel"), stop=False)
    cut = httpx.Response(200, headers=body.headers, content=body.content[:-20])
    model, sent = model_for(cut, ok_stream(), max_retries=3)
    with pytest.raises(StreamInterruptedError):
        await stream_chunks(model)
    assert len(sent) == 1
