"""A model on a MockTransport serving hand-written bodies, and a clock that never waits."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from ostinato_anthropic import AnthropicChatModel
from tests.fakes.mock_model import FakeTime, aggregate, mock_model_for, stream_chunks

__all__ = [
    "API_KEY",
    "OK",
    "FakeTime",
    "aggregate",
    "error_reply",
    "message",
    "model_for",
    "sse_body",
    "start",
    "stream_chunks",
    "streamed_block",
    "text_events",
]

API_KEY = "sk-ant-secret-key-123"


#: A model answering each request with the next reply; the requests it sent.
model_for = mock_model_for(
    AnthropicChatModel, model="claude-test", api_key=API_KEY, base_url="https://fake.test"
)


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


def streamed_block(
    index: int, content_block: Mapping[str, Any], *deltas: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """One content block streamed: its start, each of its deltas, its stop."""
    return [
        {"type": "content_block_start", "index": index, "content_block": dict(content_block)},
        *({"type": "content_block_delta", "index": index, "delta": dict(d)} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def text_events(*pieces: str, index: int = 0) -> list[dict[str, Any]]:
    """A text block streamed in ``pieces``."""
    text = {"type": "text", "text": ""}
    return streamed_block(index, text, *({"type": "text_delta", "text": p} for p in pieces))


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


def error_reply(status: int, error_type: str = "api_error", **headers: str) -> httpx.Response:
    """An error reply of the documented shape, its ``type`` ``error_type``."""
    body = {"type": "error", "error": {"type": error_type, "message": f"status {status}"}}
    return httpx.Response(status, json=body, headers=headers)


#: A reply answering "ok".
OK = message({"type": "text", "text": "ok"})
