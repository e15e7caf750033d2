"""Prompts and options as Chat Completions request bodies (every message type, every option)."""

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
from ostinato.prompt import Prompt
from ostinato.tools import ToolDefinition, ToolMetadata
from ostinato_openai import OpenAIChatOptions, json_schema_response_format
from ostinato_openai._request import build_request_body, strict_schema


class Tool:
    def __init__(self, name: str, schema: dict[str, object]) -> None:
        self.tool_definition = ToolDefinition(name, f"the {name} tool", json.dumps(schema))
        self.tool_metadata = ToolMetadata()

    async def call(self, arguments: str, context: object = None) -> str:
        raise AssertionError


SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
    "required": ["city"],
}


def body(*messages, stream: bool = False, **options) -> dict:
    return build_request_body(
        Prompt(list(messages) or [UserMessage("hi")], None),
        OpenAIChatOptions(model="m", **options),
        stream=stream,
    )


def test_minimal_call_body():
    assert body() == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": False,
    }


def test_stream_asks_for_usage_unless_told_not_to():
    assert body(stream=True)["stream_options"] == {"include_usage": True}
    assert "stream_options" not in body(stream=True, stream_usage=False)
    assert "stream_options" not in body(stream=False)


def test_every_message_type_maps_one_to_one_and_tool_responses_split():
    calls = (
        ToolCall("c1", "weather", '{"city":"Paris"}'),
        ToolCall("c2", "time", ""),
    )
    messages = body(
        SystemMessage("be brief"),
        UserMessage("weather and time?"),
        AssistantMessage(None, calls, {"reasoning": "never sent back"}),
        ToolResponseMessage(
            (ToolResponse("c1", "weather", "sunny"), ToolResponse("c2", "time", "noon"))
        ),
        AssistantMessage("It is sunny at noon."),
    )["messages"]
    assert messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather and time?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city":"Paris"}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "time", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "noon"},
        {"role": "assistant", "content": "It is sunny at noon."},
    ]


def test_developer_role_for_system_messages():
    assert body(SystemMessage("x"), system_role="developer")["messages"][0]["role"] == "developer"


def test_user_media_become_content_parts():
    message = UserMessage(
        "what is this?",
        (
            Media("image/png", data=b"\x89PNG"),
            Media("image/jpeg", url="https://example.com/cat.jpg"),
            Media("audio/wav", data=b"RIFF"),
            Media("application/pdf", data=b"%PDF", name="doc.pdf"),
        ),
    )
    assert body(message)["messages"][0]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
        {
            "type": "file",
            "file": {"file_data": "data:application/pdf;base64,JVBERg==", "filename": "doc.pdf"},
        },
    ]


def test_non_image_url_media_is_refused():
    with pytest.raises(ConfigurationError, match="only images by URL"):
        body(UserMessage("x", (Media("audio/wav", url="https://example.com/a.wav"),)))


def test_every_option_is_sent_under_its_name():
    sent = body(
        temperature=0.2,
        top_p=0.9,
        top_k=40,  # not part of the protocol: not sent
        max_tokens=100,
        max_completion_tokens=200,
        stop_sequences=("END", "STOP"),
        frequency_penalty=0.1,
        presence_penalty=0.2,
        seed=7,
        user="u-42",
        n=2,
        logprobs=True,
        top_logprobs=3,
        reasoning_effort="low",
        service_tier="flex",
        store=False,
        metadata={"run": "1"},
        logit_bias={"50256": -100},
        response_format={"type": "json_object"},
        extra_body={"enable_thinking": False, "temperature": 0.3},
    )
    assert sent == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": False,
        "temperature": 0.3,  # extra_body is laid over everything
        "top_p": 0.9,
        "max_tokens": 100,
        "max_completion_tokens": 200,
        "stop": ["END", "STOP"],
        "frequency_penalty": 0.1,
        "presence_penalty": 0.2,
        "seed": 7,
        "user": "u-42",
        "n": 2,
        "logprobs": True,
        "top_logprobs": 3,
        "reasoning_effort": "low",
        "service_tier": "flex",
        "store": False,
        "metadata": {"run": "1"},
        "logit_bias": {"50256": -100},
        "response_format": {"type": "json_object"},
        "enable_thinking": False,
    }


def test_tools_with_choice_and_parallel_flag():
    sent = body(
        tool_callbacks=(Tool("weather", SCHEMA),),
        tool_choice={"type": "function", "function": {"name": "weather"}},
        parallel_tool_calls=False,
    )
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "weather",
                "description": "the weather tool",
                "parameters": SCHEMA,
            },
        }
    ]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "weather"}}
    assert sent["parallel_tool_calls"] is False


def test_tool_choice_and_parallel_flag_need_tools():
    sent = body(tool_choice="required", parallel_tool_calls=True)
    assert "tool_choice" not in sent
    assert "parallel_tool_calls" not in sent
    assert "tools" not in sent


def test_strict_tools_close_their_schemas():
    nested = {
        "type": "object",
        "properties": {
            "where": {"type": "object", "properties": {"city": {"type": "string"}}},
            "tags": {
                "type": "array",
                "items": {"type": "object", "properties": {"t": {"type": "string"}}},
            },
        },
        "required": [],
    }
    function = body(tool_callbacks=(Tool("t", nested),), strict_tools=True)["tools"][0]["function"]
    assert function["strict"] is True
    parameters = function["parameters"]
    assert parameters["additionalProperties"] is False
    assert parameters["required"] == ["where", "tags"]
    assert parameters["properties"]["where"]["additionalProperties"] is False
    assert parameters["properties"]["where"]["required"] == ["city"]
    assert parameters["properties"]["tags"]["items"]["required"] == ["t"]


def test_strict_schema_keeps_an_explicit_additional_properties():
    assert strict_schema({"type": "object", "additionalProperties": True})["additionalProperties"]


def test_structured_output_response_format():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert body(response_format=json_schema_response_format(schema, name="out"))[
        "response_format"
    ] == {
        "type": "json_schema",
        "json_schema": {"name": "out", "schema": schema, "strict": True},
    }


def test_a_model_name_is_required():
    with pytest.raises(ConfigurationError, match="no model name"):
        build_request_body(Prompt("hi"), OpenAIChatOptions(), stream=False)


def test_a_tool_schema_that_is_not_json_is_a_configuration_error():
    class Broken(Tool):
        def __init__(self) -> None:
            self.tool_definition = ToolDefinition("b", "broken", "{not json")
            self.tool_metadata = ToolMetadata()

    with pytest.raises(ConfigurationError, match="input schema is not JSON"):
        body(tool_callbacks=(Broken(),))
