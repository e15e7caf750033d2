"""From a Prompt to a Messages API request: system, turns, tools, thinking, caching, headers."""

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
from ostinato.testing.conformance import TIME_TOOL, WEATHER_TOOL
from ostinato_anthropic import (
    DEFAULT_MAX_TOKENS,
    AnthropicChatModel,
    AnthropicChatOptions,
    json_schema_output_config,
)
from tests.plugins.anthropic.fakes import message, model_for

CALL = ToolCall("toolu_1", "get_weather", '{"city": "Paris"}')


def body(*messages, **options) -> dict:
    options.setdefault("model", "claude-test")
    model = AnthropicChatModel(default_options=AnthropicChatOptions(**options))
    return model.request_body(Prompt(list(messages) or [UserMessage("hi")]))


def test_the_minimal_body_always_has_max_tokens():
    assert body(UserMessage("hi")) == {
        "model": "claude-test",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "stream": False,
        "max_tokens": DEFAULT_MAX_TOKENS,
    }
    assert body(max_tokens=100)["max_tokens"] == 100


def test_system_messages_go_to_the_top_level_system():
    sent = body(
        SystemMessage("Be brief."),
        UserMessage("hi"),
        SystemMessage("Answer in French."),
        UserMessage("again"),
    )
    assert sent["system"] == [
        {"type": "text", "text": "Be brief."},
        {"type": "text", "text": "Answer in French."},
    ]
    assert [t["role"] for t in sent["messages"]] == ["user"]  # the two user turns merged
    assert [b["text"] for b in sent["messages"][0]["content"]] == ["hi", "again"]


def test_tool_calls_and_results_as_blocks():
    sent = body(
        UserMessage("Weather?"),
        AssistantMessage("Let me look.", (CALL, ToolCall("toolu_2", "get_time", ""))),
        ToolResponseMessage(
            (
                ToolResponse("toolu_1", "get_weather", "18°C"),
                ToolResponse("toolu_2", "get_time", ""),
            )
        ),
    )
    assert sent["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
                {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "18°C"}],
                },
                {"type": "tool_result", "tool_use_id": "toolu_2"},  # an empty result
            ],
        },
    ]


def test_consecutive_tool_results_and_the_next_user_words_share_one_turn():
    sent = body(
        UserMessage("Weather and time?"),
        AssistantMessage(None, (CALL, ToolCall("toolu_2", "get_time", "{}"))),
        ToolResponseMessage((ToolResponse("toolu_1", "get_weather", "18°C"),)),
        ToolResponseMessage((ToolResponse("toolu_2", "get_time", "noon"),)),
        UserMessage("Thanks; and tomorrow?"),
    )
    assert [t["role"] for t in sent["messages"]] == ["user", "assistant", "user"]
    last = sent["messages"][2]["content"]
    assert [b["type"] for b in last] == ["tool_result", "tool_result", "text"]
    assert [b.get("tool_use_id") for b in last[:2]] == ["toolu_1", "toolu_2"]


@pytest.mark.parametrize("arguments", ["", "not json", "[1, 2]", "   "])
def test_arguments_that_are_not_an_object_are_sent_as_an_empty_input(arguments: str):
    sent = body(UserMessage("x"), AssistantMessage(None, (ToolCall("t", "f", arguments),)))
    assert sent["messages"][1]["content"][0]["input"] == {}


