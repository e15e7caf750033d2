"""Bytes that are not UTF-8 are refused the same way, streamed or not, by every adapter.

A reply is JSON, and JSON between systems is UTF-8: a byte that is not is refused with
:class:`MalformedResponseError` rather than replaced with U+FFFD (which would change the
text or a tool call's arguments without a trace). Checked for a whole reply, for the first
event of a stream and for an event after text was delivered (which arrives first), over
SSE (OpenAI, Anthropic) and NDJSON (Ollama).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from ostinato.errors import MalformedResponseError
from ostinato.prompt import Prompt
from ostinato.transport import RetryPolicy
from ostinato_anthropic import AnthropicChatModel
from ostinato_ollama import OllamaChatModel
from ostinato_openai import OpenAIChatModel
from tests.reliability.faultserver import completion_body, text_chunks
from tests.reliability.provider_bodies import (
    anthropic_message,
    anthropic_text_events,
    ollama_message,
)

BAD = b"caf\xc3 \xff"  # a character cut short, and a byte no UTF-8 text holds


def _json(value: Any) -> bytes:
    """``value`` as JSON, with ``BAD`` where the string ``"@BAD@"`` stands."""
    return json.dumps(value).encode().replace(b"@BAD@", BAD)


def openai_reply() -> bytes:
    return _json(completion_body("@BAD@"))


def openai_stream(good_first: bool) -> bytes:
    events = text_chunks(*(["Hel"] if good_first else []), "@BAD@")
    return b"".join(b"data: " + _json(e) + b"\n\n" for e in events) + b"data: [DONE]\n\n"


def anthropic_reply() -> bytes:
    return _json(anthropic_message("@BAD@"))


def anthropic_stream(good_first: bool) -> bytes:
    events = anthropic_text_events(*(["Hel"] if good_first else []), "@BAD@")
    return b"".join(
        f"event: {e['type']}\n".encode() + b"data: " + _json(e) + b"\n\n" for e in events
    )


def ollama_reply() -> bytes:
    return _json(ollama_message("@BAD@"))


def ollama_stream(good_first: bool) -> bytes:
    lines = [*([ollama_message("Hel", done=False)] if good_first else [])]
    lines += [ollama_message("@BAD@", done=False), ollama_message("")]
    return b"".join(_json(line) + b"\n" for line in lines)


ADAPTERS: dict[str, tuple[type[Any], Callable[[], bytes], Callable[[bool], bytes], str]] = {
    "openai": (OpenAIChatModel, openai_reply, openai_stream, "text/event-stream"),
    "anthropic": (AnthropicChatModel, anthropic_reply, anthropic_stream, "text/event-stream"),
    "ollama": (OllamaChatModel, ollama_reply, ollama_stream, "application/x-ndjson"),
}


def model_answering(adapter: str, body: bytes, content_type: str) -> tuple[Any, list[int]]:
    cls = ADAPTERS[adapter][0]
    requests: list[int] = []

    async def pieces() -> AsyncIterator[bytes]:
        for line in body.splitlines(keepends=True):  # one line at a time, as a server sends
            yield line

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(1)
        return httpx.Response(200, content=pieces(), headers={"content-type": content_type})

    model = cls(
        model="m",
        retry_policy=RetryPolicy(max_retries=2, initial_delay=0.0),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )
    return model, requests


@pytest.mark.parametrize("adapter", list(ADAPTERS))
async def test_a_reply_that_is_not_utf8_is_refused(adapter: str) -> None:
    model, requests = model_answering(adapter, ADAPTERS[adapter][1](), "application/json")
    async with model:
        with pytest.raises(MalformedResponseError, match=r"not JSON|not UTF-8"):
            await model.call(Prompt("hi"))
    assert len(requests) == 1  # a malformed reply is not retried


@pytest.mark.parametrize("good_first", [False, True], ids=["first-event", "after-text"])
@pytest.mark.parametrize("adapter", list(ADAPTERS))
async def test_a_stream_event_that_is_not_utf8_is_refused(adapter: str, good_first: bool) -> None:
    _, _, stream_body, content_type = ADAPTERS[adapter]
    model, requests = model_answering(adapter, stream_body(good_first), content_type)
    texts: list[str] = []
    async with model:
        with pytest.raises(MalformedResponseError, match=r"not JSON|not UTF-8") as caught:
            async for chunk in model.stream(Prompt("hi")):
                texts.extend(g.output.text or "" for g in chunk.generations)
    assert "".join(texts) == ("Hel" if good_first else "")  # what arrived, then the error
    assert "\ufffd" not in str(caught.value) or adapter == "ollama"
    assert len(requests) == 1
