"""Every exchange in ``tests/wire/openai/`` replayed field by field.

Each test rebuilds the prompt the recorded request came from, checks that the adapter sent
exactly the recorded body, and checks every field of the parsed response (or error).
"""

from __future__ import annotations

import json
from typing import NamedTuple

import pytest

from ostinato.errors import AuthenticationError, BadRequestError, ModelError, NotFoundError
from tests.plugins.openai.expect import expect_response, replay, replay_chunks
from tests.plugins.openai.wire import exchange_names, load
from tests.plugins.recorded_replay import RecordedError

FOLDER = "openai"
_DURATIONS = {"12ms": 0.012, "0s": 0.0, "1ms": 0.001}


def openai_rate_limit(remaining_tokens: int, reset_tokens: str = "0s") -> dict[str, object]:
    """The rate limit every recorded OpenAI reply reports (only two values vary)."""
    return {
        "requests_limit": 5000,
        "requests_remaining": 4999,
        "requests_reset": 0.012,
        "tokens_limit": 2000000,
        "tokens_remaining": remaining_tokens,
        "tokens_reset": _DURATIONS[reset_tokens],
    }


def usage_of(exchange_name: str) -> dict[str, object]:
    """The recorded usage object (native usage is kept as is)."""
    exchange = load(FOLDER, exchange_name)
    if exchange.response["body"] is not None:
        return dict(exchange.response["body"]["usage"])
    for line in exchange.response["body_text"].splitlines():
        if line.startswith("data: {") and '"usage":{' in line:
            return dict(json.loads(line[6:])["usage"])
    raise AssertionError("no usage recorded")


def test_every_file_is_covered():
    names = exchange_names(FOLDER)
    covered = {f"{n:03d}" for n in range(1, 13)}
    assert {name[:3] for name in names} == covered


NANO = "gpt-5-nano-2025-08-07"
BERLIN = {"latitude": "52.5200", "longitude": "13.4050"}


class Nano(NamedTuple):
    """What one gpt-5-nano reply of the corpus reads as, beside what they all share (the
    model, the ``default`` service tier, the rate-limit figures, a cache-read count of 0,
    and a finish of ``tool_calls`` exactly when it calls tools)."""

    text: str | None  # RECORDED: the text the recording holds
    usage: tuple[int, int, int]  # prompt, completion, total tokens
    id: str  # after "chatcmpl-"
    created: int
    reasoning_tokens: int
    tokens_remaining: int
    tokens_reset: str = "0s"
    calls: tuple[tuple[str, str, dict[str, str]], ...] = ()


RECORDED = "(the recorded text)"
REPLIES = {
    "001-text-basic.json": Nano(
        "4", (13, 138, 151), "DoZHjjB4VYY8sNCRd9XvomLmenRjK", 1780944407, 128, 1999994
    ),
    "002-tool-call-single.json": Nano(
        None,
        (169, 160, 329),
        "DoZGkW92bJs1WYrrlED1pRiYvqKTR",
        1780944346,
        128,
        1999986,
        calls=(("call_wt1a0BOrZKusGEuAeJpFIFej", "weather", BERLIN),),
    ),
    "003-tool-result-followup.json": Nano(
        "Berlin (52.5200, 13.4050): 15°C, Wind 10 km/h.",
        (230, 352, 582),
        "DoZGmtmOxW8K54QE6N1WkonXYZZhZ",
        1780944348,
        320,
        1999969,
    ),
    "004-parallel-tool-calls.json": Nano(
        None,
        (194, 255, 449),
        "DoZHQdDpZGtVlN3pc2UBwGHRvCnvf",
        1780944388,
        192,
        1999976,
        calls=(
            ("call_GOotzq3y3C45fdLNjm8SXXRo", "weather", BERLIN),
            ("call_6IvZGzhTPoSUAGUWnRx0po6X", "best_language_to_learn", {}),
        ),
    ),
    "005-parallel-tool-results-followup.json": Nano(
        RECORDED, (294, 256, 550), "DoZHUY1JVkWt60jPOCnpLaitMXooc", 1780944392, 192, 1999958, "1ms"
    ),
    "006-stream-text-usage.json": Nano(
        "1\n2\n3", (13, 142, 155), "DoZGwo7RT9RGQpIKxv7lOQs0f0GnJ", 1780944358, 128, 1999993
    ),
    "007-stream-tool-call-fragmented.json": Nano(
        None,
        (169, 96, 265),
        "DoZJxpcpqjj3ezopmsA45df95Ts6t",
        1780944545,
        64,
        1999986,
        calls=(("call_N2fJZh6fGguUrjbTlDD9mkbh", "weather", BERLIN),),
    ),
    "008-stream-tool-call-no-arguments.json": Nano(
        None,
        (139, 150, 289),
        "DoZJDjMg652DYyuGTyT7DnXEd3k7I",
        1780944499,
        128,
        1999979,
        calls=(("call_TUkbUb0gIeBdIOHbrszf5mHx", "best_language_to_learn", {}),),
    ),
    "009-structured-output-json-schema.json": Nano(
        '{"name":"John","age":30}',
        (49, 533, 582),
        "DoZGur4Lx0h6DjFx7HMype95dO37O",
        1780944356,
        512,
        1999986,
    ),
}


