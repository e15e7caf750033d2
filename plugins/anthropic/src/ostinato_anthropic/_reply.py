"""A whole (non-streamed) ``message`` body as a :class:`ChatResponse`.

One generation: the text blocks joined, the ``tool_use`` blocks as tool calls (their
``input`` objects as JSON text), the thinking kept apart in the message metadata
(``reasoning``, the last block's ``reasoning_signature``, and every thinking block under
``thinking_blocks`` when there are several or a redacted one), the stop reason
normalised with the raw value and the stop sequence in the generation metadata, and the
usage with the cache figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.http import unexpected_reply, whole_reply
from ostinato.messages import REASONING, REASONING_SIGNATURE, AssistantMessage, ToolCall
from ostinato.model import ChatGenerationMetadata, ChatResponse, Generation
from ostinato_anthropic._normalise import (
    FINISH_REASON_RAW,
    REASONING_SEPARATOR,
    STOP_SEQUENCE,
    THINKING_BLOCKS,
    finish_reason,
    input_json,
    thinking_block,
    usage_from,
)

__all__ = ["generation_metadata", "parse_message", "thinking_metadata"]


def generation_metadata(stop_reason: Any, stop_sequence: Any) -> ChatGenerationMetadata:
    """The finish reason, with the raw stop reason and the stop sequence that ended it."""
    extras: dict[str, Any] = {}
    if isinstance(stop_reason, str) and stop_reason:
        extras[FINISH_REASON_RAW] = stop_reason
    if isinstance(stop_sequence, str) and stop_sequence:
        extras[STOP_SEQUENCE] = stop_sequence
    return ChatGenerationMetadata(finish_reason(stop_reason), metadata=extras)


def thinking_metadata(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """``thinking_blocks`` for an answer with several thinking blocks or a redacted one."""
    if len(blocks) > 1 or any(b["type"] == "redacted_thinking" for b in blocks):
        return {THINKING_BLOCKS: blocks}
    return {}


def parse_message(
    body: Any,
    *,
    provider: str,
    rate_limit: Mapping[str, Any] | None = None,
    request_id: str | None = None,
) -> ChatResponse:
    """``body`` (parsed JSON) as a :class:`ChatResponse`.

    Raises:
        MalformedResponseError: the body is not a message object.
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("content"), list):
        raise unexpected_reply(provider, "a message object with a 'content' list", body)
    texts: list[str] = []
    thoughts: list[str] = []
    signature = ""
    kept: list[dict[str, Any]] = []
    calls: list[ToolCall] = []
    for block in body["content"]:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "tool_use":
            call_id, name = str(block.get("id") or ""), str(block.get("name") or "")
            calls.append(ToolCall(call_id, name, input_json(block.get("input"))))
        elif (thinking := thinking_block(block)) is not None:
            kept.append(thinking)
            if thinking["type"] == "thinking":
                if thinking["thinking"]:
                    thoughts.append(thinking["thinking"])
                signature = thinking["signature"] or signature
    metadata: dict[str, Any] = {}
    if thoughts:
        metadata[REASONING] = REASONING_SEPARATOR.join(thoughts)
    if signature:
        metadata[REASONING_SIGNATURE] = signature
    metadata.update(thinking_metadata(kept))
    usage = body.get("usage")
    generation = Generation(
        AssistantMessage("".join(texts) or None, tuple(calls), metadata),
        generation_metadata(body.get("stop_reason"), body.get("stop_sequence")),
    )
    return whole_reply(
        body,
        [generation],
        usage=usage_from(usage) if isinstance(usage, Mapping) else None,
        rate_limit=rate_limit,
        metadata={"request_id": request_id},
    )
