"""Each HTTP adapter as the failure and retry tests drive it.

``tests/plugins/test_adapter_failures.py`` and ``tests/plugins/test_adapter_retries.py``
run every test once per adapter of :data:`ADAPTERS` (:data:`each_adapter`), each failing
with its API's documented error body.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.plugins.anthropic import fakes as anthropic
from tests.plugins.ollama import fakes as ollama
from tests.plugins.openai import fakes as openai

__all__ = ["ADAPTERS", "Failing", "each_adapter"]

#: Anthropic's documented error type of a status (``api_error`` for the rest).
ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    408: "timeout_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


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

#: Runs the decorated test once per adapter.
each_adapter = pytest.mark.parametrize("adapter", ADAPTERS, ids=[a.name for a in ADAPTERS])
