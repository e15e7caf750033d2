"""Model attempt scopes (``ostinato.instrumentation``): entered around each HTTP attempt
of a model call, the first request and each retry, call and stream."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from contextlib import aclosing

import httpx
import pytest

from ostinato.errors import ServerError
from ostinato.instrumentation import (
    ModelAttempt,
    ModelAttemptStatusReport,
    add_model_attempt_scope,
    model_attempt_scopes,
)
from ostinato.prompt import Prompt
from ostinato.transport import RetryPolicy
from ostinato_openai import OpenAIChatModel

Log = list[tuple[object, ...]]

_REPLY = {
    "id": "r1",
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ],
}
_CHUNK = {
    "id": "r1",
    "model": "m",
    "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}],
}
_EVENTS = f"data: {json.dumps(_CHUNK)}\n\ndata: [DONE]\n\n".encode()


async def _no_sleep(seconds: float) -> None:
    return None


@pytest.fixture
def attempt_log() -> Iterator[Log]:
    log: Log = []

    @contextlib.contextmanager
    def scope(attempt: ModelAttempt) -> Iterator[ModelAttemptStatusReport]:
        log.append(("enter", attempt))
        try:
            yield lambda status: log.append(("status", status))
        except BaseException as error:
            log.append(("fail", type(error).__name__))
            raise
        log.append(("exit",))

    remove = add_model_attempt_scope(scope)
    yield log
    remove()
    assert scope not in model_attempt_scopes()


def _model(*statuses: int, retries: int = 2) -> OpenAIChatModel:
    replies = list(statuses)

    def handler(request: httpx.Request) -> httpx.Response:
        status = replies.pop(0)
        if status != 200:
            return httpx.Response(status, json={"error": {"message": "busy"}})
        if json.loads(request.content).get("stream"):
            return httpx.Response(
                200, content=_EVENTS, headers={"content-type": "text/event-stream"}
            )
        return httpx.Response(200, json=_REPLY)

    return OpenAIChatModel(
        model="m",
        api_key="sk-attempt-scope-secret",
        base_url="https://api.example.test/v1",
        retry_policy=RetryPolicy(max_retries=retries, sleep=_no_sleep),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )


def _attempts(log: Log) -> list[ModelAttempt]:
    return [entry[1] for entry in log if entry[0] == "enter"]  # type: ignore[misc]


async def test_each_attempt_of_a_call_is_wrapped(attempt_log: Log) -> None:
    async with _model(503, 200) as model:
        assert (await model.call(Prompt("hi"))).text == "hi"

    assert [(a.resend_count, a.stream) for a in _attempts(attempt_log)] == [(0, False), (1, False)]
    first = _attempts(attempt_log)[0]
    assert (first.provider, first.method) == ("openai", "POST")
    assert first.url == "https://api.example.test/v1/chat/completions"
    assert [e for e in attempt_log if e[0] != "enter"] == [
        ("status", 503),
        ("fail", "AttemptFailed"),
        ("status", 200),
        ("exit",),
    ]


async def test_each_attempt_of_a_stream_is_wrapped_until_it_is_read(attempt_log: Log) -> None:
    async with _model(500, 200) as model, aclosing(model.stream(Prompt("hi"))) as chunks:
        texts = [chunk.text async for chunk in chunks]

    assert "".join(t or "" for t in texts) == "hi"
    assert [(a.resend_count, a.stream) for a in _attempts(attempt_log)] == [(0, True), (1, True)]
    assert [e for e in attempt_log if e[0] != "enter"] == [
        ("status", 500),
        ("fail", "AttemptFailed"),
        ("status", 200),
        ("exit",),
    ]


async def test_the_last_failed_attempt_leaves_its_scope_with_the_error(attempt_log: Log) -> None:
    async with _model(500, 500, retries=1) as model:
        with pytest.raises(ServerError):
            await model.call(Prompt("hi"))

    assert len(_attempts(attempt_log)) == 2
    assert [e[0] for e in attempt_log].count("fail") == 2
