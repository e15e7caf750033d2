"""A model on a MockTransport serving hand-written bodies, and a clock that never waits."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextlib import aclosing
from typing import Any

import httpx

from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt
from ostinato_openai import OpenAIChatModel, RetryPolicy

__all__ = ["FakeTime", "aggregate", "completion", "model_for", "sse_body", "stream_chunks"]


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


Reply = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


def model_for(
    *replies: Reply,
    time: FakeTime | None = None,
    max_retries: int = 0,
    max_total_time: float = 120.0,
    **kwargs: Any,
) -> tuple[OpenAIChatModel, list[httpx.Request]]:
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
    model = OpenAIChatModel(
        model="m",
        api_key="sk-secret-key-123",
        base_url="https://fake.test/v1",
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


def completion(
    message: Mapping[str, Any], *, finish: str | None = "stop", **extra: Any
) -> httpx.Response:
    """A 200 chat.completion with one choice."""
    choice: dict[str, Any] = {"index": 0, "message": dict(message), "finish_reason": finish}
    choice.update(extra.pop("choice", {}))
    body = {"id": "r1", "object": "chat.completion", "model": "m1", "choices": [choice], **extra}
    return httpx.Response(200, json=body)


def sse_body(*chunks: Mapping[str, Any] | str, done: bool = True) -> httpx.Response:
    """A 200 event stream of ``chunks`` (dicts become ``data:`` JSON; strings go as they are)."""
    parts = [c if isinstance(c, str) else f"data: {json.dumps(c)}\n\n" for c in chunks]
    text = "".join(parts) + ("data: [DONE]\n\n" if done else "")
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=text.encode())


async def stream_chunks(model: OpenAIChatModel, prompt: Prompt | str = "hi") -> list[ChatResponse]:
    """Every chunk of a stream (consumed under aclosing)."""
    chunks = []
    async with aclosing(
        model.stream(prompt if isinstance(prompt, Prompt) else Prompt(prompt))
    ) as s:
        async for chunk in s:
            chunks.append(chunk)
    return chunks


async def aggregate(model: OpenAIChatModel, prompt: Prompt | str = "hi") -> ChatResponse:
    """The aggregate of a stream."""
    return MessageAggregator.aggregate(await stream_chunks(model, prompt))
