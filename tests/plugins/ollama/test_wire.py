"""Every exchange in ``tests/wire/ollama/`` replayed field by field.

Each test rebuilds the prompt the recorded request came from, checks that the adapter sent
the recorded body (with ``stream`` always said), and checks every field of the parsed
response. Streams are also served split at awkward byte offsets (inside lines and inside
multi-byte characters), and through ``call()`` as well as ``stream()``: a local Ollama
streams when ``stream`` is left out, and the adapter understands a streamed reply to a
call too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.plugins.ollama.expect import expect_response, replay, replay_chunks
from tests.plugins.ollama.wire import exchange_names, load

COUNTERS = (
    "prompt_eval_count",
    "eval_count",
    "total_duration",
    "load_duration",
    "prompt_eval_duration",
    "eval_duration",
)


def recorded(name: str) -> dict[str, Any]:
    """Text, thinking and the final object of a recording, read independently."""
    lines = load(name).lines
    return {
        "text": "".join(line["message"].get("content", "") for line in lines),
        "thinking": "".join(line["message"].get("thinking", "") for line in lines),
        "last": lines[-1],
        "native": {k: lines[-1][k] for k in COUNTERS if k in lines[-1]},
    }


def test_every_file_is_covered():
    names = exchange_names()
    assert {name[:3] for name in names} == {f"{n:03d}" for n in range(1, 7)}


async def test_001_chat_nonstream_text():
    exchange = load("001-chat-nonstream-text.json")
    response = await replay(exchange)
    expect_response(
        response,
        text=(
            "I'm just a language model, so I don't have feelings or emotions like humans do. "
            "However, I'm functioning properly and ready to help with any questions or tasks "
            "you may have! How can I assist you today?"
        ),
        finish="stop",
        raw_finish="stop",
        usage=(31, 46, 77),
        model="llama3.2",
        created_at="2024-11-30T03:33:52.105113Z",
        native_usage={
            "prompt_eval_count": 31,
            "eval_count": 46,
            "total_duration": 839744125,
            "load_duration": 29176166,
            "prompt_eval_duration": 166000000,
            "eval_duration": 643000000,
        },
    )
    # The client put temperature at the top level, where Ollama ignores it; extra_body
    # reproduces that (replay() compared the whole body).
    assert exchange.request["body"]["temperature"] == 0.0


async def test_002_chat_stream_text():
    exchange = load("002-chat-stream-text.json")
    chunks, _ = await replay_chunks(exchange)
    lines = exchange.lines
    # One chunk per line with content; the final line (content "") carries finish and usage.
    assert [c.text for c in chunks] == [line["message"]["content"] or None for line in lines]
    assert chunks[-1].usage.total_tokens == 38
    assert all(c.usage.is_empty for c in chunks[:-1])
    response = await replay(exchange)
    expect_response(
        response,
        text="Okay, here we go!\n\n1, 2, 3, 4, 5\n",
        finish="stop",
        raw_finish="stop",
        usage=(16, 22, 38),
        model="gemma3:1b",
        created_at="2025-08-20T13:48:24.421331Z",
        native_usage=recorded("002-chat-stream-text.json")["native"],
    )
    assert recorded("002-chat-stream-text.json")["text"] == response.text


async def test_003_chat_stream_by_default_length():
    # The recorded request left "stream" out; the adapter says "stream": true.
    exchange = load("003-chat-stream-by-default-length.json")
    assert "stream" not in exchange.request["body"]
    facts = recorded("003-chat-stream-by-default-length.json")
    response = await replay(exchange)
    expect_response(
        response,
        text=facts["text"],
        finish="length",
        raw_finish="length",
        usage=(15, 50, 65),
        model="gemma3:1b",
        created_at="2025-08-20T13:48:23.484603Z",
        native_usage=facts["native"],
    )
    assert response.text is not None
    assert response.text.startswith("Hello there! I’m doing well, thanks for asking")
    assert "😊" in response.text


async def test_004_chat_format_json():
    exchange = load("004-chat-format-json.json")
    response = await replay(exchange)
    expect_response(
        response,
        text='{"answer": "600"}',
        finish="stop",
        raw_finish="stop",
        usage=(25, 9, 34),
        model="gemma3:1b",
        created_at="2025-08-20T13:47:53.473471Z",
    )
    assert json.loads(response.text or "") == {"answer": "600"}


async def test_005_cloud_stream_thinking():
    exchange = load("005-cloud-stream-thinking.json")
    # ollama.com labels its NDJSON stream application/json.
    assert exchange.response["headers"]["content-type"] == "application/json"
    facts = recorded("005-cloud-stream-thinking.json")
    chunks, _ = await replay_chunks(exchange)
    # Thinking never reaches the text.
    thinking_chunks = [c for c in chunks if c.result and c.result.output.reasoning]
    assert thinking_chunks
    assert all(c.text is None for c in thinking_chunks)
    response = await replay(exchange)
    expect_response(
        response,
        text=facts["text"],
        reasoning=facts["thinking"],
        finish="stop",
        raw_finish="stop",
        usage=(74, 57, 131),
        model="gpt-oss:120b",
        created_at="2026-03-03T23:25:48.032202121Z",
        native_usage={"total_duration": 922983240, "prompt_eval_count": 74, "eval_count": 57},
    )
    assert facts["thinking"].startswith('User asks: "Count from 1 to 5"')
    assert response.text is not None
    assert facts["thinking"] not in response.text


async def test_006_cloud_tool_call_nonstream():
    exchange = load("006-cloud-tool-call-nonstream.json")
    response = await replay(exchange)
    expect_response(
        response,
        text=None,  # content ""
        calls=[("call_mo1wm122", "getWeather", {"location": "San Francisco, CA"})],
        reasoning="User asks about weather in San Francisco. Use function getWeather.",
        # done_reason is still "stop": the tool call is seen in message.tool_calls.
        finish="tool_calls",
        raw_finish="stop",
        usage=(145, 44, 189),
        model="gpt-oss:120b",
        created_at="2026-03-03T23:44:44.118089028Z",
        native_usage={"total_duration": 603200867, "prompt_eval_count": 145, "eval_count": 44},
    )
    assert response.has_tool_calls()


@pytest.mark.parametrize("name", exchange_names(streams=True))
async def test_a_streamed_reply_to_a_call_is_understood(name: str):
    exchange = load(name)
    assert await replay(exchange, mode="call") == await replay(exchange, mode="stream")


@pytest.mark.parametrize("name", exchange_names(streams=False))
async def test_a_whole_reply_to_a_stream_is_understood(name: str):
    exchange = load(name)
    assert await replay(exchange, mode="stream") == await replay(exchange, mode="call")
