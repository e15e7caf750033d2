"""Parsing replies and streams beyond the recordings: thinking, caching usage, odd events.

The thinking blocks, cache figures and redacted thinking below follow Anthropic's
documentation of the Messages API; the recordings have one thinking block and no cache
hits.
"""

from __future__ import annotations

import json

import pytest

from ostinato.errors import MalformedResponseError, StreamInterruptedError
from ostinato.messages import ToolResponse, ToolResponseMessage, UserMessage
from ostinato.model import MessageAggregator
from ostinato.prompt import Prompt
from ostinato.testing.conformance import WEATHER_TOOL
from ostinato_anthropic import AnthropicChatOptions
from tests.plugins.anthropic.fakes import (
    aggregate,
    message,
    model_for,
    sse_body,
    start,
    stream_chunks,
    streamed_block,
    text_events,
)

CACHED_USAGE = {
    "input_tokens": 12,
    "cache_creation_input_tokens": 1000,
    "cache_read_input_tokens": 3000,
    "output_tokens": 40,
}


def thinking_events(index: int, *pieces: str, signature: str) -> list[dict]:
    return streamed_block(
        index,
        {"type": "thinking", "thinking": "", "signature": ""},
        *({"type": "thinking_delta", "thinking": p} for p in (*pieces, "")),
        {"type": "signature_delta", "signature": signature},
    )


def end(stop_reason: str = "end_turn", **usage: int) -> dict:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": usage or {"output_tokens": 5},
    }


async def test_cache_tokens_in_call_and_stream():
    model, _ = model_for(
        message({"type": "text", "text": "ok"}, usage=CACHED_USAGE),
        sse_body(
            start({**CACHED_USAGE, "output_tokens": 1}),
            *text_events("o", "k"),
            # The newer API repeats every input figure in message_delta.
            end(**CACHED_USAGE),
        ),
    )
    called = await model.call(Prompt("hi"))
    streamed = await aggregate(model)
    for response in (called, streamed):
        usage = response.usage
        assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (
            4012,
            40,
            4052,
        )
        assert (usage.cache_read_input_tokens, usage.cache_write_input_tokens) == (3000, 1000)
        assert usage.native_usage == CACHED_USAGE
    assert streamed == called


async def test_an_older_message_delta_carries_only_the_output_count():
    model, _ = model_for(
        sse_body(
            start({"input_tokens": 25, "output_tokens": 1}),
            *text_events("x"),
            end(output_tokens=17),
        )
    )
    usage = (await aggregate(model)).usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (25, 17, 42)
    assert (usage.cache_read_input_tokens, usage.cache_write_input_tokens) == (None, None)


async def test_two_thinking_blocks_and_a_redacted_one():
    blocks = [
        {"type": "thinking", "thinking": "First, the weather.", "signature": "s1"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy"},
        {"type": "text", "text": "Let me check."},
        {"type": "thinking", "thinking": "Then the time.", "signature": "s2"},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ]
    model, sent = model_for(
        message(*blocks, stop_reason="tool_use"),
        sse_body(
            start(),
            *thinking_events(0, "First,", " the weather.", signature="s1"),
            *streamed_block(1, {"type": "redacted_thinking", "data": "EmwKAhgBEgy"}),
            *text_events("Let me check.", index=2),
            *thinking_events(3, "Then the time.", signature="s2"),
            *streamed_block(
                4,
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
                {"type": "input_json_delta", "partial_json": ""},
                {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'},
            ),
            end("tool_use"),
        ),
    )
    prompt = Prompt("Weather?", AnthropicChatOptions(tool_callbacks=(WEATHER_TOOL,)))
    called = await model.call(prompt)
    chunks = await stream_chunks(model, prompt)
    streamed = MessageAggregator.aggregate(chunks)
    kept = [
        {"type": "thinking", "thinking": "First, the weather.", "signature": "s1"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy"},
        {"type": "thinking", "thinking": "Then the time.", "signature": "s2"},
    ]
    for response in (called, streamed):
        output = response.result.output  # type: ignore[union-attr]
        assert output.text == "Let me check."
        assert output.reasoning == "First, the weather.\n\nThen the time."
        assert output.metadata["reasoning_signature"] == "s2"
        assert list(output.metadata["thinking_blocks"]) == kept
        assert [c.name for c in output.tool_calls] == ["get_weather"]
    assert streamed.result.output == called.result.output  # type: ignore[union-attr]
    # No chunk mixes thinking into the text.
    assert all(c.text is None for c in chunks if c.result and c.result.output.reasoning)
    assert len(sent) == 2


async def test_thinking_goes_back_in_the_next_request():
    model, sent = model_for(
        message(
            {"type": "thinking", "thinking": "Use the tool.", "signature": "sig"},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
            stop_reason="tool_use",
        ),
        message({"type": "text", "text": "18°C"}),
    )
    options = AnthropicChatOptions(tool_callbacks=(WEATHER_TOOL,))
    first = await model.call(Prompt("Weather?", options))
    follow = [
        UserMessage("Weather?"),
        first.result.output,  # type: ignore[union-attr]
        ToolResponseMessage((ToolResponse("toolu_1", "get_weather", "18°C"),)),
    ]
    await model.call(Prompt(follow, options))
    turns = json.loads(sent[1].content)["messages"]
    assert turns[1]["content"][0] == {
        "type": "thinking",
        "thinking": "Use the tool.",
        "signature": "sig",
    }
    assert turns[1]["content"][1]["type"] == "tool_use"


async def test_ping_and_unknown_events_are_ignored():
    model, _ = model_for(
        sse_body(
            start(),
            {"type": "ping"},
            *text_events("hi"),
            {"type": "some_future_event", "x": 1},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta"}},
            end(),
        )
    )
    assert [c.text for c in await stream_chunks(model)] == ["hi", None]


async def test_a_tool_use_whose_start_carries_the_input():
    model, _ = model_for(
        sse_body(
            start(),
            *streamed_block(0, {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}),
            end("tool_use"),
        )
    )
    (call,) = (await aggregate(model)).result.output.tool_calls  # type: ignore[union-attr]
    assert (call.id, call.name, call.arguments) == ("t1", "f", '{"a": 1}')


async def test_a_text_block_that_starts_with_text():
    model, _ = model_for(
        sse_body(
            start(),
            *streamed_block(
                0, {"type": "text", "text": "Hel"}, {"type": "text_delta", "text": "lo"}
            ),
            end(),
        )
    )
    assert (await aggregate(model)).text == "Hello"


async def test_a_stream_without_message_stop_is_interrupted():
    model, _ = model_for(sse_body(start(), *text_events("par"), stop=False))
    with pytest.raises(StreamInterruptedError, match="ended without message_stop"):
        await stream_chunks(model)


async def test_a_last_event_without_its_blank_line_still_counts():
    model, _ = model_for(
        sse_body(
            start(),
            *text_events("x"),
            end(),
            'event: message_stop\ndata: {"type":"message_stop"}',
            stop=False,
        )
    )
    assert (await aggregate(model)).text == "x"


async def test_a_data_line_that_is_not_json():
    model, _ = model_for(sse_body(start(), "event: content_block_start\ndata: {oops\n\n"))
    with pytest.raises(MalformedResponseError, match="not JSON"):
        await stream_chunks(model)


async def test_a_server_that_ignored_stream_answers_with_one_message():
    model, _ = model_for(message({"type": "text", "text": "whole"}))
    chunks = await stream_chunks(model)
    assert [c.text for c in chunks] == ["whole"]
