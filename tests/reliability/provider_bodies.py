"""The JSON a model server answers with, for the Anthropic and Ollama protocols (OpenAI's
is in ``faultserver``: ``completion_body`` and ``text_chunks``)."""

from __future__ import annotations

from typing import Any

__all__ = ["anthropic_message", "anthropic_text_events", "ollama_message"]


def anthropic_message(text: str) -> dict[str, Any]:
    """A Messages API reply holding ``text``, ended by ``end_turn``."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def anthropic_text_events(
    *pieces: str, usage: dict[str, int] | None = None
) -> list[dict[str, Any]]:
    """The events of a streamed Messages API answer made of ``pieces`` (the closing
    ``message_delta`` carries ``usage``, empty by default)."""
    return [
        {"type": "message_start", "message": {**anthropic_message(""), "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
            for p in pieces
        ),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage or {}},
        {"type": "message_stop"},
    ]


def ollama_message(text: str, *, done: bool = True) -> dict[str, Any]:
    """One ``/api/chat`` line holding ``text`` (the last one, ended by ``stop``, if ``done``)."""
    reply: dict[str, Any] = {
        "model": "m",
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": text},
        "done": done,
    }
    if done:
        reply["done_reason"] = "stop"
    return reply
