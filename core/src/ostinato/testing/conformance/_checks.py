"""Assertions on normalised responses, shared by the kit's tests.

Each failure message says what the adapter produced and what was expected, so an
adapter author can see which mapping is wrong without a debugger.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ostinato.messages import ToolCall
from ostinato.model import ChatResponse, FinishReason
from ostinato.testing.conformance._script import Expectations

__all__ = [
    "check_metadata",
    "check_same_answer",
    "check_stream_chunks",
    "check_text",
    "check_tool_calls",
    "check_usage",
]


def _arguments(call: ToolCall) -> object:
    try:
        return json.loads(call.arguments or "{}")
    except ValueError:
        raise AssertionError(
            f"tool call {call.name!r} has arguments that are not JSON: {call.arguments!r}"
        ) from None


def check_text(response: ChatResponse, text: str, finish_reason: str = FinishReason.STOP) -> None:
    """One generation answering ``text`` with ``finish_reason`` and no tool call."""
    generation = response.result
    assert generation is not None, f"no generation in {response!r}"
    assert generation.output.text == text, (
        f"text: got {generation.output.text!r}, expected {text!r}"
    )
    assert not generation.output.tool_calls, (
        f"unexpected tool calls {generation.output.tool_calls!r}"
    )
    assert generation.metadata.finish_reason == finish_reason, (
        f"finish reason: got {generation.metadata.finish_reason!r}, expected {finish_reason!r}"
    )


def check_tool_calls(
    response: ChatResponse, expected: Sequence[ToolCall], expectations: Expectations
) -> None:
    """The tool calls of the first generation are ``expected``, in order."""
    generation = response.result
    assert generation is not None, f"no generation in {response!r}"
    calls = generation.output.tool_calls
    assert len(calls) == len(expected), (
        f"tool calls: got {len(calls)} ({calls!r}), expected {len(expected)}"
    )
    for got, want in zip(calls, expected, strict=True):
        assert got.name == want.name, f"tool name: got {got.name!r}, expected {want.name!r}"
        assert _arguments(got) == _arguments(want), (
            f"arguments of {want.name!r}: got {got.arguments!r}, expected {want.arguments!r}"
        )
        assert got.id, f"tool call {got.name!r} has no id (make a stable one up if needed)"
        if expectations.check_call_ids:
            assert got.id == want.id, f"tool call id: got {got.id!r}, expected {want.id!r}"
        assert got.index is None, f"a final tool call keeps its fragment index: {got!r}"
    assert generation.metadata.finish_reason == FinishReason.TOOL_CALLS, (
        f"finish reason: got {generation.metadata.finish_reason!r}, expected 'tool_calls'"
    )


def check_usage(response: ChatResponse, expectations: Expectations) -> None:
    """The usage the canned replies report."""
    usage = response.usage
    got = (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)
    want = (expectations.prompt_tokens, expectations.completion_tokens, expectations.total_tokens)
    assert got == want, f"usage (prompt, completion, total): got {got}, expected {want}"


def check_metadata(response: ChatResponse, expectations: Expectations) -> None:
    """Response id and model, where the provider has them."""
    if expectations.response_id:
        assert response.metadata.id == expectations.response_id, (
            f"response id: got {response.metadata.id!r}, expected {expectations.response_id!r}"
        )
    if expectations.model:
        assert response.metadata.model == expectations.model, (
            f"model: got {response.metadata.model!r}, expected {expectations.model!r}"
        )


def check_same_answer(called: ChatResponse, streamed: ChatResponse) -> None:
    """``call()`` and the aggregate of ``stream()`` tell the same answer."""
    one, other = called.result, streamed.result
    assert one is not None, "call() produced no generation"
    assert other is not None, "stream() produced no generation"
    assert one.output.text == other.output.text, (
        f"text: call {one.output.text!r}, stream {other.output.text!r}"
    )
    calls = [(c.id, c.name, _arguments(c), c.index) for c in one.output.tool_calls]
    streamed_calls = [(c.id, c.name, _arguments(c), c.index) for c in other.output.tool_calls]
    assert calls == streamed_calls, f"tool calls: call {calls!r}, stream {streamed_calls!r}"
    assert one.metadata.finish_reason == other.metadata.finish_reason, (
        f"finish reason: call {one.metadata.finish_reason!r}, "
        f"stream {other.metadata.finish_reason!r}"
    )
    assert one.output.reasoning == other.output.reasoning, (
        f"reasoning: call {one.output.reasoning!r}, stream {other.output.reasoning!r}"
    )
    a, b = called.usage, streamed.usage
    assert (a.prompt_tokens, a.completion_tokens, a.total_tokens) == (
        b.prompt_tokens,
        b.completion_tokens,
        b.total_tokens,
    ), f"usage: call {a!r}, stream {b!r}"
    assert called.metadata.id == streamed.metadata.id, (
        f"response id: call {called.metadata.id!r}, stream {streamed.metadata.id!r}"
    )
    assert called.metadata.model == streamed.metadata.model, (
        f"model: call {called.metadata.model!r}, stream {streamed.metadata.model!r}"
    )


def check_stream_chunks(chunks: Sequence[ChatResponse]) -> None:
    """Every streamed tool call is complete (id and name) or a fragment with an index."""
    assert chunks, "the stream yielded no chunk"
    for chunk in chunks:
        for generation in chunk.generations:
            for call in generation.output.tool_calls:
                assert call.index is not None or (call.id and call.name), (
                    f"a streamed tool call is neither complete nor an indexed fragment: {call!r}"
                )
