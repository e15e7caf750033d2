"""A model on a MockTransport serving hand-written bodies, and a clock that never waits."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextlib import aclosing
from typing import Any

import httpx

from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt
from ostinato.transport import RetryPolicy
from ostinato_anthropic import AnthropicChatModel

__all__ = [
    "API_KEY",
    "FakeTime",
    "aggregate",
    "message",
    "model_for",
    "sse_body",
    "start",
    "stream_chunks",
    "text_events",
]

API_KEY = "sk-ant-secret-key-123"
Reply = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


class FakeTime:
    """A clock and a sleep: sleeping only moves the clock forward and records the wait."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def model_for(
    *replies: Reply,
    time: FakeTime | None = None,
    max_retries: int = 0,
    max_total_time: float = 120.0,
    **kwargs: Any,
) -> tuple[AnthropicChatModel, list[httpx.Request]]:
    """A model answering each request with the next reply; the requests it sent."""
    sent: list[httpx.Request] = []
    pending = list(replies)

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        reply = pending.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, httpx.Response):
            return reply
        return reply(request)

    clock = time or FakeTime()
    kwargs.setdefault("model", "claude-test")
    model = AnthropicChatModel(
        api_key=API_KEY,
        base_url="https://fake.test",
        retry_policy=RetryPolicy(
            max_retries=max_retries,
            max_total_time=max_total_time,
            sleep=clock.sleep,
            clock=clock.clock,
        ),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        **kwargs,
    )
    return model, sent


def message(
    *content: Mapping[str, Any],
    stop_reason: str | None = "end_turn",
    usage: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> httpx.Response:
    """A 200 ``message`` with ``content`` blocks."""
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-1",
        "content": [dict(c) for c in content],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": dict(usage or {"input_tokens": 10, "output_tokens": 5}),
    }
    return httpx.Response(200, json=body, headers=dict(headers or {}))


def start(usage: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A ``message_start`` event."""
    return {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test-1",
            "content": [],
            "stop_reason": None,
            "usage": dict(usage or {"input_tokens": 10, "output_tokens": 1}),
        },
    }


def text_events(*pieces: str, index: int = 0) -> list[dict[str, Any]]:
    """A text block streamed in ``pieces``."""
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        *(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": p},
            }
            for p in pieces
        ),
        {"type": "content_block_stop", "index": index},
    ]


def sse_body(*events: Mapping[str, Any] | str, stop: bool = True) -> httpx.Response:
    """A 200 event stream (dicts become named events; strings go as they are)."""
    parts = [
        e if isinstance(e, str) else f"event: {e['type']}\ndata: {json.dumps(e)}\n\n"
        for e in events
    ]
    if stop:
        parts.append('event: message_stop\ndata: {"type":"message_stop"}\n\n')
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content="".join(parts).encode()
    )


async def stream_chunks(
    model: AnthropicChatModel, prompt: Prompt | str = "hi"
) -> list[ChatResponse]:
    """Every chunk of a stream (consumed under aclosing)."""
    chunks = []
    async with aclosing(
        model.stream(prompt if isinstance(prompt, Prompt) else Prompt(prompt))
    ) as s:
        async for chunk in s:
            chunks.append(chunk)
    return chunks


async def aggregate(model: AnthropicChatModel, prompt: Prompt | str = "hi") -> ChatResponse:
    """The aggregate of a stream."""
    return MessageAggregator.aggregate(await stream_chunks(model, prompt))
