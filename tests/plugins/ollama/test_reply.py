"""Parsing replies and streams beyond the recordings: streamed tool calls, made-up ids,
thinking, error lines, truncation.

There is no recording of a native stream carrying tool calls (see the corpus README);
these follow Ollama's documented format, which the recorded non-streamed tool call
(``ollama/006``) shares: one object per line, the calls whole in one line.
"""

from __future__ import annotations

import httpx
import pytest

from ostinato.errors import MalformedResponseError, ServerError, StreamInterruptedError
from ostinato.model import MessageAggregator
from ostinato.prompt import Prompt
from ostinato.testing.conformance import WEATHER_TOOL
from ostinato_ollama import OllamaChatOptions
from tests.plugins.ollama.fakes import (
    aggregate,
    done,
    model_for,
    ndjson,
    piece,
    reply,
    stream_chunks,
)

CALL = {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
TOOLS = Prompt("Weather?", OllamaChatOptions(tool_callbacks=(WEATHER_TOOL,)))


async def test_streamed_tool_calls_finish_with_tool_calls():
    model, _ = model_for(
        ndjson(
            piece(thinking="Need the weather."),
            piece(tool_calls=[{"id": "call_a", **CALL}]),
            piece(tool_calls=[{"function": {"name": "get_time", "arguments": {}}}]),
            done("stop"),
        )
    )
    response = MessageAggregator.aggregate(await stream_chunks(model, TOOLS))
    generation = response.result
    assert generation is not None
    calls = generation.output.tool_calls
    assert [(c.name, c.arguments) for c in calls] == [
        ("get_weather", '{"city": "Paris"}'),
        ("get_time", "{}"),
    ]
    assert calls[0].id == "call_a"
    assert calls[1].id.startswith("call_") and len(calls[1].id) == 29
    assert all(c.index is None for c in calls)  # Ollama's calls come whole
    assert generation.metadata.finish_reason == "tool_calls"
    assert generation.metadata["finish_reason_raw"] == "stop"
    assert generation.output.reasoning == "Need the weather."
    assert generation.output.text is None


async def test_made_up_ids_are_stable_and_the_same_for_call_and_stream():
    whole = done(
        tool_calls=[CALL, {"function": {"name": "get_weather", "arguments": {"city": "Rome"}}}]
    )
    model, _ = model_for(
        httpx.Response(200, json=whole), httpx.Response(200, json=whole), ndjson(whole)
    )
    first = await model.call(TOOLS)
    second = await model.call(TOOLS)
    streamed = await aggregate(model, TOOLS)
    ids = [c.id for c in first.result.output.tool_calls]  # type: ignore[union-attr]
    assert len(set(ids)) == 2
    assert [c.id for c in second.result.output.tool_calls] == ids  # type: ignore[union-attr]
    assert streamed == first


async def test_a_made_up_id_differs_between_replies():
    one = done(tool_calls=[CALL])
    other = {**one, "created_at": "2026-01-01T00:00:09Z"}
    model, _ = model_for(httpx.Response(200, json=one), httpx.Response(200, json=other))
    a = (await model.call(TOOLS)).result.output.tool_calls[0].id  # type: ignore[union-attr]
    b = (await model.call(TOOLS)).result.output.tool_calls[0].id  # type: ignore[union-attr]
    assert a != b


async def test_arguments_sent_as_text_are_kept():
    model, _ = model_for(
        reply("", tool_calls=[{"function": {"name": "f", "arguments": '{"a": 1}'}}])
    )
    call = (await model.call(TOOLS)).result.output.tool_calls[0]  # type: ignore[union-attr]
    assert call.arguments == '{"a": 1}'


async def test_thinking_streams_apart_from_the_text():
    model, _ = model_for(ndjson(piece(thinking="Hm"), piece(thinking="m."), piece("Yes"), done()))
    chunks = await stream_chunks(model)
    assert [(c.text, c.result.output.reasoning) for c in chunks] == [  # type: ignore[union-attr]
        (None, "Hm"),
        (None, "m."),
        ("Yes", None),
        (None, None),
    ]
    output = MessageAggregator.aggregate(chunks).result.output  # type: ignore[union-attr]
    assert (output.text, output.reasoning) == ("Yes", "Hmm.")


async def test_an_error_line_mid_stream_raises():
    model, sent = model_for(
        ndjson(piece("Hel"), {"error": "llama runner process has terminated"}), max_retries=2
    )
    with pytest.raises(ServerError, match="ollama error: llama runner process has terminated"):
        await stream_chunks(model)
    assert len(sent) == 1


async def test_a_stream_without_its_final_object_is_interrupted():
    model, _ = model_for(ndjson(piece("Hel"), piece("lo")))
    with pytest.raises(
        StreamInterruptedError, match=r"ended before its final object \(done: true\)"
    ):
        await stream_chunks(model)


async def test_a_truncated_last_line_is_an_interruption():
    model, _ = model_for(ndjson(piece("Hel"), '{"model":"qwen3","message":{"role":"assis'))
    with pytest.raises(StreamInterruptedError):
        await stream_chunks(model)


async def test_a_final_line_without_its_newline_still_counts():
    model, _ = model_for(
        ndjson(piece("Hel"), '{"done": true, "done_reason": "stop", "message": {"content": "lo"}}')
    )
    assert (await aggregate(model)).text == "Hello"


async def test_a_line_that_is_not_json():
    model, _ = model_for(ndjson(piece("Hel"), "<html>Bad Gateway</html>\n", done()))
    with pytest.raises(MalformedResponseError, match="a stream line is not JSON"):
        await stream_chunks(model)


async def test_a_line_that_is_not_an_object():
    model, _ = model_for(ndjson("[1, 2]\n"))
    with pytest.raises(MalformedResponseError, match="expected a chat reply object"):
        await stream_chunks(model)


async def test_a_stream_labelled_application_json_is_read_as_ndjson():
    # ollama.com's label (ollama/005).
    model, _ = model_for(ndjson(piece("a"), piece("b"), done(), content_type="application/json"))
    assert [c.text for c in await stream_chunks(model)] == ["a", "b", None]
