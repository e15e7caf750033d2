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
from collections.abc import Callable
from typing import Any

import pytest

from ostinato.model import ChatResponse
from tests.plugins.ollama.expect import expect_response, replay, replay_chunks
from tests.plugins.ollama.wire import Exchange, exchange_names, load
from tests.plugins.recorded_replay import reply

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


def facts(key: str) -> Callable[[Exchange], Any]:
    """A fact of the recording (see :func:`recorded`), as a reply's field."""
    return lambda exchange: recorded(exchange.name)[key]


async def keeps_the_top_level_temperature(exchange: Exchange, response: ChatResponse) -> None:
    # The client put temperature at the top level, where Ollama ignores it; extra_body
    # reproduces that (replay() compared the whole body).
    assert exchange.request["body"]["temperature"] == 0.0


async def streams_a_chunk_per_line(exchange: Exchange, response: ChatResponse) -> None:
    chunks, _ = await replay_chunks(exchange)
    lines = exchange.lines
    # One chunk per line with content; the final line (content "") carries finish and usage.
    assert [c.text for c in chunks] == [line["message"]["content"] or None for line in lines]
    assert chunks[-1].usage.total_tokens == 38
    assert all(c.usage.is_empty for c in chunks[:-1])
    assert recorded(exchange.name)["text"] == response.text


async def streams_when_stream_is_left_out(exchange: Exchange, response: ChatResponse) -> None:
    # The recorded request left "stream" out; the adapter says "stream": true.
    assert "stream" not in exchange.request["body"]
    assert response.text is not None
    assert response.text.startswith("Hello there! I’m doing well, thanks for asking")
    assert "😊" in response.text


async def answers_in_json(exchange: Exchange, response: ChatResponse) -> None:
    assert json.loads(response.text or "") == {"answer": "600"}


async def keeps_thinking_out_of_the_text(exchange: Exchange, response: ChatResponse) -> None:
    # ollama.com labels its NDJSON stream application/json.
    assert exchange.response["headers"]["content-type"] == "application/json"
    chunks, _ = await replay_chunks(exchange)
    # Thinking never reaches the text.
    thinking_chunks = [c for c in chunks if c.result and c.result.output.reasoning]
    assert thinking_chunks
    assert all(c.text is None for c in thinking_chunks)
    thinking = recorded(exchange.name)["thinking"]
    assert thinking.startswith('User asks: "Count from 1 to 5"')
    assert response.text is not None
    assert thinking not in response.text


async def calls_a_tool(exchange: Exchange, response: ChatResponse) -> None:
    assert response.has_tool_calls()


STOP = {"finish": "stop", "raw_finish": "stop"}

#: Every recorded reply (by file name), the fields it parses to and its own checks.
REPLIES = {
    "001-chat-nonstream-text": reply(
        keeps_the_top_level_temperature,
        text=(
            "I'm just a language model, so I don't have feelings or emotions like humans do. "
            "However, I'm functioning properly and ready to help with any questions or tasks "
            "you may have! How can I assist you today?"
        ),
        **STOP,
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
    ),
    "002-chat-stream-text": reply(
        streams_a_chunk_per_line,
        text="Okay, here we go!\n\n1, 2, 3, 4, 5\n",
        **STOP,
        usage=(16, 22, 38),
        model="gemma3:1b",
        created_at="2025-08-20T13:48:24.421331Z",
        native_usage=facts("native"),
    ),
    "003-chat-stream-by-default-length": reply(
        streams_when_stream_is_left_out,
        text=facts("text"),
        finish="length",
        raw_finish="length",
        usage=(15, 50, 65),
        model="gemma3:1b",
        created_at="2025-08-20T13:48:23.484603Z",
        native_usage=facts("native"),
    ),
    "004-chat-format-json": reply(
        answers_in_json,
        text='{"answer": "600"}',
        **STOP,
        usage=(25, 9, 34),
        model="gemma3:1b",
        created_at="2025-08-20T13:47:53.473471Z",
    ),
    "005-cloud-stream-thinking": reply(
        keeps_thinking_out_of_the_text,
        text=facts("text"),
        reasoning=facts("thinking"),
        **STOP,
        usage=(74, 57, 131),
        model="gpt-oss:120b",
        created_at="2026-03-03T23:25:48.032202121Z",
        native_usage={"total_duration": 922983240, "prompt_eval_count": 74, "eval_count": 57},
    ),
    "006-cloud-tool-call-nonstream": reply(
        calls_a_tool,
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
    ),
}


@pytest.mark.parametrize("name", list(REPLIES))
async def test_recorded_reply(name: str):
    exchange = load(f"{name}.json")
    await REPLIES[name].check(exchange, await replay(exchange), expect_response)


@pytest.mark.parametrize("name", exchange_names(streams=True))
async def test_a_streamed_reply_to_a_call_is_understood(name: str):
    exchange = load(name)
    assert await replay(exchange, mode="call") == await replay(exchange, mode="stream")


@pytest.mark.parametrize("name", exchange_names(streams=False))
async def test_a_whole_reply_to_a_stream_is_understood(name: str):
    exchange = load(name)
    assert await replay(exchange, mode="stream") == await replay(exchange, mode="call")