def test_an_empty_assistant_message_is_left_out():
    sent = body(UserMessage("a"), AssistantMessage(None), UserMessage("b"))
    assert sent["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    ]


def test_thinking_is_sent_back_first_with_its_signature():
    thought = AssistantMessage(
        None, (CALL,), {"reasoning": "Use the tool.", "reasoning_signature": "sig=="}
    )
    sent = body(UserMessage("x"), thought)
    assert sent["messages"][1]["content"][:2] == [
        {"type": "thinking", "thinking": "Use the tool.", "signature": "sig=="},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ]


def test_thinking_without_a_signature_is_not_sent_back():
    # From another provider, or lost: the API would reject a thinking block without it.
    sent = body(UserMessage("x"), AssistantMessage("ok", (), {"reasoning": "hmm"}))
    assert sent["messages"][1]["content"] == [{"type": "text", "text": "ok"}]


def test_several_thinking_blocks_are_sent_back_as_they_came():
    blocks = [
        {"type": "thinking", "thinking": "one", "signature": "s1"},
        {"type": "redacted_thinking", "data": "opaque"},
    ]
    kept = AssistantMessage(
        "ok", (), {"reasoning": "one", "reasoning_signature": "s1", "thinking_blocks": blocks}
    )
    # As memory stores it: through the JSON form.
    restored = AssistantMessage.from_dict(json.loads(json.dumps(kept.to_dict())))
    sent = body(UserMessage("x"), restored)
    assert sent["messages"][1]["content"] == [*blocks, {"type": "text", "text": "ok"}]


def test_tools_and_tool_choice():
    sent = body(tool_callbacks=(WEATHER_TOOL, TIME_TOOL), tool_choice="get_time")
    assert sent["tools"] == [
        {
            "name": "get_weather",
            "description": "Current weather for a city",
            "input_schema": dict(WEATHER_TOOL.parameters),
        },
        {
            "name": "get_time",
            "description": "Current time in a time zone",
            "input_schema": dict(TIME_TOOL.parameters),
        },
    ]
    assert sent["tool_choice"] == {"type": "tool", "name": "get_time"}


@pytest.mark.parametrize(
    ("choice", "parallel", "expected"),
    [
        (None, None, None),
        ("auto", None, {"type": "auto"}),
        ("any", None, {"type": "any"}),
        ("required", None, {"type": "any"}),
        ("none", None, {"type": "none"}),
        ({"type": "tool", "name": "get_weather"}, None, {"type": "tool", "name": "get_weather"}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("any", False, {"type": "any", "disable_parallel_tool_use": True}),
        ("none", False, {"type": "none"}),
        (None, True, None),
    ],
)
def test_tool_choice_mapping(choice, parallel, expected):
    sent = body(tool_callbacks=(WEATHER_TOOL,), tool_choice=choice, parallel_tool_calls=parallel)
    assert sent.get("tool_choice") == expected


def test_tool_choice_is_not_sent_without_tools():
    assert "tool_choice" not in body(tool_choice="any")


def test_sampling_options_and_passthroughs():
    sent = body(
        temperature=0.2,
        top_p=0.9,
        top_k=40,
        stop_sequences=("END",),
        frequency_penalty=0.5,  # not part of the API: not sent
        metadata={"user_id": "u-42"},
        service_tier="standard_only",
        output_config=json_schema_output_config({"type": "object"}),
        extra_body={"top_k": 41, "container": "c-1"},
    )
    assert {k: sent[k] for k in ("temperature", "top_p", "top_k", "stop_sequences")} == {
        "temperature": 0.2,
        "top_p": 0.9,
        "top_k": 41,  # extra_body is laid over everything
        "stop_sequences": ["END"],
    }
    assert "frequency_penalty" not in sent
    assert sent["metadata"] == {"user_id": "u-42"}
    assert sent["service_tier"] == "standard_only"
    assert sent["output_config"] == {
        "format": {"type": "json_schema", "schema": {"type": "object"}}
    }
    assert sent["container"] == "c-1"


def test_thinking_budget_and_its_check():
    assert body(thinking_budget=2048, max_tokens=8000)["thinking"] == {
        "type": "enabled",
        "budget_tokens": 2048,
    }
    given = {"type": "enabled", "budget_tokens": 1024}
    assert body(thinking=given, thinking_budget=9999, max_tokens=2000)["thinking"] == given
    with pytest.raises(ConfigurationError, match=r"thinking budget \(4096 tokens\) must be below"):
        body(thinking_budget=4096)


def test_prompt_caching_breakpoints():
    sent = body(
        SystemMessage("You are a weather bot."),
        UserMessage("Paris?", metadata={"cache_control": True}),
        AssistantMessage("18°C."),
        UserMessage("And Rome?"),
        tool_callbacks=(WEATHER_TOOL, TIME_TOOL),
        cache_system=True,
        cache_tools=True,
        cache_messages=True,
        cache_ttl="1h",
    )
    marker = {"type": "ephemeral", "ttl": "1h"}
    assert sent["system"][-1]["cache_control"] == marker
    assert sent["tools"][-1]["cache_control"] == marker
    assert "cache_control" not in sent["tools"][0]
    assert sent["messages"][0]["content"][-1]["cache_control"] == marker
    assert sent["messages"][-1]["content"][-1]["cache_control"] == marker
    assert "cache_control" not in sent["messages"][1]["content"][-1]


def test_a_message_may_carry_its_own_cache_control():
    custom = {"type": "ephemeral", "ttl": "5m"}
    sent = body(UserMessage("long document", metadata={"cache_control": custom}))
    assert sent["messages"][0]["content"][0]["cache_control"] == custom
    assert "cache_control" not in json.dumps(body(UserMessage("plain")))


def test_media():
    sent = body(
        UserMessage(
            "What is this?",
            media=(
                Media("image/png", data=b"\x89PNG"),
                Media("image/jpeg", url="https://example.com/cat.jpg"),
                Media("application/pdf", data=b"%PDF"),
            ),
        )
    )
    assert sent["messages"][0]["content"] == [
        {"type": "text", "text": "What is this?"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="},
        },
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="},
        },
    ]
    with pytest.raises(ConfigurationError, match="images and PDFs"):
        body(UserMessage("x", media=(Media("audio/wav", data=b"RIFF"),)))


def test_prompt_options_fill_from_the_defaults():
    model = AnthropicChatModel(
        default_options=AnthropicChatOptions(model="claude-a", max_tokens=500, temperature=0.1)
    )
    sent = model.request_body(Prompt("hi", ChatOptions(temperature=0.7)))
    assert (sent["model"], sent["max_tokens"], sent["temperature"]) == ("claude-a", 500, 0.7)


async def test_headers_of_every_request():
    model, sent = model_for(
        message({"type": "text", "text": "ok"}),
        message({"type": "text", "text": "ok"}),
        betas=("prompt-caching-2024-07-31",),
        extra_headers={"X-Team": "a"},
        extra_query={"beta": "true"},
    )
    await model.call(Prompt("hi"))
    await model.call(Prompt("hi", AnthropicChatOptions(betas=("files-api-2025-04-14",))))
    await model.aclose()
    first, second = sent
    assert first.url == "https://fake.test/v1/messages?beta=true"
    assert first.headers["x-api-key"] == "sk-ant-secret-key-123"
    assert first.headers["anthropic-version"] == "2023-06-01"
    assert first.headers["anthropic-beta"] == "prompt-caching-2024-07-31"
    assert first.headers["x-team"] == "a"
    assert first.headers["accept"] == "application/json"
    assert "authorization" not in first.headers
    assert second.headers["anthropic-beta"] == "prompt-caching-2024-07-31,files-api-2025-04-14"
    assert json.loads(first.content)["stream"] is False


def test_base_url_with_or_without_v1():
    assert AnthropicChatModel(base_url="https://proxy.test/v1/").base_url == "https://proxy.test"
    assert AnthropicChatModel(base_url="https://proxy.test/claude").base_url == (
        "https://proxy.test/claude"
    )
    assert "base_url='https://api.anthropic.com'" in repr(AnthropicChatModel(model="m"))