@pytest.mark.parametrize("name", REPLIES, ids=lambda name: name[:3])
async def test_every_field_of_the_reply(name: str):
    reply = REPLIES[name]
    exchange = load(FOLDER, name)
    text = reply.text
    if text == RECORDED:
        text = exchange.response["body"]["choices"][0]["message"]["content"]
    finish = "tool_calls" if reply.calls else "stop"
    expect_response(
        await replay(exchange),
        text=text,
        calls=reply.calls,
        finish=finish,
        raw_finish=finish,
        usage=(*reply.usage, 0, None),
        id=f"chatcmpl-{reply.id}",
        model=NANO,
        metadata={
            "created": reply.created,
            "service_tier": "default",
            "reasoning_tokens": reply.reasoning_tokens,
        },
        rate_limit=openai_rate_limit(reply.tokens_remaining, reply.tokens_reset),
        native_usage=usage_of(name),
    )


async def test_002_a_single_tool_call_is_a_tool_call():
    response = await replay(load(FOLDER, "002-tool-call-single.json"))
    assert response.has_tool_calls()


async def test_004_parallel_tool_call_arguments_are_kept_as_written():
    response = await replay(load(FOLDER, "004-parallel-tool-calls.json"))
    # The arguments are kept exactly as the model wrote them.
    calls = response.result.output.tool_calls  # type: ignore[union-attr]
    assert calls[0].arguments == '{"latitude": "52.5200", "longitude": "13.4050"}'
    assert calls[1].arguments == "{}"


async def test_005_parallel_tool_results_followup_text():
    response = await replay(load(FOLDER, "005-parallel-tool-results-followup.json"))
    assert response.text is not None
    assert response.text.startswith("- Berlin weather (52.5200, 13.4050): 15°C")


async def test_006_stream_text_usage_chunks():
    exchange = load(FOLDER, "006-stream-text-usage.json")
    chunks, _ = await replay_chunks(exchange)
    assert [c.text for c in chunks if c.text] == ["1", "\n", "2", "\n", "3"]
    # The usage-only final chunk (choices: []) has no generation but carries the usage.
    assert chunks[-1].generations == ()
    assert chunks[-1].usage.total_tokens == 155


async def test_007_stream_tool_call_fragments():
    exchange = load(FOLDER, "007-stream-tool-call-fragmented.json")
    chunks, _ = await replay_chunks(exchange)
    fragments = [
        call for chunk in chunks for g in chunk.generations for call in g.output.tool_calls
    ]
    assert len(fragments) == 16  # the first (id, name, "") and 15 argument pieces
    assert all(f.index == 0 for f in fragments)
    assert fragments[0].id == "call_N2fJZh6fGguUrjbTlDD9mkbh"
    assert fragments[0].name == "weather"
    assert all(f.id == "" and f.name == "" for f in fragments[1:])


async def test_008_stream_tool_call_without_arguments_gets_an_empty_object():
    response = await replay(load(FOLDER, "008-stream-tool-call-no-arguments.json"))
    assert response.result.output.tool_calls[0].arguments == "{}"  # type: ignore[union-attr]


async def test_009_structured_output_is_the_json_asked_for():
    response = await replay(load(FOLDER, "009-structured-output-json-schema.json"))
    assert json.loads(response.text or "") == {"name": "John", "age": 30}


#: Every recorded error (by file name): what replaying it raises.
ERRORS = {
    "010-error-400-unsupported-value.json": RecordedError(
        BadRequestError,
        400,
        "invalid_request_error",
        "unsupported_value",
        "openai error 400 (invalid_request_error/unsupported_value): Unsupported value: "
        "'messages[0].role' does not support 'system' with this model. "
        "[param: messages[0].role]",
    ),
    "011-error-401-invalid-api-key.json": RecordedError(
        AuthenticationError,
        401,
        "invalid_request_error",
        "invalid_api_key",
        ("Incorrect API key provided: invalid-key.",),
    ),
    "012-error-404-model-not-found.json": RecordedError(
        NotFoundError,
        404,
        "invalid_request_error",
        "model_not_found",
        ("The model `gpt-5.2-proo` does not exist",),
    ),
}


@pytest.mark.parametrize("name", ERRORS, ids=lambda name: name[:3])
async def test_recorded_error(name: str):
    with pytest.raises(ModelError) as caught:
        await replay(load(FOLDER, name))
    ERRORS[name].check(caught.value, provider="openai", key="sk-wire-test")
