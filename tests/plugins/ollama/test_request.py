"""From a Prompt to an ``/api/chat`` request: messages, tools, model options, headers."""

from __future__ import annotations

import json

import pytest

from ostinato.errors import ConfigurationError
from ostinato.messages import (
    AssistantMessage,
    Media,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.prompt import ChatOptions, Prompt
from ostinato.testing.conformance import WEATHER_TOOL
from ostinato_ollama import OllamaChatModel, OllamaChatOptions
from tests.plugins.ollama.fakes import done, model_for, ndjson, piece, reply


def body(*messages, stream: bool = False, **options) -> dict:
    options.setdefault("model", "qwen3")
    model = OllamaChatModel(default_options=OllamaChatOptions(**options))
    return model.request_body(Prompt(list(messages) or [UserMessage("hi")]), stream=stream)


def test_the_minimal_body_always_says_stream():
    assert body() == {
        "model": "qwen3",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": False,
    }
    # Ollama streams when "stream" is left out: the adapter always says what it wants.
    assert body(stream=True)["stream"] is True


def test_messages():
    sent = body(
        SystemMessage("Be brief."),
        UserMessage("What is this?", media=(Media("image/png", data=b"\x89PNG"),)),
        AssistantMessage(
            None,
            (ToolCall("call_1", "get_weather", '{"city": "Paris"}'), ToolCall("call_2", "now", "")),
            {"reasoning": "Two tools."},
        ),
        ToolResponseMessage(
            (ToolResponse("call_1", "get_weather", "18°C"), ToolResponse("call_2", "now", "noon"))
        ),
        AssistantMessage("It is 18°C at noon."),
    )
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is this?", "images": ["iVBORw=="]},
        {
            "role": "assistant",
            "content": "",
            "thinking": "Two tools.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}},
                },
                {"id": "call_2", "function": {"index": 1, "name": "now", "arguments": {}}},
            ],
        },
        {"role": "tool", "content": "18°C", "tool_name": "get_weather", "tool_call_id": "call_1"},
        {"role": "tool", "content": "noon", "tool_name": "now", "tool_call_id": "call_2"},
        {"role": "assistant", "content": "It is 18°C at noon."},
    ]


def test_media_ollama_cannot_take():
    with pytest.raises(ConfigurationError, match="images sent inline"):
        body(UserMessage("x", media=(Media("image/png", url="https://example.com/a.png"),)))
    with pytest.raises(ConfigurationError, match="images sent inline"):
        body(UserMessage("x", media=(Media("application/pdf", data=b"%PDF"),)))


def test_tools():
    assert body(tool_callbacks=(WEATHER_TOOL,))["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city",
                "parameters": dict(WEATHER_TOOL.parameters),
            },
        }
    ]


def test_sampling_options_go_in_options():
    sent = body(
        temperature=0.2,
        top_p=0.9,
        top_k=40,
        seed=7,
        num_ctx=8192,
        max_tokens=50,
        stop_sequences=("END",),
        frequency_penalty=0.1,
        presence_penalty=0.3,
        options={"repeat_penalty": 1.1, "temperature": 1.0},
    )
    assert sent["options"] == {
        "repeat_penalty": 1.1,
        "temperature": 0.2,  # the named option wins over the raw one
        "top_p": 0.9,
        "top_k": 40,
        "seed": 7,
        "num_ctx": 8192,
        "num_predict": 50,
        "frequency_penalty": 0.1,
        "presence_penalty": 0.3,
        "stop": ["END"],
    }
    assert "temperature" not in sent


def test_empty_options_are_sent_only_when_asked():
    assert "options" not in body()
    assert body(options={})["options"] == {}


def test_format_think_keep_alive_and_extra_body():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    sent = body(format=schema, think="high", keep_alive="10m", extra_body={"logprobs": True})
    assert (sent["format"], sent["think"], sent["keep_alive"], sent["logprobs"]) == (
        schema,
        "high",
        "10m",
        True,
    )
    assert body(format="json", think=False, keep_alive=0)["think"] is False
    assert body(format="json", think=False, keep_alive=0)["keep_alive"] == 0


def test_prompt_options_fill_from_the_defaults():
    model = OllamaChatModel(
        default_options=OllamaChatOptions(model="llama3.2", num_ctx=4096, keep_alive="1h")
    )
    sent = model.request_body(Prompt("hi", ChatOptions(temperature=0.7)))
    assert sent["model"] == "llama3.2"
    assert sent["options"] == {"num_ctx": 4096, "temperature": 0.7}
    assert sent["keep_alive"] == "1h"


async def test_headers_and_paths():
    model, sent = model_for(
        reply(), ndjson(piece("o"), done(content="k")), extra_headers={"X-Team": "a"}
    )
    await model.call(Prompt("hi"))
    async for _chunk in model.stream(Prompt("hi")):
        pass
    await model.aclose()
    called, streamed = sent
    assert called.url == "http://fake.test:11434/api/chat"
    assert called.headers["authorization"] == "Bearer ollama-secret-key-123"
    assert called.headers["accept"] == "application/json"
    assert called.headers["x-team"] == "a"
    assert streamed.headers["accept"] == "application/x-ndjson"
    assert json.loads(called.content)["stream"] is False
    assert json.loads(streamed.content)["stream"] is True


async def test_a_local_server_gets_no_authorization():
    model, sent = model_for(reply(), api_key=None)
    await model.call(Prompt("hi"))
    assert "authorization" not in sent[0].headers
    assert repr(model) == "OllamaChatModel(model='qwen3', base_url='http://fake.test:11434')"
