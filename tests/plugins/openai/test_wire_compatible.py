"""Every exchange in ``tests/wire/openai-compatible/`` replayed field by field.

Groq, OpenRouter, DeepSeek, Mistral, Ollama's ``/v1`` and Azure AI Foundry, each with its
quirks (see plugins/openai/README.md). As for OpenAI, the adapter must send exactly the
recorded request and parse every field of the reply.
"""

from __future__ import annotations

import json
from contextlib import aclosing

import pytest

from ostinato.errors import AuthenticationError, BadRequestError, ModelError, RateLimitError
from ostinato.model import ChatResponse
from tests.fakes.wire import Exchange
from tests.plugins.openai.expect import check_request, replay
from tests.plugins.openai.wire import exchange_names, load, recorded_prompt, replay_model
from tests.plugins.recorded_replay import RecordedError, reply

FOLDER = "openai-compatible"


def recorded_reasoning(name: str) -> str:
    """The reasoning deltas of a recorded stream, joined (computed independently)."""
    parts = []
    for line in load(FOLDER, name).response["body_text"].splitlines():
        line = line.strip()
        if line.startswith("data: {"):
            for choice in json.loads(line[6:]).get("choices") or ():
                piece = (choice.get("delta") or {}).get("reasoning")
                if piece:
                    parts.append(piece)
    return "".join(parts)


def test_every_file_is_covered():
    names = exchange_names(FOLDER)
    assert {name[:3] for name in names} == {f"{n:03d}" for n in range(1, 15)}


WEATHER_ARGS = {"latitude": "52.5200", "longitude": "13.4050"}
TOOL_CALLS = {"text": None, "finish": "tool_calls", "raw_finish": "tool_calls"}


def streamed_reasoning(exchange: Exchange) -> str:
    return recorded_reasoning(exchange.name)


async def reasons_before_the_call(exchange: Exchange, response: ChatResponse) -> None:
    assert response.result.output.reasoning.startswith("We need to call the function")  # type: ignore[union-attr]


async def keeps_the_cost(exchange: Exchange, response: ChatResponse) -> None:
    assert response.usage.native_usage["cost"] == 0.001008


async def keeps_the_cache_misses(exchange: Exchange, response: ChatResponse) -> None:
    assert response.usage.native_usage["prompt_cache_miss_tokens"] == 407


#: Every recorded reply (by file name), the fields it parses to and its own checks.
REPLIES = {
    "002-groq-stream-tool-call-single-chunk": reply(
        reasons_before_the_call,
        **TOOL_CALLS,
        reasoning=streamed_reasoning,
        calls=[
            (
                "fc_bfb39741-3748-4def-9886-a93fc9c64a90",
                "get_something_by_name",
                {"name": "example"},
            )
        ],
        usage=(304, 49, 353, None, None),
        id="chatcmpl-e35442a8-12c0-4fb4-8be4-0e51727ce7b7",
        model="openai/gpt-oss-120b",
        metadata={
            "created": 1771434740,
            "system_fingerprint": "fp_caa2017b29",
            "reasoning_tokens": 23,
        },
        native_usage={
            "queue_time": 0.00491786,
            "prompt_tokens": 304,
            "prompt_time": 0.01460151,
            "completion_tokens": 49,
            "completion_time": 0.11216431,
            "total_tokens": 353,
            "total_time": 0.12676582,
            "completion_tokens_details": {"reasoning_tokens": 23},
        },
    ),
    "004-openrouter-stream-comments-and-error": reply(
        text=None,
        reasoning="We need to respond to a greeting. The user",
        finish="length",
        raw_finish="length",
        generation_metadata={"native_finish_reason": "length"},
        usage=(43, 10, 53, 0, None),
        id="gen-1762179802-UN8pkJI4AGZvryk0kFnb",
        model="minimax/minimax-m2:free",
        # The error came after the length finish: kept, not raised.
        metadata={
            "created": 1762179802,
            "provider": "Minimax",
            "reasoning_tokens": 11,
            "error": {"code": 400, "message": "Token limit reached"},
        },
    ),
    "006-openrouter-stream-tool-call": reply(
        keeps_the_cost,
        **TOOL_CALLS,
        calls=[("toolu_bdrk_01FnJwNhnbF7UbXLQGHJ5dda", "weather", WEATHER_ARGS)],
        generation_metadata={"native_finish_reason": "tool_use"},
        usage=(633, 75, 708, 0, 0),
        id="gen-1780944556-miRHpYrMqwlqZtVoXXKe",
        model="anthropic/claude-4.5-haiku-20251001",
        metadata={"created": 1780944556, "provider": "Amazon Bedrock", "reasoning_tokens": 0},
    ),
    "007-openrouter-kimi-stream-tool-call": reply(
        **TOOL_CALLS,
        calls=[("llm_version:0", "llm_version", {})],
        generation_metadata={"native_finish_reason": "tool_calls"},
        usage=(56, 12, 68, 0, None),
        id="gen-1753248108-FGOxpkEzFEwhNKSPpI4a",
        model="moonshotai/kimi-k2",
        metadata={
            "created": 1753248108,
            "system_fingerprint": "fpv0_170758dd",
            "provider": "Novita",
            "reasoning_tokens": 0,
        },
    ),
    "008-deepseek-parallel-tool-calls-with-text": reply(
        keeps_the_cache_misses,
        text="Let me look up both pieces of information for you!",
        finish="tool_calls",
        raw_finish="tool_calls",
        calls=[
            ("call_00_PY4jZerU5C9MoO3wQIwi1346", "weather", WEATHER_ARGS),
            ("call_01_TyBfcy9ufcThybwyvzrZ6553", "best_language_to_learn", {}),
        ],
        usage=(407, 94, 501, 0, None),
        id="cadc729c-a715-41b8-b6f9-b79ba17d83e5",
        model="deepseek-v4-flash",
        metadata={
            "created": 1780944364,
            "system_fingerprint": "fp_8b330d02d0_prod0820_fp8_kvcache_20260402",
        },
    ),
    # The content deltas are all "": no text.
    "009-deepseek-stream-tool-call": reply(
        **TOOL_CALLS,
        calls=[("call_00_MRi7F2sfOet5LgvlZL3W5236", "weather", WEATHER_ARGS)],
        usage=(348, 65, 413, 0, None),
        id="4fdc4d8c-bc64-4776-8e72-13bf76a27cb3",
        model="deepseek-v4-flash",
        metadata={
            "created": 1780944532,
            "system_fingerprint": "fp_8b330d02d0_prod0820_fp8_kvcache_20260402",
        },
    ),
    "010-mistral-stream-tool-call-whole": reply(
        **TOOL_CALLS,
        calls=[("g6fVbXS8K", "weather", WEATHER_ARGS)],
        usage=(159, 28, 187, 128, None),
        id="95e349e3e7c04cc6b2c1700095d121f7",
        model="mistral-small-latest",
        metadata={"created": 1787150178},
    ),
    # Content "" means no text.
    "012-ollama-v1-parallel-tool-calls-reasoning": reply(
        **TOOL_CALLS,
        reasoning=lambda exchange: exchange.response["body"]["choices"][0]["message"]["reasoning"],
        calls=[
            ("call_blwig54z", "weather", WEATHER_ARGS),
            ("call_k7oscaqs", "best_language_to_learn", {}),
        ],
        usage=(235, 320, 555, None, None),
        id="chatcmpl-613",
        model="qwen3",
        metadata={"created": 1780944377, "system_fingerprint": "fp_ollama"},
    ),
    "013-ollama-cloud-v1-stream-tool-call": reply(
        **TOOL_CALLS,
        reasoning="We need to call weather function with latitude and longitude. Provide as strings.",
        calls=[("call_x7rn5sl5", "weather", WEATHER_ARGS)],
        usage=(169, 55, 224, None, None),
        id="chatcmpl-873",
        model="gpt-oss:120b",
        metadata={"created": 1786615906, "system_fingerprint": "fp_ollama"},
    ),
}


