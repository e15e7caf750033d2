"""A model on a MockTransport serving hand-written bodies, and a clock that never waits."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from ostinato_openai import OpenAIChatModel
from tests.fakes.mock_model import FakeTime, Reply, aggregate, mock_model_for, stream_chunks

__all__ = [
    "OK",
    "FakeTime",
    "aggregate",
    "completion",
    "error_reply",
    "model_for",
    "sse_body",
    "status_reply",
    "stream_chunks",
]


#: A model answering each request with the next reply; the requests it sent.
model_for = mock_model_for(
    OpenAIChatModel, model="m", api_key="sk-secret-key-123", base_url="https://fake.test/v1"
)


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


def error_reply(
    status: int, headers: dict[str, str] | None = None, **fields: Any
) -> httpx.Response:
    """An error reply of the documented shape (``fields`` join its ``error``)."""
    return httpx.Response(
        status, headers=headers or {}, json={"error": {"message": f"status {status}", **fields}}
    )


def status_reply(status: int, text: str = "hi", **extra: Any) -> Reply:
    """A reply of ``status``: :func:`error_reply` unless it is 200, else ``text`` in a
    :func:`completion` or, when the request asks for a stream, in an :func:`sse_body` of one
    chunk (``extra`` joins both bodies, e.g. ``model``)."""

    def answer(request: httpx.Request) -> httpx.Response:
        if status != 200:
            return error_reply(status)
        if json.loads(request.content).get("stream"):
            choice = {"index": 0, "delta": {"content": text}, "finish_reason": "stop"}
            return sse_body({"id": "r1", "model": "m1", "choices": [choice], **extra})
        return completion({"role": "assistant", "content": text}, **extra)

    return answer


#: A reply answering "ok".
OK = completion({"role": "assistant", "content": "ok"})
