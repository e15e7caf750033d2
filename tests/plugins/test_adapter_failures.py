"""How each HTTP adapter fails and retries: the network's failures, retried statuses, Retry-After.

Parametrised over the adapters, each failing with its API's documented error body; the
clock never really sleeps. A transport failure, in a call or a stream, is typed, keeps
its cause, names the endpoint and never shows the key. (What each adapter adds, such as
Anthropic's x-should-retry, Ollama's hints or streams retried before they deliver, stays
with its own tests.)
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from ostinato.errors import (
    ConfigurationError,
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
    ok: httpx.Response
    #: The statuses it retries.
    retried: tuple[int, ...]
    #: The overloaded status whose retry-after-ms it honours after a 429's retry-after.
    busy: int
    #: The endpoint its model asks, and the API key it holds.
    endpoint: str
    key: str
    #: Its API's error body saying a message.
    error_body: Callable[[str], dict[str, Any]]
    #: What a refused connection's error says on its second line, if anything.
    unreachable_hint: str | None = None


ADAPTERS = [
    Failing(
        "openai",
        openai.model_for,
        lambda status, headers: openai.error_reply(status, dict(headers)),
        openai.OK,
        (408, 409, 429, 500, 502, 503, 504),
        busy=503,
        endpoint="https://fake.test/v1/chat/completions",
        key="sk-secret-key-123",
        error_body=lambda message: {"error": {"message": message}},
    ),
    Failing(
        "anthropic",
        anthropic.model_for,
        lambda status, headers: anthropic.error_reply(
            status, ANTHROPIC_TYPES.get(status, "api_error"), **headers
        ),
        anthropic.OK,
        (408, 409, 429, 500, 529),
        busy=529,
        endpoint="https://fake.test/v1/messages",
        key=anthropic.API_KEY,
        error_body=lambda message: {
            "type": "error",
            "error": {"type": "api_error", "message": message},
        },
    ),
    Failing(
        "ollama",
        ollama.model_for,
        lambda status, headers: ollama.error_reply(status, **headers),
        ollama.reply(),
        (408, 429, 500, 502, 503),
        busy=503,
        endpoint="http://fake.test:11434/api/chat",
        key=ollama.API_KEY,
        error_body=lambda message: {"error": message},
        unreachable_hint=(
            "fix: start the server (ollama serve) or set OSTINATO_OLLAMA_BASE_URL (or OLLAMA_HOST)"
        ),
    ),
]


@pytest.fixture(params=ADAPTERS, ids=[a.name for a in ADAPTERS])
def adapter(request: pytest.FixtureRequest) -> Failing:
    return request.param  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("adapter", "status"),
    [(a, status) for a in ADAPTERS for status in a.retried],
    ids=[f"{a.name}-{status}" for a in ADAPTERS for status in a.retried],
)
async def test_retryable_statuses_are_retried_with_backoff(adapter: Failing, status: int):
    time = FakeTime()
    failure = adapter.failure(status, {})
    model, sent = adapter.model_for(failure, failure, adapter.ok, time=time, max_retries=2)
    assert (await model.call(Prompt("hi"))).text == "ok"
    assert len(sent) == 3
    assert len(time.sleeps) == 2
    assert 0.375 <= time.sleeps[0] <= 0.5
    assert 0.75 <= time.sleeps[1] <= 1.0


async def test_retry_after_and_retry_after_ms_are_honoured(adapter: Failing):
    time = FakeTime()
    model, _ = adapter.model_for(
        adapter.failure(429, {"retry-after": "7"}),
        adapter.failure(adapter.busy, {"retry-after-ms": "250"}),
        adapter.ok,
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


async def test_a_transport_error_quoting_the_key_has_it_masked(adapter: Failing):
    model, _ = adapter.model_for(httpx.ConnectError(f"refused while sending {adapter.key}"))
    with pytest.raises(ModelConnectionError) as info:
        await model.call(Prompt("hi"))
    assert adapter.key not in str(info.value) and "***" in str(info.value)


async def _pieces(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def test_a_huge_error_body_is_cut_not_held(adapter: Failing):
    body = json.dumps(adapter.error_body("y" * (1 << 20))).encode()
    model, _ = adapter.model_for(httpx.Response(500, content=_pieces(body[:1000], body[1000:])))
    with pytest.raises(ModelError) as info:
        await model.call(Prompt("hi"))
    assert len(str(info.value)) < 4000  # an excerpt, not the megabyte


@pytest.mark.parametrize(
    ("limit", "words"),
    [(0, "max_response_bytes must be at least 1"), ("big", "max_response_bytes must be an int")],
    ids=["zero", "no-int"],
)
def test_an_invalid_limit_is_refused(adapter: Failing, limit: object, words: str):
    with pytest.raises(ConfigurationError, match=words):
        adapter.model_for(max_response_bytes=limit)