@pytest.mark.parametrize("name", list(REPLIES))
async def test_recorded_reply(name: str):
    exchange = load(FOLDER, f"{name}.json")
    await REPLIES[name].check(exchange, await replay(exchange))


async def test_001_groq_stream_error_event():
    exchange = load(FOLDER, "001-groq-stream-error-event.json")
    model, sent = replay_model(exchange, max_retries=2)
    delivered: list[ChatResponse] = []

    async def consume() -> None:
        prompt = recorded_prompt(exchange.request["body"])
        async with aclosing(model.stream(prompt)) as stream:
            async for chunk in stream:
                delivered.append(chunk)

    with pytest.raises(BadRequestError) as caught:
        await consume()
    await model.aclose()
    check_request(exchange, sent[0])
    assert len(sent) == 1  # data was delivered: never retried
    error = caught.value
    assert (error.provider, error.status, error.error_type, error.code) == (
        "openai",
        400,
        "invalid_request_error",
        "tool_use_failed",
    )
    assert "parameters for tool get_something_by_name did not match schema" in str(error)
    assert "failed generation:" in str(error)
    reasoning = "".join(c.result.output.reasoning or "" for c in delivered if c.result)
    assert reasoning == recorded_reasoning("001-groq-stream-error-event.json")
    assert all(c.text is None for c in delivered)


#: Every recorded error reply (by file name): what replaying it raises.
ERRORS = {
    "003-groq-error-400-tool-use-failed": RecordedError(
        BadRequestError,
        400,
        "invalid_request_error",
        "tool_use_failed",
        "openai error 400 (invalid_request_error/tool_use_failed): Tool call validation "
        "failed: tool call validation failed: parameters for tool get_something_by_name did "
        "not match schema: errors: [missing properties: 'name', additionalProperties 'foo' "
        'not allowed] [failed generation: {"name": "get_something_by_name", "arguments": '
        '{\n  "foo": "bar"\n}}]',
    ),
    "005-openrouter-error-429-upstream": RecordedError(
        RateLimitError,
        429,
        None,
        "429",
        (
            "Provider returned error",
            "Google: google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream",
        ),
    ),
    "011-mistral-error-401-detail": RecordedError(
        AuthenticationError, 401, None, None, "openai error 401: Invalid API Key"
    ),
    "014-azure-foundry-error-429-retry-after": RecordedError(
        RateLimitError,
        429,
        None,
        "RateLimitReached",
        ("have exceeded rate limit",),
        retry_after=1.0,  # retry-after: 1 (retry-after-ms: 0 says nothing)
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
async def test_recorded_error(name: str):
    with pytest.raises(ModelError) as caught:
        await replay(load(FOLDER, f"{name}.json"))
    ERRORS[name].check(caught.value, provider="openai", key="sk-wire-test")
