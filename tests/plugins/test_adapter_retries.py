"""Each HTTP adapter retries what is retryable, with backoff, and honours Retry-After.

Parametrised over the adapters, each failing with its API's documented error body; the
clock never really sleeps. (What each adapter adds, such as Anthropic's x-should-retry or
streams retried before they deliver, stays with its own retry tests.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from ostinato.prompt import Prompt
from tests.fakes.mock_model import FakeTime
from tests.plugins.anthropic import fakes as anthropic
from tests.plugins.ollama import fakes as ollama
from tests.plugins.openai import fakes as openai

#: Anthropic's documented error type of a status (``api_error`` for the rest).
ANTHROPIC_TYPES = {408: "timeout_error", 429: "rate_limit_error", 529: "overloaded_error"}


@dataclass(frozen=True)
class Retrying:
    """One adapter as the retry tests drive it."""

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


ADAPTERS = [
    Retrying(
        "openai",
        openai.model_for,
        lambda status, headers: openai.error_reply(status, dict(headers)),
        lambda: openai.completion({"role": "assistant", "content": "ok"}),
        (408, 409, 429, 500, 502, 503, 504),
        busy=503,
    ),
    Retrying(
        "anthropic",
        anthropic.model_for,
        lambda status, headers: anthropic.error_reply(
            status, ANTHROPIC_TYPES.get(status, "api_error"), **headers
        ),
        lambda: anthropic.message({"type": "text", "text": "ok"}),
        (408, 409, 429, 500, 529),
        busy=529,
    ),
    Retrying(
        "ollama",
        ollama.model_for,
        lambda status, headers: ollama.error_reply(status, **headers),
        ollama.reply,
        (408, 429, 500, 502, 503),
        busy=503,
    ),
]


@pytest.mark.parametrize(
    ("adapter", "status"),
    [(a, status) for a in ADAPTERS for status in a.retried],
    ids=[f"{a.name}-{status}" for a in ADAPTERS for status in a.retried],
)
async def test_retryable_statuses_are_retried_with_backoff(adapter: Retrying, status: int):
    time = FakeTime()
    failure = adapter.failure(status, {})
    model, sent = adapter.model_for(failure, failure, adapter.ok(), time=time, max_retries=2)
    assert (await model.call(Prompt("hi"))).text == "ok"
    assert len(sent) == 3
    assert len(time.sleeps) == 2
    assert 0.375 <= time.sleeps[0] <= 0.5
    assert 0.75 <= time.sleeps[1] <= 1.0


@pytest.mark.parametrize("adapter", ADAPTERS, ids=[a.name for a in ADAPTERS])
async def test_retry_after_and_retry_after_ms_are_honoured(adapter: Retrying):
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
