"""How each HTTP adapter fails and retries: the network's failures, retried statuses, Retry-After.

Parametrised over the adapters, each failing with its API's documented error body; the
clock never really sleeps. A transport failure, in a call or a stream, is typed, keeps
its cause, names the endpoint and never shows the key. (What each adapter adds, such as
Anthropic's x-should-retry, Ollama's hints or streams retried before they deliver, stays
with its own tests.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from ostinato.errors import (
    MalformedResponseError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
)
from ostinato.prompt import Prompt
from tests.fakes.mock_model import FakeTime, stream_chunks
from tests.plugins.anthropic import fakes as anthropic
from tests.plugins.ollama import fakes as ollama
from tests.plugins.openai import fakes as openai

#: Anthropic's documented error type of a status (``api_error`` for the rest).
ANTHROPIC_TYPES = {408: "timeout_error", 429: "rate_limit_error", 529: "overloaded_error"}


@dataclass(frozen=True)
class Failing:
    """One adapter as the failure and retry tests drive it."""

    name: str
    model_for: Callable[..., tuple[Any, list[httpx.Request]]]
    #: Its API's error reply for a status, with these headers.
    failure: Callable[[int, Mapping[str, str]], httpx.Response]
    #: A reply answering "ok".
    ok: Callable[[], httpx.Response]
    #: The statuses it retries.
    retried: tuple[int, ...]
    #: The overloaded status whose retry-after-ms it honours after a 429's retry-after.
    busy: int
    #: The endpoint its model asks, and the API key it holds.
    endpoint: str
    key: str
    #: What a refused connection's error says on its second line, if anything.
    unreachable_hint: str | None = None


ADAPTERS = [
    Failing(
        "openai",
        openai.model_for,
        lambda status, headers: openai.error_reply(status, dict(headers)),
        lambda: openai.completion({"role": "assistant", "content": "ok"}),
        (408, 409, 429, 500, 502, 503, 504),
        busy=503,
        endpoint="https://fake.test/v1/chat/completions",
        key="sk-secret-key-123",
    ),
    Failing(
        "anthropic",
        anthropic.model_for,
        lambda status, headers: anthropic.error_reply(
            status, ANTHROPIC_TYPES.get(status, "api_error"), **headers
        ),
        lambda: anthropic.message({"type": "text", "text": "ok"}),
        (408, 409, 429, 500, 529),
        busy=529,
        endpoint="https://fake.test/v1/messages",
        key=anthropic.API_KEY,
    ),
    Failing(
        "ollama",
        ollama.model_for,
        lambda status, headers: ollama.error_reply(status, **headers),
        ollama.reply,
        (408, 429, 500, 502, 503),
        busy=503,
        endpoint="http://fake.test:11434/api/chat",
        key=ollama.API_KEY,
        unreachable_hint=(
            "fix: start the server (ollama serve) or set OSTINATO_OLLAMA_BASE_URL (or OLLAMA_HOST)"
        ),
    ),
]


@pytest.mark.parametrize(
    ("adapter", "status"),
    [(a, status) for a in ADAPTERS for status in a.retried],
    ids=[f"{a.name}-{status}" for a in ADAPTERS for status in a.retried],
)
async def test_retryable_statuses_are_retried_with_backoff(adapter: Failing, status: int):
    time = FakeTime()
    failure = adapter.failure(status, {})
    model, sent = adapter.model_for(failure, failure, adapter.ok(), time=time, max_retries=2)
    assert (await model.call(Prompt("hi"))).text == "ok"
    assert len(sent) == 3
    assert len(time.sleeps) == 2
    assert 0.375 <= time.sleeps[0] <= 0.5
    assert 0.75 <= time.sleeps[1] <= 1.0


@pytest.mark.parametrize("adapter", ADAPTERS, ids=[a.name for a in ADAPTERS])
async def test_retry_after_and_retry_after_ms_are_honoured(adapter: Failing):
    time = FakeTime()
    model, _ = adapter.model_for(
        adapter.failure(429, {"retry-after": "7"}),
        adapter.failure(adapter.busy, {"retry-after-ms": "250"}),
        adapter.ok(),
        time=time,
        max_retries=2,
    )
    await model.call(Prompt("hi"))
    assert time.sleeps == [7.0, 0.25]


#: A transport failure, the error it becomes, and what that says (``{}``: the endpoint).
TRANSPORT_FAILURES = {
    "refused": (
        httpx.ConnectError("All connection attempts failed"),
        ModelConnectionError,
        "connection to {} failed",
    ),
    "timeout": (httpx.ReadTimeout("slow"), ModelTimeoutError, "no answer from {} in time"),
    "undecodable": (
        httpx.DecodingError("bad gzip"),
        MalformedResponseError,
        "could not be decoded",
    ),
}


@pytest.mark.parametrize("failure", list(TRANSPORT_FAILURES))
@pytest.mark.parametrize("mode", ["call", "stream"])
@pytest.mark.parametrize("adapter", ADAPTERS, ids=[a.name for a in ADAPTERS])
async def test_transport_failures(adapter: Failing, mode: str, failure: str):
    exception, cls, words = TRANSPORT_FAILURES[failure]
    model, _ = adapter.model_for(exception)
    with pytest.raises(ModelError) as caught:
        if mode == "call":
            await model.call(Prompt("hi"))
        else:
            await stream_chunks(model)
    error = caught.value
    assert type(error) is cls
    assert error.__cause__ is exception
    assert error.provider == adapter.name
    assert words.format(adapter.endpoint) in str(error)
    assert adapter.key not in repr(error)
    lines = str(error).splitlines()
    if failure == "refused":
        assert lines[0].startswith(f"{adapter.name}: connection to {adapter.endpoint} failed")
        if adapter.unreachable_hint is not None:
            assert lines[1] == adapter.unreachable_hint
