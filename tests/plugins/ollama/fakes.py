"""A model on a MockTransport serving hand-written replies, and a clock that never waits."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from ostinato_ollama import OllamaChatModel
from tests.fakes.mock_model import FakeTime, aggregate, mock_model_for, stream_chunks

__all__ = [
    "API_KEY",
    "FakeTime",
    "aggregate",
    "done",
    "error_reply",
    "model_for",
    "ndjson",
    "piece",
    "reply",
    "stream_chunks",
]

API_KEY = "ollama-secret-key-123"


#: A model answering each request with the next reply; the requests it sent.
model_for = mock_model_for(
    OllamaChatModel, model="qwen3", api_key=API_KEY, base_url="http://fake.test:11434"
)


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


def error_reply(status: int, **headers: str) -> httpx.Response:
    """An error reply of the documented ``{"error": "<string>"}`` shape."""
    return httpx.Response(status, json={"error": f"status {status}"}, headers=headers)
