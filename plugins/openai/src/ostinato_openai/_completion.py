"""A whole (non-streamed) ``chat.completion`` body as a :class:`ChatResponse`.

One generation per choice, in choice order: text (``None`` when empty), tool calls (ids
made up when missing, arguments as JSON text), reasoning in the message metadata, and the
finish reason normalised with the raw value, refusal, log probabilities and OpenRouter's
native finish reason in the generation metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.http import unexpected_reply, whole_reply
from ostinato.messages import REASONING, AssistantMessage, ToolCall
from ostinato.model import ChatGenerationMetadata, ChatResponse, Generation
from ostinato_openai._normalise import (
    FINISH_REASON_RAW,
    JSON_OBJECT,
    NATIVE_FINISH_REASON,
    REFUSAL,
    arguments_text,
    content_text,
    finish_reason,
    generated_call_id,
    reasoning_text,
    response_extras,
    usage_from,
    usage_payload,
)

__all__ = ["parse_completion", "parse_tool_calls"]


def parse_tool_calls(raw: Any, *, response_id: str, choice: int) -> tuple[ToolCall, ...]:
    """The ``tool_calls`` list of a message as :class:`ToolCall` s."""
    if not isinstance(raw, list):
        return ()
    calls = []
    for position, item in enumerate(raw):
        if not isinstance(item, JSON_OBJECT):
            continue
        function = item.get("function")
        if not isinstance(function, JSON_OBJECT):
            function = {}
        call_id = item.get("id")
        if not isinstance(call_id, str) or not call_id:
            call_id = generated_call_id(response_id, choice, position)
        calls.append(
            ToolCall(
                call_id,
                str(function.get("name") or ""),
                arguments_text(function.get("arguments")),
                str(item.get("type") or "function"),
            )
        )
    return tuple(calls)


def _generation(choice: Mapping[str, Any], position: int, response_id: str) -> Generation:
    message = choice.get("message")
    if not isinstance(message, JSON_OBJECT):
        message = {}
    index = choice.get("index")
    choice_index = index if isinstance(index, int) else position
    metadata: dict[str, Any] = {}
    reasoning = reasoning_text(message)
    if reasoning is not None:
        metadata[REASONING] = reasoning
    output = AssistantMessage(
        content_text(message.get("content")),
        parse_tool_calls(message.get("tool_calls"), response_id=response_id, choice=choice_index),
        metadata,
    )
    raw_reason = choice.get("finish_reason")
    generation_metadata: dict[str, Any] = {}
    if isinstance(raw_reason, str) and raw_reason:
        generation_metadata[FINISH_REASON_RAW] = raw_reason
    native = choice.get("native_finish_reason")
    if isinstance(native, str) and native:
        generation_metadata[NATIVE_FINISH_REASON] = native
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        generation_metadata[REFUSAL] = refusal
    logprobs = choice.get("logprobs")
    if isinstance(logprobs, JSON_OBJECT) and logprobs.get("content") is not None:
        generation_metadata["logprobs"] = {"content": list(logprobs["content"])}
    return Generation(
        output, ChatGenerationMetadata(finish_reason(raw_reason), metadata=generation_metadata)
    )


def parse_completion(
    body: Any, *, provider: str, rate_limit: Mapping[str, Any] | None = None
) -> ChatResponse:
    """``body`` (parsed JSON) as a :class:`ChatResponse`.

    Raises:
        MalformedResponseError: the body is not a completion object.
    """
    if not isinstance(body, JSON_OBJECT) or not isinstance(body.get("choices"), list):
        raise unexpected_reply(provider, "a chat completion object with a 'choices' list", body)
    response_id = str(body.get("id") or "")
    generations = [
        _generation(choice, position, response_id)
        for position, choice in enumerate(body["choices"])
        if isinstance(choice, JSON_OBJECT)
    ]
    usage = usage_payload(body)
    return whole_reply(
        body,
        generations,
        usage=usage_from(usage) if usage is not None else None,
        rate_limit=rate_limit,
        metadata=response_extras(body),
    )
