"""A model on a MockTransport serving hand-written replies, and a clock that never waits."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextlib import aclosing
from typing import Any

import httpx

from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt
from ostinato.transport import RetryPolicy
from ostinato_ollama import OllamaChatModel

__all__ = [
    "API_KEY",
    "FakeTime",
    "aggregate",
    "done",
    "model_for",
    "ndjson",
    "piece",
    "reply",
    "stream_chunks",
]

API_KEY = "ollama-secret-key-123"
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
    **kwargs: Any,
) -> tuple[OllamaChatModel, list[httpx.Request]]:
    """A model answering each request with the next reply; the requests it sent."""
    sent: list[httpx.Request] = []
    pending = list(replies)

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        next_reply = pending.pop(0)
        if isinstance(next_reply, Exception):
            raise next_reply
        if isinstance(next_reply, httpx.Response):
            return next_reply
        return next_reply(request)

    clock = time or FakeTime()
    kwargs.setdefault("model", "qwen3")
    kwargs.setdefault("api_key", API_KEY)
    model = OllamaChatModel(
        base_url="http://fake.test:11434",
        retry_policy=RetryPolicy(max_retries=max_retries, sleep=clock.sleep, clock=clock.clock),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        **kwargs,
    )
    return model, sent


def piece(content: str = "", *, thinking: str | None = None, **message: Any) -> dict[str, Any]:
    """One streamed reply object (not done)."""
    body: dict[str, Any] = {"role": "assistant", "content": content, **message}
    if thinking is not None:
        body["thinking"] = thinking
    return {"model": "qwen3", "created_at": "2026-01-01T00:00:00Z", "message": body, "done": False}


def done(
    reason: str = "stop", prompt: int = 10, completion: int = 5, **message: Any
) -> dict[str, Any]:
    """The final reply object, with the counters."""
    return {
        **piece(**message),
        "created_at": "2026-01-01T00:00:01Z",
        "done": True,
        "done_reason": reason,
        "prompt_eval_count": prompt,
        "eval_count": completion,
    }


def reply(content: str = "ok", **kwargs: Any) -> httpx.Response:
    """A whole (non-streamed) reply."""
    return httpx.Response(200, json=done(content=content, **kwargs))


def ndjson(
    *objects: Mapping[str, Any] | str, content_type: str = "application/x-ndjson"
) -> httpx.Response:
    """A 200 NDJSON stream (dicts become lines; strings go as they are)."""
    text = "".join(o if isinstance(o, str) else json.dumps(o) + "\n" for o in objects)
    return httpx.Response(200, headers={"content-type": content_type}, content=text.encode())


async def stream_chunks(model: OllamaChatModel, prompt: Prompt | str = "hi") -> list[ChatResponse]:
    """Every chunk of a stream (consumed under aclosing)."""
    chunks = []
    async with aclosing(
        model.stream(prompt if isinstance(prompt, Prompt) else Prompt(prompt))
    ) as s:
        async for chunk in s:
            chunks.append(chunk)
    return chunks


async def aggregate(model: OllamaChatModel, prompt: Prompt | str = "hi") -> ChatResponse:
    """The aggregate of a stream."""
    return MessageAggregator.aggregate(await stream_chunks(model, prompt))
